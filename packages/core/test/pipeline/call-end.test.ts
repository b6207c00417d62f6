// The `tool_result` of an async call on a run with an abort signal, or under a time limit, is recorded by the
// tool's stage as the call settles (pipeline.ts `CallEnd`, `RecordedEnd`; pipeline/outcome.ts `AbortRace`;
// pipeline/time-limit.ts `TimeLimit`), not by the caller a promise later. Whoever records it, a call leaves one
// `tool_result`, with the result its caller gets.
import { z } from 'zod';
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type RunEvent, type ToolResult } from '@anytool/core';
import { TOOL_STAGE, type CallEnd } from '../../src/pipeline/pipeline';

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

  it('is taken by the stage of an async call on a run with a signal, which finishes it once and resolves with what it returns', async () => {
    const double = tool(async ({ n }: { n: number }) => n * 2, { name: 'double', description: 'Doubles.', parameters });
    const calls: string[] = [];
    const recorded = { content: [{ type: 'text' as const, text: 'as recorded' }] } as ToolResult;
    const end: CallEnd = {
      take: () => (calls.push('take'), end),
      finish: (result) => (calls.push(`finish ${resultText(result)}`), recorded),
    };
    const stage = (double as unknown as Record<typeof TOOL_STAGE, (...args: unknown[]) => Promise<ToolResult> | ToolResult>)[TOOL_STAGE];
    const { context } = run();
    const out = stage.call(double, context, 'call_1', { n: 5 }, undefined, end);
    expect(calls).toEqual(['take']);
    expect(await out).toBe(recorded);
    expect(calls).toEqual(['take', 'finish 10']);
  });

  it('given to a stage called twice (a tool whose own stage runs the inherited one again) settles both calls, and is recorded once', async () => {
    const double = tool(async ({ n }: { n: number }) => n * 2, { name: 'double', description: 'Doubles.', parameters });
    const stage = (double as unknown as Record<typeof TOOL_STAGE, (...args: unknown[]) => Promise<ToolResult>>)[TOOL_STAGE];
    // The same call twice, with the same end: both must settle.
    Object.defineProperty(double, TOOL_STAGE, {
      value: (...args: unknown[]) => Promise.all([stage.call(double, ...args), stage.call(double, ...args)]).then(([first]) => first),
    });
    const { context } = run();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      new Toolset(double).invoke('double', { n: 4 }, context),
      new Promise((resolve) => (timer = setTimeout(() => resolve('unsettled'), 1_000))),
    ]);
    clearTimeout(timer);
    expect(resultText(outcome as ToolResult)).toBe('8');
    expect(ends(context)).toHaveLength(1);
  });

  it.each([
    ['', {}],
    [', under a time limit', { timeoutMs: 60_000 }],
  ])("given to a stage called twice bounds both calls' error results to the call's maxErrorChars%s", async (_, limit) => {
    const failing = tool(
      async (_: { n: number }): Promise<number> => {
        throw new Error('x'.repeat(5_000));
      },
      { name: 'failing', description: 'Fails.', parameters },
    );
    const stage = (failing as unknown as Record<typeof TOOL_STAGE, (...args: unknown[]) => Promise<ToolResult>>)[TOOL_STAGE];
    const seen: ToolResult[] = [];
    Object.defineProperty(failing, TOOL_STAGE, {
      value: (...args: unknown[]) => Promise.all([stage.call(failing, ...args), stage.call(failing, ...args)]).then((both) => (seen.push(...both), both[0])),
    });
    const { context } = run();
    await new Toolset(failing).invoke('failing', { n: 1 }, context, { maxErrorChars: 300, ...limit });
    expect(seen).toHaveLength(2);
    for (const result of seen) expect(resultText(result).length).toBeLessThan(600);
    expect(ends(context)).toHaveLength(1);
  });

  it("carries the id, name and start of the call's recorded tool_call, whether the stage or the caller records it", async () => {
    const sync = tool(({ n }: { n: number }) => n, { name: 'sync', description: 'Now.', parameters });
    const later = tool(async ({ n }: { n: number }) => n, { name: 'later', description: 'Later.', parameters });
    const { context } = run();
    // A listener that renames the call in its event: the end follows the event, on both paths.
    context.subscribe((event) => {
      if (event.type === 'tool_call') event.callId = `${event.callId}-seen`;
    });
    const toolset = new Toolset(sync, later);
    await toolset.invoke('sync', { n: 1 }, context);
    await toolset.invoke('later', { n: 2 }, context);
    const calls = context.events.filter((e) => e.type === 'tool_call').map((e) => e.callId);
    expect(calls).toEqual(['call_1-seen', 'call_2-seen']);
    expect(ends(context).map((e) => e.callId)).toEqual(calls);
  });

  it('under a time limit (as an agent calls, with its default limit) is recorded once, by the deadline when it comes first', async () => {
    const double = tool(async ({ n }: { n: number }) => n * 2, { name: 'double', description: 'Doubles.', parameters });
    const never = tool((_: { n: number }) => new Promise<number>(() => undefined), { name: 'never', description: 'Never ends.', parameters });
    const toolset = new Toolset(double, never);
    const { context } = run();
    expect(resultText(await toolset.invoke('double', { n: 2 }, context, { defaultTimeoutMs: 60_000 }))).toBe('4');
    const timedOut = await toolset.invoke('never', { n: 2 }, context, { timeoutMs: 20 });
    expect(timedOut).toMatchObject({ isError: true, error: { code: ErrorCode.Timeout } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ends(context).map((e) => e.tool)).toEqual(['double', 'never']);
    expect(ends(context)[1]!.result).toBe(timedOut);
  });

  it("of a tool whose Standard Schema checks its arguments first (the build step's preparers) is recorded once", async () => {
    const double = tool(async ({ n }) => n * 2, { name: 'double', description: 'Doubles.', parameters: z.object({ n: z.number() }) });
    const { context } = run();
    expect(resultText(await new Toolset(double).invoke('double', { n: 3 }, context))).toBe('6');
    expect(ends(context)).toHaveLength(1);
  });

  it('settles when its error result cannot be bounded: a maxErrorChars getter that throws when read again', async () => {
    const failing = tool(
      async (_: { n: number }): Promise<number> => {
        throw new Error('x'.repeat(5_000));
      },
      { name: 'failing', description: 'Fails.', parameters },
    );
    let reads = 0;
    const options = {
      get maxErrorChars(): number {
        reads += 1;
        if (reads > 1) throw new Error('read again');
        return 300;
      },
    };
    const { context } = run();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      new Toolset(failing).invoke('failing', { n: 1 }, context, options),
      new Promise((resolve) => (timer = setTimeout(() => resolve('unsettled'), 1_000))),
    ]);
    clearTimeout(timer);
    expect(outcome).toMatchObject({ isError: true });
  });
});
