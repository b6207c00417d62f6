import { AnytoolError, ErrorCode, errorResult, textResult, toolResult, type ToolDefinition, type ToolResult } from '@anytool/core';
import { describeError, sniffMimeType } from '@anytool/core/internal';
import { OpenAI, type ClientOptions } from 'openai';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionWebSearch,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { ModelAdapter } from './adapter.js';
import { clientOptionsFrom, type ModelOptions, type OpenAIToolOptions } from './client-options.js';
import { RESPONSES_FORMAT, toResponsesInput } from './openai-responses-messages.js';
import { openAIStreamEvents } from './openai-sse.js';
import { readEvents } from './sse.js';
import type { ChunkMapper, MappedChunk } from './stream-map.js';
import { checkToolChoice, strictOutputSchema } from './request-lowering.js';
import type { BuiltinApprovalRequest, BuiltinToolCall, ModelDiagnostic, ModelRequest, ModelResponse, ModelStopReason, ModelToolCall } from '../model.js';

export interface OpenAIResponsesModelOptions extends ModelOptions<OpenAI>, OpenAIToolOptions {
  /** The model id, e.g. "gpt-5-mini". */
  model: string;
  /** Defaults to the OPENAI_API_KEY environment variable (the client's own default). */
  apiKey?: string;
  /**
   * Anything else to send with every request (`reasoning`, `store`, `include`...); what the adapter sets wins.
   * Without storage (`store: false`) pass `include: ['reasoning.encrypted_content']` so reasoning items can be sent back.
   */
  params?: Partial<ResponseCreateParamsNonStreaming>;
  /**
   * How deferred tools (`toolset.defer(...)`) are found: `native` (the default), the
   * Responses API's own tool search (`{ type: 'tool_search' }`, every tool sent and the
   * deferred ones marked `defer_loading`); or `portable`, the agent's own search tool
   * (for a model without tool search, or to rank with your own `ranker`).
   */
  toolSearch?: 'native' | 'portable';
}

type CreateParams = ResponseCreateParamsNonStreaming;

/**
 * A model behind OpenAI's Responses API, through the official `openai` client:
 * the API of OpenAI's hosted tools (`builtin.openai.webSearch()`...). Each turn's
 * output items (reasoning, hosted tool calls) are kept on the assistant message
 * and sent back verbatim on the next turns; hosted tool calls and their results
 * are recorded as run events. Failed requests are retried by the client
 * (`maxRetries`); a request that still fails throws `MODEL_FAILED`.
 *
 * @example
 * const model = new OpenAIResponsesModel({ model: 'gpt-5-mini' });
 * const agent = new Agent({ model, tools: [weather, builtin.openai.webSearch()] });
 */
export class OpenAIResponsesModel extends ModelAdapter<CreateParams, Response, ResponseStreamEvent> {
  readonly provider = 'openai';
  readonly client: OpenAI;
  private readonly strict: boolean;
  private readonly parallelToolCalls: boolean | undefined;
  private readonly params: Partial<CreateParams> | undefined;
  /** Whether deferred tools are lowered to the Responses API's tool search (`toolSearch` is not `portable`). */
  readonly nativeToolSearch: boolean;

