// The trace context core keeps when the OpenTelemetry API is not installed: it must read as the API's own (a copy of
// the API that meets one finds its span), and its tracestate keeps what the API's createTraceState keeps. The path
// through extractTraceContext / injectTraceContext without the API is run from packed packages in
// test/consumer/otel-absent.test.ts (here the API is always installed).
import { ROOT_CONTEXT, createTraceState, trace, type SpanContext } from '@opentelemetry/api';
import fc from 'fast-check';
import { isValidSpanContext, plainTraceContext, plainTraceState, spanContextIn } from '../../src/tracing/plain-trace-context';

const remote: SpanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1, isRemote: true };

describe('a plain trace context', () => {
  it('holds its span where the OpenTelemetry API looks, and reads the API’s own contexts', () => {
    const context = plainTraceContext(remote);
    expect(trace.getSpanContext(context)).toEqual(remote);
    expect(trace.getSpan(context)?.isRecording()).toBe(false);
    expect(spanContextIn(trace.setSpanContext(ROOT_CONTEXT, remote))).toEqual(remote);
    expect(spanContextIn(ROOT_CONTEXT)).toBeUndefined();
  });

  it('is immutable: a change makes a new context, as the API’s do', () => {
    const context = plainTraceContext(remote);
    const key = Symbol('other');
    const changed = context.setValue(key, 1);
    expect([changed.getValue(key), context.getValue(key)]).toEqual([1, undefined]);
    expect(spanContextIn(changed.deleteValue(key))).toEqual(remote);
    expect(spanContextIn(context.deleteValue(Symbol.for('OpenTelemetry Context Key SPAN')))).toBeUndefined();
  });

  it('judges span contexts as the API does: well-formed ids, not all zeros', () => {
    expect(isValidSpanContext(remote)).toBe(true);
    expect(isValidSpanContext({ ...remote, traceId: '0'.repeat(32) })).toBe(false);
    expect(isValidSpanContext({ ...remote, spanId: '0'.repeat(16) })).toBe(false);
    expect(isValidSpanContext({ ...remote, traceId: 'x'.repeat(32) })).toBe(false);
    expect(isValidSpanContext({ ...remote, spanId: remote.spanId.slice(1) })).toBe(false);
  });
});

describe('a plain tracestate', () => {
  const key = fc.oneof(
    fc.stringMatching(/^[a-z][_0-9a-z\-*/]{0,6}$/),
    fc.stringMatching(/^[a-z0-9]{1,4}@[a-z][a-z0-9]{0,3}$/),
    // Not keys: upper case, a leading digit without a vendor, empty.
    fc.constantFrom('Vendor', '1abc', ''),
  );
  const value = fc.oneof(fc.stringMatching(/^[!-~]{1,8}$/), fc.constantFrom('a b', ' x', 'x ', 'a,b', ''));
  const member = fc.tuple(key, value, fc.constantFrom('', ' ', '\t')).map(([k, v, space]) => `${space}${k}=${v}${space}`);

  it('keeps the members the API keeps, in its order (distinct keys, up to 32 members)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(member, { maxLength: 32, selector: (m) => m.trim().split('=')[0] }), (members) => {
        const header = members.join(',');
        expect(plainTraceState(header).serialize()).toBe(createTraceState(header).serialize());
      }),
    );
  });

  it('keeps the first 32 members and, of a repeated key, the first', () => {
    const header = Array.from({ length: 40 }, (_, i) => `k${i}=${i}`).join(',');
    expect(plainTraceState(header).serialize()).toBe(Array.from({ length: 32 }, (_, i) => `k${i}=${i}`).join(','));
    expect(plainTraceState('a=1,b=2,a=3').serialize()).toBe('a=1,b=2');
  });

  it('sets a member in front, unsets and reads members, as the API does', () => {
    const state = plainTraceState('a=1,b=2');
    const api = createTraceState('a=1,b=2');
    expect(state.set('b', '3').serialize()).toBe(api.set('b', '3').serialize());
    expect(state.set('c', '4').serialize()).toBe(api.set('c', '4').serialize());
    expect(state.unset('a').serialize()).toBe(api.unset('a').serialize());
    expect([state.get('b'), state.get('z')]).toEqual(['2', undefined]);
  });
});
