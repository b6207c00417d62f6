import { AnytoolError, ErrorCode, type ToolDefinition } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { OpenAI, type ClientOptions } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ModelAdapter } from './adapter.js';
import { clientOptionsFrom, type ModelOptions, type OpenAIToolOptions } from './client-options.js';
import { toOpenAIMessages } from './openai-messages.js';
import { openAIStreamEvents } from './openai-sse.js';
import { readEvents } from './sse.js';
import type { ChunkMapper } from './stream-map.js';
import { checkToolChoice, strictOutputSchema, unsupported } from './request-lowering.js';
import type { ModelRequest, ModelResponse, ModelStopReason, ModelStreamEvent, ModelToolCall, Usage } from '../model.js';

export interface OpenAIModelOptions extends ModelOptions<OpenAI>, OpenAIToolOptions {
  /** The model id, e.g. "gpt-4.1-mini" (or whatever an OpenAI-compatible server serves). */
  model: string;
  /** Defaults to the OPENAI_API_KEY environment variable (the client's own default). */
  apiKey?: string;
  /** Any OpenAI-compatible server, e.g. "http://127.0.0.1:11434/v1". Defaults to OPENAI_BASE_URL or OpenAI. */
  baseURL?: string;
  /** Anything else to send with every request (`seed`, `reasoning_effort`, `user`...); what the adapter sets wins. */
  params?: Partial<ChatCompletionCreateParamsNonStreaming>;
}

type CreateParams = ChatCompletionCreateParamsNonStreaming;

/**
 * A model behind OpenAI's Chat Completions API, through the official `openai`
 * client. Any OpenAI-compatible server works through `baseURL`. Tool schemas
 * are sent in strict mode by default (core lowers them; a `null` the model sends
 * for an optional argument reaches the tool as "absent"). Failed requests are
 * retried by the client (`maxRetries`); a request that still fails throws
 * `MODEL_FAILED`.
 *
 * @example
 * const model = new OpenAIModel({ model: 'gpt-4.1-mini' });
 * const local = new OpenAIModel({ model: 'llama3.1', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'unused' });
 */
export class OpenAIModel extends ModelAdapter<CreateParams, ChatCompletion, ChatCompletionChunk> {
  readonly provider = 'openai';
  readonly client: OpenAI;
  private readonly strict: boolean;
  private readonly parallelToolCalls: boolean | undefined;
  private readonly params: Partial<CreateParams> | undefined;

  constructor(options: OpenAIModelOptions) {
    super(options, { className: 'OpenAIModel', label: 'openai', exampleModel: 'gpt-4.1-mini', keyVariable: 'OPENAI_API_KEY' });
    this.strict = options.strict ?? true;
    this.parallelToolCalls = options.parallelToolCalls;
    this.params = options.params;
    if (options.client !== undefined) {
      this.client = options.client;
    } else {
      const clientOptions: ClientOptions = clientOptionsFrom(options);
      try {
        this.client = new OpenAI(clientOptions);
      } catch (error) {
        throw new AnytoolError(
          ErrorCode.MissingCredentials,
          `new OpenAIModel(): the openai client could not be created: ${describeError(error)}; pass { apiKey } or set OPENAI_API_KEY`,
          { cause: error },
        );
      }
    }
  }

  protected override get maxRetries(): number {
    return this.client.maxRetries;
  }

  override toParams(request: ModelRequest): CreateParams {
    const params: CreateParams = { ...this.params, model: this.model, messages: toOpenAIMessages(request.instructions, request.messages) };
    const tools = request.tools.length === 0 ? [] : this.lowering.tools('openai', chatTools(this.name, request.tools), { strict: this.strict });
    checkToolChoice(this.name, request.toolChoice, tools.length);
    if (tools.length > 0) {
      params.tools = tools;
      if (this.parallelToolCalls !== undefined) params.parallel_tool_calls = this.parallelToolCalls;
      if (request.toolChoice !== undefined) {
        const choice = request.toolChoice;
        params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
      }
    }
    if (request.output !== undefined) {
      const { schema, strict } = strictOutputSchema(request.output, this.strict);
      const format: { name: string; schema: Record<string, unknown>; strict: boolean; description?: string } = { name: request.output.name, schema, strict };
      if (request.output.description !== undefined) format.description = request.output.description;
      params.response_format = { type: 'json_schema', json_schema: format };
    }
    if (request.settings?.temperature !== undefined) params.temperature = request.settings.temperature;
    if (request.settings?.maxTokens !== undefined) params.max_completion_tokens = request.settings.maxTokens;
    return params;
  }

  protected override send(params: CreateParams, signal: AbortSignal | undefined): Promise<ChatCompletion> {
    return this.client.chat.completions.create(params, signal === undefined ? undefined : { signal });
  }

  protected override fromReply(completion: ChatCompletion): ModelResponse {
    return fromCompletion(completion, this.name);
  }

  /**
   * `stream: true`, with usage in the last chunk. The client sends the request (its
   * retries, errors and headers apply); the SSE body is read here by chunks, as the
   * client's stream reads it (see `openAIStreamEvents`).
   */
  protected override sendStream(params: CreateParams, signal: AbortSignal | undefined): Promise<AsyncIterator<ChatCompletionChunk>> {
    const streamed = { ...params, stream: true as const, stream_options: { include_usage: true, ...this.params?.stream_options } };
    return readEvents(signal, (options) => this.client.chat.completions.create(streamed, options).asResponse(), openAIStreamEvents<ChatCompletionChunk>);
  }

