import { AnytoolError, ErrorCode, errorResult, textResult, type ToolDefinition, type ToolResult } from '@anytool/core';
import { describeError, isRecord } from '@anytool/core/internal';
import { Anthropic, type ClientOptions } from '@anthropic-ai/sdk';
import type { EventSourceMessage } from 'eventsource-parser';
import { VERSION as SDK_VERSION } from '@anthropic-ai/sdk/version';
import { ModelAdapter } from './adapter.js';
import { ANTHROPIC_FORMAT, lastContainer, toAnthropicMessages } from './anthropic-messages.js';
import { clientOptionsFrom, type ModelOptions } from './client-options.js';
import type { ChunkMapper, MappedChunk } from './stream-map.js';
import { readEvents } from './sse.js';
import { anthropicOutputSchema, checkToolChoice, unsupported } from './request-lowering.js';
import type {
  BuiltinToolCall,
  ModelRequest,
  ModelResponse,
  ModelStopReason,
  ModelStreamEvent,
  ModelToolCall,
  ProgrammaticCalls,
  ToolChoice,
} from '../model.js';

export interface AnthropicModelOptions extends ModelOptions<Anthropic> {
  /** The model id, e.g. "claude-sonnet-4-5". */
  model: string;
  /**
   * Defaults to the ANTHROPIC_API_KEY environment variable (or ANTHROPIC_AUTH_TOKEN, the
   * client's own defaults). Without either the constructor throws; for the client's other
   * ways to sign in (profiles, workload identity) pass a `client` you configured.
   */
  apiKey?: string;
  /** The Messages API requires `max_tokens`; 4096 unless the request's settings say otherwise. */
  maxTokens?: number;
  /** Anything else to send with every request (`metadata`, `tool_choice`, `thinking`...); what the adapter sets wins. */
  params?: Partial<Anthropic.MessageCreateParamsNonStreaming>;
  /**
   * How deferred tools (`toolset.defer(...)`) are found: Anthropic's own tool search,
   * `bm25` (the default) or `regex`, with every tool sent and the deferred ones marked
   * `defer_loading`; or `portable`, the agent's own search tool (for a model without
   * tool search, or to rank with your own `ranker`).
   */
  toolSearch?: 'bm25' | 'regex' | 'portable';
}

type CreateParams = Anthropic.MessageCreateParamsNonStreaming;

/**
 * `@anthropic-ai/sdk` 1.x speaks API version 2026-10-21, which has no `temperature`;
 * 0.x speaks 2023-06-01, which takes it. Read from the client package installed.
 */
const TAKES_TEMPERATURE = Number.parseInt(SDK_VERSION, 10) < 1;

/**
 * A model behind Anthropic's Messages API, through the official
 * `@anthropic-ai/sdk` client. Tool results of one turn go back in one user
 * message, as the API requires. Failed requests are retried by the client
 * (`maxRetries`); a request that still fails throws `MODEL_FAILED`.
 *
 * @example
 * const model = new AnthropicModel({ model: 'claude-sonnet-4-5' });
 */
export class AnthropicModel extends ModelAdapter<CreateParams, Anthropic.Message, Anthropic.RawMessageStreamEvent> {
  readonly provider = 'anthropic';
  readonly client: Anthropic;
  private readonly maxTokens: number;
  private readonly params: Partial<CreateParams> | undefined;
  /** Whether deferred tools are lowered to Anthropic's tool search (`toolSearch` is not `portable`). */
  readonly nativeToolSearch: boolean;
  private readonly toolSearch: 'bm25' | 'regex';

  /** Tools' examples of arguments go as `input_examples`. */
  readonly toolExamples = true;

  /** Programs in Anthropic's code execution call the tools (`allowed_callers`): `codeMode: 'native'`. */
  readonly programmaticCalls = true;