  constructor(options: OpenAIResponsesModelOptions) {
    super(options, { className: 'OpenAIResponsesModel', label: 'openai-responses', exampleModel: 'gpt-5-mini', keyVariable: 'OPENAI_API_KEY' });
    this.strict = options.strict ?? true;
    this.parallelToolCalls = options.parallelToolCalls;
    this.params = options.params;
    const toolSearch = options.toolSearch ?? 'native';
    if (toolSearch !== 'native' && toolSearch !== 'portable') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `new OpenAIResponsesModel(): \`toolSearch\` must be 'native' or 'portable', got ${JSON.stringify(toolSearch)}`,
      );
    }
    this.nativeToolSearch = toolSearch === 'native';
    if (options.client !== undefined) {
      this.client = options.client;
    } else {
      const clientOptions: ClientOptions = clientOptionsFrom(options);
      try {
        this.client = new OpenAI(clientOptions);
      } catch (error) {
        throw new AnytoolError(
          ErrorCode.MissingCredentials,
          `new OpenAIResponsesModel(): the openai client could not be created: ${describeError(error)}; pass { apiKey } or set OPENAI_API_KEY`,
          { cause: error },
        );
      }
    }
  }

  protected override get maxRetries(): number {
    return this.client.maxRetries;
  }

  override toParams(request: ModelRequest): CreateParams {
    const params: CreateParams = { ...this.params, model: this.model, input: toResponsesInput(request.messages) };
    if (request.instructions !== undefined) params.instructions = request.instructions;
    const tools = request.tools.length === 0 ? [] : this.lowering.tools(RESPONSES_FORMAT, request.tools, { strict: this.strict });
    checkToolChoice(this.name, request.toolChoice, tools.length);
    if (tools.length > 0) {
      params.tools = tools as NonNullable<CreateParams['tools']>;
      if (this.parallelToolCalls !== undefined) params.parallel_tool_calls = this.parallelToolCalls;
      if (request.toolChoice !== undefined) {
        const choice = request.toolChoice;
        params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
      }
    }
    if (request.settings?.temperature !== undefined) params.temperature = request.settings.temperature;
    if (request.settings?.maxTokens !== undefined) params.max_output_tokens = request.settings.maxTokens;
    if (request.output !== undefined) {
      const { schema, strict } = strictOutputSchema(request.output, this.strict);
      const format: { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean; description?: string } = {
        type: 'json_schema',
        name: request.output.name,
        schema,
        strict,
      };
      if (request.output.description !== undefined) format.description = request.output.description;
      params.text = { ...params.text, format };
    }
    return params;
  }

  protected override send(params: CreateParams, signal: AbortSignal | undefined): Promise<Response> {
    return this.client.responses.create(params, signal === undefined ? undefined : { signal });
  }

  protected override fromReply(response: Response, request: ModelRequest): ModelResponse {
    return fromResponse(response, request.tools);
  }

  /**
   * `stream: true`. The client sends the request (its retries, errors and headers
   * apply) and hands back the response; the SSE body is read here by chunks
   * (`SseEvents`), as the client's stream reads it (`[DONE]` ends it, an event with
   * an `error` is thrown as the client's `APIError`), without its async generators
   * per event: a streamed token costs less than reading the client's stream.
   */
  protected override sendStream(params: CreateParams, signal: AbortSignal | undefined): Promise<AsyncIterator<ResponseStreamEvent>> {
    return readEvents(
      signal,
      (options) => this.client.responses.create({ ...params, stream: true }, options).asResponse(),
      openAIStreamEvents<ResponseStreamEvent>,
    );
  }

  protected override chunkMapper(request: ModelRequest): ChunkMapper<ResponseStreamEvent> {
    return new StreamedResponse(this.name, request.tools);
  }
}

/** A streamed Responses API turn in neutral terms: its deltas, then the turn `response.completed` carries. */
class StreamedResponse implements ChunkMapper<ResponseStreamEvent> {
  /** Argument deltas name the output item; the agent knows the call by its call_id. */
  private readonly callIds = new Map<string, string>();

  /** `name`: the adapter's, for errors; `tools`: the request's, naming the hosted tools. */
  constructor(
    private readonly name: string,
    private readonly tools: readonly ToolDefinition[],
  ) {}

  /** One event of the client's stream (a text delta as its text); undefined for the events the agent does not need. */
  add(event: ResponseStreamEvent): MappedChunk {
    switch (event.type) {
      case 'response.output_text.delta':
        return event.delta;
      case 'response.output_item.added':
        if (event.item.type !== 'function_call') return undefined;
        this.callIds.set(event.item.id ?? event.item.call_id, event.item.call_id);
        return { type: 'tool_call_start', id: event.item.call_id, name: event.item.name };
      case 'response.function_call_arguments.delta':
        return { type: 'tool_call_delta', id: this.callIds.get(event.item_id) ?? event.item_id, delta: event.delta };
      case 'response.completed':
      case 'response.incomplete':
        return { type: 'response', response: fromResponse(event.response, this.tools) };
      case 'response.failed':
        throw new AnytoolError(ErrorCode.ModelFailed, `${this.name}: the response failed: ${event.response.error?.message ?? 'no reason given'}`);
      case 'error':
        throw new AnytoolError(ErrorCode.ModelFailed, `${this.name}: the stream reported an error: ${event.message}`);
      default:
        return undefined;
    }
  }

