import { AnytoolError, ErrorCode, errorResult, textResult, toGeminiToolList, type ToolDefinition } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { randomUUID } from 'node:crypto';
import {
  FunctionCallingConfigMode,
  GoogleGenAI,
  type Candidate,
  type FunctionCallingConfig,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GoogleGenAIOptions,
  type Part,
  type Tool,
} from '@google/genai';
import { ModelAdapter } from './adapter.js';
import type { ModelOptions } from './client-options.js';
import { GEMINI_FORMAT, toGeminiContents } from './gemini-messages.js';
import type { ChunkMapper } from './stream-map.js';
import { checkToolChoice, geminiOutputSchema } from './request-lowering.js';
import type { BuiltinToolCall, ModelRequest, ModelResponse, ModelStopReason, ModelStreamEvent, ModelToolCall, ToolChoice } from '../model.js';

export interface GeminiModelOptions extends ModelOptions<GoogleGenAI> {
  /** The model id, e.g. "gemini-2.5-flash". */
  model: string;
  /** A client you configured yourself (Vertex AI, proxies...); the connection options are ignored when given. */
  client?: GoogleGenAI;
  /** Defaults to the GEMINI_API_KEY (or GOOGLE_API_KEY) environment variable, the client's own default. */
  apiKey?: string;
  /** The fetch the client sends requests with (a proxy's, an instrumented one); the global `fetch` by default. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Anything else for `config` of every request (`thinkingConfig`, `safetySettings`...); what the adapter sets wins. */
  config?: GenerateContentParameters['config'];
  /**
   * How an agent's `output` goes with a request that offers tools: `native` sends it as
   * `responseJsonSchema`, which Gemini 3 takes beside tools; `instructions` puts the schema
   * in the system instruction (the answer is validated all the same), for the models
   * before Gemini 3, which refuse a JSON response together with tools. By default
   * `native` for a model id from `gemini-3` on, else `instructions`. A request without
   * tools always gets `responseJsonSchema`.
   */
  outputWithTools?: 'native' | 'instructions';
}

/**
 * A model behind the Gemini API, through the official `@google/genai` client.
 * Gemini's built-in tools (`builtin.gemini.googleSearch()`, `codeExecution()`,
 * `urlContext()`) go in `config.tools` beside the function declarations; the
 * code Gemini ran and the searches it grounded on are recorded as run events.
 * Each turn's parts (thought signatures included) are sent back verbatim.
 * Failed requests are retried by the client (`maxRetries`); a request that still
 * fails throws `MODEL_FAILED`.
 *
 * @example
 * const model = new GeminiModel({ model: 'gemini-2.5-flash' });
 * const agent = new Agent({ model, tools: [weather, builtin.gemini.googleSearch()] });
 */
export class GeminiModel extends ModelAdapter<GenerateContentParameters, GenerateContentResponse, GenerateContentResponse> {
  readonly provider = 'gcp.gemini';
  readonly client: GoogleGenAI;
  override readonly maxRetries: number;
  private readonly config: GenerateContentParameters['config'];
  private readonly outputWithTools: 'native' | 'instructions';

