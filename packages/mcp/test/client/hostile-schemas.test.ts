// Hostile tool listings from an MCP server, over stdio and HTTP: each case is data in one table.
// A bad tool is left out with a diagnostic naming the server and the tool, and nothing else is:
// the server's healthy tools, another server's tools and the list's updates keep working, in
// bounded time (a generous bound that only catches hangs) and bounded memory.
import { ErrorCode, ExecutionContext, Toolset, resultText, type DefinitionFormat } from '@anytool/core';
import { McpConnection, McpToolset, mcpToolName, type McpServerConfig } from '@anytool/mcp';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { alive, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';
import { probeEventLoop } from '../../../core/test/helpers/event-loop-probe';

jest.setTimeout(scaled(180_000));

const SERVER = join(__dirname, '..', 'fixtures', 'broken-server', 'server.mjs');
const HANG_BOUND_MS = 90_000;
/** Blocking the event loop this long is a hang: a 9.6 MB schema blocked it 18 s, a 20 MB one 39 s. */
const EVENT_LOOP_BOUND_MS = 10_000;
/** Growth of the process's peak memory: the old client reached 1.3 GB on the 9 MB schema, 2.6 GB on the 20 MB one. */
const MEMORY_BOUND_BYTES = 600e6;
const FORMATS: DefinitionFormat[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

type Transport = 'stdio' | 'http';

interface Case {
  name: string;
  behaviour: string;
  /** Tools left out, each with what its diagnostic says. */
  leftOut: Array<{ tool: string; says: string }>;
  /** Tools of the behaviour that stay, called with these arguments, and the text they answer. */
  kept?: Array<{ tool: string; args: Record<string, unknown>; text: string }>;
  /** A tool called before the checks: it changes the server's list and sends `notifications/tools/list_changed`. */
  change?: string;
  /** Where the case runs (both by default). */
  transports?: Transport[];
  /** The broken server's `maxResultBytes`, for a `tools/list` page larger than the default 10 MiB. */
  maxResultBytes?: number;
}

const OVER_SIZE = 'its JSON is over 262144 bytes (the maxToolBytes option)';
const TOO_DEEP = 'its JSON nests more than 100 levels deep (the maxToolDepth option)';
const BAD_SHAPE = 'it does not have the shape MCP gives a tool';
const VALIDATOR_STACK = 'its $refs chain too deep or into a cycle with no schema between';
const LONG_NAME = `long_${'x'.repeat(100_000)}`;

const cases: Case[] = [
  { name: 'a 9 MB input schema (the event loop blocked 18 s, 1.3 GB)', behaviour: 'schema-wide-9mb', leftOut: [{ tool: 'wide_9mb', says: OVER_SIZE }] },
  // The page is over the default maxResultBytes (10 MiB), which would fail the start with RESULT_TOO_LARGE: raised for the server.
  {
    name: 'a 20 MB input schema (blocked 39 s, 3.1 GB, then invoke threw)',
    behaviour: 'schema-wide-20mb',
    leftOut: [{ tool: 'wide_20mb', says: OVER_SIZE }],
    maxResultBytes: 64 * 1024 * 1024,
  },
  {
    name: 'a 200 KB input schema (kept: under the limit)',
    behaviour: 'schema-wide-200kb',
    leftOut: [],
    kept: [{ tool: 'wide_200kb', args: { p0: 'a', p1: 'b' }, text: '2 arguments' }],
  },
  { name: 'a 2 MB output schema', behaviour: 'schema-wide-output', leftOut: [{ tool: 'wide_output', says: OVER_SIZE }] },
  { name: 'a 2 MB description', behaviour: 'schema-long-description', leftOut: [{ tool: 'long_description', says: OVER_SIZE }] },
  { name: 'a schema nested 500 levels (broke new Toolset for every tool)', behaviour: 'schema-deep-500', leftOut: [{ tool: 'deep_500', says: TOO_DEEP }] },
  {
    name: 'a schema nested 1,000 levels (connect threw an uncoded RangeError)',
    behaviour: 'schema-deep-1000',
    leftOut: [{ tool: 'deep_1000', says: TOO_DEEP }],
  },
  { name: 'a $ref cycle with nothing between (broke new Toolset)', behaviour: 'schema-ref-cycle', leftOut: [{ tool: 'ref_cycle', says: VALIDATOR_STACK }] },
  {
    name: 'a $ref to a definition that is not there',
    behaviour: 'schema-ref-missing',
    leftOut: [{ tool: 'ref_missing', says: "can't resolve reference #/$defs/Nowhere" }],
  },
  {
    name: 'a $ref to another document',
    behaviour: 'schema-ref-remote',
    leftOut: [{ tool: 'ref_remote', says: "can't resolve reference https://example.invalid/schema.json" }],
  },
  {
    name: 'an unsupported $schema (failed connect)',
    behaviour: 'schema-draft-04',
    leftOut: [{ tool: 'draft_04', says: 'declares $schema "http://json-schema.org/draft-04/schema#", which anytool cannot validate' }],
  },
  {
    name: 'a schema that is not JSON Schema',
    behaviour: 'schema-not-json-schema',
    leftOut: [{ tool: 'bad_type', says: 'its input schema is not valid JSON Schema' }],
  },
  {
    name: 'a pattern that is not a regular expression',
    behaviour: 'schema-bad-pattern',
    leftOut: [{ tool: 'bad_pattern', says: 'Invalid regular expression: /(/u: Unterminated group' }],
  },
  {
    name: "patterns only a backtracking engine runs (would run on JavaScript's, which freezes on nested quantifiers)",
    behaviour: 'schema-backtracking-pattern',
    leftOut: [
      { tool: 'backreference', says: `its schema's pattern "(a)\\\\1" uses a backreference (at character 4), which the linear-time engine` },
      { tool: 'lookahead', says: `its schema's pattern "^(?=a)" uses a lookahead (at character 2)` },
      { tool: 'lookbehind_key', says: `its schema's pattern "(?<!a)b" uses a lookbehind (at character 1)` },
      { tool: 'output_lookahead', says: `its schema's pattern "(?!a)" uses a lookahead (at character 1)` },
    ],
  },
  {
    name: 'shapes the SDK refuses (failed connect with a zod dump)',
    behaviour: 'schema-sdk-reject',
    leftOut: [
      { tool: 'no_schema', says: `${BAD_SHAPE} (inputSchema: Invalid input: expected object, received undefined)` },
      { tool: 'array_root', says: `${BAD_SHAPE} (inputSchema.type: Invalid input: expected "object")` },
      { tool: 'required_number', says: `${BAD_SHAPE} (inputSchema.required.0: Invalid input: expected string, received number)` },
      { tool: 'number 6 in the list', says: `${BAD_SHAPE} (name: Invalid input: expected string, received number)` },
      { tool: 'number 7 in the list', says: `${BAD_SHAPE} ((the tool): Invalid input: expected object, received null)` },
      { tool: 'number 8 in the list', says: `${BAD_SHAPE} ((the tool): Invalid input: expected object, received string)` },
      { tool: 'bad_annotations', says: `${BAD_SHAPE} (annotations.readOnlyHint: Invalid input: expected boolean, received string)` },
    ],
  },
  {
    name: 'a second ok_echo and two tools named twice (failed connect)',
    behaviour: 'schema-duplicate',
    leftOut: [
      { tool: 'ok_echo', says: 'the server lists another tool of the same name before it' },
      { tool: 'twice', says: 'the server lists another tool of the same name before it' },
    ],
    kept: [{ tool: 'twice', args: {}, text: 'twice' }],
  },
  {
    name: 'two names that become the same for providers (failed connect)',
    behaviour: 'schema-collide',
    leftOut: [{ tool: 'a_b', says: `the server's tool "a.b" has the same name once made valid for providers ("broken_a_b")` }],
    kept: [{ tool: 'a.b', args: {}, text: 'a.b' }],
  },
  { name: 'a 100,000-character name (kept, shortened)', behaviour: 'schema-long-name', leftOut: [], kept: [{ tool: LONG_NAME, args: {}, text: 'long' }] },
  {
    name: 'a recursive tree type (kept: legitimate recursion)',
    behaviour: 'schema-tree',
    leftOut: [],
    kept: [
      {
        tool: 'tree',
        args: { root: { label: 'a', children: [{ label: 'b', children: [] }] } },
        text: '{"label":"a","children":[{"label":"b","children":[]}]}',
      },
    ],
  },
  {
    name: 'a 30-level $ref DAG (kept; Gemini lowering bounded)',
    behaviour: 'schema-dag-30',
    leftOut: [],
    kept: [{ tool: 'dag_30', args: { root: { a: { b: {} } } }, text: '{"a":{"b":{}}}' }],
  },
  {
    name: 'bad tools arriving through tools/list_changed (froze the list)',
    behaviour: 'schema-list-changed',
    change: 'schema_change',
    leftOut: [
      { tool: 'deep_late', says: TOO_DEEP },
      { tool: 'ref_cycle_late', says: VALIDATOR_STACK },
    ],
    kept: [{ tool: 'late_good', args: { n: 7 }, text: 'late 7' }],
  },
];

const table = cases.flatMap((c) => (c.transports ?? (['stdio', 'http'] as const)).map((transport) => ({ ...c, transport })));

/** The broken server over HTTP, in a process of its own, healthy tools only (a session names its behaviours in its URL). */
async function startHttp(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER, 'http'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const children: ChildProcess[] = [];
const open: McpToolset[] = [];
let other: { url: string; child: ChildProcess };
/**
 * The broken server of every HTTP case: one process, each case's session naming its behaviour in its URL (a process
 * per case was a node start each). The cases run one at a time, so the one behaviour with state (a list changed) is
 * only ever used by one session.
 */
let broken: { url: string; child: ChildProcess };

beforeAll(async () => {
  // A second, healthy server: its tools must keep working whatever the first one lists.
  [other, broken] = await Promise.all([startHttp(), startHttp()]);
});

afterEach(async () => {
  const closing = open.splice(0);
  const pids = closing.flatMap((m) => m.connections.map((c) => c.pid).filter((pid): pid is number => pid !== undefined));
  await Promise.all(closing.map((m) => m.close()));
  for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  await stopChildren((child) => child !== other.child && child !== broken.child);
});

afterAll(() => stopChildren(() => true));

async function stopChildren(which: (child: ChildProcess) => boolean): Promise<void> {
  for (const child of children.filter(which)) {
    children.splice(children.indexOf(child), 1);
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }
}

async function serverConfig(transport: Transport, behaviour: string, maxResultBytes?: number): Promise<McpServerConfig> {
  const limit = maxResultBytes === undefined ? {} : { maxResultBytes };
  if (transport === 'stdio') return { command: process.execPath, args: [SERVER, 'stdio', behaviour], ...limit };
  return { url: `${broken.url}/with/${behaviour}/mcp`, ...limit };
}

async function call(toolset: Toolset, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await toolset.invoke(name, args, new ExecutionContext());
  expect(result.error).toBeUndefined();
  return resultText(result);
}

describe('hostile tool listings: one bad tool is left out, never the rest', () => {
  it.each(table)('$name over $transport', async ({ behaviour, leftOut, kept = [], change, transport, maxResultBytes }) => {
    const rssBefore = process.memoryUsage().rss;
    // The process's peak RSS is its lifetime's: a file run earlier in this jest worker may have set it. So the case's
    // own peak is sampled too, and the lifetime peak counts only if it rose during the case.
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    let sampled = rssBefore;
    const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 5);
    sampler.unref();
    const loop = monitorEventLoopDelay({ resolution: 20 });
    loop.enable();
    const started = Date.now();

    const mcp = await McpToolset.connect(
      { broken: await serverConfig(transport, behaviour, maxResultBytes), other: { url: `${other.url}/mcp` } },
      { prefix: true },
    );
    open.push(mcp);
    const toolset = new Toolset(mcp);
    if (change !== undefined) {
      const before = toolset.size;
      const echo = toolset.get('broken_ok_echo');
      const echoInfo = mcp.connection('broken')!.tools.find((t) => t.name === 'ok_echo');
      await call(toolset, `broken_${change}`, {});
      await until(() => toolset.size > before, 30_000, 'the list to change');
      // A tool listed as before is kept as it was: its validator is not compiled again.
      expect(mcp.connection('broken')!.tools.find((t) => t.name === 'ok_echo')).toBe(echoInfo);
      expect(toolset.get('broken_ok_echo')).toBe(echo);
    }

    const diagnostics = mcp.connection('broken')!.diagnostics;
    for (const { tool, says } of leftOut) {
      const label = tool.startsWith('number ') ? tool : `"${tool}"`;
      expect(diagnostics).toContainEqual(expect.stringMatching(new RegExp(`^MCP server "broken": tool ${escape(label)} was left out: .*${escape(says)}`)));
      // Short, never a validator dump.
      for (const line of diagnostics) expect(line.length).toBeLessThan(1_000);
    }
    expect(diagnostics.filter((line) => line.includes(' was left out: '))).toHaveLength(leftOut.length);
    // Each tool kept or left out, by the name it has on the server.
    const remote = new Set(mcp.tools.map((t) => t.remoteName));
    for (const name of ['ok_echo', 'ok_add', ...kept.map((k) => k.tool)]) expect(remote).toContain(name);
    for (const { tool } of leftOut.filter((l) => !kept.some((k) => k.tool === l.tool) && l.tool !== 'ok_echo')) expect(remote).not.toContain(tool);
    expect(toolset.names).toEqual(mcp.names);

    // Every provider format, and every tool still works, on both servers.
    for (const format of FORMATS) expect(toolset.lower(format).tools).toHaveLength(toolset.size);
    expect(await call(toolset, 'broken_ok_echo', { message: 'still here' })).toBe('still here');
    expect(await call(toolset, 'broken_ok_add', { a: 2, b: 3 })).toBe('5');
    expect(await call(toolset, 'other_ok_echo', { message: 'other' })).toBe('other');
    for (const { tool, args, text } of kept) expect(await call(toolset, mcpToolName('broken', tool, true), args)).toBe(text);

    loop.disable();
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(loop.max / 1e6).toBeLessThan(EVENT_LOOP_BOUND_MS);
    clearInterval(sampler);
    const peakAfter = process.resourceUsage().maxRSS * 1024;
    expect((peakAfter > peakBefore ? peakAfter : sampled) - rssBefore).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  it('maxToolBytes and maxToolDepth are options, and a tool that fits them is kept', async () => {
    const config = { command: process.execPath, args: [SERVER, 'stdio'] };
    for (const [options, says] of [
      [{ maxToolDepth: 3 }, 'its JSON nests more than 3 levels deep (the maxToolDepth option)'],
      [{ maxToolBytes: 151 }, 'its JSON is over 151 bytes (the maxToolBytes option)'],
    ] as const) {
      const connection = await McpConnection.open('tight', config, options);
      try {
        // ok_echo nests 4 levels deep in 152 bytes of JSON, ok_add in 163.
        expect(connection.tools.map((t) => t.name)).toEqual([]);
        expect(connection.diagnostics).toEqual([
          expect.stringMatching(/^speaks the 2025 protocol/),
          `MCP server "tight": tool "ok_echo" was left out: ${says}; fix the tool on the server, or raise the limit`,
          `MCP server "tight": tool "ok_add" was left out: ${says}; fix the tool on the server, or raise the limit`,
        ]);
      } finally {
        await connection.close();
      }
    }
    const roomy = await McpConnection.open('roomy', config, { maxToolDepth: 4, maxToolBytes: 163 });
    try {
      expect(roomy.tools.map((t) => t.name)).toEqual(['ok_echo', 'ok_add']);
    } finally {
      await roomy.close();
    }
  });
});

describe("a server's patterns never block the event loop", () => {
  /** JavaScript's engine takes about 2^n steps on n a's and a `!` against `^(a+)+$`: minutes at 32. */
  const evil = (letter: string): string => `${letter.repeat(32)}!`;
  const GAP_BOUND_MS = 100;

  it.each(['stdio', 'http'] as const)(
    `a nested-quantifier pattern, patternProperties key and url format settle as invalid arguments, the event loop never held over ${GAP_BOUND_MS} ms (%s)`,
    async (transport) => {
      const mcp = await McpToolset.connect({ broken: await serverConfig(transport, 'schema-evil-pattern') });
      open.push(mcp);
      const toolset = new Toolset(mcp);
      const context = new ExecutionContext();
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ s: evil('a') }, '- /s: must match pattern "^(a+)+$"'],
        [{ [evil('b')]: 'x', bbbb: evil('c') }, '- /bbbb: must match pattern "^(c+)+$"'],
        [{ link: `http://${':'.repeat(100_000)}` }, '- /link: must match format "url"'],
      ];
      for (const [args, says] of bad) {
        const { value: result, gaps } = await probeEventLoop(() => toolset.invoke('evil_pattern', JSON.stringify(args), context));
        expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
        expect(resultText(result)).toContain(says);
        expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
      }
      // What the patterns accept still reaches the server.
      const { value: good, gaps } = await probeEventLoop(() =>
        toolset.invoke('evil_pattern', { s: 'a'.repeat(32), bbbb: 'c'.repeat(32), link: 'https://example.com/a?b=c' }, context),
      );
      expect(resultText(good)).toBe('ran');
      expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
    },
  );
});

describe('a server schema whose validation costs more than linear time never blocks the event loop', () => {
  const GAP_BOUND_MS = 100;
  /** The validation deadline (500 ms) plus a worker thread started and the schema compiled in it. */
  const SETTLE_BOUND_MS = scaled(15_000);
  let nested: unknown = 1;
  for (let i = 0; i < 20; i++) nested = [nested];
  const cases = [
    {
      tool: 'unique_objects',
      // 5,000 objects held the loop 905 ms on a 2-core machine: a faster one validated them within the
      // deadline and sent them. 10,000 take four times the comparisons, for twice the garbage.
      shape: 'uniqueItems over 10,000 objects (5,000 held the loop 905 ms)',
      evil: { rows: Array.from({ length: 10_000 }, (_, i) => ({ i })) },
      feature: '"uniqueItems" over items that may be objects or arrays (at /properties/rows)',
      good: { rows: [{ a: 1 }, { a: 2 }] },
      answer: '2 rows fast',
    },
    {
      tool: 'anyof_dag',
      // 20 levels took 1,069 ms here; 23 take eight times the paths (26 ran the old validator out of memory).
      shape: 'a 23-level anyOf of shared $refs, failing at the bottom (20 levels held the loop 1,069 ms)',
      evil: { x: 1 },
      feature: 'combinators that apply more than 64 subschemas to one value',
      good: { x: 'ok' },
      answer: 'ok fast',
    },
    {
      tool: 'overlapping_tree',
      shape: 'a recursive anyOf with overlapping branches, 20 levels of arrays (6,471 ms)',
      evil: { root: nested },
      feature: 'combinators that apply more than 64 subschemas to one value',
      good: { root: [['a'], 'b'] },
      answer: '[["a"],"b"] fast',
    },
  ];

  it.each(['stdio', 'http'] as const)(
    `each shape's evil arguments settle as INVALID_ARGUMENTS within ${SETTLE_BOUND_MS} ms, the loop never held over ${GAP_BOUND_MS} ms, and ordinary ones reach the server with defaults (%s)`,
    async (transport) => {
      const mcp = await McpToolset.connect({ broken: await serverConfig(transport, 'schema-costly') });
      open.push(mcp);
      const toolset = new Toolset(mcp);
      const context = new ExecutionContext();
      for (const { tool, evil, feature, good, answer } of cases) {
        const started = performance.now();
        const { value: result, gaps } = await probeEventLoop(() => toolset.invoke(tool, JSON.stringify(evil), context));
        expect(performance.now() - started).toBeLessThan(SETTLE_BOUND_MS);
        expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
        // The case and what came back, should it not be the refusal.
        expect({ tool, code: result.error?.code, text: resultText(result).slice(0, 300) }).toMatchObject({ tool, code: ErrorCode.InvalidArguments });
        expect(resultText(result)).toBe(
          `Invalid arguments for tool "${tool}": they could not be checked against its schema in time, and were not sent. Send smaller or simpler arguments.`,
        );
        // The developer reads which server, tool and schema feature, and the option.
        expect(result.error?.message).toContain(`tool "${tool}" (mcp broken): its input schema has ${feature}`);
        expect(result.error?.message).toContain('took over 500 ms (validationTimeoutMs)');
        // The worker that was stopped is replaced: the same tool validates ordinary arguments, defaults filled.
        const { value: ok, gaps: okGaps } = await probeEventLoop(() => toolset.invoke(tool, good, context));
        expect(resultText(ok)).toBe(answer);
        expect(okGaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
      }
      // Invalid arguments get their problems from the worker, as from the inline validator.
      const invalid = await toolset.invoke('unique_objects', { rows: [{ a: 1 }, { a: 1 }] }, context);
      expect(invalid.error?.code).toBe(ErrorCode.InvalidArguments);
      expect(resultText(invalid)).toContain('- /rows: must NOT have duplicate items (items ## 0 and 1 are identical)');
    },
  );

  it(`a 24-level anyOf of shared $refs over objects: strict-mode nulls stripped without holding the loop over ${GAP_BOUND_MS} ms`, async () => {
    const mcp = await McpToolset.connect({ broken: await serverConfig('stdio', 'schema-costly') });
    open.push(mcp);
    const toolset = new Toolset(mcp);
    // A value no branch changes is tried down every path to the bottom; one with a null is stripped at the first.
    for (const [args, answer] of [
      ['{"x":{"a":"kept"}}', '{"a":"kept"} fast'],
      ['{"x":{"a":null}}', '{} fast'],
    ]) {
      const { value: result, gaps } = await probeEventLoop(() => toolset.invoke('anyof_dag_objects', args!, new ExecutionContext()));
      expect(resultText(result)).toBe(answer);
      expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
    }
  });

  it('validationTimeoutMs is an option: nonsense is refused with INVALID_OPTIONS, a short one still lets ordinary calls through', async () => {
    const config = { command: process.execPath, args: [SERVER, 'stdio', 'schema-costly'] };
    for (const bad of [0, -1, Number.NaN, Infinity, '100' as unknown as number]) {
      await expect(McpConnection.open('costly', config, { validationTimeoutMs: bad })).rejects.toMatchObject({
        code: ErrorCode.InvalidOptions,
        message: expect.stringContaining('"validationTimeoutMs" must be a positive number of milliseconds'),
      });
    }
    const mcp = await McpToolset.connect({ broken: config }, { validationTimeoutMs: 50 });
    open.push(mcp);
    const toolset = new Toolset(mcp);
    const result = await toolset.invoke('anyof_dag', { x: 1 }, new ExecutionContext());
    expect(result.error?.message).toContain('took over 50 ms (validationTimeoutMs)');
    expect(resultText(await toolset.invoke('anyof_dag', { x: 'ok' }, new ExecutionContext()))).toBe('ok fast');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
