import type { Writable } from 'node:stream';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE, type Client, type JSONRPCMessage } from '@modelcontextprotocol/client';
import type { StdioClientTransport, StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { OversizedMessage } from './result-limit.js';
import { stdioModule } from './stdio-module.js';
import { childProcess, crypto } from '../shared/builtins.cjs';

/*
 * The one place that reaches into the SDK's `StdioClientTransport` beyond its
 * public API for what the client needs to work (a server's pid, its process
 * group, a result limit that fails one call rather than the connection), each
 * access checked: when a field is missing (a newer SDK moved it), the feature
 * that needed it is skipped and `problem` is called with a diagnostic instead
 * of anything throwing. What reaches past the SDK only to be faster is in
 * `speedups/`.
 */

/**
 * - `start` is wrapped so the child's pid is known as soon as it is spawned: a
 *   failed `connect` forgets it, and a child that hangs at start must still be killed.
 * - `_process.stdin` gets no listener limit: many concurrent calls each wait for
 *   'drain' on it, which is expected, not a leak.
 * - `onStdin` is given `_process.stdin` (see `speedups/write-batching.ts`).
 */
export function watchStdioStart(
  transport: StdioClientTransport,
  onSpawned: (pid: number | undefined, running?: () => boolean) => void,
  problem: (message: string) => void,
  onStdin?: (stdin: Partial<Writable>) => void,
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
    onStdin?.(child.stdin as unknown as Partial<Writable>);
  };
}

/**
 * SHA-256 of the source of `StdioClientTransport.prototype.start` in the SDK
 * versions whose start `startInOwnGroup` repeats: @modelcontextprotocol/client
 * 2.4.0, its ES module and CommonJS builds. A release that changes start() is
 * not patched (its own start runs), and `stdio-read-buffer.test.ts` fails until
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
  const known = typeof start === 'function' && KNOWN_STDIO_STARTS.has(crypto().createHash('sha256').update(start.toString()).digest('hex'));
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
      const child = childProcess().spawn(params.command, params.args ?? [], {
        env: { ...stdioModule().getDefaultEnvironment(), ...params.env },
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
export function useStdioReadBuffer(transport: StdioClientTransport, problem: (message: string) => void, shortcut = true): void {
  const fields = transport as unknown as Record<string, unknown>;
  const sdkBuffer = fields['_readBuffer'];
  if (!(sdkBuffer instanceof ReadBuffer)) {
    problem(
      "the MCP SDK StdioClientTransport has no _readBuffer any more: the server's stdout is read with the SDK's own parser, and a message over maxResultBytes closes the connection",
    );
    return;
  }
  const limit = (sdkBuffer as unknown as Record<string, unknown>)['_maxBufferSize'];
  fields['_readBuffer'] = new StdioReadBuffer(typeof limit === 'number' ? limit : STDIO_DEFAULT_MAX_BUFFER_SIZE, problem, shortcut);
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
 * goes through the SDK's schema. `stdio-read-buffer.test.ts` checks it
 * against the SDK's reader line by line.
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
    /** Whether a plain result skips the schema (the `read-shortcut` of `speedups/speedups.ts`). */
    private readonly shortcut = true,
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
      if (this.shortcut && isResultResponse(value)) return { jsonrpc: '2.0', id: value.id, result: value.result };
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
export function isResultResponse(value: unknown): value is { jsonrpc: '2.0'; id: string | number; result: Record<string, unknown> } {
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
 * The id the SDK client gives its next request (its `_requestMessageId`
 * counter), for the `jsonrpc.request.id` of a call's span. Undefined when the
 * field is missing (a newer SDK moved it): the span then goes without the id.
 */
export function nextRequestId(client: Client | undefined): number | undefined {
  const id = (client as unknown as Record<string, unknown> | undefined)?.['_requestMessageId'];
  return typeof id === 'number' ? id : undefined;
}
