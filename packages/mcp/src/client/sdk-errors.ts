import { describeError } from '@anytool/core/internal';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';

/*
 * Which failure of the MCP SDK an error is. The SDK rejects with three kinds:
 * `SdkError` (the client's own verdicts: timeout, connection closed, era
 * negotiation; `code` is a string), its subclass `SdkHttpError` (an HTTP
 * status the server answered, in `status`), and `ProtocolError` (a JSON-RPC
 * error the server answered, `code` a number). Everything else (a spawn's
 * ENOENT, fetch's TypeError) passes through as it is.
 */

/** The request was given up: its timeout ran out, or its signal aborted it (the SDK words both the same). */
export function isTimeout(error: unknown): error is SdkError {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/** The connection closed before the answer came. */
export function isConnectionClosed(error: unknown): error is SdkError {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

/** The SDK refused to send: its transport is not connected (a stdio send after the child's stdin closed, say). */
export function isNotConnected(error: unknown): error is SdkError {
  return error instanceof SdkError && error.code === SdkErrorCode.NotConnected;
}

/** The era could not be agreed: a server pinned to one era that does not speak it, or a probe cut short. */
export function isEraNegotiationFailure(error: unknown): error is SdkError {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
}

/**
 * An era negotiation cut short by the connection closing during the `server/discover` probe, as
 * opposed to a server that answered it without offering the modern era. The only place that reads
 * an SDK message: @modelcontextprotocol/client 2.4.0 gives both the same class and code
 * (`EraNegotiationFailed`) and nothing else that tells them apart, and words every closed case
 * with "closed" ("the connection closed during the server/discover probe", "the transport was
 * closed during the server/discover probe"). `sdk-errors.test.ts` pins this against the SDK.
 */
export function isProbeCutShort(error: unknown): error is SdkError {
  return isEraNegotiationFailure(error) && /closed/i.test(error.message);
}

/** The HTTP status a server answered a request with, when that is what failed. */
export function httpStatus(error: unknown): number | undefined {
  return error instanceof SdkHttpError ? error.status : undefined;
}

/** A JSON-RPC error the server answered with. */
export function isServerError(error: unknown): error is ProtocolError {
  return error instanceof ProtocolError;
}

/** An error of an HTTP transport, with its status code when the SDK keeps it apart from the message. */
export function describeHttpError(error: unknown): string {
  const text = describeError(error);
  const status = httpStatus(error) ?? (error as { code?: unknown } | undefined)?.code;
  return typeof status === 'number' && status >= 100 && status < 600 && !text.includes(String(status)) ? `HTTP ${status}: ${text}` : text;
}

/** Statuses with which a server that only speaks the old HTTP+SSE transport refuses a streamable HTTP POST. */
export function refusesStreamableHttp(error: unknown): boolean {
  const status = httpStatus(error);
  return status === 400 || status === 404 || status === 405;
}
