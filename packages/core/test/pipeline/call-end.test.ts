// The `tool_result` of an async call on a run with an abort signal is recorded by the tool's stage as the
// call settles (pipeline.ts `CallEnd`, base-tool.ts `AbortRace`), not by the caller a promise later. Whoever
// records it, a call leaves one `tool_result`, with the result its caller gets.
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type RunEvent, type ToolResult } from '@anytool/core';
import { TOOL_STAGE } from '../../src/pipeline/pipeline';

const parameters = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } as const;

const ends = (context: ExecutionContext): Extract<RunEvent, { type: 'tool_result' }>[] =>
  context.events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');

function run(): { context: ExecutionContext; controller: AbortController } {
  const controller = new AbortController();
  return { context: new ExecutionContext({ signal: controller.signal }), controller };
}

describe("an async call's end", () => {
  it('is recorded once, as the call settles, with the result its caller gets', async () => {
    const double = tool(async ({ n }: { n: number }) => n * 2, { name: 'double', description: 'Doubles.', parameters });
    const { context } = run();
    const result = await new Toolset(double).invoke('double', '{"n":21}', context);
    expect(resultText(result)).toBe('42');
    expect(context.events.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
    expect(ends(context)[0]).toMatchObject({ tool: 'double', callId: (context.events[0] as { callId?: string }).callId, result });
    expect(ends(context)[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("cuts an error result to the call's maxErrorChars in the event and the result alike", async () => {
    const failing = tool(
      async (_: { n: number }): Promise<number> => {
        throw new Error('x'.repeat(5_000));
      },
      { name: 'failing', description: 'Fails.', parameters },
    );
    const { context } = run();
    const result = await new Toolset(failing).invoke('failing', { n: 1 }, context, { maxErrorChars: 300 });
    expect(result.isError).toBe(true);
    expect(resultText(result).length).toBeLessThan(600);
    expect(ends(context)).toHaveLength(1);
    expect(ends(context)[0]!.result).toBe(result);
  });

  it('of a call that ignores the abort is the aborted result, recorded once: the outcome that comes later adds nothing', async () => {
    let finish!: (value: number) => void;
    let began!: () => void;
    const started = new Promise<void>((resolve) => (began = resolve));
    const stubborn = tool(
      async (_: { n: number }) => {
        began();
        return new Promise<number>((done) => (finish = done));
      },
      { name: 'stubborn', description: 'Ignores its signal.', parameters },
    );
    const toolset = new Toolset(stubborn);
    const { context, controller } = run();
    const call = toolset.invoke('stubborn', { n: 1 }, context);
    await started;
    controller.abort(new Error('the user left'));
    const result = await call;
    expect(result).toMatchObject({ isError: true, error: { code: ErrorCode.Aborted } });
    finish(7);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ends(context)).toHaveLength(1);
    expect(ends(context)[0]!.result).toBe(result);
  });

  it('of a call on a run aborted by the tool itself, before it returns its promise, is recorded once', async () => {
    const { context, controller } = run();
    const quitter = tool(
      async (_: { n: number }) => {
        controller.abort();
        return 1;
      },
      { name: 'quitter', description: 'Aborts its own run.', parameters },
    );
    const result = await new Toolset(quitter).invoke('quitter', { n: 1 }, context);
    expect(result).toMatchObject({ isError: true, error: { code: ErrorCode.Aborted } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ends(context)).toHaveLength(1);
  });

  it("is recorded by the caller when the tool's stage leaves it (a stage of an older copy of core)", async () => {
    const double = tool(async ({ n }: { n: number }) => n * 2, { name: 'double', description: 'Doubles.', parameters });
    const stage = (double as unknown as Record<typeof TOOL_STAGE, (...args: unknown[]) => Promise<ToolResult>>)[TOOL_STAGE];
    // The stage of a copy that knows nothing of the call's end: it is called without it.
    Object.defineProperty(double, TOOL_STAGE, { value: (...args: unknown[]) => stage.call(double, ...args.slice(0, 4)) });
    const { context } = run();
    const result = await new Toolset(double).invoke('double', { n: 4 }, context);
    expect(resultText(result)).toBe('8');
    expect(ends(context)).toHaveLength(1);
    expect(ends(context)[0]!.result).toBe(result);
  });
});
