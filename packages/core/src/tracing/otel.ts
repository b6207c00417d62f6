import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Histogram, Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import { AnytoolError, ErrorCode } from '../errors.js';
import { describeError } from '../thrown-value.js';
import { requireOpenTelemetry } from '../on-first-use.cjs';

/*
 * The one place that knows whether the OpenTelemetry API is here. It is an optional peer
 * dependency of core, mcp and agent, loaded the first time something would trace: a
 * program that traces has installed it and registered an SDK, and with no SDK registered
 * there is nothing to record, so a program without it runs as one with tracing off.
 */

export type OpenTelemetry = typeof OpenTelemetryApi;

/** The API once loaded; `null` once it failed to load (not installed), with the error in `loadFailure`. */
let api: OpenTelemetry | null | undefined;
let loadFailure: unknown;

/** The OpenTelemetry API, loaded on the first call; undefined when it is not installed (or does not load). */
export function openTelemetry(): OpenTelemetry | undefined {
  if (api === undefined) {
    try {
      api = requireOpenTelemetry();
    } catch (error) {
      api = null;
      loadFailure = error;
    }
  }
  return api ?? undefined;
}

/**
 * Throws `MISSING_DEPENDENCY` naming the `npm i` to run when an option the user gave
 * needs the OpenTelemetry API (a tracer or meter provider of theirs) and it does not load:
 * their spans would otherwise vanish without a word.
 *
 * @param owner what was given the option, for the message (`tracing({ tracerProvider })`)
 */
export function needOpenTelemetry(owner: string): OpenTelemetry {
  const loaded = openTelemetry();
  if (loaded !== undefined) return loaded;
  const code = (loadFailure as { code?: unknown } | undefined)?.code;
  const missing = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
  throw new AnytoolError(
    ErrorCode.MissingDependency,
    `${owner} needs the @opentelemetry/api package, which ${missing ? 'is not installed' : `does not load (${describeError(loadFailure).split('\n')[0]!})`}; install it next to @anytool/core: npm i @opentelemetry/api`,
    { cause: loadFailure },
  );
}

/** The instrumentation scope of anytool's spans and metrics. */
export const INSTRUMENTATION_NAME = 'anytool';

/** Where spans and metrics go: the global providers (an SDK's `register()`), unless given. */
export interface TelemetryProviders {
  /** Defaults to the global tracer provider. */
  tracerProvider?: TracerProvider;
  /** Defaults to the global meter provider. */
  meterProvider?: MeterProvider;
}

/** Whether providers were given: then the API must load (`needOpenTelemetry`). */
export function providersGiven(options: TelemetryProviders | undefined): boolean {
  return options?.tracerProvider !== undefined || options?.meterProvider !== undefined;
}

/**
 * Where every copy of the OpenTelemetry API of major version 1 (ours depends on 1.x) keeps
 * what was registered globally: tracer and meter providers, propagators, the context
 * manager. Absent until something registers, which makes it the cheapest check there is,
 * and one that needs no copy of the API loaded.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether nothing at all was registered with the OpenTelemetry API (no SDK): a property read. */
export function nothingRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[API_GLOBAL] === undefined;
}

/** What the API hands out while no SDK is registered: its no-op tracer provider and histogram. */
interface Noops {
  tracerProvider: TracerProvider | undefined;
  histogram: Histogram;
}
let noops: Noops | undefined;

function noopsOf(otel: OpenTelemetry): Noops {
  return (noops ??= {
    tracerProvider: typeof otel.ProxyTracerProvider === 'function' ? new otel.ProxyTracerProvider().getDelegate() : undefined,
    histogram: otel.createNoopMeter().createHistogram('noop'),
  });
}

/**
 * A tracer that is undefined while nothing would record: the global provider is
 * the API's no-op (no SDK registered), or the API is not installed. Asked on every
 * call, so an SDK registered later is picked up, and it costs a lookup and a
 * comparison when there is none.
 */
export function tracerSource(given: TracerProvider | undefined): () => Tracer | undefined {
  let provider: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  return () => {
    const otel = openTelemetry();
    if (otel === undefined) return undefined;
    const current = given ?? otel.trace.getTracerProvider();
    if (current !== provider) {
      provider = current;
      tracer = current.getTracer(INSTRUMENTATION_NAME);
    }
    const delegate = (current as { getDelegate?: () => TracerProvider }).getDelegate;
    if (typeof delegate === 'function' && delegate.call(current) === noopsOf(otel).tracerProvider) return undefined;
    return tracer;
  };
}

/** A histogram that is undefined while the meter provider is the API's no-op, or the API is not installed. */
export function histogramSource(given: MeterProvider | undefined, make: (meter: Meter) => Histogram): () => Histogram | undefined {
  let provider: MeterProvider | undefined;
  let histogram: Histogram | undefined;
  return () => {
    const otel = openTelemetry();
    if (otel === undefined) return undefined;
    const current = given ?? otel.metrics.getMeterProvider();
    if (current !== provider) {
      provider = current;
      const made = make(current.getMeter(INSTRUMENTATION_NAME));
      histogram = made === noopsOf(otel).histogram ? undefined : made;
    }
    return histogram;
  };
}
