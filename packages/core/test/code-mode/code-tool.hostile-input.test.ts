// Hostile programs in the code runner: each settles with a coded result within the limit it names, and the host
// stays healthy (the same runner runs a plain program after it, a direct call still works, nothing of the host is
// reachable from the sandbox).
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type ToolResult } from '@anytool/core';
import { codeTool } from '@anytool/core/code-mode';
import { scaled } from '../helpers/time-scale';

jest.setTimeout(scaled(120_000));

/** The time limit of the programs here: short, so a loop that runs to it costs the suite little. */
const TIME_LIMIT_MS = 1_000;
/** What a program that ends at a limit may take past it: the teardown, and a native operation the interrupt handler cannot stop mid-way. */
const SLACK_MS = scaled(10_000);

let calls = 0;
const toolset = new Toolset(
  tool(
    (args: { n?: number }) => {
      calls++;
      return { n: args.n ?? 0 };
    },
    { name: 'echo', description: 'Echoes n.', parameters: { type: 'object', properties: { n: { type: 'number' } } } },
  ),
  tool(() => new Promise(() => {}), { name: 'hang', description: 'Never answers.', parameters: { type: 'object', properties: {} } }),
);
const limits = { timeoutMs: TIME_LIMIT_MS, memoryBytes: 16 * 1024 * 1024, maxToolCalls: 50, maxOutputChars: 10_000 };
const runner = codeTool(toolset, limits);
/** The memory bombs' runner: time enough that the memory limit is the one reached, even on a loaded machine. */
const MEMORY_TIME_LIMIT_MS = 30_000;
const memoryRunner = codeTool(toolset, { ...limits, timeoutMs: MEMORY_TIME_LIMIT_MS });

afterAll(() => {
  runner.dispose();
  memoryRunner.dispose();
});

async function settle(code: string, on = runner): Promise<{ result: ToolResult; ms: number; context: ExecutionContext }> {
  const context = new ExecutionContext();
  const started = performance.now();
  const result = await on.invoke(context, { code });
  return { result, ms: performance.now() - started, context };
}

/** The host after a hostile program: the runner runs a plain program, and a direct call works. */
async function expectHealthy(): Promise<void> {
  const { result } = await settle('const r = await tools.echo({ n: 41 }); return r.n + 1;');
  expect(resultText(result)).toBe('42');
  expect(resultText(await toolset.invoke('echo', { n: 1 }))).toBe('{"n":1}');
}

const cases: Array<{ name: string; code: string; expected: ErrorCode; text: RegExp; bound: number; memory?: true }> = [
  {
    name: 'an infinite loop ends at the time limit',
    code: 'while (true) {}',
    expected: ErrorCode.CodeTimeLimit,
    text: /time limit of 1000 ms/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'an infinite loop that catches every error still ends at the time limit',
    code: 'for (;;) { try { while (true) {} } catch (e) {} }',
    expected: ErrorCode.CodeTimeLimit,
    text: /time limit/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a memory bomb ends at the memory limit',
    code: 'const a = []; for (;;) a.push({ i: a.length, s: "x" + a.length });',
    expected: ErrorCode.CodeMemoryLimit,
    text: /out of memory \(its limit is 16 MiB\)/,
    bound: MEMORY_TIME_LIMIT_MS,
    memory: true,
  },
  {
    name: 'a string that doubles ends at the memory limit',
    code: 'let s = "x"; for (;;) s += s;',
    expected: ErrorCode.CodeMemoryLimit,
    text: /memory/,
    bound: MEMORY_TIME_LIMIT_MS,
    memory: true,
  },
  {
    name: 'deep recursion ends at the stack limit',
    code: 'function down(n) { return down(n + 1) + 1; }\nreturn down(0);',
    expected: ErrorCode.CodeMemoryLimit,
    text: /recursion went too deep/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a flood of awaited calls ends at the call limit',
    code: 'for (let i = 0; ; i++) await tools.echo({ n: i });',
    expected: ErrorCode.CodeCallLimit,
    text: /more than 50 tool calls/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a flood of calls started at once ends at the call limit',
    code: 'await Promise.all(Array.from({ length: 100000 }, (_, n) => tools.echo({ n })));',
    expected: ErrorCode.CodeCallLimit,
    text: /more than 50 tool calls/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a huge output ends at the output limit',
    code: 'for (;;) console.log("y".repeat(1000));',
    expected: ErrorCode.CodeOutputLimit,
    text: /past 10000 characters/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a huge return value ends at the output limit',
    code: 'return "z".repeat(20000);',
    expected: ErrorCode.CodeOutputLimit,
    text: /past 10000 characters/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'calls never awaited are cancelled and said so',
    code: 'tools.echo({ n: 1 }); tools.hang(); return "done";',
    expected: ErrorCode.CodeCallsUnawaited,
    text: /ended while 2 of its tool calls/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a call that never answers ends at the time limit',
    code: 'await tools.hang();',
    expected: ErrorCode.CodeTimeLimit,
    text: /time limit/,
    bound: TIME_LIMIT_MS,
  },
  {
    name: 'a promise nothing settles ends at once',
    code: 'await new Promise(() => {});',
    expected: ErrorCode.CodeFailed,
    text: /nothing will settle/,
    bound: TIME_LIMIT_MS,
  },
];

