// A call under a time limit (pipeline/time-limit.ts): the signal the tool sees aborts at the deadline or with
// the run, and stops following the run once the call has ended; the limit ends the call on the run's abort
// unless the tool's own promise settles then (an MCP call's does); its end is recorded once. The deadlines of
// every call wait under one timer, which holds the process open only while a call waits.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { BaseTool, ErrorCode, ExecutionContext, Toolset, resultText, tool, type ToolResult } from '@anytool/core';
import { scaled } from '../helpers/time-scale';

const root = join(__dirname, '..', '..', '..', '..');

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

describe('a call under a time limit whose tool returns a promise with a then of its own that throws', () => {
  it('ends with TOOL_FAILED, recorded once, with or without an argument check first', async () => {
    const lying = (): Promise<string> => {
      const promise = Promise.resolve('fine');
      Object.defineProperty(promise, 'then', {
        value: () => {
          throw new Error('a hostile then');
        },
      });
      return promise;
    };
    const plain = tool(lying, { name: 'plain', description: 'Lies.', parameters });
    const checked = tool(lying, { name: 'checked', description: 'Lies after a zod check.', parameters: z.object({}) });
    const toolset = new Toolset([plain, checked]);
    for (const name of ['plain', 'checked']) {
      const { context } = run();
      const result = await toolset.invoke(name, {}, context, LIMIT);
      expect(result.error?.code).toBe(ErrorCode.ToolFailed);
      expect(resultText(result)).toBe(`Tool "${name}" failed: a hostile then`);
      expect(context.events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
    }
  });
});

describe('time limits under fake timers', () => {
  afterEach(() => jest.useRealTimers());

  it('end when the test advances the fake clock past them', async () => {
    const { toolset } = hanging();
    jest.useFakeTimers();
    const pending = toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 1_000 });
    await jest.advanceTimersByTimeAsync(1_000);
    expect((await pending).error?.code).toBe(ErrorCode.Timeout);
  });

  it('end under fake timers when a call under real timers came first', async () => {
    const quick = tool(async () => 'ok', { name: 'quick', description: 'Answers.', parameters });
    const toolset = new Toolset([quick, ...hanging().toolset.tools]);
    expect(resultText(await toolset.invoke('quick', {}, new ExecutionContext(), { timeoutMs: 60_000 }))).toBe('ok');
    jest.useFakeTimers();
    const pending = toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 1_500 });
    await jest.advanceTimersByTimeAsync(1_500);
    expect((await pending).error?.code).toBe(ErrorCode.Timeout);
  });

  it('end when the timers are advanced, with the clock not faked (legacy fake timers)', async () => {
    const { toolset } = hanging();
    jest.useFakeTimers({ legacyFakeTimers: true });
    const pending = toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 1_000 });
    jest.advanceTimersByTime(1_000);
    expect((await pending).error?.code).toBe(ErrorCode.Timeout);
  });

  it('leave a limit that waited under real timers to end at its deadline after them', async () => {
    const quick = tool(async () => 'ok', { name: 'quick', description: 'Answers.', parameters });
    const toolset = new Toolset([quick, ...hanging().toolset.tools]);
    const started = performance.now();
    const waiting = toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 300 });
    jest.useFakeTimers();
    expect(resultText(await toolset.invoke('quick', {}, new ExecutionContext(), { timeoutMs: 200 }))).toBe('ok');
    jest.useRealTimers();
    expect((await waiting).error?.code).toBe(ErrorCode.Timeout);
    expect(performance.now() - started).toBeLessThan(scaled(2_000));
  });

  it('leave nothing that holds back a time limit under real timers afterwards', async () => {
    const quick = tool(async () => 'ok', { name: 'quick', description: 'Answers.', parameters });
    const toolset = new Toolset([quick, ...hanging().toolset.tools]);
    jest.useFakeTimers();
    expect(resultText(await toolset.invoke('quick', {}, new ExecutionContext(), { timeoutMs: 200 }))).toBe('ok');
    jest.useRealTimers();
    const started = performance.now();
    const result = await toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 300 });
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(performance.now() - started).toBeLessThan(scaled(5_000));
  });
});

