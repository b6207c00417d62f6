// OpenTelemetry through @opentelemetry/api only: execute_tool spans and the duration histogram of
// the GenAI conventions, content only when opted in, nesting through the call's context, and the
// W3C trace context a call puts on the wire (what the MCP client and server carry in params._meta).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ErrorCode, ExecutionContext, Toolset, extractTraceContext, injectTraceContext, tool, tracing, type BaseTool } from '@anytool/core';
import { memoryTelemetry, spanTree } from '../helpers/otel';

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
const fail = tool(
  () => {
    throw new Error('disk full');
  },
  { name: 'fail', description: 'Always fails.', parameters: { type: 'object', properties: {} } },
);

describe('tracing()', () => {
  it('makes one execute_tool span a call with the GenAI attributes, and error.type for a failed call', async () => {
    const otel = memoryTelemetry();
    const toolset = new Toolset(add, fail).use(tracing(otel));
    const context = new ExecutionContext();
    await toolset.invoke('add', '{"a":2,"b":3}', context, { callId: 'call_a' });
    await toolset.invoke('fail', {}, context, { callId: 'call_f' });
    await toolset.invoke('add', { a: 'x' }, context, { callId: 'call_bad' });
    const [ok, failed, invalid] = otel.spans();
    expect(ok!.name).toBe('execute_tool add');
    expect(ok!.kind).toBe(SpanKind.INTERNAL);
    expect(ok!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'call_a',
      'gen_ai.tool.type': 'function',
    });
    expect(ok!.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed!.attributes['error.type']).toBe(ErrorCode.ToolFailed);
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Tool "fail" failed: disk full' });
    expect(invalid!.attributes['error.type']).toBe(ErrorCode.InvalidArguments);
  });

  it('leaves arguments and results out by default and puts them on the span when captureContent is on', async () => {
    const plain = memoryTelemetry();
    await new Toolset(add).use(tracing(plain)).invoke('add', '{"a":2,"b":3}');
    expect(Object.keys(plain.spans()[0]!.attributes).filter((k) => k.includes('arguments') || k.includes('result'))).toEqual([]);

    const captured = memoryTelemetry();
    await new Toolset(add).use(tracing({ ...captured, captureContent: true })).invoke('add', '{"a":2,"b":3}');
    expect(captured.spans()[0]!.attributes).toMatchObject({ 'gen_ai.tool.call.arguments': '{"a":2,"b":3}', 'gen_ai.tool.call.result': '5' });
  });

  it('records gen_ai.execute_tool.duration, with error.type on failures', async () => {
    const otel = memoryTelemetry();
    const toolset = new Toolset(add, fail).use(tracing(otel));
    await toolset.invoke('add', { a: 1, b: 2 });
    await toolset.invoke('add', { a: 1, b: 2 });
    await toolset.invoke('fail', {});
    const points = await otel.histogram('gen_ai.execute_tool.duration');
    expect(points).toEqual(
      expect.arrayContaining([
        { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'add' }, count: 2, sum: expect.any(Number) },
        {
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'fail', 'error.type': ErrorCode.ToolFailed },
          count: 1,
          sum: expect.any(Number),
        },
      ]),
    );
    expect(points.every((p) => p.sum >= 0 && p.sum < 5)).toBe(true);
  });

  it("nests: a tool that calls another toolset with its context makes the inner span its span's child, in one trace", async () => {
    const otel = memoryTelemetry();
    const inner = new Toolset(add).use(tracing(otel));
    const twice: BaseTool = tool(
      async ({ n }: { n: number }, context: ExecutionContext) => {
        await inner.invoke('add', { a: n, b: n }, context);
        return (await inner.invoke('add', { a: n, b: 1 }, context)).structured;
      },
      { name: 'twice', description: 'Adds twice.', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, context: true },
    );
    await new Toolset(twice).use(tracing(otel)).invoke('twice', { n: 4 });
    expect(spanTree(otel.spans())).toBe(['execute_tool twice', '  execute_tool add', '  execute_tool add'].join('\n'));
    expect(new Set(otel.spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it('continues the trace of the run: the context given an extracted traceparent', async () => {
    const otel = memoryTelemetry();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const context = new ExecutionContext({ trace: extractTraceContext({ traceparent: `00-${traceId}-00f067aa0ba902b7-01` }) });
    await new Toolset(add).use(tracing(otel)).invoke('add', { a: 1, b: 1 }, context);
    const [span] = otel.spans();
    expect(span!.spanContext().traceId).toBe(traceId);
    expect(span!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  });
});

describe('trace context on the wire (W3C traceparent / tracestate)', () => {
  it('a traced call writes its span as traceparent; reading it back gives the same trace, span and state', async () => {
    const otel = memoryTelemetry();
    let carrier: Record<string, unknown> = {};
    const outbound = tool(
      (_args: object, context: ExecutionContext) => {
        carrier = { progressToken: 1 };
        injectTraceContext(context, carrier);
        return 'sent';
      },
      { name: 'outbound', description: 'Calls out.', parameters: { type: 'object', properties: {} }, context: true },
    );
    await new Toolset(outbound).use(tracing(otel)).invoke('outbound', {});
    const span = otel.spans()[0]!.spanContext();
    expect(carrier).toEqual({ progressToken: 1, traceparent: `00-${span.traceId}-${span.spanId}-01` });
    const read = trace.getSpanContext(extractTraceContext(carrier)!);
    expect(read).toMatchObject({ traceId: span.traceId, spanId: span.spanId, traceFlags: 1, isRemote: true });
    const withState = extractTraceContext({ ...carrier, tracestate: 'vendor=abc,other=1' })!;
    const again: Record<string, unknown> = {};
    injectTraceContext(new ExecutionContext({ trace: withState }), again);
    expect(again).toEqual({ traceparent: carrier['traceparent'], tracestate: 'vendor=abc,other=1' });
  });

  it('writes nothing for an untraced call', () => {
    const carrier: Record<string, unknown> = {};
    injectTraceContext(new ExecutionContext(), carrier);
    injectTraceContext(undefined, carrier);
    injectTraceContext(new ExecutionContext({ trace: ROOT_CONTEXT }), carrier);
    expect(carrier).toEqual({});
  });

  const malformed: Array<[string, unknown]> = [
    ['no carrier', undefined],
    ['a string carrier', 'traceparent'],
    ['no traceparent', { progressToken: 3 }],
    ['a number', { traceparent: 42 }],
    ['a short trace id', { traceparent: '00-4bf92f3577b34da6-00f067aa0ba902b7-01' }],
    ['an all-zero trace id', { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }],
    ['version ff', { traceparent: 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }],
    ['version 00 with more fields', { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra' }],
    ['a megabyte', { traceparent: `00-${'a'.repeat(1 << 20)}` }],
    [
      'a proxy whose traps throw',
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
        },
      ),
    ],
  ];

  it.each(malformed)('ignores a carrier with %s', (_name, carrier) => {
    let read: unknown = 'not called';
    expect(() => (read = extractTraceContext(carrier))).not.toThrow();
    expect(read).toBeUndefined();
  });
});
