// One agent run traced across processes: two local tool calls, a call to `anytool serve` over stdio and one over
// streamable HTTP, each server a real child process with an OpenTelemetry SDK of its own (registered by
// `node --import`, as an application does; its spans go to a file this test reads back). The client's spans stay in
// this process (an in-memory exporter). The trace context travels in params._meta, so the whole run is one tree with
// one trace id, in either protocol era.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, metrics, trace } from '@opentelemetry/api';
import { Toolset, tool } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { memoryTelemetry, type MemoryTelemetry } from '../../../core/test/helpers/otel';
import { EXAMPLE_TOOLS, ROOT, requireBuilt, startHttpChild, stopChild, waitFor } from '../server/helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(90_000));

const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';
const PRELOAD = join(ROOT, 'packages', 'mcp', 'test', 'fixtures', 'otel-file-export.mjs');

/** A span as both sides report it: the test's own (in memory) and the servers' (read from their files). */
interface SpanRecord {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  start: number;
  attributes: Record<string, unknown>;
  process: string;
}

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
const greet = tool(({ name }: { name: string }) => `hello ${name}`, {
  name: 'greet',
  description: 'Greet someone.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
});

function script(): ScriptedModel {
  return new ScriptedModel(
    [
      {
        toolCalls: [
          { id: 'c1', name: 'add', arguments: '{"a":17,"b":25}' },
          { id: 'c2', name: 'greet', arguments: { name: 'Ada' } },
          { id: 'c3', name: 'piped_echo', arguments: { text: 'over stdio' } },
          { id: 'c4', name: 'web_get_weather', arguments: { city: 'Oslo' } },
        ],
      },
      { text: 'done' },
    ],
    { name: 'scripted', usage: { inputTokens: 10, outputTokens: 4 } },
  );
}

function ownSpans(otel: MemoryTelemetry): SpanRecord[] {
  return otel.spans().map((span) => ({
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    start: span.startTime[0] * 1e9 + span.startTime[1],
    attributes: span.attributes as Record<string, unknown>,
    process: 'agent',
  }));
}

function fileSpans(file: string, process: string): SpanRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const span = JSON.parse(line) as Omit<SpanRecord, 'start' | 'process'> & { startTime: [number, number] };
      return { ...span, start: span.startTime[0] * 1e9 + span.startTime[1], process };
    });
}

const KIND: Record<number, string> = { [SpanKind.INTERNAL]: 'internal', [SpanKind.SERVER]: 'server', [SpanKind.CLIENT]: 'client' };