  constructor(options: GeminiModelOptions) {
    super(options, { className: 'GeminiModel', label: 'gemini', exampleModel: 'gemini-2.5-flash', keyVariable: 'GEMINI_API_KEY' });
    this.maxRetries = options.maxRetries ?? 2;
    this.config = options.config;
    const outputWithTools = options.outputWithTools ?? (generation(this.model) >= 3 ? 'native' : 'instructions');
    if (outputWithTools !== 'native' && outputWithTools !== 'instructions') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `new GeminiModel(): \`outputWithTools\` must be 'native' or 'instructions', got ${JSON.stringify(outputWithTools)}`,
      );
    }
    this.outputWithTools = outputWithTools;
    if (options.client !== undefined) {
      this.client = options.client;
    } else {
      const apiKey = options.apiKey ?? process.env['GEMINI_API_KEY'] ?? process.env['GOOGLE_API_KEY'];
      if (apiKey === undefined || apiKey.trim() === '') {
        throw new AnytoolError(
          ErrorCode.MissingCredentials,
          'new GeminiModel(): no API key: pass { apiKey } or set GEMINI_API_KEY (for Vertex AI, pass a `client` configured for it)',
        );
      }
      const httpOptions: NonNullable<GoogleGenAIOptions['httpOptions']> = { retryOptions: { attempts: this.maxRetries + 1 } };
      if (options.baseURL !== undefined) httpOptions.baseUrl = options.baseURL;
      if (options.timeout !== undefined) httpOptions.timeout = options.timeout;
      if (options.fetch !== undefined) httpOptions.fetch = options.fetch as NonNullable<typeof httpOptions.fetch>;
      try {
        this.client = new GoogleGenAI({ apiKey, httpOptions });
      } catch (error) {
        throw new AnytoolError(ErrorCode.InvalidOptions, `new GeminiModel(): the @google/genai client could not be created: ${describeError(error)}`, {
          cause: error,
        });
      }
    }
  }

  /** The request this adapter sends for `request` (the client's parameters). */
  override toParams(request: ModelRequest): GenerateContentParameters {
    const config: NonNullable<GenerateContentParameters['config']> = { ...this.config };
    if (request.instructions !== undefined) config.systemInstruction = request.instructions;
    const tools = request.tools.length === 0 ? [] : this.lowering.tools(GEMINI_FORMAT, request.tools);
    checkToolChoice(this.name, request.toolChoice, tools.length);
    if (tools.length > 0) {
      config.tools = toGeminiToolList(tools) as Tool[];
      // The built-ins' calls and responses come back as parts (`toolCall`, `toolResponse`), recorded as the calls
      // they are. A Gemini API field: Vertex AI rejects it.
      if (
        !this.client.vertexai &&
        config.toolConfig?.includeServerSideToolInvocations === undefined &&
        request.tools.some((d) => d.builtin?.declarations[GEMINI_FORMAT] !== undefined)
      ) {
        config.toolConfig = { ...config.toolConfig, includeServerSideToolInvocations: true };
      }
      if (request.toolChoice !== undefined) config.toolConfig = { ...config.toolConfig, functionCallingConfig: functionCalling(request.toolChoice) };
    }
    if (request.settings?.temperature !== undefined) config.temperature = request.settings.temperature;
    if (request.settings?.maxTokens !== undefined) config.maxOutputTokens = request.settings.maxTokens;
    if (request.output !== undefined) {
      const schema = geminiOutputSchema(request.output);
      const system = config.systemInstruction;
      if (config.tools === undefined || this.outputWithTools === 'native' || (system !== undefined && typeof system !== 'string')) {
        config.responseMimeType = 'application/json';
        config.responseJsonSchema = schema;
      } else {
        // Models before Gemini 3 refuse a JSON response beside tools: the schema goes in the instructions, and the check stays.
        const asked = `When you give your final answer, answer with only a JSON object that matches this JSON Schema:\n${JSON.stringify(schema)}`;
        config.systemInstruction = system === undefined ? asked : `${system}\n\n${asked}`;
      }
    }
    return { model: this.model, contents: toGeminiContents(request.messages), config };
  }

  protected override send(params: GenerateContentParameters, signal: AbortSignal | undefined): Promise<GenerateContentResponse> {
    return this.client.models.generateContent(withSignal(params, signal));
  }

  protected override fromReply(response: GenerateContentResponse, request: ModelRequest): ModelResponse {
    return fromResponse(response, request.tools);
  }

  /** `generateContentStream`, its chunks read as the client gives them. */
  protected override sendStream(params: GenerateContentParameters, signal: AbortSignal | undefined): Promise<AsyncIterator<GenerateContentResponse>> {
    return this.client.models.generateContentStream(withSignal(params, signal));
  }

  /**
   * Text deltas as they come, each function call (Gemini sends a call whole) as
   * its start and one argument delta. A call without an id gets one here, so its
   * events and its result share it.
   */
  protected override chunkMapper(request: ModelRequest): ChunkMapper<GenerateContentResponse> {
    return new StreamedTurn(request.tools);
  }
}

/** The generation of a Gemini model id ("gemini-2.5-flash": 2), 0 for an id of another shape. */
function generation(model: string): number {
  const major = /^(?:models\/)?gemini-(\d+)/.exec(model)?.[1];
  return major === undefined ? 0 : Number(major);
}

/** The client takes the request's signal in its config. */
function withSignal(params: GenerateContentParameters, signal: AbortSignal | undefined): GenerateContentParameters {
  if (signal !== undefined) params.config = { ...params.config, abortSignal: signal };
  return params;
}

/**
 * A Gemini turn put together from its streamed chunks: the parts in order
 * (adjacent text of the same kind joined, a thought signature kept on its part),
 * the last chunk's finish reason, usage and grounding.
 */
