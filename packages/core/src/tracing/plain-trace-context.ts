import type { Context as TraceContext, Span, SpanContext, TraceState } from '@opentelemetry/api';

/*
 * A W3C trace context held without the OpenTelemetry API, for when it is not installed:
 * what `extractTraceContext` reads from a carrier still reaches `injectTraceContext`, so
 * a served call, a paused run or a tool calling out hands the caller's trace on. The
 * objects keep the API's shapes (a context holding a non-recording span under the API's
 * own key), so a copy of the API that meets one reads it as its own.
 */

/** The key under which every copy of the OpenTelemetry API keeps a context's span (`Symbol.for` makes it shared). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

const ZEROS = /^0+$/;
const TRACE_ID = /^[0-9a-f]{32}$/i;
const SPAN_ID = /^[0-9a-f]{16}$/i;

/** Whether ids are well formed and not all zeros: the OpenTelemetry API's `isSpanContextValid`. */
export function isValidSpanContext(span: SpanContext): boolean {
  return TRACE_ID.test(span.traceId) && !ZEROS.test(span.traceId) && SPAN_ID.test(span.spanId) && !ZEROS.test(span.spanId);
}

/** The span context a trace context holds, read as the API reads it. */
export function spanContextIn(context: TraceContext): SpanContext | undefined {
  const span = context.getValue(SPAN_KEY) as Partial<Span> | undefined;
  return typeof span?.spanContext === 'function' ? span.spanContext() : undefined;
}

/** A trace context whose span is the remote one `span` describes. */
export function plainTraceContext(span: SpanContext): TraceContext {
  return new PlainContext(new Map<symbol, unknown>([[SPAN_KEY, remoteSpan(span)]]));
}

/** An immutable context: each change makes a new one, as the API's own do. */
class PlainContext implements TraceContext {
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}

  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  setValue(key: symbol, value: unknown): TraceContext {
    return new PlainContext(new Map(this.values).set(key, value));
  }

  deleteValue(key: symbol): TraceContext {
    const values = new Map(this.values);
    values.delete(key);
    return new PlainContext(values);
  }
}

/** A span that records nothing and only carries its context: what the API makes of a remote parent. */
function remoteSpan(context: SpanContext): Span {
  const span: Span = {
    spanContext: () => context,
    setAttribute: () => span,
    setAttributes: () => span,
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: () => span,
    end: () => undefined,
    isRecording: () => false,
    recordException: () => undefined,
  };
  return span;
}

/** Most list members a `tracestate` keeps (the W3C limit). */
const MAX_MEMBERS = 32;
/** A member's key (`vendor` or `tenant@vendor`) and value, as the W3C Trace Context grammar has them. */
const MEMBER_KEY = /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const MEMBER_VALUE = /^[ -+\--<>-~]{0,255}[!-+\--<>-~]$/;

/** A `tracestate` header's members, malformed ones dropped: what the API's `createTraceState` keeps. */
export function plainTraceState(header: string): TraceState {
  const members = new Map<string, string>();
  for (const part of header.split(',')) {
    const member = part.trim();
    const split = member.indexOf('=');
    if (split <= 0) continue;
    const key = member.slice(0, split);
    const value = member.slice(split + 1);
    // The first of a repeated key is the newest.
    if (MEMBER_KEY.test(key) && MEMBER_VALUE.test(value) && !members.has(key)) members.set(key, value);
    if (members.size === MAX_MEMBERS) break;
  }
  return new PlainTraceState(members);
}

class PlainTraceState implements TraceState {
  constructor(private readonly members: ReadonlyMap<string, string>) {}

  set(key: string, value: string): TraceState {
    const members = new Map([[key, value]]);
    for (const [k, v] of this.members) if (k !== key) members.set(k, v);
    return new PlainTraceState(members);
  }

  unset(key: string): TraceState {
    const members = new Map(this.members);
    members.delete(key);
    return new PlainTraceState(members);
  }

  get(key: string): string | undefined {
    return this.members.get(key);
  }

  serialize(): string {
    return [...this.members].map(([key, value]) => `${key}=${value}`).join(',');
  }
}
