import { now } from '../clock.js';
import { describeError } from '../errors.js';
import { ACTIVE, type GatedMiddleware, type ToolCall } from '../pipeline/tool-call.js';
import { resultText, type ToolResult } from '../tool-result.js';
import { histogramSource, needOpenTelemetry, nothingRegistered, openTelemetry, providersGiven, tracerSource, type TelemetryProviders } from './otel.js';

export interface TracingOptions extends TelemetryProviders {
  /**
   * Record each call's arguments (`gen_ai.tool.call.arguments`) and result
   * (`gen_ai.tool.call.result`) on its span. Off by default: they may carry
   * personal or secret data.
   */
  captureContent?: boolean;
}

/** Longest argument or result text put on a span when content is captured. */
const MAX_CONTENT_CHARS = 16_384;

/**
 * OpenTelemetry spans and metrics for every call, following the GenAI semantic
 * conventions: one `execute_tool {tool}` span a call (`gen_ai.operation.name`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, and `error.type`
 * with the error result's code), and the `gen_ai.execute_tool.duration`
 * histogram. Spans go to the globally registered SDK (or `tracerProvider`); a span
 * continues the run's trace (`context.trace`: an agent's span, or the trace an MCP
 * request carried), else the active OpenTelemetry context. With no SDK registered
 * it costs a lookup a call. The tool receives a context whose `trace` is its
 * call's span, so what it calls in turn (another toolset, an MCP server) nests.
 *
 * The OpenTelemetry API (`@opentelemetry/api`) is an optional peer dependency:
 * without it installed nothing is traced, and giving `tracerProvider` or
 * `meterProvider` throws `MISSING_DEPENDENCY` naming the `npm i` to run.
 *
 * @example
 * const toolset = new Toolset(tools).use(tracing());
 */
export function tracing(options: TracingOptions = {}): GatedMiddleware {
  const capture = options.captureContent === true;
  const given = providersGiven(options);
  if (given) needOpenTelemetry('tracing() with a tracerProvider or meterProvider');
  const tracer = tracerSource(options.tracerProvider);
  const duration = histogramSource(options.meterProvider, (meter) =>
    meter.createHistogram('gen_ai.execute_tool.duration', { unit: 's', description: 'Duration of tool calls, from the call to its result.' }),
  );
  return {
    name: 'tracing',
    // Nothing to do while neither an SDK's tracer nor its meter is registered: calls skip the chain.
    [ACTIVE]: given
      ? () => tracer() !== undefined || duration() !== undefined
      : () => !nothingRegistered() && (tracer() !== undefined || duration() !== undefined),
    before(call: ToolCall): void {
      const active = tracer();
      if (active === undefined) return;
      // A tracer is only handed out once the API loaded.
      const otel = openTelemetry()!;
      const parent = call.context.trace ?? otel.context.active();
      const span = active.startSpan(
        `execute_tool ${call.name}`,
        {
          kind: otel.SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': call.name,
            'gen_ai.tool.call.id': call.callId,
            'gen_ai.tool.type': 'function',
          },
        },
        parent,
      );
      call.span = span;
      if (capture && span.isRecording()) span.setAttribute('gen_ai.tool.call.arguments', contentText(call.args));
      call.context = call.context.withTrace(otel.trace.setSpan(parent, span));
    },
    after(call: ToolCall, result: ToolResult): void {
      const histogram = duration();
      const code = result.isError ? (result.error?.code ?? '_OTHER') : undefined;
      if (histogram !== undefined) {
        const attributes: Record<string, string> = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name };
        if (code !== undefined) attributes['error.type'] = code;
        histogram.record((now() - call.started) / 1000, attributes);
      }
      const span = call.span;
      if (span === undefined) return;
      call.span = undefined;
      if (span.isRecording()) {
        if (code !== undefined) {
          span.setAttribute('error.type', code);
          span.setStatus({ code: openTelemetry()!.SpanStatusCode.ERROR, message: resultText(result).slice(0, 500) });
        }
        if (capture) span.setAttribute('gen_ai.tool.call.result', contentText(result.structured !== undefined ? result.structured : resultText(result)));
      }
      span.end();
    },
  };
}

/** Arguments or a result as span text: JSON text as it came, anything else as JSON; cut to a bound. */
function contentText(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch (error) {
      text = `(not JSON: ${describeError(error)})`;
    }
  }
  return text.length <= MAX_CONTENT_CHARS ? text : `${text.slice(0, MAX_CONTENT_CHARS)}… (${text.length} characters)`;
}
