import {
  ProxyTracerProvider,
  createNoopMeter,
  metrics,
  trace,
  type Histogram,
  type Meter,
  type MeterProvider,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** The instrumentation scope of anytool's spans and metrics. */
export const INSTRUMENTATION_NAME = 'anytool';

/** Where spans and metrics go: the global providers (an SDK's `register()`), unless given. */
export interface TelemetryProviders {
  /** Defaults to the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Defaults to the global meter provider. */
  meterProvider?: MeterProvider;
}

/**
 * Where every copy of the OpenTelemetry API of major version 1 (ours depends on 1.x) keeps
 * what was registered globally: tracer and meter providers, propagators, the context
 * manager. Absent until something registers, which makes it the cheapest check there is.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether nothing at all was registered with the OpenTelemetry API (no SDK): a property read. */
export function nothingRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[API_GLOBAL] === undefined;
}

/** The provider the API hands out while no SDK is registered. */
const NOOP_TRACER_PROVIDER: TracerProvider | undefined = typeof ProxyTracerProvider === 'function' ? new ProxyTracerProvider().getDelegate() : undefined;
const NOOP_HISTOGRAM: Histogram = createNoopMeter().createHistogram('noop');

/**
 * A tracer that is undefined while nothing would record: the global provider is
 * the API's no-op (no SDK registered). Asked on every call, so an SDK registered
 * later is picked up, and it costs a lookup and a comparison when there is none.
 */
export function tracerSource(given: TracerProvider | undefined): () => Tracer | undefined {
  let provider: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  return () => {
    const current = given ?? trace.getTracerProvider();
    if (current !== provider) {
      provider = current;
      tracer = current.getTracer(INSTRUMENTATION_NAME);
    }
    const delegate = (current as { getDelegate?: () => TracerProvider }).getDelegate;
    if (typeof delegate === 'function' && delegate.call(current) === NOOP_TRACER_PROVIDER) return undefined;
    return tracer;
  };
}

/** A histogram that is undefined while the meter provider is the API's no-op. */
export function histogramSource(given: MeterProvider | undefined, make: (meter: Meter) => Histogram): () => Histogram | undefined {
  let provider: MeterProvider | undefined;
  let histogram: Histogram | undefined;
  return () => {
    const current = given ?? metrics.getMeterProvider();
    if (current !== provider) {
      provider = current;
      const made = make(current.getMeter(INSTRUMENTATION_NAME));
      histogram = made === NOOP_HISTOGRAM ? undefined : made;
    }
    return histogram;
  };
}
