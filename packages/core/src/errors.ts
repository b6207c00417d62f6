import { BRAND, brandedHasInstance, hasBrand, setBrand } from './brands.js';

/**
 * Every error anytool throws or reports carries one of these stable codes.
 * Callers branch on `code`, never on message text.
 */
export const ErrorCode = {
  /** A tool name was registered twice in one toolset; rename one, or leave one out. */
  DuplicateTool: 'DUPLICATE_TOOL',
  /** A tool name breaks a provider's naming rule; pass a name the message suggests. */
  InvalidToolName: 'INVALID_TOOL_NAME',
  /** A tool has no parameter schema and the build step did not provide one; give `parameters` or compile with the build step. */
  MissingSchema: 'MISSING_SCHEMA',
  /** A tool has no description and the build step did not provide one; give `description` or a doc comment. */
  MissingDescription: 'MISSING_DESCRIPTION',
  /** A tool's schema is not valid JSON Schema, or cannot be exported as one; fix the schema or the type it comes from. */
  InvalidSchema: 'INVALID_SCHEMA',
  /** A schema's `pattern` (or `patternProperties` key) needs what the linear-time engine for untrusted input lacks (a backreference, a lookaround); rewrite it without. */
  UnsupportedPattern: 'UNSUPPORTED_PATTERN',
  /** A tool is defined wrongly (a decorator out of place, options that do not fit its function, a value given as tools that holds none); fix the definition as the message says. */
  InvalidToolDefinition: 'INVALID_TOOL_DEFINITION',
  /** An option or argument of a function or constructor (Agent, a model, serveMcp, RedisStore, a call) has a value it does not accept; fix that value. */
  InvalidOptions: 'INVALID_OPTIONS',
  /** Two options were given that cannot go together; drop one of them. */
  ConflictingOptions: 'CONFLICTING_OPTIONS',
  /** A command line of the `anytool` command is wrong (an unknown flag, a missing argument, a path that does not exist); run it with --help. */
  InvalidUsage: 'INVALID_USAGE',
  /** A module named as a source of tools could not be loaded or exports no tools; fix the path or its exports. */
  InvalidToolModule: 'INVALID_TOOL_MODULE',
  /** The TypeScript project the build step reads is unusable (its tsconfig cannot be read or has errors, or no type information); fix the project. */
  InvalidProject: 'INVALID_PROJECT',
  /** An optional library a feature needs is not installed or too old; install the one the message names. */
  MissingDependency: 'MISSING_DEPENDENCY',
  /** A model client has no API key; pass `apiKey` or set the provider's environment variable. */
  MissingCredentials: 'MISSING_CREDENTIALS',
  /** The model asked for a tool that the toolset does not hold; the model is told the names it may use. */
  UnknownTool: 'UNKNOWN_TOOL',
  /** The model's arguments did not match the tool's schema; the model is told what to fix. */
  InvalidArguments: 'INVALID_ARGUMENTS',
  /** The tool threw or rejected; its error is the `cause`. */
  ToolFailed: 'TOOL_FAILED',
  /** The tool did not settle within its timeout; raise the timeout (an MCP call's also restarts on progress). */
  Timeout: 'TIMEOUT',
  /** The run was aborted before or while the tool ran; the tool's work may be unfinished. */
  Aborted: 'ABORTED',
  /** The tool returned a value that cannot be turned into a tool result; return a string, plain data or a ToolResult. */
  InvalidResult: 'INVALID_RESULT',
  /** A type has no faithful JSON Schema (build step); give the tool an explicit schema. */
  UnsupportedType: 'UNSUPPORTED_TYPE',
  /** The TypeScript a build host compiles with is one the build step cannot work with; install a supported version. */
  UnsupportedTypeScript: 'UNSUPPORTED_TYPESCRIPT',
  /** An MCP server could not be started or connected to; check its command or URL (the message has its stderr). */
  McpConnectFailed: 'MCP_CONNECT_FAILED',
  /** The connection to an MCP server closed while a call was in flight; the next call connects again. */
  McpConnectionClosed: 'MCP_CONNECTION_CLOSED',
  /** An MCP server answered with a protocol error; the message quotes it. */
  McpProtocolError: 'MCP_PROTOCOL_ERROR',
  /** Authorizing with an MCP server (OAuth) failed: no token could be obtained or the server refused it; sign in again or fix the credentials. */
  McpAuthFailed: 'MCP_AUTH_FAILED',
  /** An MCP server's tool result did not match its output schema (or MCP's); the server needs fixing. */
  McpInvalidResult: 'MCP_INVALID_RESULT',
  /** An MCP server's `tools/list` went past a limit (its tools, their bytes, its pages, or the time to read it); the server was not started, or keeps its previous tools after a change; raise the option the message names. */
  McpToolListLimit: 'MCP_TOOL_LIST_LIMIT',
  /** An MCP server's entry in a client config is malformed; fix the field the message names. */
  InvalidMcpConfig: 'INVALID_MCP_CONFIG',
  /** A task handle names an MCP server this toolset or connection does not hold; resume the task where it started. */
  UnknownServer: 'UNKNOWN_SERVER',
  /** An MCP server refused a request as too large (HTTP 413); send less, or raise the server's `maxBodyBytes`. */
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** serveMcp() refused options that would expose every tool (no auth off loopback, no host check); add auth or allowedHosts, or opt out explicitly. */
  InsecureServer: 'INSECURE_SERVER',
  /** The OAuth token file cannot be used (others may read it, or it is not a JSON object of tokens); make it private or delete it. */
  InvalidTokenFile: 'INVALID_TOKEN_FILE',
  /** A store (RedisStore, RedisRunStore) could not do what was asked: Redis is unreachable, the store is closed, or an update kept losing to other writers; retry or check Redis. */
  StoreFailed: 'STORE_FAILED',
  /** A tool's result was larger than the limit set for it (an MCP server's answer, for one); ask for less, or raise the limit. */
  ResultTooLarge: 'RESULT_TOO_LARGE',
  /** `read_tool_output` was given a handle this run never issued (or one from an earlier run, whose outputs were released); copy the handle from the note of the cut result. */
  OutputHandleUnknown: 'OUTPUT_HANDLE_UNKNOWN',
  /** A kept tool output was evicted to make room for newer ones (the run's store is bounded); call the tool again asking for less, or raise the store's `maxBytes`. */
  OutputEvicted: 'OUTPUT_EVICTED',
  /** A model call failed after the client's own retries; the `cause` is the client's error. */
  ModelFailed: 'MODEL_FAILED',
  /** A provider's built-in tool was called locally; only its provider runs it, during a model turn. */
  ProviderTool: 'PROVIDER_TOOL',
  /** A tool call was refused by the approval callback; the model is told it was not run. */
  ApprovalDenied: 'APPROVAL_DENIED',
  /** The call waits for a person's approval and has not run: its run paused (an agent's run returns it as an interruption to answer with `resume`). */
  ApprovalPending: 'APPROVAL_PENDING',
  /** The tool asked the user a question and waits for the answer (its run paused); outside a run that can pause, the call ends with this code. */
  InputRequired: 'INPUT_REQUIRED',
  /** The call waits for the application to run it and give its result (a client tool); its run paused. */
  ResultPending: 'RESULT_PENDING',
  /** A run's state could not be read back: not a state anytool wrote, or of a format version this anytool does not read. */
  RunStateInvalid: 'RUN_STATE_INVALID',
  /** A run store refused a paused run's state larger than its `maxStateBytes`; the state was not saved. Raise `maxStateBytes`, or keep the run's state smaller. */
  RunStateTooLarge: 'RUN_STATE_TOO_LARGE',
  /** A paused run's tools changed since it paused (a definition differs or a tool is gone); the run was not resumed. Start a new run, or resume where the tools are the same. */
  RunToolsChanged: 'RUN_TOOLS_CHANGED',
  /** A call that must run after another call of its turn that is waiting for an answer: it has not run yet and runs, in order, when the run resumes. */
  CallDeferred: 'CALL_DEFERRED',
  /** A paused run was resumed already (its pending items are consumed), or the run store no longer holds it (resumed, expired, or never saved there); nothing ran twice. */
  RunAlreadyResumed: 'RUN_ALREADY_RESUMED',
  /** An answer given to `resume` does not fit its pending item: an unknown item, another call's tool, call id or arguments, a bad signature, or the wrong kind of answer. */
  ResumeAnswerInvalid: 'RESUME_ANSWER_INVALID',
  /** A question of a tool can no longer be answered (a legacy-era MCP elicitation whose request ended with its process); the call did not finish. */
  InputExpired: 'INPUT_EXPIRED',
  /** A remote (MCP) tool's definition differs from the one approved and pinned, and the change was not approved; approve it through the approve callback or `ToolPins.pin`. */
  ToolDefinitionChanged: 'TOOL_DEFINITION_CHANGED',
  /** The model gave one call id to two tool calls of the same turn; the repeated call was not run. */
  DuplicateCallId: 'DUPLICATE_CALL_ID',
  /** A middleware hook (or an agent's `prepareStep` or `stopWhen`) threw or returned something that is not a ToolResult; the call (or the run) ended with this code. */
  MiddlewareFailed: 'MIDDLEWARE_FAILED',
  /** A listener (of run events, diagnostics or a toolset's changes) threw; the others were still told. */
  ListenerFailed: 'LISTENER_FAILED',
  /** A tool used part of the run's context it did not declare (a state key, the run's events, progress); declare it in its `context` option. */
  ContextAccessDenied: 'CONTEXT_ACCESS_DENIED',
  /** More distinct diagnostics than a log keeps: the ones past the limit are counted on this one, not kept. */
  TooManyDiagnostics: 'TOO_MANY_DIAGNOSTICS',
  /** A served MCP endpoint is at one of its limits (tasks running or kept, calls waiting for input, answers its stdio client has not read); retry later, or raise the limit the message names. */
  ServerBusy: 'SERVER_BUSY',
  /** A model adapter cannot send what the request asks (a tool choice its provider cannot honour, another API's built-in tool); change the request or the adapter. */
  UnsupportedByModel: 'UNSUPPORTED_BY_MODEL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AnytoolErrorOptions {
  cause?: unknown;
  /** Text for the developer only (see `AnytoolError.detail`). */
  detail?: string;
}

/**
 * The one base class of anytool's errors: a stable `code`, a readable message and a `cause`.
 * `error instanceof AnytoolError` (and `isAnytoolError(error)`) holds for an error from any
 * copy of @anytool/core.
 */
export class AnytoolError extends Error {
  override readonly name: string = 'AnytoolError';
  readonly code: ErrorCode;
  /**
   * What the developer may read and a model must not (a crashed server's stderr, which may
   * hold a secret): a tool call that fails with this error gives the model the message, and
   * the result's `error.message` the message and this.
   */
  readonly detail?: string;

  constructor(code: ErrorCode, message: string, options?: AnytoolErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.detail !== undefined) this.detail = options.detail;
  }

  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return brandedHasInstance(this, AnytoolError, BRAND.AnytoolError, value);
  }
}

setBrand(AnytoolError, BRAND.AnytoolError);

/** Whether `value` is an `AnytoolError`, from this copy of @anytool/core or another. */
export function isAnytoolError(value: unknown): value is AnytoolError {
  return hasBrand(value, BRAND.AnytoolError);
}

// Re-exported for the modules that import their error helpers from the error table.
export { UNDESCRIBABLE, describeError } from './thrown-value.js';