  constructor(options: AnthropicModelOptions) {
    super(options, { className: 'AnthropicModel', label: 'anthropic', exampleModel: 'claude-sonnet-4-5', keyVariable: 'ANTHROPIC_API_KEY' });
    this.maxTokens = options.maxTokens ?? 4096;
    this.params = options.params;
    const toolSearch = options.toolSearch ?? 'bm25';
    if (toolSearch !== 'bm25' && toolSearch !== 'regex' && toolSearch !== 'portable') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `new AnthropicModel(): \`toolSearch\` must be 'bm25', 'regex' or 'portable', got ${JSON.stringify(toolSearch)}`,
      );
    }
    this.nativeToolSearch = toolSearch !== 'portable';
    this.toolSearch = toolSearch === 'regex' ? 'regex' : 'bm25';
    if (options.client !== undefined) {
      this.client = options.client;
    } else {
      // The client would only fail at the first request, with its own text.
      if (!present(options.apiKey) && !present(process.env['ANTHROPIC_API_KEY']) && !present(process.env['ANTHROPIC_AUTH_TOKEN'])) {
        throw new AnytoolError(
          ErrorCode.MissingCredentials,
          `new AnthropicModel(): no API key: pass { apiKey } or set ANTHROPIC_API_KEY (for a profile or workload identity, pass a \`client\` configured with it)`,
        );
      }
      const clientOptions: ClientOptions = clientOptionsFrom(options);
      try {
        this.client = new Anthropic(clientOptions);
      } catch (error) {
        throw new AnytoolError(ErrorCode.InvalidOptions, `new AnthropicModel(): the @anthropic-ai/sdk client could not be created: ${describeError(error)}`, {
          cause: error,
        });
      }
    }
  }

  protected override get maxRetries(): number {
    return this.client.maxRetries;
  }

  override toParams(request: ModelRequest): CreateParams {
    const params: CreateParams = {
      ...this.params,
      model: this.model,
      max_tokens: request.settings?.maxTokens ?? this.params?.max_tokens ?? this.maxTokens,
      messages: toAnthropicMessages(request.messages),
    };
    const container = lastContainer(request.messages);
    if (container !== undefined && params.container === undefined) params.container = container;
    if (request.instructions !== undefined) params.system = request.instructions;
    let tools = request.tools.length === 0 ? [] : this.lowering.tools('anthropic', request.tools, { toolSearch: this.toolSearch });
    if (request.programmatic !== undefined) {
      const forced = typeof request.toolChoice === 'object' ? request.toolChoice.name : undefined;
      tools = programmaticTools(tools, request.programmatic, forced);
    }
    checkToolChoice(this.name, request.toolChoice, tools.length);
    if (tools.length > 0) {
      params.tools = tools;
      if (request.toolChoice !== undefined) params.tool_choice = this.toolChoice(request.toolChoice, params);
    }
    if (request.output !== undefined) {
      params.output_config = { ...params.output_config, format: { type: 'json_schema', schema: anthropicOutputSchema(request.output) } };
    }
    if (request.settings?.temperature !== undefined && TAKES_TEMPERATURE) Object.assign(params, { temperature: request.settings.temperature });
    return params;
  }

  /** The request's tool choice in the Messages API's terms; with extended thinking on, Anthropic refuses one that forces a tool call. */
  private toolChoice(choice: ToolChoice, params: CreateParams): Anthropic.ToolChoice {
    if (choice !== 'auto' && choice !== 'none' && thinks(params)) {
      throw unsupported(
        this.name,
        `the tool choice ${JSON.stringify(choice)} forces a tool call, which Anthropic refuses while extended thinking is on (\`params.thinking\`)`,
        "use toolChoice 'auto' or 'none' with thinking, or turn thinking off for this agent",
      );
    }
    return toolChoice(choice);
  }

  protected override send(params: CreateParams, signal: AbortSignal | undefined): Promise<Anthropic.Message> {
    return this.client.messages.create(params, signal === undefined ? undefined : { signal });
  }

  protected override fromReply(message: Anthropic.Message, request: ModelRequest): ModelResponse {
    return fromMessage(message, request.tools);
  }

  /**
   * `stream: true`. The client sends the request (its retries, errors and headers
   * apply) and hands back the response; the SSE body is read here by chunks
   * (`SseEvents`), as the client's stream would read it (pings skipped, an `error`
   * event thrown as the client's `APIError`), without its two async generators per
   * event: a streamed token costs less than reading the client's stream. The
   * client's own trace span of the call (when its OpenTelemetry tracing is on) then
   * ends with the response headers, without the streamed usage; the agent's `chat`
   * span carries that.
   */
  protected override sendStream(params: CreateParams, signal: AbortSignal | undefined): Promise<AsyncIterator<Anthropic.RawMessageStreamEvent>> {
    return readEvents(
      signal,
      (options) => this.client.messages.create({ ...params, stream: true }, options).asResponse(),
      (headers) => (message) => streamEvent(message, headers),
    );
  }

  protected override chunkMapper(request: ModelRequest): ChunkMapper<Anthropic.RawMessageStreamEvent> {
    return new StreamedMessage(this.name, request.tools);
  }
}

