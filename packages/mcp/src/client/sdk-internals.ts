import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE, type Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, type StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { OversizedMessage } from './result-limit.js';

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
 * - Writes to `_process.stdin` are batched per turn of the event loop (`batchWrites`).
 */
export function watchStdioStart(
  transport: StdioClientTransport,
  onSpawned: (pid: number | undefined, running?: () => boolean) => void,
  problem: (message: string) => void,
): void {
  const original = (transport as { start?: unknown }).start;
  if (typeof original !== 'function') {
    problem('the MCP SDK StdioClientTransport has no start() method any more: the pid of a server that hangs at start is not known until it answers');
    return;
  }
  const start = (original as () => Promise<void>).bind(transport);
  transport.start = async () => {
    onSpawned(undefined);
    await start();
    const child = (transport as unknown as Record<string, unknown>)['_process'] as
      { stdin?: { setMaxListeners?: unknown } | null; exitCode?: unknown; signalCode?: unknown } | undefined;
    // Whether the child still runs (so its pid is not yet free for another process); unknown without the field.
    const running = child !== undefined && 'exitCode' in child ? () => child.exitCode === null && child.signalCode === null : undefined;
    onSpawned(transport.pid ?? undefined, running);
    if (child === undefined || typeof child.stdin?.setMaxListeners !== 'function') {
      problem(
        'the MCP SDK StdioClientTransport has no _process.stdin any more: the listener limit on the server stdin stays at its default (harmless warnings under many concurrent calls)',
      );
      return;
    }
    (child.stdin.setMaxListeners as (n: number) => void).call(child.stdin, 0);
    batchWrites(transport, child.stdin as unknown as Partial<Writable>);
  };
}

/**
 * The messages sent in one turn of the event loop go to the server in one write:
 * the server's stdin is corked at the first send of a turn and uncorked in a
 * `nextTick`. Calls sent as answers arrive are sent from promise jobs, and a
 * `nextTick` scheduled from one runs after the turn's promise jobs, so 50 calls
 * in flight cost one system call on each side rather than 50 (a send from
 * outside a promise job is flushed before them: batched less, never later). The
 * transport's own `send` still writes each message, in order; only the flush is
 * later, within the same turn. A stream without `cork` is written as before.
 */
function batchWrites(transport: StdioClientTransport, stdin: Partial<Writable>): void {
  if (typeof stdin.cork !== 'function' || typeof stdin.uncork !== 'function') return;
  const send = transport.send.bind(transport);
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stdin.uncork!();
  };
  transport.send = (message) => {
    if (!corked) {
      corked = true;
      stdin.cork!();
      process.nextTick(uncork);
    }
    return send(message);
  };
}

/**
 * SHA-256 of the source of `StdioClientTransport.prototype.start` in the SDK
 * versions whose start `startInOwnGroup` repeats: @modelcontextprotocol/client
 * 2.4.0, its ES module and CommonJS builds. A release that changes start() is
 * not patched (its own start runs), and `sdk-internals.test.ts` fails until
 * this list is checked against it.
 */
export const KNOWN_STDIO_STARTS = new Set([
  '0b78813d14947cad08f974c0564c814325c1eb08f0a15cb47c9198b5025b1160',
  '6261fd0a31d1d5840174a8bb2c7383c674ba6c408fca9754d1cc4c7d986c2072',
]);

/**
 * Makes the transport start its server as the leader of a process group of its
 * own (`detached: true`), so that everything the server starts, even a process
 * it double-forked that no longer descends from it, can be ended with the group.
 * The SDK spawns without that option and has no way to ask for it: its start()
 * is repeated here with it, only where it is the start() known to this code (its
 * source is checked) and only off Windows; elsewhere the SDK's own start runs and
 * false is returned (the process-tree walk still ends what descends from it).
 * `onExit` is called with the pid when the process has ended, before the
 * transport's `onclose`.
 */
