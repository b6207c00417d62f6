import { AnytoolError, ErrorCode, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { describeIssue, summarize, type SchemaIssue } from './call-result.js';
import { describeSize, tooLargeOf, type TooLarge } from './result-limit.js';
import { httpStatus, isConnectionClosed, isNotConnected, isServerError, isTimeout } from './sdk-errors.js';

/*
 * What a failed `tools/call` was, and the coded error a model reads for it. Decided from
 * the error's class and code (our `AnytoolError`, the SDK's `SdkError` codes, its
 * `ProtocolError`, its `SdkHttpError`'s status, a validator's issues) and from what the
 * connection knows of the call, never from the error's message. Pure: the connection
 * adds what needs its state (an auth failure's listeners, a dead server's stderr).
 */

/** What the connection knows of a failed call, besides its error. */
export interface CallFacts {
  /** The call ran past the longest a call reporting progress may run (see `progress-deadline.ts`), in ms. */
  totalTimeout: number | undefined;
  /** The call's own signal was aborted (the run's abort), and with what. */
  aborted: boolean;
  abortReason: unknown;
  /** Whether the client the call was sent to still had a connection (its SDK transport) when the call failed. */
  connected: boolean;
}

/** A failed call, by what went wrong. */
export type CallFailure =
  | { kind: 'total-timeout'; total: number }
  | { kind: 'coded'; error: AnytoolError }
  | { kind: 'aborted' }
  | { kind: 'result-too-large'; size: TooLarge }
  | { kind: 'invalid-result'; issues: readonly SchemaIssue[] }
  | { kind: 'timeout' }
  | { kind: 'connection-closed' }
  | { kind: 'server-error'; code: number; message: string }
  | { kind: 'http-status'; status: number }
  | { kind: 'other' };

/** What a failed call was. An auth failure is the connection's to find first (it holds the OAuth state). */
export function classifyCallFailure(error: unknown, facts: CallFacts): CallFailure {
  if (facts.totalTimeout !== undefined) return { kind: 'total-timeout', total: facts.totalTimeout };
  if (isAnytoolError(error)) return { kind: 'coded', error };
  // The SDK rejects a request cancelled by its signal with a RequestTimeout SdkError, not with the signal's reason.
  if (facts.aborted && (error === facts.abortReason || !isServerError(error))) return { kind: 'aborted' };
  const size = tooLargeOf(error);
  if (size !== undefined) return { kind: 'result-too-large', size };
  const issues = schemaIssues(error);
  if (issues !== undefined) return { kind: 'invalid-result', issues };
  if (isTimeout(error)) return { kind: 'timeout' };
  if (isConnectionClosed(error)) return { kind: 'connection-closed' };
  if (isServerError(error)) return { kind: 'server-error', code: error.code, message: error.message };
  const status = httpStatus(error);
  if (status !== undefined) return { kind: 'http-status', status };
  if (!facts.connected || isNotConnected(error)) return { kind: 'connection-closed' };
  return { kind: 'other' };
}

/** A validator's error (zod's), whose issues are summarized rather than shown. */
function schemaIssues(error: unknown): readonly SchemaIssue[] | undefined {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  return error instanceof Error && Array.isArray(issues) ? (issues as SchemaIssue[]) : undefined;
}

/** Told with a timeout of a call that did not ask for progress, which would have kept it alive. */
const PROGRESS_HINT =
  'Progress was not asked for, so progress could not keep the call alive: for a server whose long calls report progress set "progress": true on it (or pass onprogress to McpConnection.callTool); otherwise raise "timeoutMs" or "toolTimeouts".';

/** What the words of a call's error need: whose call it was, and how its server's text is quoted. */
export interface CallWords {
  server: string;
  tool: string;
  /** The call's timeout, in ms. */
  timeout: number;
  /** Whether the call asked for progress (which keeps it alive). */
  progress: boolean;
  /** A server's or the SDK's text for a message: credentials masked, cut short. */
  quote(text: string): string;
}

/**
 * The coded error of a failed call, for every kind but `connection-closed` (which the
 * connection words, with the server's stderr).
 */
export function callFailureError(failure: Exclude<CallFailure, { kind: 'connection-closed' }>, error: unknown, words: CallWords): AnytoolError {
  const { server, tool } = words;
  const cause = { cause: error };
  switch (failure.kind) {
    case 'total-timeout':
      return new AnytoolError(
        ErrorCode.Timeout,
        `Tool "${tool}" on MCP server "${server}" ran for ${failure.total} ms, the longest a call may run while it reports progress, without a result; the server was told to cancel it. If its calls take longer, raise "maxTotalTimeoutMs".`,
        cause,
      );
    case 'coded':
      return failure.error;
    case 'aborted':
      return new AnytoolError(ErrorCode.Aborted, `Tool "${tool}" on MCP server "${server}" was cancelled.`, cause);
    case 'result-too-large':
      return new AnytoolError(
        ErrorCode.ResultTooLarge,
        `Tool "${tool}" on MCP server "${server}" answered with a result too large: ${describeSize(failure.size)}. It was dropped. If results this large are expected, raise "maxResultBytes" on the server's entry or in the options.`,
        cause,
      );
    case 'invalid-result':
      return new AnytoolError(
        ErrorCode.McpInvalidResult,
        `Tool "${tool}" on MCP server "${server}" returned a result that is not valid MCP: ${summarize(failure.issues.map((issue) => describeIssue(issue)))}.`,
      );
    case 'timeout': {
      const sentences = [`Tool "${tool}" on MCP server "${server}" timed out after ${words.timeout} ms without a result or progress.`];
      if (!words.progress) sentences.push(PROGRESS_HINT);
      return new AnytoolError(ErrorCode.Timeout, sentences.join(' '), cause);
    }
    case 'server-error':
      return new AnytoolError(
        ErrorCode.McpProtocolError,
        `MCP server "${server}" answered tools/call "${tool}" with error ${failure.code}: ${words.quote(failure.message)}`,
        cause,
      );
    case 'http-status':
      if (failure.status === 413)
        return new AnytoolError(
          ErrorCode.PayloadTooLarge,
          `Tool "${tool}" on MCP server "${server}" was not run: the request is larger than the server accepts (HTTP 413: ${words.quote(describeError(error))}). Call it with smaller arguments, or raise the server's maxBodyBytes.`,
          cause,
        );
      return new AnytoolError(
        ErrorCode.McpProtocolError,
        `MCP server "${server}" answered tools/call "${tool}" with HTTP ${failure.status}: ${words.quote(describeError(error))}`,
        cause,
      );
    case 'other':
      return new AnytoolError(
        ErrorCode.McpProtocolError,
        `Calling tool "${tool}" on MCP server "${server}" failed: ${words.quote(describeError(error))}`,
        cause,
      );
  }
}
