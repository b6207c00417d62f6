import type { Context as TraceContext, SpanContext } from '@opentelemetry/api';
import { isExecutionContext, type ExecutionContext } from '../execution-context.js';
import { openTelemetry } from './otel.js';
import { isValidSpanContext, plainTraceContext, plainTraceState, spanContextIn } from './plain-trace-context.js';

/** W3C Trace Context: version 00, trace id, parent span id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** Longest `tracestate` read (the W3C recommendation for what to propagate). */
const MAX_TRACESTATE = 512;

/**
 * Writes the trace context of the call's current span (or of an OpenTelemetry
 * context) into `carrier` as W3C `traceparent` (and `tracestate`), plus whatever
 * the globally registered propagators add (baggage). An MCP client passes its
 * request's `params._meta`, so the server continues the caller's trace. Nothing
 * is written when the call is not traced. Works without the OpenTelemetry API
 * installed too: then the trace is the one `extractTraceContext` read.
 */
export function injectTraceContext(from: ExecutionContext | TraceContext | undefined, carrier: Record<string, unknown>): void {
  const current = isExecutionContext(from) ? from.trace : from;
  if (current === undefined) return;
  const otel = openTelemetry();
  const span = otel === undefined ? spanContextIn(current) : otel.trace.getSpanContext(current);
  if (span === undefined || !isValidSpanContext(span)) return;
  otel?.propagation.inject(current, carrier);
  carrier['traceparent'] = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const state = span.traceState?.serialize();
  if (state !== undefined && state !== '') carrier['tracestate'] = state;
}

/**
 * Reads W3C `traceparent` / `tracestate` (and what the registered propagators
 * read) from a carrier such as an MCP request's `params._meta`: the context to
 * give `new ExecutionContext({ trace })`, so the served call's spans continue the
 * caller's trace. Undefined when the carrier has none, or a malformed one.
 * Without the OpenTelemetry API installed it reads `traceparent` and `tracestate`
 * alone, into a context `injectTraceContext` writes back out.
 */
export function extractTraceContext(carrier: unknown): TraceContext | undefined {
  if (typeof carrier !== 'object' || carrier === null) return undefined;
  try {
    return readTraceContext(carrier as Record<string, unknown>);
  } catch {
    // A carrier whose reading throws (a hostile proxy, a throwing getter) carries no trace.
    return undefined;
  }
}

function readTraceContext(fields: Record<string, unknown>): TraceContext | undefined {
  const otel = openTelemetry();
  const traceparent = fields['traceparent'];
  const extracted = otel?.propagation.extract(otel.ROOT_CONTEXT, fields);
  const propagated = extracted === undefined || extracted === otel?.ROOT_CONTEXT ? undefined : extracted;
  const match = typeof traceparent === 'string' && traceparent.length <= 512 ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (match === null || match[1] === 'ff' || (match[1] === '00' && match[5] !== undefined)) return propagated;
  const spanContext: SpanContext = { traceId: match[2]!, spanId: match[3]!, traceFlags: parseInt(match[4]!, 16), isRemote: true };
  if (!isValidSpanContext(spanContext)) return propagated;
  const tracestate = fields['tracestate'];
  const state = typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE ? tracestate : undefined;
  if (otel === undefined) return plainTraceContext(state === undefined ? spanContext : { ...spanContext, traceState: plainTraceState(state) });
  return otel.trace.setSpanContext(extracted!, state === undefined ? spanContext : { ...spanContext, traceState: otel.createTraceState(state) });
}