describe('hostile programs', () => {
  it.each(cases)('$name', async ({ code, expected, text, bound, memory }) => {
    const { result, ms } = await settle(code, memory === true ? memoryRunner : runner);
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(expected);
    expect(resultText(result)).toMatch(text);
    expect(ms).toBeLessThan(bound + SLACK_MS);
    await expectHealthy();
  });

  it('reaches nothing of the host: no process, require, fetch, timers or host objects behind the prototypes', async () => {
    const { result } = await settle(
      [
        'const probes = {',
        '  process: typeof process, require: typeof require, module: typeof module, fetch: typeof fetch,',
        '  setTimeout: typeof setTimeout, setInterval: typeof setInterval, queueMicrotask: typeof queueMicrotask,',
        '  WebAssembly: typeof WebAssembly, Buffer: typeof Buffer, bridge: typeof globalThis.__anytool_call,',
        "  viaFunction: (() => { try { return typeof Function('return this')().process; } catch (e) { return 'threw'; } })(),",
        "  viaConstructor: (() => { try { return typeof tools.echo.constructor.constructor('return globalThis')().process; } catch (e) { return 'threw'; } })(),",
        "  viaConsole: console.log.constructor('return typeof process')(),",
        '};',
        '// Changing the prototypes changes nothing outside the sandbox.',
        'Object.prototype.polluted = true; Array.prototype.push = () => 0; JSON.parse = () => "hijacked";',
        'return probes;',
      ].join('\n'),
    );
    expect(JSON.parse(resultText(result))).toEqual({
      process: 'undefined',
      require: 'undefined',
      module: 'undefined',
      fetch: 'undefined',
      setTimeout: 'undefined',
      setInterval: 'undefined',
      queueMicrotask: 'undefined',
      WebAssembly: 'undefined',
      Buffer: 'undefined',
      bridge: 'undefined',
      viaFunction: 'undefined',
      viaConstructor: 'undefined',
      viaConsole: 'undefined',
    });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.parse('{"a":1}')).toEqual({ a: 1 });
    await expectHealthy();
  });

  it('keeps one program from another: each runs in a fresh sandbox', async () => {
    await settle('globalThis.leftover = 1; Object.prototype.x = 2; tools.echo = () => "stolen";');
    const { result } = await settle('return [typeof globalThis.leftover, ({}).x, (await tools.echo({ n: 3 })).n];');
    expect(JSON.parse(resultText(result))).toEqual(['undefined', null, 3]);
  });

  it('hands the program only JSON: a getter or a cycle in its arguments never reaches the host as an object', async () => {
    const before = calls;
    const { result } = await settle("const a = {}; a.self = a; try { await tools.echo(a); } catch (e) { return [e.code, e.message.includes('not JSON')]; }");
    expect(JSON.parse(resultText(result))).toEqual([ErrorCode.InvalidArguments, true]);
    expect(calls).toBe(before);
  });

  it('stops a program whose run is aborted, cancelling its calls', async () => {
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const running = runner.invoke(context, { code: 'await tools.hang();' });
    setTimeout(() => controller.abort(new Error('user left')), 50);
    const result = await running;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    await expectHealthy();
  });
});