  /** The stream's own response.completed carries the turn: nothing to add when it ends. */
  end(): undefined {
    return undefined;
  }
}

/** The hosted tool type each output item is a call of. */
const CALL_TOOL_TYPES: Record<string, string> = {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
  code_interpreter_call: 'code_interpreter',
  image_generation_call: 'image_generation',
  mcp_call: 'mcp',
};

/** The toolset's name of the hosted tool an output item is a call of (an MCP item's by its server label), else the provider's name for it. */
function toolNameOf(item: ResponseOutputItem, tools: readonly ToolDefinition[]): string {
  const type = CALL_TOOL_TYPES[item.type] ?? 'mcp';
  const label = 'server_label' in item ? item.server_label : undefined;
  const found = tools.find((d) => {
    const declaration = d.builtin?.declarations[RESPONSES_FORMAT];
    if (declaration?.['type'] !== type) return false;
    return type !== 'mcp' || declaration['server_label'] === label;
  });
  return found?.name ?? type;
}

/** A hosted tool's call and result, in neutral terms; undefined for any other item. */
function builtinCallOf(item: ResponseOutputItem, tools: readonly ToolDefinition[]): BuiltinToolCall | undefined {
  if (!(item.type in CALL_TOOL_TYPES)) return undefined;
  const call = (args: unknown, result: ToolResult): BuiltinToolCall => ({ id: item.id ?? '', name: toolNameOf(item, tools), arguments: args, result });
  const failed = (item as { status?: string }).status === 'failed';
  switch (item.type) {
    case 'web_search_call':
      return call(item.action, failed ? errorResult(ErrorCode.ToolFailed, 'The web search failed.') : textResult(webSearchText(item.action)));
    case 'file_search_call': {
      // Results come only with `include: ['file_search_call.results']`.
      const found = (item.results ?? []).map((r) => `${r.filename ?? r.file_id ?? ''}${r.score === undefined ? '' : ` (${r.score})`}: ${r.text ?? ''}`);
      return call({ queries: item.queries }, failed ? errorResult(ErrorCode.ToolFailed, 'The file search failed.') : textResult(found.join('\n')));
    }
    case 'code_interpreter_call': {
      const logs = (item.outputs ?? []).map((o) => (o.type === 'logs' ? o.logs : `[image ${o.url}]`)).join('\n');
      return call({ code: item.code }, failed ? errorResult(ErrorCode.ToolFailed, logs || 'The code failed.') : textResult(logs));
    }
    case 'image_generation_call':
      return call(
        {},
        item.result === null || failed
          ? errorResult(ErrorCode.ToolFailed, 'No image was generated.')
          : toolResult({ content: [{ type: 'image', data: item.result, mimeType: imageType(item.result) }], isError: false }),
      );
    case 'mcp_call':
      // A call the user approved is known by its approval request's id: the agent recorded the call under it.
      return {
        id: item.approval_request_id ?? item.id,
        name: toolNameOf(item, tools),
        arguments: { tool: item.name, arguments: item.arguments },
        result: item.error ? errorResult(ErrorCode.ToolFailed, errorText(item.error)) : textResult(item.output ?? ''),
      };
    default:
      return undefined;
  }
}

/** What a web search did: the query and the sources it read (with `include: ['web_search_call.action.sources']`), or the page it opened or searched. */
function webSearchText(action: ResponseFunctionWebSearch['action']): string {
  if (action.type === 'search') {
    const sources = (action.sources ?? []).map((source) => source.url);
    return [`Searched: ${action.query ?? action.queries?.join('; ') ?? ''}`, ...sources].join('\n');
  }
  if (action.type === 'open_page') return `Opened ${action.url ?? 'a page'}`;
  return `Looked for "${action.pattern}" in ${action.url}`;
}