/** One SSE message of a Messages API stream as the client's stream reads it: pings skipped, an `error` event thrown. */
function streamEvent(message: EventSourceMessage, headers: Headers): Anthropic.RawMessageStreamEvent | undefined {
  const type = message.event;
  if (type === undefined || type === 'ping') return undefined;
  if (type === 'error') {
    let body: unknown;
    try {
      body = JSON.parse(message.data);
    } catch {
      body = message.data;
    }
    const errorType = (body as { error?: { type?: unknown } } | null)?.error?.type;
    throw new Anthropic.APIError(undefined, body as object, undefined, headers, typeof errorType === 'string' ? (errorType as Anthropic.ErrorType) : null);
  }
  return message.data === '' ? undefined : (JSON.parse(message.data) as Anthropic.RawMessageStreamEvent);
}

/**
 * A Messages API turn put together from its raw stream events, as the client's
 * message stream would: blocks by index, text, thinking and citations appended,
 * tool input JSON parsed when its block stops, the stop reason and usage from
 * `message_delta`.
 */
class StreamedMessage implements ChunkMapper<Anthropic.RawMessageStreamEvent> {
  private snapshot: Anthropic.Message | undefined;
  private readonly blocks: Array<Record<string, unknown>> = [];
  /** The input JSON of each tool block as it streamed, by index. */
  private readonly inputs = new Map<number, string>();
  /** The call id of each client tool block, by index: input deltas name the index. */
  private readonly toolIds = new Map<number, string>();

  /** `model`: the adapter's name, for errors; `tools`: the request's, naming the server tools. */
  constructor(
    private readonly model: string,
    private readonly tools: readonly ToolDefinition[],
  ) {}

  /** Takes one event; returns the neutral event it carries, if any (a text delta as its text). */
  add(event: Anthropic.RawMessageStreamEvent): MappedChunk {
    switch (event.type) {
      case 'content_block_delta': {
        const delta = event.delta;
        const block = this.blocks[event.index];
        if (delta.type === 'text_delta') {
          if (block !== undefined) block['text'] = typeof block['text'] === 'string' ? block['text'] + delta.text : delta.text;
          return delta.text;
        }
        if (delta.type === 'input_json_delta') {
          this.inputs.set(event.index, (this.inputs.get(event.index) ?? '') + delta.partial_json);
          const id = this.toolIds.get(event.index);
          return id === undefined ? undefined : { type: 'tool_call_delta', id, delta: delta.partial_json };
        }
        if (block === undefined) return undefined;
        if (delta.type === 'thinking_delta') block['thinking'] = `${String(block['thinking'] ?? '')}${delta.thinking}`;
        else if (delta.type === 'signature_delta') block['signature'] = delta.signature;
        else if (delta.type === 'citations_delta') block['citations'] = [...((block['citations'] as unknown[] | null | undefined) ?? []), delta.citation];
        return undefined;
      }
      case 'content_block_start': {
        const block = { ...event.content_block } as Record<string, unknown>;
        this.blocks[event.index] = block;
        if (event.content_block.type !== 'tool_use') return undefined;
        this.toolIds.set(event.index, event.content_block.id);
        return { type: 'tool_call_start', id: event.content_block.id, name: event.content_block.name };
      }
      case 'content_block_stop': {
        const json = this.inputs.get(event.index);
        const block = this.blocks[event.index];
        if (json !== undefined && block !== undefined && json !== '') {
          try {
            block['input'] = JSON.parse(json) as unknown;
          } catch {
            // Kept as the text that came: the toolset reports it to the model as bad JSON.
            block['input'] = json;
          }
        }
        return undefined;
      }
      case 'message_start':
        this.snapshot = { ...event.message };
        return undefined;
      case 'message_delta':
        if (this.snapshot !== undefined) {
          Object.assign(this.snapshot, event.delta);
          const usage = { ...this.snapshot.usage } as unknown as Record<string, unknown>;
          for (const [key, value] of Object.entries(event.usage)) if (value !== null && value !== undefined) usage[key] = value;
          this.snapshot.usage = usage as unknown as Anthropic.Usage;
        }
        return undefined;
      default:
        return undefined;
    }
  }

