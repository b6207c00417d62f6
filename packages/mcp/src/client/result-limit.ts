import { ProtocolError, type JSONRPCErrorResponse, type RequestId } from '@modelcontextprotocol/client';

/**
 * The size limit on what a server sends: a message over `maxResultBytes` is never
 * held whole. Its first and last bytes tell what it was; a response is answered
 * in its place with a JSON-RPC error that the connection turns into
 * `RESULT_TOO_LARGE`, and anything else is dropped with a diagnostic. The
 * connection stays up.
 */

/** The default `maxResultBytes`: the SDK's own stdio limit, so what worked over stdio still does, now on every transport. */
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;

/** How large a message was (at least `size` bytes when it was not read to its end) and the limit it broke. */
export interface TooLarge {
  size: number;
  /** False when reading stopped past the limit: the message had more than `size` bytes. */
  exact: boolean;
  limit: number;
}

/** The JSON-RPC error code of the answer given in place of a response too large to read (in the range JSON-RPC leaves to implementations). */
const TOO_LARGE_CODE = -32090;

export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/** `12 MiB, over the 10 MiB limit (maxResultBytes: 10485760)`; without the size when reading stopped at the limit. */
export function describeSize(size: TooLarge): string {
  return `${size.exact ? `${sizeText(size.size)}, ` : ''}over the ${sizeText(size.limit)} limit (maxResultBytes: ${size.limit})`;
}

/** The error response given to the SDK in place of the response `id` that was too large. */
export function tooLargeResponse(id: RequestId, size: TooLarge): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code: TOO_LARGE_CODE, message: `The response is too large: ${describeSize(size)}.`, data: { resultTooLarge: size } } };
}

/** The error the SDK would make of `tooLargeResponse`, for a request failed where its response is read. */
export function tooLargeError(size: TooLarge): ProtocolError {
  const { error } = tooLargeResponse(0, size);
  return new ProtocolError(error.code, error.message, error.data);
}

/** The size of a response answered with `tooLargeResponse`, from the error the SDK rejected the request with. */
export function tooLargeOf(error: unknown): TooLarge | undefined {
  if (!(error instanceof ProtocolError) || error.code !== TOO_LARGE_CODE) return undefined;
  const size = (error.data as { resultTooLarge?: Partial<TooLarge> } | undefined)?.resultTooLarge;
  if (typeof size?.size !== 'number' || typeof size.limit !== 'number') return undefined;
  return { size: size.size, exact: size.exact === true, limit: size.limit };
}

const KEEP = 256;
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const SCALAR_KEY = String.raw`"(?:jsonrpc|id)"\s*:\s*(?:-?\d+|"(?:[^"\\]|\\.)*")\s*`;
/** A message whose first key is `method` (after `jsonrpc` or `id`): a request or a notification. */
const METHOD_FIRST = new RegExp(String.raw`^\{\s*(?:${SCALAR_KEY},\s*)*"method"\s*:`);
/** A message whose last key is `method` (before `jsonrpc` or `id`). */
const METHOD_LAST = new RegExp(String.raw`"method"\s*:\s*"(?:[^"\\]|\\.)*"\s*(?:,\s*${SCALAR_KEY})*\}\s*$`);
/** The `id` as the first key (after `jsonrpc`): how most servers write it. */
const ID_FIRST = new RegExp(String.raw`^\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*,`);
/** The `id` as the last key (before `jsonrpc`): how the SDK's servers write a response. */
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/** The id of the request in a JSON-RPC message's text (undefined for a notification or a response), from its first and last bytes. */
export function requestIdOf(text: string): RequestId | undefined {
  const head = text.slice(0, KEEP);
  if (!METHOD_FIRST.test(head)) return undefined;
  const found = ID_LAST.exec(text.slice(-KEEP))?.[1] ?? ID_FIRST.exec(head)?.[1];
  return found === undefined ? undefined : (JSON.parse(found) as RequestId);
}

/** What is known of a message too large to keep: its size, its first and last bytes. */
export class OversizedMessage {
  size = 0;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(private readonly limit: number) {}

  /** Counts the next bytes of the message, keeping only its first and last few (copied, so no large chunk stays referenced). */
  add(bytes: Uint8Array): void {
    this.size += bytes.length;
    if (this.head.length < KEEP) this.head = Buffer.concat([this.head, bytes.subarray(0, KEEP - this.head.length)]);
    this.tail = bytes.length >= KEEP ? Buffer.from(bytes.subarray(bytes.length - KEEP)) : Buffer.concat([this.tail, bytes]).subarray(-KEEP);
  }

  /** Whether the message starts like a request or a notification (`method` first), so it is no response. */
  startsWithMethod(): boolean {
    return METHOD_FIRST.test(this.json(this.head));
  }

  /**
   * The error response to give in its place when it is a response (its `id` is its first or
   * last key, and `method` is neither), or undefined (a request, a notification, or unknown).
   * `exact`: the message was read to its end.
   */
  answer(exact: boolean, fallbackId?: RequestId): JSONRPCErrorResponse | undefined {
    const head = this.json(this.head);
    const tail = exact ? this.tail.toString('utf8') : '';
    if (METHOD_FIRST.test(head) || METHOD_LAST.test(tail)) return undefined;
    const found = ID_LAST.exec(tail)?.[1] ?? ID_FIRST.exec(head)?.[1];
    const id = found === undefined ? fallbackId : (JSON.parse(found) as RequestId);
    return id === undefined ? undefined : tooLargeResponse(id, { size: this.size, exact, limit: this.limit });
  }

  /** A few words on what was dropped, for a diagnostic. */
  describe(exact: boolean): string {
    const method =
      /"method"\s*:\s*"((?:[^"\\]|\\.){0,64})/.exec(this.json(this.head))?.[1] ??
      /"method"\s*:\s*"((?:[^"\\]|\\.){0,64})"/.exec(this.tail.toString('utf8'))?.[1];
    const what = method === undefined ? 'a message without a response id' : `a ${method} message`;
    return `dropped ${what} from the server, too large: ${describeSize({ size: this.size, exact, limit: this.limit })}`;
  }

  /** The text from the first `{` (an SSE event starts with its field names). */
  private json(bytes: Buffer): string {
    const text = bytes.toString('utf8');
    const start = text.indexOf('{');
    return start === -1 ? '' : text.slice(start);
  }
}
