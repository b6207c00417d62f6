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

/**
 * Anything thrown as an `Error`, for a callback typed `(error: Error) => void`: an
 * `Error` as it is; anything else a new `Error` with its description as the message and
 * itself as the `cause`. Never throws itself.
 */
export function toError(thrown: unknown): Error {
  let isError = false;
  try {
    isError = thrown instanceof Error;
  } catch {
    // A revoked proxy's prototype cannot be read: not an Error this code can use.
  }
  return isError ? (thrown as Error) : new Error(describeError(thrown), { cause: thrown });
}