  /** The turn as `generate` gives it, once the stream ended; it must have started a message. */
  end(): ModelStreamEvent {
    if (this.snapshot === undefined) throw new AnytoolError(ErrorCode.ModelFailed, `${this.model}: the stream ended before its message started`);
    const message = { ...this.snapshot, content: this.blocks.filter((b) => b !== undefined) as unknown as Anthropic.ContentBlock[] };
    return { type: 'response', response: fromMessage(message, this.tools) };
  }
}

/**
 * The code execution tool a request with programmatic calls adds when the toolset
 * declares none: the first version whose programs may call the client's tools
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling).
 */
const CODE_EXECUTION = { type: 'code_execution_20260120', name: 'code_execution' } as const;

/**
 * The tools with Anthropic's code execution allowed to call those of `programmatic`
 * (`allowed_callers` naming its version, and `direct` with `beside`): the toolset's
 * own code execution tool (`builtin.anthropic.codeExecution()`), else one put first.
 * A tool the turn's tool choice names (`forced`) may be called directly too: Anthropic
 * refuses a choice of a tool the model may not call.
 */
function programmaticTools<T extends object>(tools: readonly T[], programmatic: ProgrammaticCalls, forced: string | undefined): T[] {
  const typeOf = (tool: object): unknown => (tool as { type?: unknown }).type;
  const own = tools.find((tool) => String(typeOf(tool)).startsWith('code_execution_'));
  const version = String(typeOf(own ?? CODE_EXECUTION));
  const names = new Set(programmatic.tools);
  // A tool of the client's own schema (no `type`): Anthropic's client tools (bash...) keep their declarations.
  const lowered = tools.map((tool) => {
    const name = String((tool as { name?: unknown }).name);
    if (typeOf(tool) !== undefined || !names.has(name)) return tool;
    return { ...tool, allowed_callers: programmatic.direct || name === forced ? ['direct', version] : [version] };
  });
  return own === undefined ? [CODE_EXECUTION as unknown as T, ...lowered] : lowered;
}

/** The Messages API's `tool_choice`: `any` is its word for required. */
function toolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

/** Whether a request turns on extended thinking, which takes only the tool choices `auto` and `none`. */
function thinks(params: CreateParams): boolean {
  const thinking = (params as { thinking?: { type?: unknown } }).thinking;
  return thinking !== undefined && thinking !== null && thinking.type !== 'disabled';
}

function present(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

const STOP_REASONS: Record<string, ModelStopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
  refusal: 'content_filter',
};

/** A server tool's result block: `web_search_tool_result`, `web_fetch_tool_result`, `code_execution_tool_result`... */
interface ServerToolResultBlock {
  type: string;
  tool_use_id: string;
  content: unknown;
}

function isServerToolResult(block: { type: string }): block is ServerToolResultBlock {
  return block.type.endsWith('_tool_result') && typeof (block as { tool_use_id?: unknown }).tool_use_id === 'string';
}

/** Anthropic's code execution tool (`code_execution_20250825` and later) calls its bash and file-editing halves by their own names. */
const CODE_EXECUTION_PARTS = new Set(['bash_code_execution', 'text_editor_code_execution']);

/** The toolset's name of the server tool Anthropic calls `name` (`anthropic_web_search`), else Anthropic's name. */
function serverToolName(name: string, tools: readonly ToolDefinition[]): string {
  const declared = CODE_EXECUTION_PARTS.has(name) ? 'code_execution' : name;
  return tools.find((d) => d.builtin?.declarations[ANTHROPIC_FORMAT]?.['name'] === declared)?.name ?? name;
}

/**
 * A server tool result as a neutral result: an error block (`*_error`) is an
 * error result; search results are their titles and addresses, a fetched page
 * its address and text, a command its output (a non-zero exit code an error);
 * anything else its JSON.
 */
