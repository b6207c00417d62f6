import type { ErrorCode, JsonSchema, ToolDefinition, ToolResult } from '@anytool/core';

/** One tool call the model asked for. */
export interface ModelToolCall {
  /** The provider's id for the call; tool results are matched back to it. */
  id: string;
  name: string;
  /**
   * The arguments exactly as the model sent them: a JSON string (OpenAI), an
   * object (Anthropic). The toolset parses and validates them, so a string that
   * is not JSON becomes an error result the model can correct.
   */
  arguments: unknown;
  /**
   * A call a program made in the provider's own code execution (Anthropic's
   * programmatic tool calling): the provider's id of the code execution call.
   * Its result goes back to the program, not into the model's context.
   */
  caller?: string;
}

export interface UserMessage {
  role: 'user';
  /** The user's text, or parts: text, images and files (see `UserPart`). */
  content: string | readonly UserPart[];
}

/**
 * One part of a user's message. An image or a file comes as `data` (bytes, or
 * their base64 text) or as an http(s) `url`; adapters send each as their
 * provider's own part, and throw `UNSUPPORTED_BY_MODEL` naming the adapter for
 * one their provider cannot take (a PDF by URL to Chat Completions, say).
 */
export type UserPart = UserTextPart | UserImagePart | UserFilePart;

export interface UserTextPart {
  type: 'text';
  text: string;
}

export interface UserImagePart {
  type: 'image';
  /** The image's bytes, or their base64 text. */
  data?: Uint8Array | string;
  /** Where the provider fetches the image. */
  url?: string | URL;
  /** `image/png`, `image/jpeg`...: sniffed from the bytes when left out. */
  mimeType?: string;
}

export interface UserFilePart {
  type: 'file';
  /** The file's bytes, or their base64 text. */
  data?: Uint8Array | string;
  /** Where the provider fetches the file. */
  url?: string | URL;
  /** `application/pdf`...: needed with a URL; sniffed from a PDF's bytes when left out. */
  mimeType?: string;
  /** The file's name, where a provider shows one to the model. */
  filename?: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string;
  toolCalls?: ModelToolCall[];
  /** The provider's own record of the turn (see `ModelResponse.providerItems`), sent back as it is by the same adapter. */
  providerItems?: ProviderItems;
  /** The answers to the turn's `approvalRequests`, sent with the next request (an OpenAI `mcp_approval_response` each). */
  approvals?: BuiltinApproval[];
}

/**
 * A turn as the provider gave it (the Responses API's output items: reasoning,
 * built-in tool calls...). The adapter that made it sends it back verbatim on the
 * next turns, so nothing the provider needs is lost; other adapters use the
 * neutral fields of the message.
 */
export interface ProviderItems {
  /** The adapter's format ('openai-responses', 'anthropic', 'gemini'). */
  format: string;
  items: unknown[];
  /** What else of the turn the next requests carry (Anthropic: the code execution `container` id). */
  state?: Record<string, unknown>;
}

/** A call of a provider's built-in tool that the provider ran during the turn, with its result. */
export interface BuiltinToolCall {
  /** The provider's id of the call. */
  id: string;
  /** The tool's name in the toolset (`openai_web_search`), else the provider's name for it. */
  name: string;
  arguments: unknown;
  /** What the provider reported back (a search's sources, code output, an error). */
  result: ToolResult;
}

/**
 * A call of a provider's hosted tool that the provider holds until the user
 * approves it (an OpenAI `mcp_approval_request`, for a remote MCP server
 * declared with `require_approval`). The agent asks its `approve` callback and
 * answers on the next request.
 */
export interface BuiltinApprovalRequest {
  /** The provider's id of the request; the answer names it, and the call's result later carries it. */
  id: string;
  /** The tool's name in the toolset (`openai_mcp_docs`), else the provider's name for it. */
  name: string;
  /** What the provider would call: `{ tool, arguments }` for a remote MCP server. */
  arguments: unknown;
}

/** The user's answer to a `BuiltinApprovalRequest`. */
export interface BuiltinApproval {
  id: string;
  approved: boolean;
  /** Why it was refused, for the model. */
  reason?: string;
}

/** The result of one tool call, sent back to the model. */
export interface ToolMessage {
  role: 'tool';
  callId: string;
  /** The tool's name, as the model called it. */
  name: string;
  result: ToolResult;
}

/** The conversation in a provider-neutral form; adapters translate it. */
export type ModelMessage = UserMessage | AssistantMessage | ToolMessage;

/** Per-request settings every adapter understands; adapters ignore what their provider lacks. */
export interface ModelSettings {
  temperature?: number;
  maxTokens?: number;
}

/**
 * Whether the model must call a tool on a turn: `auto` (it decides), `required`
 * (some tool), `none` (no tool, text only) or `{ name }` (that tool).
 */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

