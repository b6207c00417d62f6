import { BRAND, brandedHasInstance, hasBrand, setBrand } from './brands.js';

/**
 * Every error anytool throws or reports carries one of these stable codes.
 * Callers branch on `code`, never on message text.
 */
export const ErrorCode = {
  /** A tool name was registered twice in one toolset. */
  DuplicateTool: 'DUPLICATE_TOOL',
  /** A tool name breaks a provider's naming rule. */
  InvalidToolName: 'INVALID_TOOL_NAME',
  /** A tool has no parameter schema and the build step did not provide one. */
  MissingSchema: 'MISSING_SCHEMA',
  /** A tool has no description and the build step did not provide one. */
  MissingDescription: 'MISSING_DESCRIPTION',
  /** A tool's JSON Schema is not a valid schema. */
  InvalidSchema: 'INVALID_SCHEMA',
  /** Options given to a tool, decorator or toolset are malformed. */
  InvalidOptions: 'INVALID_OPTIONS',
  /** The model asked for a tool that the toolset does not hold. */
  UnknownTool: 'UNKNOWN_TOOL',
  /** The model's arguments did not match the tool's schema. */
  InvalidArguments: 'INVALID_ARGUMENTS',
  /** The tool threw or rejected. */
  ToolFailed: 'TOOL_FAILED',
  /** The tool did not settle within its timeout. */
  Timeout: 'TIMEOUT',
  /** The run was aborted before or while the tool ran. */
  Aborted: 'ABORTED',
  /** The tool returned a value that cannot be turned into a tool result. */
  InvalidResult: 'INVALID_RESULT',
  /** A type has no faithful JSON Schema (build step). */
  UnsupportedType: 'UNSUPPORTED_TYPE',
  /** The TypeScript a build host compiles with is one the build step cannot work with. */
  UnsupportedTypeScript: 'UNSUPPORTED_TYPESCRIPT',
  /** An MCP server could not be started or connected to. */
  McpConnectFailed: 'MCP_CONNECT_FAILED',
  /** The connection to an MCP server closed while a call was in flight. */
  McpConnectionClosed: 'MCP_CONNECTION_CLOSED',
  /** An MCP server answered with a protocol error. */
  McpProtocolError: 'MCP_PROTOCOL_ERROR',
  /** Authorizing with an MCP server (OAuth) failed: no token could be obtained or the server refused it. */
  McpAuthFailed: 'MCP_AUTH_FAILED',
  /** An MCP server's tool result did not match its output schema. */
  McpInvalidResult: 'MCP_INVALID_RESULT',
  /** A tool's result was larger than the limit set for it (an MCP server's answer, for one). */
  ResultTooLarge: 'RESULT_TOO_LARGE',
  /** A model call failed after the client's own retries. */
  ModelFailed: 'MODEL_FAILED',
  /** A provider's built-in tool was called locally; only its provider runs it, during a model turn. */
  ProviderTool: 'PROVIDER_TOOL',
  /** A tool call was refused by the approval callback. */
  ApprovalDenied: 'APPROVAL_DENIED',
  /** The model gave one call id to two tool calls of the same turn; the repeated call was not run. */
  DuplicateCallId: 'DUPLICATE_CALL_ID',
  /** A middleware hook threw or returned something that is not a ToolResult; the call ended with this code. */
  MiddlewareFailed: 'MIDDLEWARE_FAILED',
  /** A listener (of run events, diagnostics or a toolset's changes) threw; the others were still told. */
  ListenerFailed: 'LISTENER_FAILED',
  /** More distinct diagnostics than a log keeps: the ones past the limit are counted on this one, not kept. */
  TooManyDiagnostics: 'TOO_MANY_DIAGNOSTICS',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AnytoolErrorOptions {
  cause?: unknown;
}

/**
 * The one base class of anytool's errors: a stable `code`, a readable message and a `cause`.
 * `error instanceof AnytoolError` (and `isAnytoolError(error)`) holds for an error from any
 * copy of @anytool/core.
 */
export class AnytoolError extends Error {
  override readonly name: string = 'AnytoolError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: AnytoolErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
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

/** What `describeError` says about a value whose every reading throws (a revoked proxy, a throwing getter). */
export const UNDESCRIBABLE = 'a thrown value that cannot be described';

/**
 * Returns a readable one-line message for anything thrown. Never throws itself:
 * a revoked proxy, a proxy whose traps throw, a throwing `message` getter or a
 * cyclic object without a prototype all get a text (at worst `UNDESCRIBABLE`).
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message: unknown = error.message;
      if (typeof message === 'string' && message !== '') return message;
      const name: unknown = error.name;
      return typeof name === 'string' && name !== '' ? name : UNDESCRIBABLE;
    }
    if (typeof error === 'string') return error;
  } catch {
    return UNDESCRIBABLE;
  }
  try {
    const json: unknown = JSON.stringify(error);
    if (typeof json === 'string') return json;
  } catch {
    // Not JSON (a cycle, a bigint, a throwing toJSON): its String() below.
  }
  try {
    return String(error);
  } catch {
    return UNDESCRIBABLE;
  }
}
