import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Milliseconds between two OpenTelemetry times ([seconds, nanoseconds]). */
function ms(from: [number, number], to: [number, number]): number {
  return (to[0] - from[0]) * 1e3 + (to[1] - from[1]) / 1e6;
}

/**
 * Prints finished spans as the tree a trace viewer shows: each span under its parent,
 * in start order, with its duration and, for a failed one, its `error.type`.
 */
export function printSpanTree(spans: readonly ReadableSpan[], print: (line: string) => void = console.log): void {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const walk = (parent: string | undefined, depth: number): void => {
    const list = [...(children.get(parent) ?? [])].sort((a, b) => ms(b.startTime, a.startTime));
    for (const span of list) {
      const error = span.attributes['error.type'];
      const label = `${'  '.repeat(depth)}${span.name}`;
      print(`  ${label.padEnd(44)} ${ms(span.startTime, span.endTime).toFixed(1).padStart(8)} ms${error === undefined ? '' : `  error.type=${String(error)}`}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  const traces = new Set(spans.map((s) => s.spanContext().traceId));
  print(`trace ${[...traces].join(', ')}: ${spans.length} spans`);
  walk(undefined, 0);
}