/** The spans of every process as one indented tree: `name (kind, process)`, children in start order. */
function tree(spans: readonly SpanRecord[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    const children = spans
      .filter((s) => (s.parentSpanId !== undefined && ids.has(s.parentSpanId) ? s.parentSpanId : undefined) === parent)
      .sort((a, b) => a.start - b.start || a.name.localeCompare(b.name));
    for (const span of children) {
      lines.push(`${'  '.repeat(depth)}${span.name} (${KIND[span.kind] ?? span.kind}, ${span.process})`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

describe.each([
  { era: 'legacy' as const, content: false },
  { era: 'modern' as const, content: true },
])('an agent run traced across MCP servers ($era era, content captured: $content)', ({ era, content }) => {
  let dir: string;
  let otel: MemoryTelemetry;

  beforeAll(() => requireBuilt(ANYTOOL, EXAMPLE_TOOLS));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'anytool-trace-'));
    otel = memoryTelemetry();
    // The application registers its SDK globally; anytool's MCP spans go to the global providers.
    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
  });
  afterEach(() => {
    trace.disable();
    metrics.disable();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is one span tree with one trace id, the served tools under the calls that reached them', async () => {
    const stdioFile = join(dir, 'stdio-spans.jsonl');
    const httpFile = join(dir, 'http-spans.jsonl');
    const flags = content ? ['--trace-content'] : [];
    const http = await startHttpChild(['--import', PRELOAD, ANYTOOL, 'serve', MODULE, '--http', '--port', '0', ...flags], ROOT, {
      ...process.env,
      OTEL_SPANS_FILE: httpFile,
    });
    let mcp: McpToolset | undefined;
    try {
      mcp = await McpToolset.connect(
        {
          piped: {
            command: process.execPath,
            args: ['--import', PRELOAD, ANYTOOL, 'serve', MODULE, ...flags],
            cwd: ROOT,
            env: { OTEL_SPANS_FILE: stdioFile },
            protocol: era,
          },
          web: { url: http.url, protocol: era },
        },
        // Trusted: the run calls their tools without an approve callback.
        { prefix: true, trusted: true },
      );
      const tools = new Toolset(add, greet, mcp);
      const agent = new Agent({ model: script(), tools, name: 'traveller', tracing: content ? { captureContent: true } : true });
      const result = await agent.run('add, greet, echo and look up the weather');
      expect(result.text).toBe('done');
      await waitFor(() => fileSpans(stdioFile, 'stdio').length >= 2 && fileSpans(httpFile, 'http').length >= 2, 10_000, 'the servers’ spans');
    } finally {
      await mcp?.close();
      await stopChild(http.child, http.exited);
    }

    const spans = [...ownSpans(otel), ...fileSpans(stdioFile, 'stdio'), ...fileSpans(httpFile, 'http')];
    expect(tree(spans)).toBe(
      [
        'invoke_agent traveller (internal, agent)',
        '  chat scripted (client, agent)',
        '  execute_tool add (internal, agent)',
        '  execute_tool greet (internal, agent)',
        '  execute_tool piped_echo (internal, agent)',
        '    tools/call echo (client, agent)',
        '      tools/call echo (server, stdio)',
        '        execute_tool echo (internal, stdio)',
        '  execute_tool web_get_weather (internal, agent)',
        '    tools/call get_weather (client, agent)',
        '      tools/call get_weather (server, http)',
        '        execute_tool get_weather (internal, http)',
        '  chat scripted (client, agent)',
      ].join('\n'),
    );
    // One trace across the three processes.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);

    // The MCP spans follow the MCP semantic conventions, on both sides.
    const version = era === 'modern' ? '2026-07-28' : expect.stringMatching(/^2025-/);
    for (const [process, transport] of [
      ['stdio', 'pipe'],
      ['http', 'tcp'],
    ] as const) {
      const tool = process === 'stdio' ? 'echo' : 'get_weather';
      const client = spans.find((s) => s.process === 'agent' && s.name === `tools/call ${tool}`)!;
      const server = spans.find((s) => s.process === process && s.name === `tools/call ${tool}`)!;
      for (const span of [client, server]) {
        expect(span.attributes).toMatchObject({
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': tool,
          'gen_ai.operation.name': 'execute_tool',
          'network.transport': transport,
          'mcp.protocol.version': version,
        });
        expect(span.attributes['error.type']).toBeUndefined();
      }
      // Both sides name the same JSON-RPC request.
      expect(server.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
      expect(client.attributes['jsonrpc.request.id']).toBe(server.attributes['jsonrpc.request.id']);
      // A session exists only on the 2025 era over HTTP, and both sides name it.
      if (era === 'legacy' && process === 'http') {
        expect(server.attributes['mcp.session.id']).toEqual(expect.any(String));
        expect(client.attributes['mcp.session.id']).toBe(server.attributes['mcp.session.id']);
        expect(client.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': Number(new URL(http.url).port) });
      } else {
        expect(client.attributes['mcp.session.id']).toBeUndefined();
        expect(server.attributes['mcp.session.id']).toBeUndefined();
      }
    }

    // Arguments and results only when opted in, in every process.
    const carrying = spans
      .filter((s) => 'gen_ai.tool.call.arguments' in s.attributes || 'gen_ai.tool.call.result' in s.attributes)
      .map((s) => `${s.name} (${s.process})`);
    if (!content) expect(carrying).toEqual([]);
    else {
      expect(carrying.sort()).toEqual([
        'execute_tool add (agent)',
        'execute_tool echo (stdio)',
        'execute_tool get_weather (http)',
        'execute_tool greet (agent)',
        'execute_tool piped_echo (agent)',
        'execute_tool web_get_weather (agent)',
      ]);
      const served = spans.find((s) => s.process === 'http' && s.name === 'execute_tool get_weather')!;
      expect(JSON.parse(served.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ city: 'Oslo' });
      expect(JSON.parse(served.attributes['gen_ai.tool.call.result'] as string)).toMatchObject({ city: 'Oslo' });
    }

    // The duration metrics: one tool call histogram for each tool, one MCP client operation each call.
    const tools = await otel.histogram('gen_ai.execute_tool.duration');
    expect(tools.map((p) => p.attributes['gen_ai.tool.name']).sort()).toEqual(['add', 'greet', 'piped_echo', 'web_get_weather']);
    const operations = await otel.histogram('mcp.client.operation.duration');
    expect(operations.map((p) => [p.attributes['gen_ai.tool.name'], p.attributes['network.transport'], p.count]).sort()).toEqual([
      ['echo', 'pipe', 1],
      ['get_weather', 'tcp', 1],
    ]);
  });
});