  protected override chunkMapper(): ChunkMapper<ChatCompletionChunk> {
    return new StreamedTurn(this.name);
  }
}

const NO_EVENTS: ModelStreamEvent[] = [];

/** A Chat Completions turn put together from its chunks: tool calls by index, their arguments from the deltas. */
class StreamedTurn implements ChunkMapper<ChatCompletionChunk> {
  private text = '';
  private refusal = '';
  private readonly calls: ModelToolCall[] = [];
  private finishReason: string | undefined;
  private usage: ChatCompletion['usage'];
  private id: string | undefined;
  private model: string | undefined;

  /** `name`: the adapter's, for errors. */
  constructor(private readonly name: string) {}

  /** Takes one chunk; returns the events it carries. */
  add(chunk: ChatCompletionChunk): ModelStreamEvent[] {
    if (chunk.usage != null) this.usage = chunk.usage;
    if (this.id === undefined && typeof chunk.id === 'string') this.id = chunk.id;
    if (this.model === undefined && typeof chunk.model === 'string') this.model = chunk.model;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return NO_EVENTS;
    if (choice.finish_reason != null) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta === undefined) return NO_EVENTS;
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    const content = typeof delta.content === 'string' && delta.content !== '' ? delta.content : undefined;
    if (content !== undefined) this.text += content;
    const events: ModelStreamEvent[] = content === undefined ? [] : [{ type: 'text_delta', text: content }];
    if (delta.tool_calls == null) return events;
    for (const part of delta.tool_calls ?? []) {
      let call = this.calls[part.index];
      if (call === undefined) {
        call = { id: part.id ?? '', name: part.function?.name ?? '', arguments: '' };
        this.calls[part.index] = call;
        events.push({ type: 'tool_call_start', id: call.id, name: call.name });
      }
      const args = part.function?.arguments;
      if (typeof args === 'string' && args !== '') {
        call.arguments = (call.arguments as string) + args;
        events.push({ type: 'tool_call_delta', id: call.id, delta: args });
      }
    }
    return events;
  }

  /** The turn as `generate` gives it, once the stream ended. */
  end(): ModelStreamEvent {
    if (this.finishReason === undefined && this.text === '' && this.calls.length === 0) {
      throw new AnytoolError(ErrorCode.ModelFailed, `${this.name}: the stream ended without a choice`);
    }
    const response = toResponse(
      this.text || this.refusal,
      this.calls.filter((call) => call !== undefined),
      this.usage,
      this.finishReason,
    );
    if (this.id !== undefined) response.id = this.id;
    if (this.model !== undefined) response.model = this.model;
    return { type: 'response', response };
  }
}

const STOP_REASONS: Record<string, ModelStopReason> = {
  stop: 'end',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
  content_filter: 'content_filter',
};

function fromCompletion(completion: ChatCompletion, name: string): ModelResponse {
  const choice = completion.choices?.[0];
  if (choice === undefined) throw new AnytoolError(ErrorCode.ModelFailed, `${name}: the response has no choices`);
  const message = choice.message;
  const toolCalls: ModelToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    // Arguments stay the raw string: the toolset parses it and reports bad JSON to the model.
    // Some OpenAI-compatible servers leave `type` out: only an explicit 'custom' is a custom tool call.
    if (call.type === 'custom') toolCalls.push({ id: call.id, name: call.custom.name, arguments: call.custom.input });
    else toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  const response = toResponse(message.content ?? message.refusal ?? '', toolCalls, completion.usage, choice.finish_reason);
  if (typeof completion.id === 'string') response.id = completion.id;
  if (typeof completion.model === 'string') response.model = completion.model;
  return response;
}

/**
 * The definitions Chat Completions can carry. A built-in tool only the Responses API
 * has (`builtin.openai.webSearch()`...) cannot be sent here, and leaving it out would
 * look like the model ignoring it: a coded error naming the tool and the adapter to use.
 */
function chatTools(adapter: string, definitions: readonly ToolDefinition[]): readonly ToolDefinition[] {
  const responsesOnly = definitions.find((d) => d.builtin?.runs === 'provider' && d.builtin.declarations['openai-responses'] !== undefined);
  if (responsesOnly !== undefined) {
    throw unsupported(
      adapter,
      `the tool "${responsesOnly.name}" is a built-in tool of OpenAI's Responses API, which the Chat Completions API cannot carry`,
      'use OpenAIResponsesModel (@anytool/agent/openai-responses) for OpenAI built-in tools, or leave the tool out of this agent',
    );
  }
  return definitions;
}

function toResponse(text: string, toolCalls: ModelToolCall[], usage: ChatCompletion['usage'], finishReason: string | undefined): ModelResponse {
  const input = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  const tokens: Usage = { inputTokens: input, outputTokens: output, totalTokens: usage?.total_tokens ?? input + output };
  const response: ModelResponse = { text, toolCalls, usage: tokens, stopReason: (finishReason !== undefined && STOP_REASONS[finishReason]) || 'other' };
  if (finishReason !== undefined) response.providerStopReason = finishReason;
  return response;
}