describe('the deadlines of calls in flight, under one timer', () => {
  it('a shorter limit that comes after a longer one ends at its own deadline', async () => {
    const { toolset } = hanging();
    const { context, controller } = run();
    const long = toolset.invoke('hang', {}, context, { timeoutMs: 60_000 });
    const started = performance.now();
    const short = await toolset.invoke('hang', {}, context, { timeoutMs: 40 });
    expect(short.error?.code).toBe(ErrorCode.Timeout);
    expect(performance.now() - started).toBeLessThan(scaled(5_000));
    controller.abort();
    expect((await long).error?.code).toBe(ErrorCode.Aborted);
  });

  it('a later deadline still comes when the call of an earlier one has settled', async () => {
    const quick = tool(async () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), 10)), {
      name: 'quick',
      description: 'Answers soon.',
      parameters,
    });
    const toolset = new Toolset([quick, ...hanging().toolset.tools]);
    const started = performance.now();
    const [first, second] = await Promise.all([
      toolset.invoke('quick', {}, new ExecutionContext(), { timeoutMs: 50 }),
      toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 150 }),
    ]);
    expect(resultText(first)).toBe('ok');
    expect(second.error?.code).toBe(ErrorCode.Timeout);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(scaled(5_000));
  });

  it('many calls with one limit all end at it', async () => {
    const { toolset } = hanging();
    const results = await Promise.all(Array.from({ length: 50 }, () => toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 30 })));
    expect(results.map((r) => r.error?.code)).toEqual(Array(50).fill(ErrorCode.Timeout));
  });

  it('a call started by what a deadline ran does not hold back a deadline already waiting', async () => {
    const { toolset, seen } = hanging();
    const { context, controller } = run();
    let later: Promise<ToolResult> | undefined;
    const first = toolset.invoke('hang', {}, context, { timeoutMs: 30 });
    // The first call's signal aborts as its deadline comes: a listener starts a call with a distant deadline then.
    seen[0]!.addEventListener('abort', () => (later = toolset.invoke('hang', {}, context, { timeoutMs: 60_000 })), { once: true });
    const started = performance.now();
    const second = await toolset.invoke('hang', {}, context, { timeoutMs: 120 });
    expect(second.error?.code).toBe(ErrorCode.Timeout);
    expect(performance.now() - started).toBeLessThan(scaled(5_000));
    expect((await first).error?.code).toBe(ErrorCode.Timeout);
    controller.abort();
    expect((await later!).error?.code).toBe(ErrorCode.Aborted);
  });

  /** Runs `script` (an ES module importing @anytool/core) in a fresh Node process; what it printed, and after how long. */
  function runScript(script: string): Promise<{ stdout: string; ms: number }> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: root, timeout: scaled(60_000) }, (error, stdout) =>
        error ? reject(error) : resolve({ stdout: stdout.trim(), ms: performance.now() - started }),
      );
    });
  }

  const PRELUDE = `import { ExecutionContext, Toolset, tool } from '@anytool/core';
    const parameters = { type: 'object', properties: {}, additionalProperties: false };`;

  it(
    'hold a process open while a call waits, and not after',
    async () => {
      // A call whose tool never settles, with nothing else to do: the process waits for its deadline. (Its deadline
      // comes after the timer's, armed for an earlier call that has answered since.)
      const waits = await runScript(`${PRELUDE}
      const quick = tool(async () => 'ok', { name: 'quick', description: 'x', parameters });
      const hang = tool(() => new Promise(() => undefined), { name: 'hang', description: 'x', parameters });
      const toolset = new Toolset([quick, hang]);
      await toolset.invoke('quick', {}, new ExecutionContext(), { timeoutMs: 1000 });
      const result = await toolset.invoke('hang', {}, new ExecutionContext(), { timeoutMs: 1500 });
      console.log(result.error.code);`);
      expect(waits.stdout).toBe(ErrorCode.Timeout);
      // A call that answered: its limit (a minute) does not keep the process.
      const done = await runScript(`${PRELUDE}
      const quick = tool(async () => 'ok', { name: 'quick', description: 'x', parameters });
      const result = await new Toolset(quick).invoke('quick', {}, new ExecutionContext(), { callId: 'c1', defaultTimeoutMs: 60000 });
      console.log(result.content[0].text);`);
      expect(done.stdout).toBe('ok');
      expect(done.ms).toBeLessThan(scaled(10_000));
    },
    scaled(120_000),
  );
});
