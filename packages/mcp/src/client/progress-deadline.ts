import { AnytoolError, ErrorCode } from '@anytool/core';
import { now } from '@anytool/core/internal';
import type { Progress, RequestOptions } from '@modelcontextprotocol/client';

/*
 * Progress restarts a call's timeout (`resetTimeoutOnProgress`), so a server that
 * reports progress and never answers would keep a call alive for ever. The SDK's
 * own `maxTotalTimeout` rejects such a call without telling the server, which goes
 * on working and reporting. Here the first progress past the call's total time
 * aborts the request's own signal instead: the SDK sends `notifications/cancelled`
 * and rejects the request, and the connection turns that into `TIMEOUT`. No timer
 * is needed: only progress keeps a call alive past its timeout, so a call ends at
 * the latest one timeout after its total time.
 */

/** The default of `maxTotalTimeoutMs` (or the call's timeout, when that is longer). */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/** The abort reason of a call that ran past its total time; the SDK sends its text to the server. */
class TotalTimeout {
  constructor(readonly ms: number) {}

  toString(): string {
    return 'the call ran past the longest time the client gives it';
  }
}

/**
 * Sets `request.onprogress` to pass progress to `onprogress` until `maxTotalMs`
 * have passed since now; the first progress after that aborts `own` (whose signal
 * is the request's) and is dropped.
 */
export function progressUntil(request: RequestOptions, own: AbortController, onprogress: (progress: Progress) => void, maxTotalMs: number): void {
  const deadline = now() + maxTotalMs;
  request.onprogress = (progress) => {
    if (now() < deadline) onprogress(progress);
    else if (!own.signal.aborted) own.abort(new TotalTimeout(maxTotalMs));
  };
}

/** The total time a request ran past, when that is why it was cancelled. */
export function totalTimeoutOf(request: RequestOptions): number | undefined {
  const reason: unknown = request.signal?.aborted === true ? request.signal.reason : undefined;
  return reason instanceof TotalTimeout ? reason.ms : undefined;
}

/** Refuses a `maxTotalTimeoutMs` that is not a positive number of milliseconds. */
export function checkMaxTotalTimeout(value: unknown, where: string): void {
  if (value === undefined || (typeof value === 'number' && value > 0 && !Number.isNaN(value))) return;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `${where}: "maxTotalTimeoutMs" must be a positive number of milliseconds (the longest a call may run while it reports progress), got ${JSON.stringify(value) ?? String(value)}`,
  );
}
