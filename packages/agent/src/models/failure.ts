import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';

/** The HTTP status of a failed request, when the official client's error carries one. */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The `MODEL_FAILED` error of an adapter's failed request. Retries are named
 * only for failures the official clients retry (no response, 408, 409, 429,
 * 5xx); another 4xx was rejected at once, with a hint for 401/403.
 */
export function modelFailed(name: string, error: unknown, maxRetries: number, keyVariable: string): AnytoolError {
  const status = statusOf(error);
  const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
  let message: string;
  if (retryable) {
    message = `${name}: the request failed after the client's retries (maxRetries ${maxRetries}): ${describeError(error)}`;
  } else {
    const hint =
      status === 401 || status === 403
        ? ` Check the API key (the apiKey option or ${keyVariable}) and that it may use this model.`
        : status === 404
          ? ' Check the model id and the baseURL.'
          : ' The request was not retried; fix it and try again.';
    // The clients' messages start with the status ("401 Incorrect API key..."): said once.
    const detail = describeError(error).replace(new RegExp(`^${status}\\s+`), '');
    message = `${name}: the request was rejected with ${status}: ${detail}.${hint}`;
  }
  return new AnytoolError(ErrorCode.ModelFailed, message, { cause: error });
}
