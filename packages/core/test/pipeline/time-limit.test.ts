// A call under a time limit (pipeline/time-limit.ts): the signal the tool sees aborts at the deadline or with
// the run, and stops following the run once the call has ended; the limit ends the call on the run's abort
// unless the tool's own promise settles then (an MCP call's does); its end is recorded once.
import { BaseTool, ErrorCode, ExecutionContext, Toolset, resultText, tool, type ToolResult } from '@anytool/core';

const parameters = { type: 'object', properties: {}, additionalProperties: false } as const;
const LIMIT = { callId: 'c1', defaultTimeoutMs: 60_000 };

function run(): { context: ExecutionContext; controller: AbortController } {
  const controller = new AbortController();
  return { context: new ExecutionContext({ signal: controller.signal }), controller };
}

/** A tool that never settles and keeps the signal it was given. */
function hanging(): { toolset: Toolset; seen: AbortSignal[] } {
  const seen: AbortSignal[] = [];
  const hang = tool(
    (_: Record<string, never>, context: ExecutionContext) => {
      seen.push(context.signal!);
      return new Promise<string>(() => undefined);
    },
    { name: 'hang', description: 'Never answers.', parameters, context: true },
  );
  return { toolset: new Toolset(hang), seen };
}

describe('a call under a time limit', () => {
  it("ends with ABORTED when the run aborts, and the tool's signal aborts with the run's reason", async () => {
    const { toolset, seen } = hanging();
    const { context, controller } = run();
    const pending = toolset.invoke('hang', {}, context, LIMIT);
    const reason = new Error('the user left');
    controller.abort(reason);
    const result = await pending;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    expect(resultText(result)).toBe('Tool "hang" was cancelled because the run was aborted.');
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.reason).toBe(reason);
    expect(context.events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
  });

  it('ends with TIMEOUT at the deadline, and only the signal the tool sees aborts', async () => {
    const { toolset, seen } = hanging();
    const { context } = run();
    const result = await toolset.invoke('hang', {}, context, { timeoutMs: 20 });
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(seen[0]!.aborted).toBe(true);
    expect(seen[0]!.reason).toMatchObject({ code: ErrorCode.Timeout });
    expect(context.signal!.aborted).toBe(false);
    expect(context.events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
  });

  it("no longer follows the run's signal once the call has ended, async or sync", async () => {
    const seen: AbortSignal[] = [];
    const keep = (_: Record<string, never>, context: ExecutionContext): string => {
      seen.push(context.signal!);
      return 'ok';
    };
    const sync = tool(keep, { name: 'sync', description: 'Answers at once.', parameters, context: true });
    const later = tool(async (args: Record<string, never>, context: ExecutionContext) => keep(args, context), {
      name: 'later',
      description: 'Answers a promise later.',
      parameters,
      context: true,
    });
    const { context, controller } = run();
    const toolset = new Toolset([sync, later]);
    expect(resultText(await toolset.invoke('sync', {}, context, LIMIT))).toBe('ok');
    expect(resultText(await toolset.invoke('later', {}, context, { ...LIMIT, callId: 'c2' }))).toBe('ok');
    controller.abort();
    expect(seen.map((signal) => signal.aborted)).toEqual([false, false]);
  });

  it("waits for a tool whose own promise settles on the run's abort, and ends with its outcome", async () => {
    class Cancellable extends BaseTool<Record<string, never>> {
      protected override settlesOnAbort = true;
      constructor() {
        super({ name: 'cancellable', description: 'Cancels itself.', parameters });
      }
      execute(context: ExecutionContext): Promise<string> {
        return new Promise((_resolve, reject) => {
          context.signal!.addEventListener('abort', () => setTimeout(() => reject(new Error('cancelled upstream')), 10), { once: true });
        });
      }
    }
    const { context, controller } = run();
    const pending = new Toolset(new Cancellable()).invoke('cancellable', {}, context, LIMIT);
    controller.abort();
    const result: ToolResult = await pending;
    expect(resultText(result)).toBe('Tool "cancellable" failed: cancelled upstream');
  });

  it('ends with ABORTED when the tool aborts its own run as it starts and never settles', async () => {
    const controller = new AbortController();
    const selfAbort = tool(
      () => {
        controller.abort();
        return new Promise<string>(() => undefined);
      },
      { name: 'self_abort', description: 'Aborts its run.', parameters },
    );
    const context = new ExecutionContext({ signal: controller.signal });
    const result = await new Toolset(selfAbort).invoke('self_abort', {}, context, LIMIT);
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    expect(context.events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
  });
});