/** A generated image's type, read from its first bytes (`output_format` may ask for JPEG or WebP). */
function imageType(base64: string): string {
  try {
    return sniffMimeType(Uint8Array.from(atob(base64.slice(0, 32)), (c) => c.charCodeAt(0))) ?? 'image/png';
  } catch {
    return 'image/png';
  }
}

/** An error an item carries: a string (openai 6) or an object with a message (openai 7). */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : JSON.stringify(error);
}

function fromResponse(response: Response, tools: readonly ToolDefinition[]): ModelResponse {
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const builtinCalls: BuiltinToolCall[] = [];
  const approvalRequests: BuiltinApprovalRequest[] = [];
  const diagnostics: ModelDiagnostic[] = [];
  let refused = false;
  const searches = new Map<string, unknown>();
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') texts.push(part.text);
        else if (part.type === 'refusal') {
          texts.push(part.refusal);
          refused = true;
        }
      }
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
    } else if (item.type === 'tool_search_call') {
      searches.set(item.call_id ?? item.id, item.arguments);
    } else if (item.type === 'tool_search_output') {
      // OpenAI's tool search over the deferred tools: recorded as a hosted call, what it loaded as its result.
      const id = item.call_id ?? item.id;
      const names = item.tools.map((t) => ('name' in t && typeof t.name === 'string' ? t.name : t.type));
      builtinCalls.push({
        id,
        name: 'tool_search',
        arguments: searches.get(id) ?? {},
        result: textResult(names.length === 0 ? 'No tools found.' : `Loaded: ${names.join(', ')}`),
      });
    } else if (item.type === 'mcp_approval_request') {
      approvalRequests.push({ id: item.id, name: toolNameOf(item, tools), arguments: { tool: item.name, arguments: item.arguments } });
    } else if (item.type === 'mcp_list_tools') {
      // OpenAI could not list a hosted MCP server's tools: the model went on without them.
      if (item.error !== undefined && item.error !== null) {
        const tool = toolNameOf(item, tools);
        diagnostics.push({
          code: ErrorCode.McpConnectFailed,
          tool,
          message: `OpenAI could not list the tools of the MCP server "${item.server_label}" (tool "${tool}"): ${errorText(item.error)}; the model had none of its tools this turn. Check its server_url and authorization.`,
        });
      }
    } else {
      const builtinCall = builtinCallOf(item, tools);
      if (builtinCall !== undefined) builtinCalls.push(builtinCall);
    }
  }
  const input = response.usage?.input_tokens ?? 0;
  const output = response.usage?.output_tokens ?? 0;
  const incomplete = response.incomplete_details?.reason;
  const stopReason: ModelStopReason =
    toolCalls.length > 0 || approvalRequests.length > 0
      ? 'tool_calls'
      : refused || incomplete === 'content_filter'
        ? 'content_filter'
        : incomplete === 'max_output_tokens'
          ? 'max_tokens'
          : response.status === 'completed'
            ? 'end'
            : 'other';
  const result: ModelResponse = {
    text: texts.join(''),
    toolCalls,
    usage: { inputTokens: input, outputTokens: output, totalTokens: response.usage?.total_tokens ?? input + output },
    stopReason,
    providerStopReason: incomplete ?? response.status ?? 'completed',
    // A copy: the calls' arguments are handed to the tools, and what goes back must be what came.
    providerItems: { format: RESPONSES_FORMAT, items: structuredClone(response.output) },
  };
  if (typeof response.id === 'string') result.id = response.id;
  if (typeof response.model === 'string') result.model = response.model;
  if (builtinCalls.length > 0) result.builtinCalls = builtinCalls;
  if (approvalRequests.length > 0) result.approvalRequests = approvalRequests;
  if (diagnostics.length > 0) result.diagnostics = diagnostics;
  return result;
}