export function startInOwnGroup(transport: StdioClientTransport, onExit: (pid: number) => void, problem: (message: string) => void): boolean {
  if (process.platform === 'win32') return false;
  const fields = transport as unknown as Record<string, unknown>;
  const start = (transport as { start?: unknown }).start;
  const known = typeof start === 'function' && KNOWN_STDIO_STARTS.has(createHash('sha256').update(start.toString()).digest('hex'));
  if (!known || typeof fields['_serverParams'] !== 'object' || typeof fields['processReadBuffer'] !== 'function') {
    problem(
      'this MCP SDK version starts stdio servers differently: the server does not get a process group of its own, and a process it started that no longer descends from it is not ended with it',
    );
    return false;
  }
  transport.start = () => {
    if (fields['_process'] !== undefined)
      return Promise.reject(new Error('StdioClientTransport already started! If using Client class, note that connect() calls start() automatically.'));
    const params = fields['_serverParams'] as StdioServerParameters;
    return new Promise<void>((resolve, reject) => {
      // As the SDK's start(), with `detached`.
      const child = spawn(params.command, params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...params.env },
        stdio: ['pipe', 'pipe', params.stderr ?? 'inherit'],
        shell: false,
        windowsHide: process.platform === 'win32',
        cwd: params.cwd,
        detached: true,
      });
      fields['_process'] = child;
      child.on('error', (error) => {
        reject(error);
        transport.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        fields['_process'] = undefined;
        if (child.pid !== undefined) onExit(child.pid);
        transport.onclose?.();
      });
      child.stdin?.on('error', (error) => transport.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          (fields['_readBuffer'] as StdioReadBuffer).append(chunk);
          (fields['processReadBuffer'] as () => void).call(transport);
        } catch (error) {
          transport.onerror?.(error as Error);
          transport.close().catch(() => undefined);
        }
      });
      child.stdout?.on('error', (error) => transport.onerror?.(error));
      const stderr = fields['_stderrStream'] as NodeJS.WritableStream | null | undefined;
      if (stderr && child.stderr) child.stderr.pipe(stderr);
    });
  };
  return true;
}