class StreamedTurn implements ChunkMapper<GenerateContentResponse> {
  private readonly parts: Part[] = [];
  private readonly callIds: string[] = [];
  private last: GenerateContentResponse | undefined;
  private candidate: Candidate = {};

  /** `tools`: the request's, naming the built-ins. */
  constructor(private readonly tools: readonly ToolDefinition[]) {}

  /** Takes one chunk; returns the events it carries. */
  add(chunk: GenerateContentResponse): ModelStreamEvent[] {
    this.last = chunk;
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined) return [];
    const { content, ...rest } = candidate;
    Object.assign(this.candidate, rest);
    const events: ModelStreamEvent[] = [];
    for (const part of content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const id = part.functionCall.id ?? `call_${randomUUID()}`;
        this.callIds.push(id);
        events.push(
          { type: 'tool_call_start', id, name: part.functionCall.name ?? '' },
          { type: 'tool_call_delta', id, delta: JSON.stringify(part.functionCall.args ?? {}) },
        );
        this.parts.push(part);
        continue;
      }
      if (typeof part.text === 'string' && part.thought !== true && part.text !== '') events.push({ type: 'text_delta', text: part.text });
      this.addPart(part);
    }
    return events;
  }

  /** Text joins the text part before it (same kind, no signature yet); anything else is its own part. */
  private addPart(part: Part): void {
    const previous = this.parts.at(-1);
    const plain = (p: Part): boolean => Object.keys(p).every((key) => key === 'text' || key === 'thought' || key === 'thoughtSignature');
    if (
      previous !== undefined &&
      typeof part.text === 'string' &&
      typeof previous.text === 'string' &&
      plain(part) &&
      plain(previous) &&
      previous.thought === part.thought &&
      previous.thoughtSignature === undefined
    ) {
      previous.text += part.text;
      if (part.thoughtSignature !== undefined) previous.thoughtSignature = part.thoughtSignature;
    } else {
      this.parts.push({ ...part });
    }
  }

  /** The turn as `generate` gives it, with the ids the stream's events used, once the stream ended. */
  end(): ModelStreamEvent {
    const whole = { ...this.last, candidates: [{ ...this.candidate, content: { role: 'model', parts: this.parts } }] } as GenerateContentResponse;
    const response = fromResponse(whole, this.tools);
    response.toolCalls.forEach((call, i) => (call.id = this.callIds[i] ?? call.id));
    return { type: 'response', response };
  }
}

/** Gemini's function calling mode: `ANY` is its word for required, a named tool is `ANY` of that one. */
function functionCalling(choice: ToolChoice): FunctionCallingConfig {
  if (typeof choice !== 'string') return { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.name] };
  return { mode: choice === 'required' ? FunctionCallingConfigMode.ANY : choice === 'none' ? FunctionCallingConfigMode.NONE : FunctionCallingConfigMode.AUTO };
}

/** The toolset's name of a Gemini built-in (by its key in the declaration), else the key itself. */
function toolNameOf(key: string, tools: readonly ToolDefinition[]): string {
  return tools.find((d) => d.builtin?.declarations[GEMINI_FORMAT]?.[key] !== undefined)?.name ?? key;
}

/** The declaration key of the built-in a server-side `toolType` names. */
const BUILTIN_KEYS: Record<string, string> = {
  GOOGLE_SEARCH_WEB: 'googleSearch',
  GOOGLE_SEARCH_IMAGE: 'googleSearch',
  URL_CONTEXT: 'urlContext',
  GOOGLE_MAPS: 'googleMaps',
  FILE_SEARCH: 'fileSearch',
};

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

