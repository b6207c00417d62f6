// The MCP spans of one process that is both client and server (each side with providers of its own): failures,
// a request that carries no trace context, and what happens with no SDK at all.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExecutionContext, Toolset, extractTraceContext, tool, tracing } from '@anytool/core';
import { McpToolset, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { memoryTelemetry, spanTree } from '../../../core/test/helpers/otel';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const echo = tool(({ text }: { text: string }) => text, {
  name: 'echo',
  description: 'Echo the text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});
const fail = tool(
  () => {
    throw new Error('the disk is full');
  },
  { name: 'fail', description: 'Always fails.', parameters: { type: 'object', properties: {} } },
);
/** What the served tool saw as its trace: the span it would continue. */
const seen: Array<string | undefined> = [];
const spy = tool(
  (_args: Record<string, never>, context: ExecutionContext) => {
    seen.push(context.trace === undefined ? undefined : trace.getSpanContext(context.trace)?.traceId);
    return 'ok';
  },
  { name: 'spy', description: 'Reports its trace.', parameters: { type: 'object', properties: {} }, context: true },
);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe.each(['legacy', 'modern'] as const)('MCP spans in one process (%s era)', (era) => {
  let server: McpServerHandle;
  const serverSide = memoryTelemetry();

  beforeAll(async () => {
    server = await serveMcp(new Toolset(echo, fail, spy).use(tracing({ tracerProvider: serverSide.tracerProvider })), {
      transport: 'http',
      port: 0,
      telemetry: serverSide,
    });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  it('marks a failed tool call tool_error on both sides, and continues the trace of the run it came from', async () => {
    const clientSide = memoryTelemetry();
    const mcp = await McpToolset.connect({ local: { url: server.url!, protocol: era } }, { telemetry: clientSide });
    try {
      const context = new ExecutionContext({ trace: extractTraceContext({ traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` }) });
      const result = await new Toolset(mcp).invoke('fail', {}, context);
      expect(result.isError).toBe(true);
    } finally {
      await mcp.close();
    }
    const client = clientSide.spans().find((s) => s.name === 'tools/call fail')!;
    const served = serverSide.spans().filter((s) => s.spanContext().traceId === TRACE_ID);
    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.spanContext().traceId).toBe(TRACE_ID);
    expect(client.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(spanTree(served)).toBe(['tools/call fail', '  execute_tool fail'].join('\n'));
    const serverSpan = served.find((s) => s.name === 'tools/call fail')!;
    expect(serverSpan.kind).toBe(SpanKind.SERVER);
    expect(serverSpan.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    for (const span of [client, serverSpan]) {
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    }
    // The tool's own span says why: its error code.
    expect(served.find((s) => s.name === 'execute_tool fail')!.attributes['error.type']).toBe('TOOL_FAILED');
    const durations = await clientSide.histogram('mcp.client.operation.duration');
    expect(durations).toEqual([
      expect.objectContaining({
        count: 1,
        attributes: expect.objectContaining({ 'gen_ai.tool.name': 'fail', 'error.type': 'tool_error', 'network.transport': 'tcp' }),
      }),
    ]);
    const serverDurations = await serverSide.histogram('mcp.server.operation.duration');
    expect(serverDurations.some((p) => p.attributes['gen_ai.tool.name'] === 'fail' && p.attributes['error.type'] === 'tool_error')).toBe(true);
  });

  it('a client failure (the server is gone) is the client span’s error.type', async () => {
    const clientSide = memoryTelemetry();
    const other = await serveMcp(new Toolset(echo), { transport: 'http', port: 0 });
    const mcp = await McpToolset.connect({ gone: { url: other.url!, protocol: era } }, { telemetry: clientSide, timeoutMs: scaled(2_000) });
    try {
      await other.close();
      const result = await new Toolset(mcp).invoke('echo', { text: 'hi' });
      expect(result.isError).toBe(true);
    } finally {
      await mcp.close();
    }
    const span = clientSide.spans().find((s) => s.name === 'tools/call echo')!;
    expect(span.attributes['error.type']).toEqual(expect.stringMatching(/^[A-Z_]+$/));
    expect(span.attributes['error.type']).not.toBe('tool_error');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('without an SDK on the client, nothing is recorded there and the request carries no trace: the server starts one', async () => {
    const mcp = await McpToolset.connect({ local: { url: server.url!, protocol: era } });
    try {
      expect((await new Toolset(mcp).invoke('spy', {})).isError).toBe(false);
    } finally {
      await mcp.close();
    }
    const root = serverSide.spans().filter((s) => s.name === 'tools/call spy');
    expect(root).toHaveLength(1);
    expect(root[0]!.parentSpanContext).toBeUndefined();
    // The tool's context continues the server's own span.
    expect(seen).toEqual([root[0]!.spanContext().traceId]);
  });
});
