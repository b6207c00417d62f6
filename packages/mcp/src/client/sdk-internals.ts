import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/*
 * The one place that reaches into the SDK's `StdioClientTransport` beyond its
 * public API, each access checked: when a field is missing (a newer SDK moved
 * it), the feature that needed it is skipped and `problem` is called with a
 * diagnostic instead of anything throwing.
 */

/**
 * - `start` is wrapped so the child's pid is known as soon as it is spawned: a
 *   failed `connect` forgets it, and a child that hangs at start must still be killed.
 * - `_process.stdin` gets no listener limit: many concurrent calls each wait for
 *   'drain' on it, which is expected, not a leak.
 */
export function watchStdioStart(transport: StdioClientTransport, onSpawned: (pid: number | undefined, running?: () => boolean) => void, problem: (message: string) => void): void {
  const original = (transport as { start?: unknown }).start;
  if (typeof original !== 'function') {
    problem('the MCP SDK StdioClientTransport has no start() method any more: the pid of a server that hangs at start is not known until it answers');
    return;
  }
  const start = (original as () => Promise<void>).bind(transport);
  transport.start = async () => {
    onSpawned(undefined);
    await start();
    const child = (transport as unknown as Record<string, unknown>)['_process'] as { stdin?: { setMaxListeners?: unknown } | null; exitCode?: unknown; signalCode?: unknown } | undefined;
    // Whether the child still runs (so its pid is not yet free for another process); unknown without the field.
    const running = child !== undefined && 'exitCode' in child ? () => child.exitCode === null && child.signalCode === null : undefined;
    onSpawned(transport.pid ?? undefined, running);
    if (child === undefined || typeof child.stdin?.setMaxListeners !== 'function') {
      problem('the MCP SDK StdioClientTransport has no _process.stdin any more: the listener limit on the server stdin stays at its default (harmless warnings under many concurrent calls)');
      return;
    }
    (child.stdin.setMaxListeners as (n: number) => void).call(child.stdin, 0);
  };
}

/** Gives the transport a {@link StdioReadBuffer} in place of the SDK's `ReadBuffer` (its private `_readBuffer`). */
export function useStdioReadBuffer(transport: StdioClientTransport, problem: (message: string) => void): void {
  const fields = transport as unknown as Record<string, unknown>;
  const sdkBuffer = fields['_readBuffer'];
  if (!(sdkBuffer instanceof ReadBuffer)) {
    problem("the MCP SDK StdioClientTransport has no _readBuffer any more: the server's stdout is read with the SDK's own parser");
    return;
  }
  const limit = (sdkBuffer as unknown as Record<string, unknown>)['_maxBufferSize'];
  fields['_readBuffer'] = new StdioReadBuffer(typeof limit === 'number' ? limit : STDIO_DEFAULT_MAX_BUFFER_SIZE);
}

/**
 * The SDK's `ReadBuffer` (newline-delimited JSON-RPC from a server's stdout),
 * with the same results and errors, made cheaper for the line a client reads
 * most: the result of one of its requests.
 *
 * The SDK parses every line with `JSONRPCMessageSchema`, a zod union that tries
 * the request and notification shapes (building their errors) before the
 * response, and it copies its whole buffer on every chunk once one line has
 * been read. Here a line of exactly `{ jsonrpc: "2.0", id, result }`, with an
 * `id` that is a string or a safe integer and a `result` that is an object
 * without `_meta`, is that schema's success by its definition: it is passed on
 * as the schema would give it, without running the schema. Every other line
 * goes through the SDK's schema.
 * Measured on server-everything's echo at concurrency 50, this takes 2 to
 * 4 us of client CPU off each call (`bench/mcp-latency`), and
 * `stdio-read-buffer.test.ts` checks it against the SDK's reader line by line.
 */
export class StdioReadBuffer {
  private buffer: Buffer | undefined;

  constructor(private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    const buffered = this.buffer?.length ?? 0;
    if (buffered + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.buffer = buffered === 0 ? chunk : Buffer.concat([this.buffer as Buffer, chunk]);
  }

  readMessage(): JSONRPCMessage | null {
    const buffer = this.buffer;
    if (buffer === undefined) return null;
    const end = buffer.indexOf(NEWLINE);
    if (end === -1) return null;
    const line = buffer.toString('utf8', 0, end > 0 && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
    this.buffer = end + 1 === buffer.length ? undefined : buffer.subarray(end + 1);
    const value: unknown = JSON.parse(line);
    // The schema's output, as the schema would build it: a new object, its keys in the schema's order.
    if (isResultResponse(value)) return { jsonrpc: '2.0', id: value.id, result: value.result };
    return JSONRPCMessageSchema.parse(value);
  }

  clear(): void {
    this.buffer = undefined;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Whether `value` passes the SDK's `JSONRPCResultResponseSchema` (strict, with a loose `result`)
 * with nothing for `_meta`'s schema to check, and nothing zod would leave out of its copy (an own
 * `__proto__` key, which `JSON.parse` can make).
 */
function isResultResponse(value: unknown): value is { jsonrpc: '2.0'; id: string | number; result: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false;
  const { jsonrpc, id, result } = value as Record<string, unknown>;
  if (jsonrpc !== '2.0' || !(typeof id === 'string' || Number.isSafeInteger(id))) return false;
  if (typeof result !== 'object' || result === null || Array.isArray(result) || Object.hasOwn(result, '_meta') || Object.hasOwn(result, '__proto__')) return false;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  return keys === 3;
}

/**
 * The abort signal of one SDK request, tied to the caller's signal while the
 * call runs. Of a request's signal the SDK's `Protocol.request` uses only
 * `throwIfAborted()`, `aborted`, `reason` and one 'abort' listener, which it
 * never removes. Handing it the run's own signal would leave a listener per
 * finished call on it (and an abort late in the run would "cancel" every
 * finished request); a fresh `AbortController` per call costs about 5 us in
 * Node 20 (making its signal and adding the first listener), more than the rest
 * of the call. This stand-in costs next to nothing and goes with the request.
 * The tests abort calls through it over stdio and HTTP, so an SDK release that
 * needs more of a signal (`onabort`, `AbortSignal.any`) fails there first.
 */
export class RequestSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<(event: { type: 'abort' }) => void> = [];

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener.call(this, { type: 'abort' });
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    // As with an AbortSignal, a listener added after the abort is never called.
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  /** This object where the SDK's types ask for an `AbortSignal`. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