function fromResponse(response: GenerateContentResponse, tools: readonly ToolDefinition[]): ModelResponse {
  const candidate = response.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  const builtinCalls: BuiltinToolCall[] = [];
  let code: { id: string; code: string } | undefined;
  // Server-side tool calls by id (`includeServerSideToolInvocations`), and the built-ins they recorded.
  const serverCalls = new Map<string, Record<string, unknown>>();
  const invoked = new Set<string>();
  parts.forEach((part, i) => {
    if (part.toolCall !== undefined) {
      serverCalls.set(part.toolCall.id ?? '', part.toolCall.args ?? {});
    } else if (part.toolResponse !== undefined) {
      const id = part.toolResponse.id ?? '';
      const key = BUILTIN_KEYS[part.toolResponse.toolType ?? ''] ?? String(part.toolResponse.toolType ?? 'tool');
      invoked.add(key);
      const answer = part.toolResponse.response ?? {};
      const result =
        answer['error'] !== undefined
          ? errorResult(ErrorCode.ToolFailed, `The provider's tool failed: ${JSON.stringify(answer['error'])}.`)
          : textResult(JSON.stringify(answer));
      builtinCalls.push({
        id: id || `${response.responseId ?? 'response'}_${key}_${i}`,
        name: toolNameOf(key, tools),
        arguments: serverCalls.get(id) ?? {},
        result,
      });
    } else if (part.functionCall !== undefined) {
      toolCalls.push({ id: part.functionCall.id ?? '', name: part.functionCall.name ?? '', arguments: part.functionCall.args ?? {} });
    } else if (part.executableCode !== undefined) {
      code = { id: part.executableCode.id ?? `code_${i}`, code: part.executableCode.code ?? '' };
    } else if (part.codeExecutionResult !== undefined) {
      const outcome = part.codeExecutionResult.outcome;
      const output = part.codeExecutionResult.output ?? '';
      const result =
        outcome === 'OUTCOME_OK' || outcome === undefined ? textResult(output) : errorResult(ErrorCode.ToolFailed, output || `The code ended with ${outcome}.`);
      builtinCalls.push({
        id: part.codeExecutionResult.id ?? code?.id ?? `code_${i}`,
        name: toolNameOf('codeExecution', tools),
        arguments: { code: code?.code ?? '' },
        result,
      });
      code = undefined;
    } else if (typeof part.text === 'string' && part.thought !== true) {
      texts.push(part.text);
    }
  });
  const grounding = candidate?.groundingMetadata;
  // Searches and pages read already recorded from their invocation parts are not recorded again from the metadata.
  if (!invoked.has('googleSearch') && grounding?.webSearchQueries !== undefined && grounding.webSearchQueries.length > 0) {
    const sources = (grounding.groundingChunks ?? []).map((chunk) => `${chunk.web?.title ?? ''} ${chunk.web?.uri ?? ''}`.trim()).filter((s) => s !== '');
    builtinCalls.push({
      id: `${response.responseId ?? 'response'}_search`,
      name: toolNameOf('googleSearch', tools),
      arguments: { queries: grounding.webSearchQueries },
      result: textResult(sources.join('\n')),
    });
  }
  const urls = candidate?.urlContextMetadata?.urlMetadata;
  if (!invoked.has('urlContext') && urls !== undefined && urls.length > 0) {
    // Each page's retrieval status; no page read at all is an error result.
    const lines = urls.map((u) => `${u.retrievedUrl ?? ''}: ${u.urlRetrievalStatus ?? ''}`).join('\n');
    const read = urls.some((u) => u.urlRetrievalStatus === 'URL_RETRIEVAL_STATUS_SUCCESS');
    builtinCalls.push({
      id: `${response.responseId ?? 'response'}_urls`,
      name: toolNameOf('urlContext', tools),
      arguments: { urls: urls.map((u) => u.retrievedUrl) },
      result: read ? textResult(lines) : errorResult(ErrorCode.ToolFailed, `No page could be read:\n${lines}`),
    });
  }
  const usage = response.usageMetadata;
  const input = usage?.promptTokenCount ?? 0;
  const output = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  const finish = candidate?.finishReason ?? response.promptFeedback?.blockReason;
  const stopReason: ModelStopReason =
    toolCalls.length > 0
      ? 'tool_calls'
      : response.promptFeedback?.blockReason !== undefined || (finish !== undefined && FILTERED.has(finish))
        ? 'content_filter'
        : finish === 'MAX_TOKENS'
          ? 'max_tokens'
          : finish === 'STOP'
            ? 'end'
            : 'other';
  const result: ModelResponse = {
    text: texts.join(''),
    toolCalls,
    usage: { inputTokens: input, outputTokens: output, totalTokens: usage?.totalTokenCount ?? input + output },
    stopReason,
    // A copy: the calls' args are handed to the tools, and what goes back must be what came.
    providerItems: { format: GEMINI_FORMAT, items: structuredClone(parts) },
  };
  if (finish !== undefined) result.providerStopReason = finish;
  if (typeof response.responseId === 'string') result.id = response.responseId;
  if (typeof response.modelVersion === 'string') result.model = response.modelVersion;
  if (builtinCalls.length > 0) result.builtinCalls = builtinCalls;
  return result;
}
