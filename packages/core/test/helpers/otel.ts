// An OpenTelemetry SDK in memory, as a user's application would register one, for the tracing tests.
import { AggregationTemporality, MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface MemoryTelemetry {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** The finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** Every data point of the histogram `name`, with its attributes. */
  histogram(name: string): Promise<Array<{ attributes: Record<string, unknown>; count: number; sum: number }>>;
}

class Reader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export function memoryTelemetry(): MemoryTelemetry {
  const exporter = new InMemorySpanExporter();
  const reader = new Reader();
  return {
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    meterProvider: new MeterProvider({ readers: [reader] }),
    spans: () => exporter.getFinishedSpans(),
    histogram: async (name) => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
      return (metric?.dataPoints ?? []).map((p) => ({ attributes: p.attributes, count: p.value.count, sum: p.value.sum ?? 0 }));
    },
  };
}

/**
 * The spans as an indented tree, one line each: `name [attributes picked]`, children
 * under their parent in start order. What a person reads in a trace viewer.
 */
export function spanTree(spans: readonly ReadableSpan[], pick: readonly string[] = []): string {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    byParent.set(key, [...(byParent.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number): void => {
    const children = [...(byParent.get(parent) ?? [])].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    for (const span of children) {
      const shown = pick.filter((k) => span.attributes[k] !== undefined).map((k) => `${k}=${String(span.attributes[k])}`);
      lines.push(`${'  '.repeat(depth)}${span.name}${shown.length > 0 ? ` [${shown.join(' ')}]` : ''}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}
