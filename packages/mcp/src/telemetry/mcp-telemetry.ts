import type { Attributes, Context as TraceContext, MeterProvider, TracerProvider } from '@opentelemetry/api';
import { needOpenTelemetry, nothingRegistered, now, openTelemetry, providersGiven } from '@anytool/core/internal';

/*
 * Spans and metrics of MCP operations, after the OpenTelemetry semantic
 * conventions for MCP: one span per request, named `{mcp.method.name} {target}`,
 * of kind CLIENT where it is sent and SERVER where it is served, the server's a
 * child of the client's through the trace context in `params._meta`; and the
 * `mcp.client.operation.duration` / `mcp.server.operation.duration` histograms.
 * Everything goes to the globally registered OpenTelemetry SDK (or the providers
 * given); with none registered, or the OpenTelemetry API (an optional peer
 * dependency) not installed, nothing is made at all.
 */

/** The instrumentation scope, as anytool's other spans and metrics. */
const SCOPE = 'anytool';

/** Where spans and metrics of MCP operations go: the global providers unless given. */
export interface McpTelemetryOptions {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
}

/** What a span of one MCP request is about. */
export interface McpOperationInfo {
  /** `mcp.method.name`, such as `tools/call`. */
  method: string;
  /** The tool (or prompt) named in the span name and `gen_ai.tool.name`. */
  tool?: string;
  /** `mcp.protocol.version`, once known. */
  protocolVersion?: string | undefined;
  /** `mcp.session.id`: the session of the 2025 era over HTTP; the 2026-07-28 era has none. */
  sessionId?: string | undefined;
  /** `jsonrpc.request.id`, when known. */
  requestId?: string | number | undefined;
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP. */
  transport?: 'pipe' | 'tcp';
  /** `server.address` and `server.port` (client side, HTTP). */
  address?: string;
  port?: number;
}

/** One MCP request being traced: its span's context, and how it ends. */
export interface McpOperation {
  /** The context whose span is this request's: what goes into `params._meta`, and the parent of what serving it runs. */
  readonly trace: TraceContext;
  /** Sets `jsonrpc.request.id` once the request has its id. */
  requestId(id: string | number): void;
  /** Ends the span and records the duration; `errorType` (and its message) when the request failed or the tool reported an error. */
  end(errorType?: string, message?: string): void;
}

/** Whether anything would record MCP telemetry: providers were given, or an OpenTelemetry SDK registered globally (a property read). */
export function mcpTelemetryActive(options: McpTelemetryOptions | undefined): boolean {
  return providersGiven(options) || !nothingRegistered();
}

/**
 * Throws `MISSING_DEPENDENCY` (naming `npm i @opentelemetry/api`) when providers were given
 * and the OpenTelemetry API does not load: checked where the options are taken, so that
 * spans the user asked for do not vanish without a word.
 */
export function checkTelemetryOptions(options: McpTelemetryOptions | undefined, owner: string): void {
  if (providersGiven(options)) needOpenTelemetry(`${owner}: \`telemetry\` with a tracer or meter provider`);
}

/**
 * Starts the span of one MCP request: `kind` is `client` where it is sent,
 * `server` where it is served. `parent` is the caller's trace (the tool call
 * span on the client; on the server, the context `params._meta` carried), else
 * the active context. Undefined while no SDK is registered, or without the API
 * installed: nothing to record.
 */
export function startMcpOperation(
  kind: 'client' | 'server',
  info: McpOperationInfo,
  parent: TraceContext | undefined,
  options?: McpTelemetryOptions,
): McpOperation | undefined {
  if (!mcpTelemetryActive(options)) return undefined;
  const otel = openTelemetry();
  if (otel === undefined) return undefined;
  const { SpanKind, SpanStatusCode, context: otelContext, metrics, trace } = otel;
  const started = now();
  const tracer = (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const metricAttributes: Attributes = { 'mcp.method.name': info.method };
  if (info.tool !== undefined) {
    metricAttributes['gen_ai.tool.name'] = info.tool;
    metricAttributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (info.protocolVersion !== undefined) metricAttributes['mcp.protocol.version'] = info.protocolVersion;
  if (info.transport !== undefined) metricAttributes['network.transport'] = info.transport;
  const attributes: Attributes = { ...metricAttributes };
  if (info.sessionId !== undefined) attributes['mcp.session.id'] = info.sessionId;
  if (info.requestId !== undefined) attributes['jsonrpc.request.id'] = String(info.requestId);
  if (info.address !== undefined) attributes['server.address'] = info.address;
  if (info.port !== undefined) attributes['server.port'] = info.port;
  const context = parent ?? otelContext.active();
  const span = tracer.startSpan(
    info.tool === undefined ? info.method : `${info.method} ${info.tool}`,
    { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.SERVER, attributes },
    context,
  );
  const histogramName = kind === 'client' ? 'mcp.client.operation.duration' : 'mcp.server.operation.duration';
  let ended = false;
  return {
    trace: trace.setSpan(context, span),
    requestId(id) {
      span.setAttribute('jsonrpc.request.id', String(id));
    },
    end(errorType, message) {
      if (ended) return;
      ended = true;
      if (errorType !== undefined) {
        span.setAttribute('error.type', errorType);
        span.setStatus(message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message: message.slice(0, 500) });
        metricAttributes['error.type'] = errorType;
      }
      span.end();
      const meter = (options?.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
      meter
        .createHistogram(histogramName, {
          unit: 's',
          description:
            kind === 'client'
              ? 'Duration of MCP requests as the client sees them, from sending to the response.'
              : 'Duration of MCP requests as the server sees them, from receiving to the response.',
        })
        .record((now() - started) / 1000, metricAttributes);
    },
  };
}

/** `error.type` of a failed request: the error's code (an anytool code, or the JSON-RPC error code), else `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : '_OTHER';
}

/** `error.type` of a tool call whose result says it failed (`isError`), as the conventions name it. */
export const TOOL_ERROR = 'tool_error';