/** Gives the transport a {@link StdioReadBuffer} in place of the SDK's `ReadBuffer` (its private `_readBuffer`), with the transport's `maxBufferSize` as its limit. */
export function useStdioReadBuffer(transport: StdioClientTransport, problem: (message: string) => void): void {
  const fields = transport as unknown as Record<string, unknown>;
  const sdkBuffer = fields['_readBuffer'];
  if (!(sdkBuffer instanceof ReadBuffer)) {
    problem(
      "the MCP SDK StdioClientTransport has no _readBuffer any more: the server's stdout is read with the SDK's own parser, and a message over maxResultBytes closes the connection",
    );
    return;
  }
  const limit = (sdkBuffer as unknown as Record<string, unknown>)['_maxBufferSize'];
  fields['_readBuffer'] = new StdioReadBuffer(typeof limit === 'number' ? limit : STDIO_DEFAULT_MAX_BUFFER_SIZE, problem);
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
 *
 * One difference: a line longer than `maxBufferSize` does not make it throw
 * (the SDK's transport then closes the connection). The line is skipped to its
 * end without being kept, and a response is answered in its place with the
 * error of `tooLargeResponse`, so only that call fails; anything else is
 * dropped with a diagnostic (see `result-limit.ts`).
 */
export class StdioReadBuffer {
  /** What was read, from the first line not read yet; it may end with the start of a line. */
  private buffer: Buffer | undefined;
  /** How many bytes `buffer` has after its last line break. */
  private bufferTail = 0;
  /** Chunks without a line break after `buffer`: joined once the line ends, not copied on every chunk. */
  private parts: Buffer[] = [];
  private partsSize = 0;
  /** The line over the limit being skipped. */
  private skipping: OversizedMessage | undefined;
  /** Answers to lines that were skipped, each read after the `before` bytes of `buffer` that precede it. */
  private answers: Array<{ message: JSONRPCMessage; before: number }> = [];

  constructor(
    private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE,
    private readonly problem: (message: string) => void = () => undefined,
  ) {}

  append(chunk: Buffer): void {
    if (this.skipping !== undefined) {
      const end = chunk.indexOf(NEWLINE);
      if (end === -1) return this.skipping.add(chunk);
      this.skipping.add(chunk.subarray(0, end));
      this.endSkipping(this.skipping);
      chunk = chunk.subarray(end + 1);
      if (chunk.length === 0) return;
    }
    if (chunk.indexOf(NEWLINE) === -1) {
      this.parts.push(chunk);
      this.partsSize += chunk.length;
      // Only the last, unfinished line can grow without bound: past the limit it is skipped, not kept.
      if (this.bufferTail + this.partsSize > this.maxBufferSize) this.skipLine(this.buffer?.length ?? 0);
      return;
    }
    const all =
      this.buffer === undefined && this.parts.length === 0 ? chunk : Buffer.concat([...(this.buffer === undefined ? [] : [this.buffer]), ...this.parts, chunk]);
    this.buffer = all;
    this.parts = [];
    this.partsSize = 0;
    this.bufferTail = all.length - all.lastIndexOf(NEWLINE) - 1;
    if (this.bufferTail > this.maxBufferSize) this.skipLine(all.length);
  }

  readMessage(): JSONRPCMessage | null {
    for (;;) {
      if (this.answers[0]?.before === 0) return this.answers.shift()!.message;
      const buffer = this.buffer;
      if (buffer === undefined) return null;
      const end = buffer.indexOf(NEWLINE);
      if (end === -1) return null;
      this.buffer = end + 1 === buffer.length ? undefined : buffer.subarray(end + 1);
      for (const answer of this.answers) answer.before -= end + 1;
      if (end > this.maxBufferSize) {
        // A line that ended in the chunk that took it over the limit.
        const line = new OversizedMessage(this.maxBufferSize);
        line.add(buffer.subarray(0, end));
        const answer = this.answerFor(line);
        if (answer !== undefined) return answer;
        continue;
      }
      const text = buffer.toString('utf8', 0, end > 0 && buffer[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
      const value: unknown = JSON.parse(text);
      // The schema's output, as the schema would build it: a new object, its keys in the schema's order.
      if (isResultResponse(value)) return { jsonrpc: '2.0', id: value.id, result: value.result };
      return JSONRPCMessageSchema.parse(value);
    }
  }

  clear(): void {
    this.buffer = undefined;
    this.bufferTail = 0;
    this.parts = [];
    this.partsSize = 0;
    this.skipping = undefined;
    this.answers = [];
  }

  /** Skips the unfinished line (the end of `buffer`, up to `end`, and the parts after it) to its end. */
  private skipLine(end: number): void {
    const line = new OversizedMessage(this.maxBufferSize);
    const buffer = this.buffer;
    const keep = end - this.bufferTail;
    if (buffer !== undefined) line.add(buffer.subarray(keep, end));
    for (const part of this.parts) line.add(part);
    this.buffer = buffer === undefined || keep === 0 ? undefined : buffer.subarray(0, keep);
    this.bufferTail = 0;
    this.parts = [];
    this.partsSize = 0;
    this.skipping = line;
  }

  /** The skipped line ended: its answer is read after the lines before it. */
  private endSkipping(line: OversizedMessage): void {
    this.skipping = undefined;
    const answer = this.answerFor(line);
    if (answer !== undefined) this.answers.push({ message: answer, before: this.buffer?.length ?? 0 });
  }

  private answerFor(line: OversizedMessage): JSONRPCMessage | undefined {
    const answer = line.answer(true);
    if (answer === undefined) this.problem(line.describe(true));
    return answer;
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
  if (typeof result !== 'object' || result === null || Array.isArray(result) || Object.hasOwn(result, '_meta') || Object.hasOwn(result, '__proto__'))
    return false;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key)) keys++;
  return keys === 3;
}

/**
 * SHA-256 of the SDK code `dispatchPlainResults` stands in for, in
 * @modelcontextprotocol/client 2.4.0, its ES module and CommonJS builds: the
 * message handler `Protocol.connect` gives the transport, then each
 * `_onresponse` on the client's prototype chain, the `Client`'s first (its
 * `subscriptions/listen` demux), then `Protocol`'s (see `responseDispatchSource`).
 * A release that changes any of them gets the SDK's own dispatch, and
 * `sdk-internals.test.ts` fails until this list is checked against it.
 */
export const KNOWN_RESPONSE_DISPATCH = new Set([
  'a2b40b54288e035d8ff17483ee594ef924dd7ae5cba4220d996211b89924e65e',
  '0c380a52553566d3c47245188127d1ed1baba34970f58b9a101dc69f2ee3b128',
]);

/** The sources `KNOWN_RESPONSE_DISPATCH` hashes, for the transport's `onmessage` of a connected `client`. */
export function responseDispatchSource(client: Client, onmessage: (...args: never[]) => unknown): string {
  const sources = [onmessage.toString()];
  for (let proto: unknown = Object.getPrototypeOf(client); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const own = Object.getOwnPropertyDescriptor(proto, '_onresponse')?.value as unknown;
    if (typeof own === 'function') sources.push(own.toString());
  }
  return sources.join('\n');
}

/**
 * Hands a plain result (`{ jsonrpc: "2.0", id, result }` with a numeric id and
 * a result without `_meta`) straight to the request waiting for it, as the
 * SDK's own dispatch would, without its two schema checks of the message.
 *
 * The SDK classifies every message it reads with zod (`isJSONRPCResultResponse`
 * in the transport's `onmessage`, then again in `Protocol._onresponse`); for
 * a result response both checks are true by the schema's definition (the same
 * test as `StdioReadBuffer`'s). Each check is a `safeParse` whose schema is
 * recursive, so zod keeps a `WeakMap` per parse: about 40% of the bytes a
 * client allocates per call. Measured on server-everything's echo over stdio
 * at concurrency 50 (`bench/mcp-eras.mjs`), it made the client's young
 * collections longer and more frequent, and the server sat idle through them.
 *
 * What the SDK does for such a message, and what this does: the handler of its
 * id is taken from `_responseHandlers` (a `Map` the SDK replaces on close, so it
 * is read on each message), its timeout cleared (`_cleanupTimeout`), its progress
 * handler dropped, and the handler called with the message. A message of any
 * other shape, a string id (the `Client`'s `subscriptions/listen` answers), or
 * an id no request waits for goes to the SDK's handler as before. Installed
 * right after `connect`, while `onmessage` is still the SDK's own (nothing was set
 * on the transport before it); a wrapper set later (`TaskCreations.watch`)
 * wraps this one.
 */
export function dispatchPlainResults(client: Client, problem: (message: string) => void): void {
  const transport = client.transport;
  const sdk = transport?.onmessage;
  if (transport === undefined || sdk === undefined) return;
  const fields = client as unknown as Record<string, unknown>;
  const cleanupTimeout = fields['_cleanupTimeout'];
  const known = KNOWN_RESPONSE_DISPATCH.has(createHash('sha256').update(responseDispatchSource(client, sdk)).digest('hex'));
  if (!known || !(fields['_responseHandlers'] instanceof Map) || !(fields['_progressHandlers'] instanceof Map) || typeof cleanupTimeout !== 'function') {
    problem(
      "this MCP SDK version hands answers to requests differently: every answer goes through the SDK's own checks (the same results, more work per call)",
    );
    return;
  }
  transport.onmessage = (message, extra) => {
    if (isResultResponse(message) && typeof message.id === 'number') {
      const handlers = fields['_responseHandlers'] as Map<number, (response: JSONRPCMessage) => void>;
      const handler = handlers.get(message.id);
      if (handler !== undefined) {
        handlers.delete(message.id);
        (cleanupTimeout as (id: number) => void).call(client, message.id);
        (fields['_progressHandlers'] as Map<number, unknown>).delete(message.id);
        handler(message);
        return;
      }
    }
    sdk.call(transport, message, extra);
  };
}

/**
 * The id the SDK client gives its next request (its `_requestMessageId`
 * counter), for the `jsonrpc.request.id` of a call's span. Undefined when the
 * field is missing (a newer SDK moved it): the span then goes without the id.
 */
export function nextRequestId(client: Client | undefined): number | undefined {
  const id = (client as unknown as Record<string, unknown> | undefined)?.['_requestMessageId'];
  return typeof id === 'number' ? id : undefined;
}

/** The SDK `Protocol`'s tables of requests in flight, keyed by request id, which `useRequestTables` gives a `RequestTable`. */
const REQUEST_TABLES = ['_responseHandlers', '_timeoutInfo', '_progressHandlers'] as const;

/**
 * SHA-256 of the SDK code that uses the tables `useRequestTables` replaces, in
 * @modelcontextprotocol/client 2.4.0 (its ES module and CommonJS builds have the
 * same): every method on the client's prototype chain that names one of them (see
 * `requestTablesSource`). A release that changes any of them keeps its own
 * `Map`s, and `request-tables.test.ts` fails until this list is checked against it.
 */
export const KNOWN_REQUEST_TABLES = new Set(['94d1e69f9547d29b818fe5473eb38212aaec3f9cdd5ec1d882ad5d933e756d04']);

/** The sources `KNOWN_REQUEST_TABLES` hashes: each method of `client`'s classes that names one of its request tables. */
export function requestTablesSource(client: Client): string {
  const sources: string[] = [];
  for (let proto: unknown = Object.getPrototypeOf(client); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    // Not the constructor: its source is the whole class.
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (typeof value !== 'function') continue;
      const source = value.toString();
      if (REQUEST_TABLES.some((table) => source.includes(table))) sources.push(`${name}: ${source}`);
    }
  }
  return sources.join('\n');
}

/**
 * Gives the SDK client's tables of requests in flight (`_responseHandlers`,
 * `_timeoutInfo`, `_progressHandlers`) a {@link RequestTable} in place of their
 * `Map`, with the entries they hold. The SDK reads and writes them as before.
 *
 * Why: every request adds an entry to the first two and every answer deletes
 * it, so V8 rebuilds each `Map`'s hash table every few dozen calls. The table it
 * replaces keeps its entries and a pointer to the new one (for iterators that
 * are still running), and once a replaced table has reached the old generation
 * it keeps every later table, and the requests they held, alive through the
 * young collections until the next full one. On server-everything's echo over
 * stdio at concurrency 50 that was most of what each young collection had to
 * copy (about 2 MB, a pause of 6 to 8 ms, during which the server sat idle):
 * with these tables, about 0.5 MB and 2 to 3 ms (`bench/mcp-eras.mjs`).
 *
 * Installed only where the SDK code that uses the tables is the one checked
 * (`KNOWN_REQUEST_TABLES`); elsewhere the SDK keeps its own, with a diagnostic.
 * The SDK gives `_responseHandlers` a new `Map` when a connection closes: the
 * client is not used after that, and a reconnected one is given tables again.
 */
export function useRequestTables(client: Client, problem: (message: string) => void): void {
  const fields = client as unknown as Record<string, unknown>;
  const known = KNOWN_REQUEST_TABLES.has(createHash('sha256').update(requestTablesSource(client)).digest('hex'));
  if (!known || !REQUEST_TABLES.every((table) => fields[table] instanceof Map)) {
    problem(
      "this MCP SDK version keeps its requests in flight differently: they stay in the SDK's own Maps (the same results, longer pauses of the garbage collector under load)",
    );
    return;
  }
  for (const table of REQUEST_TABLES) if (!(fields[table] instanceof RequestTable)) fields[table] = new RequestTable(fields[table] as Map<unknown, unknown>);
}

/**
 * A `Map` that keeps keys which are array indices (0 to 2^32 - 2: a request's
 * id) as the elements of a plain object, and every other key in the `Map`
 * itself, so that it behaves as a `Map` for any key. An object's elements grow
 * and shrink in place or into a new store that nothing links to, where a
 * `Map`'s rebuilt hash table stays linked from the one before it (see
 * `useRequestTables`).
 *
 * One difference from a `Map`: iteration gives the index keys first, in
 * ascending order, then the others in the order they were set. Request ids
 * are given in ascending order, so for them the two orders are the same.
 */
export class RequestTable<V> extends Map<unknown, V> {
  private indexed: Record<number, V> = Object.create(null) as Record<number, V>;
  private count = 0;

  constructor(entries?: Iterable<readonly [unknown, V]>) {
    super();
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value);
  }

  override get(key: unknown): V | undefined {
    return isIndex(key) ? this.indexed[key] : super.get(key);
  }

  override has(key: unknown): boolean {
    return isIndex(key) ? key in this.indexed : super.has(key);
  }

  override set(key: unknown, value: V): this {
    if (!isIndex(key)) return super.set(key, value);
    if (!(key in this.indexed)) this.count++;
    this.indexed[key] = value;
    return this;
  }

  override delete(key: unknown): boolean {
    if (!isIndex(key)) return super.delete(key);
    if (!(key in this.indexed)) return false;
    delete this.indexed[key];
    this.count--;
    return true;
  }

  override clear(): void {
    this.indexed = Object.create(null) as Record<number, V>;
    this.count = 0;
    super.clear();
  }

  override get size(): number {
    return this.count + super.size;
  }

  override *entries(): MapIterator<[unknown, V]> {
    for (const key in this.indexed) if (key in this.indexed) yield [Number(key), this.indexed[key as unknown as number]!];
    yield* super.entries();
  }

  override *keys(): MapIterator<unknown> {
    for (const [key] of this.entries()) yield key;
  }

  override *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): MapIterator<[unknown, V]> {
    return this.entries();
  }

  override forEach(callback: (value: V, key: unknown, map: Map<unknown, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** Whether `key` is an array index: the keys an object keeps as its elements, whose string form gives the number back. */
function isIndex(key: unknown): key is number {
  return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key <= 4_294_967_294;
}
