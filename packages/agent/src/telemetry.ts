import type { Attributes, Context as TraceContext, Span } from '@opentelemetry/api';
import { resultText, type TracingOptions } from '@anytool/core';
import { now, openTelemetry, type OpenTelemetry } from '@anytool/core/internal';
import type { BuiltinToolCall, Model, ModelRequest, ModelResponse, Usage } from './model.js';

const SCOPE = 'anytool';
/** Longest argument or result text put on a span when content is captured (as the tool spans of core). */
const MAX_CONTENT_CHARS = 16_384;

/** The spans and metrics of one traced agent run, following the GenAI semantic conventions. */
export class RunTelemetry {
  private readonly span: Span;
  /** The run's trace context: the `invoke_agent` span, which its model and tool spans continue. */
  readonly trace: TraceContext;

  /**
   * Starts a run's `invoke_agent` span; undefined without the OpenTelemetry API installed (an
   * optional peer dependency): there is nothing to trace then, and the run keeps `parent`.
   */
  static start(options: TracingOptions, model: Model, agentName: string | undefined, parent: TraceContext | undefined): RunTelemetry | undefined {
    const otel = openTelemetry();
    return otel === undefined ? undefined : new RunTelemetry(otel, options, model, agentName, parent);
  }

  private constructor(
    private readonly otel: OpenTelemetry,
    private readonly options: TracingOptions,
    private readonly model: Model,
    agentName: string | undefined,
    parent: TraceContext | undefined,
  ) {
    const { SpanKind, context: otelContext, trace } = otel;
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    const attributes: Attributes = { 'gen_ai.operation.name': 'invoke_agent', ...modelAttributes(model) };
    if (agentName !== undefined) attributes['gen_ai.agent.name'] = agentName;
    const context = parent ?? otelContext.active();
    this.span = provider
      .getTracer(SCOPE)
      .startSpan(agentName === undefined ? 'invoke_agent' : `invoke_agent ${agentName}`, { kind: SpanKind.INTERNAL, attributes }, context);
    this.trace = trace.setSpan(context, this.span);
  }

  /** Starts the `chat {model}` span of one model turn; the returned function ends it with the response or the failure. */
  chat(request: ModelRequest): (response: ModelResponse | undefined, errorType?: string) => void {
    const { SpanKind, SpanStatusCode, metrics, trace } = this.otel;
    const model = this.model;
    const started = now();
    const attributes: Attributes = { 'gen_ai.operation.name': 'chat', ...modelAttributes(model) };
    if (request.settings?.temperature !== undefined) attributes['gen_ai.request.temperature'] = request.settings.temperature;
    if (request.settings?.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = request.settings.maxTokens;
    const provider = this.options.tracerProvider ?? trace.getTracerProvider();
    const span = provider.getTracer(SCOPE).startSpan(`chat ${model.model ?? model.name}`, { kind: SpanKind.CLIENT, attributes }, this.trace);
    return (response, errorType) => {
      const metricAttributes: Attributes = { 'gen_ai.operation.name': 'chat', ...modelAttributes(model) };
      if (response !== undefined) {
        span.setAttributes(usageAttributes(response.usage));
        // The provider's own words ("stop", "end_turn", "STOP"), as the conventions ask; the neutral reason without one.
        span.setAttribute('gen_ai.response.finish_reasons', [response.providerStopReason ?? response.stopReason]);
        if (response.id !== undefined) span.setAttribute('gen_ai.response.id', response.id);
        if (response.model !== undefined) span.setAttribute('gen_ai.response.model', response.model);
        for (const call of response.builtinCalls ?? []) this.builtinSpan(call, span);
      }
      if (errorType !== undefined) {
        metricAttributes['error.type'] = errorType;
        span.setAttribute('error.type', errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      const meter = (this.options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
      meter
        .createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'Duration of model calls.' })
        .record((now() - started) / 1000, metricAttributes);
      if (response !== undefined) {
        const tokens = meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', description: 'Tokens used by model calls.' });
        tokens.record(response.usage.inputTokens, { ...metricAttributes, 'gen_ai.token.type': 'input' });
        tokens.record(response.usage.outputTokens, { ...metricAttributes, 'gen_ai.token.type': 'output' });
      }
    };
  }

  /**
   * The `execute_tool {tool}` span of a built-in tool the provider ran during a
   * model turn: a child of that turn's `chat` span, marked `anytool.tool.ran_by`
   * (the provider). Providers report no timing, so it marks the moment the
   * result arrived, and no duration is recorded in the metrics.
   */
  private builtinSpan(call: BuiltinToolCall, chat: Span): void {
    const { SpanKind, SpanStatusCode, trace } = this.otel;
    const provider = this.options.tracerProvider ?? trace.getTracerProvider();
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
      'anytool.tool.ran_by': this.model.provider ?? this.model.name,
    };
    if (this.options.captureContent === true) {
      attributes['gen_ai.tool.call.arguments'] = JSON.stringify(call.arguments ?? {}).slice(0, MAX_CONTENT_CHARS);
      attributes['gen_ai.tool.call.result'] = resultText(call.result).slice(0, MAX_CONTENT_CHARS);
    }
    const span = provider.getTracer(SCOPE).startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, trace.setSpan(this.trace, chat));
    if (call.result.isError) {
      const code = call.result.error?.code ?? '_OTHER';
      span.setAttribute('error.type', code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: resultText(call.result).slice(0, 500) });
    }
    span.end();
  }

  /** Ends the `invoke_agent` span with the run's totals and, when it did not end with an answer, an error type. */
  end(usage: Usage, stopReason: string, steps: number, errorType?: string): void {
    const { SpanStatusCode } = this.otel;
    this.span.setAttributes({ ...usageAttributes(usage), 'anytool.agent.stop_reason': stopReason, 'anytool.agent.steps': steps });
    if (errorType !== undefined) {
      this.span.setAttribute('error.type', errorType);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

function modelAttributes(model: Model): Attributes {
  const attributes: Attributes = {};
  if (model.provider !== undefined) attributes['gen_ai.provider.name'] = model.provider;
  if (model.model !== undefined) attributes['gen_ai.request.model'] = model.model;
  return attributes;
}

function usageAttributes(usage: Usage): Attributes {
  return { 'gen_ai.usage.input_tokens': usage.inputTokens, 'gen_ai.usage.output_tokens': usage.outputTokens };
}
