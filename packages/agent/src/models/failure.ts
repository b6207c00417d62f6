import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';

/** The HTTP status of a failed request, when the official client's error carries one. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Whether the official clients retry a request that failed with `status` (no response, 408, 409, 429, 5xx). */
function isRetried(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/** What to do about a request rejected at once with `status`: a whole sentence. */
function rejectionHint(status: number, keyVariable: string): string {
  if (status === 401 || status === 403) return `Check the API key (the apiKey option or ${keyVariable}) and that it may use this model.`;
  if (status === 404) return 'Check the model id and the baseURL.';
  return 'The request was not retried; fix it and try again.';
}

/**
 * The `MODEL_FAILED` error of an adapter's failed request. Retries are named
 * only for failures the official clients retry; another 4xx was rejected at
 * once, with a hint for 401/403 and 404.
 */
export function modelFailed(name: string, error: unknown, maxRetries: number, keyVariable: string): AnytoolError {
  const status = statusOf(error);
  let message: string;
  if (status === undefined || isRetried(status)) {
    message = `${name}: the request failed after the client's retries (maxRetries ${maxRetries}): ${describeError(error)}`;
  } else {
    // The clients' messages start with the status ("401 Incorrect API key..."): said once.
    const detail = describeError(error).replace(new RegExp(`^${status}\\s+`), '');
    message = [`${name}: the request was rejected with ${status}: ${detail}.`, rejectionHint(status, keyVariable)].join(' ');
  }
  return new AnytoolError(ErrorCode.ModelFailed, message, { cause: error });
}
