// Tracing with the global providers, as an application registers its SDK: nothing recorded while
// none is registered, and an SDK registered after the toolset was made is picked up.
import { metrics, trace } from '@opentelemetry/api';
import { ExecutionContext, Toolset, tool, tracing } from '@anytool/core';
import { memoryTelemetry } from '../helpers/otel';

afterAll(() => {
  trace.disable();
  metrics.disable();
});

it('records nothing without an SDK, then spans and metrics once one is registered globally', async () => {
  let seenTrace: unknown = 'not called';
  const probe = tool(
    (_args: object, context: ExecutionContext) => {
      seenTrace = context.trace;
      return 'ok';
    },
    { name: 'probe', description: 'Looks at its context.', parameters: { type: 'object', properties: {} }, context: true },
  );
  const toolset = new Toolset(probe).use(tracing());
  const otel = memoryTelemetry();
  expect((await toolset.invoke('probe', {})).isError).toBe(false);
  expect(seenTrace).toBeUndefined();

  expect(trace.setGlobalTracerProvider(otel.tracerProvider)).toBe(true);
  expect(metrics.setGlobalMeterProvider(otel.meterProvider)).toBe(true);
  await toolset.invoke('probe', {}, new ExecutionContext(), { callId: 'late' });
  expect(otel.spans().map((s) => [s.name, s.attributes['gen_ai.tool.call.id']])).toEqual([['execute_tool probe', 'late']]);
  expect(trace.getSpanContext(seenTrace as never)?.spanId).toBe(otel.spans()[0]!.spanContext().spanId);
  expect(await otel.histogram('gen_ai.execute_tool.duration')).toHaveLength(1);
});