/** What the agent sends the model on each turn. */
export interface ModelRequest {
  /** The system prompt. */
  instructions?: string;
  messages: readonly ModelMessage[];
  /** The neutral definitions; each adapter lowers them to its provider's format. */
  tools: readonly ToolDefinition[];
  settings?: ModelSettings;
  /** Whether and which tool the model must call this turn (set by the agent's `prepareStep`); the provider's default when left out. */
  toolChoice?: ToolChoice;
  /** Aborts the request (the run was aborted or ran out of time). */
  signal?: AbortSignal;
  /** The schema the final answer must match (the agent's `output`): each adapter sends it as its provider's structured output. */
  output?: OutputFormat;
  /** With `codeMode: 'native'` and a model whose provider runs the programs (`Model.programmaticCalls`): the tools a program may call. */
  programmatic?: ProgrammaticCalls;
}

/** The tools a program in the provider's code execution may call, and whether the model may also call them itself. */
export interface ProgrammaticCalls {
  /** The names of the tools a program may call. */
  tools: readonly string[];
  /** Whether the model may also call them directly (`codeMode: { beside: true }`). */
  direct: boolean;
}

/** A structured output as a request carries it: each adapter lowers `schema` for its provider. */
export interface OutputFormat {
  /** The format's name, where a provider asks for one (OpenAI): the schema's `title`, else `final_answer`. */
  name: string;
  description?: string;
  /** The JSON Schema of the answer (an object). */
  schema: JsonSchema;
}

/** Tokens used by one model call (or, summed, by a run). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Why the model stopped talking, in neutral terms. */
export type ModelStopReason = 'end' | 'tool_calls' | 'max_tokens' | 'content_filter' | 'other';

/** What the model answered. */
export interface ModelResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: Usage;
  stopReason: ModelStopReason;
  /** The provider's own stop reason, for logs and traces (`gen_ai.response.finish_reasons`). */
  providerStopReason?: string;
  /** The provider's id of the response (`gen_ai.response.id`). */
  id?: string;
  /** The model that answered, as the provider names it (`gen_ai.response.model`): may be more exact than the one asked for. */
  model?: string;
  /** Built-in tool calls the provider ran in this turn; the agent records them as run events. */
  builtinCalls?: BuiltinToolCall[];
  /** Hosted tool calls waiting for the user's approval; the agent asks and answers on the next turn. */
  approvalRequests?: BuiltinApprovalRequest[];
  /** The provider's own record of the turn, kept on the assistant message for the next request. */
  providerItems?: ProviderItems;
  /**
   * The provider paused a long turn (Anthropic's `pause_turn`, server tools still
   * at work): the agent sends the turn back as it is and the provider goes on with it.
   */
  paused?: boolean;
  /** Non-fatal problems the turn reported (a hosted MCP server whose tools could not be listed); the agent records each as a diagnostic. */
  diagnostics?: ModelDiagnostic[];
}

/** A problem a model turn reported, recorded as a run diagnostic (its source: the model). */
export interface ModelDiagnostic {
  code: ErrorCode;
  message: string;
  /** The toolset's name of the tool concerned. */
  tool?: string;
}

/**
 * The one interface the agent talks to. Adapters wrap official clients
 * (`OpenAIModel`, `AnthropicModel`); `ScriptedModel` replays turns for tests.
 *
 * `generate` throws when the call fails after the client's own retries; the
 * agent ends the run with a `MODEL_FAILED` error.
 */
export interface Model {
  /** A readable name for transcripts and errors: "openai gpt-4.1-mini". */
  readonly name: string;
  /** The provider, as traces name it (`gen_ai.provider.name`): "openai", "anthropic". */
  readonly provider?: string;
  /** The model asked for, as traces name it (`gen_ai.request.model`): "gpt-4.1-mini". */
  readonly model?: string;
  /**
   * Whether the adapter lowers deferred tools (`Toolset.defer`) to its provider's
   * own tool search (Anthropic's, the OpenAI Responses API's): it then gets every
   * definition on every turn, the deferred ones marked `deferLoading`. Without it
   * the agent sends a portable search tool and, of the deferred tools, only those
   * the model loaded with it.
   */
  readonly nativeToolSearch?: boolean;
  /**
   * Whether the adapter sends tools' examples of arguments (`ToolDefinition.examples`)
   * in its provider's own field (Anthropic's `input_examples`). Without it the
   * examples are dropped, and the agent records a diagnostic for each tool that had some.
   */
  readonly toolExamples?: boolean;
  /**
   * Whether the adapter can let its provider's own code execution call the tools
   * (Anthropic's programmatic tool calling; see `ModelRequest.programmatic`). With
   * it, `codeMode: 'native'` uses the provider's; without it, the portable runner.
   */
  readonly programmaticCalls?: boolean;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * The same turn, streamed: deltas as they arrive, then one `response` event with
   * what `generate` would have returned. Optional: `agent.stream` falls back to
   * `generate` for a model without it. Aborting `request.signal` aborts the request.
   */
  stream?(request: ModelRequest): AsyncIterable<ModelStreamEvent>;
}

/** What a model's stream yields. */
export type ModelStreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; delta: string }
  | { type: 'response'; response: ModelResponse };

/** Zero usage, the start of a sum. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Adds `more` into `into` (mutates and returns `into`). */
export function addUsage(into: Usage, more: Usage): Usage {
  into.inputTokens += more.inputTokens;
  into.outputTokens += more.outputTokens;
  into.totalTokens += more.totalTokens;
  return into;
}