function serverResult(block: ServerToolResultBlock): ToolResult {
  const content = block.content as Record<string, unknown> | unknown[] | null;
  if (Array.isArray(content)) {
    const lines = content.map((r) =>
      isRecord(r) && r['type'] === 'web_search_result' ? `${String(r['title'] ?? '')} ${String(r['url'] ?? '')}`.trim() : JSON.stringify(r),
    );
    return textResult(lines.join('\n'));
  }
  if (!isRecord(content)) return textResult(JSON.stringify(content));
  const type = typeof content['type'] === 'string' ? content['type'] : '';
  if (type.endsWith('_error')) return errorResult(ErrorCode.ToolFailed, `The provider's tool failed: ${String(content['error_code'] ?? type)}.`);
  if (type === 'tool_search_tool_search_result') {
    const found = Array.isArray(content['tool_references']) ? (content['tool_references'] as Array<{ tool_name?: unknown }>) : [];
    return textResult(found.length === 0 ? 'No tools found.' : `Loaded: ${found.map((r) => String(r.tool_name)).join(', ')}`);
  }
  if (type === 'web_fetch_result') {
    const document = isRecord(content['content']) ? content['content'] : {};
    const source = isRecord(document['source']) ? document['source'] : {};
    const text = source['type'] === 'text' ? String(source['data'] ?? '') : `(${String(source['media_type'] ?? 'a document')})`;
    return textResult(`${String(content['url'] ?? '')}${typeof document['title'] === 'string' ? ` ${document['title']}` : ''}\n${text}`);
  }
  if (type === 'bash_code_execution_result' || type === 'code_execution_result') {
    const stdout = String(content['stdout'] ?? '');
    const stderr = String(content['stderr'] ?? '');
    const output = [stdout, stderr].filter((t) => t !== '').join('\n');
    const code = content['return_code'];
    return code === 0
      ? textResult(output)
      : errorResult(ErrorCode.ToolFailed, output === '' ? `The command exited with code ${String(code)}.` : `Exit code ${String(code)}: ${output}`);
  }
  return textResult(JSON.stringify(content));
}

/** Blocks the neutral message carries (text and client tool calls); a turn with any other block is sent back verbatim. */
const NEUTRAL_BLOCKS = new Set(['text', 'tool_use']);

/** The id of the code execution call whose program made a `tool_use` (its `caller`), or undefined for the model's own call. */
function programCaller(block: { type: string }): string | undefined {
  if (block.type !== 'tool_use') return undefined;
  const caller = (block as { caller?: { type?: unknown; tool_id?: unknown } | null }).caller;
  return caller !== undefined && caller !== null && caller.type !== 'direct' && typeof caller.tool_id === 'string' ? caller.tool_id : undefined;
}

function fromMessage(message: Anthropic.Message, tools: readonly ToolDefinition[]): ModelResponse {
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const serverCalls = new Map<string, { name: string; input: unknown }>();
  const builtinCalls: BuiltinToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') {
      const call: ModelToolCall = { id: block.id, name: block.name, arguments: block.input };
      const caller = programCaller(block);
      if (caller !== undefined) call.caller = caller;
      toolCalls.push(call);
    } else if (block.type === 'server_tool_use') serverCalls.set(block.id, { name: block.name, input: block.input });
    else if (isServerToolResult(block)) {
      const call = serverCalls.get(block.tool_use_id);
      const name = call === undefined ? block.type.replace(/_tool_result$/, '') : call.name;
      builtinCalls.push({ id: block.tool_use_id, name: serverToolName(name, tools), arguments: call?.input ?? {}, result: serverResult(block) });
    }
  }
  const input = message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0);
  const output = message.usage.output_tokens;
  const response: ModelResponse = {
    text: texts.join(''),
    toolCalls,
    usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
    stopReason: (message.stop_reason !== null && STOP_REASONS[message.stop_reason]) || 'other',
  };
  if (message.stop_reason !== null) response.providerStopReason = message.stop_reason;
  if (typeof message.id === 'string') response.id = message.id;
  if (typeof message.model === 'string') response.model = message.model;
  // https://platform.claude.com/docs/en/api/handling-stop-reasons ("pause_turn"): sent back as it is, the turn goes on.
  if (message.stop_reason === 'pause_turn') response.paused = true;
  if (builtinCalls.length > 0) response.builtinCalls = builtinCalls;
  const container = (message as { container?: { id?: unknown } | null }).container?.id;
  // Sent back verbatim when the neutral message would lose a block (server tool calls and results, thinking)
  // or the turn's container (its id goes with the next requests).
  if (typeof container === 'string' || message.content.some((block) => !NEUTRAL_BLOCKS.has(block.type) || programCaller(block) !== undefined)) {
    response.providerItems = { format: ANTHROPIC_FORMAT, items: structuredClone(message.content) };
    if (typeof container === 'string') response.providerItems.state = { container };
  }
  return response;
}
