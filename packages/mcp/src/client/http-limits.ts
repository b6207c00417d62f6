import { setMaxListeners } from 'node:events';
import type { FetchLike, RequestId } from '@modelcontextprotocol/client';
import type { Readable } from 'node:stream';
import type { DirectResponse } from './speedups/http-direct.js';
import { directSender } from './speedups/speedups.js';
import { OversizedMessage, requestIdOf, tooLargeError, tooLargeResponse } from './result-limit.js';

/** How much of an HTTP error body is read: the SDK puts it into its error message. */
const ERROR_BODY_BYTES = 4_096;
const LF = 0x0a;
const CR = 0x0d;

/**
 * A `fetch` for the SDK's HTTP transports (streamable HTTP and the old HTTP+SSE)
 * that never holds more than `limit` bytes of one message from the server:
 * - a JSON body (the answer to a POSTed request) fails the request past `limit`
 *   bytes (the SDK rejects the request with the error the body stream fails with),
 *   and reading stops; so does a body of any other type (which the SDK reads only
 *   to drop it);
 * - an SSE stream is passed on event by event, and an event over `limit` is not: on
 *   the stream that answers a POSTed request, the request is answered with the
 *   too-large error in its place and reading stops; on a long-lived stream the event
 *   is skipped to its end and a response is answered the same way (anything else is
 *   dropped, and `problem` says so);
 * - an error body (status 400 and up) is cut to 4 KiB.
 * The SDK reads what it gets as it would the server's own response.
 *
 * Without `base`, the requests of a streamable HTTP session may go through
 * `directRequest` (see `speedups/http-direct.ts`), and their bodies are read from
 * Node's stream straight into the limiter; anything else, or with `base`, through `fetch`.
 *
 * Each request gets an abort signal of its own, tied to the SDK's until its body is
 * read: the SDK passes one signal (its transport's) to every request, and the fetch
 * of Node keeps a listener on that signal per request until the request is garbage
 * collected, and counts those listeners on every request.
 */
export function limitedFetch(limit: number, problem: (message: string) => void, base?: FetchLike): FetchLike {
  const direct = base === undefined ? directSender() : undefined;
  return async (url, init) => {
    const link = init?.signal == null ? undefined : linkSignal(init.signal);
    const linked = link === undefined ? init : { ...init, signal: link.signal };
    const release = link?.release ?? noop;
    // Without a fetch of the caller's, a session's own requests may skip fetch's streams.
    const sending = direct?.(url, linked);
    if (sending !== undefined) {
      let sent: DirectResponse;
      try {
        sent = await sending;
      } catch (error) {
        release();
        throw error;
      }
      if (sent.body === null) {
        release();
        return new Response(null, { status: sent.status, statusText: sent.statusText, headers: sent.headers });
      }
      return withBody(sent, relayNode(sent.body, limiterFor(sent.status, sent.headers, init, limit, problem), release, linked?.signal ?? undefined));
    }
    let response: Response;
    try {
      response = await (base ?? fetch)(url, linked);
    } catch (error) {
      release();
      throw error;
    }
    const body = response.body;
    if (body === null) {
      release();
      return response;
    }
    return withBody(response, relay(body, limiterFor(response.status, response.headers, init, limit, problem), release));
  };
}

/** What a response's body goes through: an error body is cut, an SSE stream limited event by event, anything else by size. */
function limiterFor(status: number, headers: Headers, init: RequestInit | undefined, limit: number, problem: (message: string) => void): Limiter {
  if (status >= 400) return cutAt(ERROR_BODY_BYTES);
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'text/event-stream') return byteLimiter(limit);
  const id = init?.method === 'POST' && typeof init.body === 'string' ? requestIdOf(init.body) : undefined;
  return eventLimiter(limit, id, problem);
}

const noop = (): void => {};

/** Signals given a listener per request in flight, as many as there are requests: no leak warning for them. */
const shared = new WeakSet<AbortSignal>();

/** A signal of one request's own that aborts with `signal`, until `release`. */
function linkSignal(signal: AbortSignal): { signal: AbortSignal; release: () => void } {
  const own = new AbortController();
  if (signal.aborted) {
    own.abort(signal.reason);
    return { signal: own.signal, release: noop };
  }
  if (!shared.has(signal)) {
    shared.add(signal);
    setMaxListeners(0, signal);
  }
  const forward = (): void => own.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  return { signal: own.signal, release: () => signal.removeEventListener('abort', forward) };
}

/** A response (of `fetch`, or a `DirectResponse`) with another body; its length and encoding no longer apply. */
function withBody(response: { status: number; statusText: string; headers: Headers }, body: ReadableStream<Uint8Array>): Response {
  const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  wrapped.headers.delete('content-length');
  wrapped.headers.delete('content-encoding');
  return wrapped;
}

/** Where a limiter puts what it passes on: the part of a `TransformStream`'s controller the limiters use. */
interface Out {
  enqueue(chunk: Uint8Array): void;
  /** Fails the body with `error`; reading stops. */
  error(error: unknown): void;
  /** Ends the body; reading stops. */
  terminate(): void;
}

/** What a limiter does with each chunk of a body, and at its end. */
interface Limiter {
  transform(chunk: Uint8Array, out: Out): void;
  flush?(out: Out): void;
}

/**
 * Where a relay's limiter puts what it passes on: the body's stream, until
 * reading stops. Stopping runs `release`; ending or failing the body early also
 * lets go of its source (`drop`).
 */
class RelayOut implements Out {
  controller!: ReadableStreamDefaultController<Uint8Array>;
  stopped = false;
  /** Chunks passed on so far. */
  passed = 0;

  constructor(
    private readonly release: () => void,
    private readonly drop: (error?: unknown) => void,
  ) {}

  stop(): void {
    this.stopped = true;
    this.release();
  }

  enqueue(chunk: Uint8Array): void {
    if (this.stopped) return;
    this.passed++;
    this.controller.enqueue(chunk);
  }

  error(error: unknown): void {
    if (this.stopped) return;
    this.stop();
    this.controller.error(error);
    this.drop(error);
  }

  terminate(): void {
    if (this.stopped) return;
    this.stop();
    this.controller.close();
    this.drop();
  }
}

/**
 * `body` passed through `limiter` as it is read: one stream pulling from the
 * other (a `TransformStream` and its pipe cost three streams per response).
 * `release` runs once the body has ended, failed or been cancelled.
 */
function relay(body: ReadableStream<Uint8Array>, limiter: Limiter, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const out = new RelayOut(release, (error) => void reader.cancel(error).catch(noop));
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out.controller = controller;
    },
    // Reads until the limiter passes something on (a stream calls pull again only after an enqueue).
    async pull() {
      for (const before = out.passed; out.passed === before && !out.stopped;) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (error) {
          out.stop();
          throw error;
        }
        if (read.done) return endBody(limiter, out);
        try {
          limiter.transform(read.value, out);
        } catch (error) {
          out.error(error);
          return;
        }
      }
    },
    cancel(reason) {
      out.stop();
      return reader.cancel(reason);
    },
  });
}

/**
 * A Node stream's chunks passed through `limiter` into the one WHATWG stream the
 * SDK reads (the body of a `directRequest`): read while the stream wants more,
 * paused while it does not. A body cut off fails with fetch's error for it: the
 * signal's reason when `signal` stopped it, else `TypeError: terminated`.
 * `release` runs once the body has ended, failed or been cancelled; the source
 * is destroyed when reading stops early.
 */
function relayNode(source: Readable, limiter: Limiter, release: () => void, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const out = new RelayOut(release, () => source.destroy());
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out.controller = controller;
      source.on('data', (chunk: Buffer) => {
        try {
          limiter.transform(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), out);
        } catch (error) {
          out.error(error);
          return;
        }
        if (!out.stopped && (controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once('end', () => endBody(limiter, out));
      source.once('error', (error) => {
        if (out.stopped) return;
        out.stop();
        // As fetch fails a body cut off mid-way, or stopped by its signal.
        controller.error(signal?.aborted ? (signal.reason as unknown) : new TypeError('terminated', { cause: error }));
      });
    },
    pull() {
      if (source.isPaused()) source.resume();
    },
    cancel() {
      if (!out.stopped) out.stop();
      source.destroy();
    },
  });
}

/** The body was read to its end: the limiter's last word, then the end (unless the limiter ended or failed it already). */
function endBody(limiter: Limiter, out: Out): void {
  try {
    limiter.flush?.(out);
  } catch (error) {
    out.error(error);
    return;
  }
  out.terminate();
}

/** Passes the first `bytes` bytes and ends the body (the rest is never read). */
function cutAt(bytes: number): Limiter {
  let left = bytes;
  return {
    transform(chunk, out) {
      out.enqueue(chunk.subarray(0, left));
      left -= Math.min(left, chunk.length);
      if (left === 0) out.terminate();
    },
  };
}

/** Fails a body past `limit` bytes with the error the SDK then rejects its request with. */
function byteLimiter(limit: number): Limiter {
  let size = 0;
  return {
    transform(chunk, out) {
      size += chunk.length;
      if (size > limit) out.error(tooLargeError({ size, exact: false, limit }));
      else out.enqueue(chunk);
    },
  };
}

const encoder = new TextEncoder();
const sseEvent = (message: object): Uint8Array => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/**
 * Passes an SSE stream on event by event, unchanged, holding the bytes of the event
 * being read until it ends; an event over `limit` is never held (see `limitedFetch`).
 * `requestId`: the request whose answer this stream carries, if any.
 */
function eventLimiter(limit: number, requestId: RequestId | undefined, problem: (message: string) => void): Limiter {
  let held: Uint8Array[] = [];
  let size = 0;
  let skipping: OversizedMessage | undefined;
  // Where the stream is: at the start of a line (so a line break ends the event), just after a CR (so an LF is its pair).
  let lineStart = true;
  let afterCr = false;
  type Controller = Out;

  /** An event over the limit ended: if it is a response, its answer goes on in its place. */
  const endOversized = (event: OversizedMessage, controller: Controller): void => {
    const answer = event.answer(true, requestId);
    if (answer === undefined) problem(event.describe(true));
    else controller.enqueue(sseEvent(answer));
  };
  const oversized = (last: Uint8Array): OversizedMessage => {
    const event = new OversizedMessage(limit);
    for (const bytes of held) event.add(bytes);
    event.add(last);
    held = [];
    size = 0;
    return event;
  };
  /** The event ends with `last`. */
  const endEvent = (last: Uint8Array, controller: Controller): void => {
    if (skipping !== undefined) {
      const event = skipping;
      skipping = undefined;
      event.add(last);
      return endOversized(event, controller);
    }
    if (size + last.length > limit) return endOversized(oversized(last), controller);
    for (const bytes of held) controller.enqueue(bytes);
    controller.enqueue(last);
    held = [];
    size = 0;
  };
  /** `rest` begins an event that goes on in the next chunk. */
  const hold = (rest: Uint8Array, controller: Controller): void => {
    if (skipping !== undefined) return skipping.add(rest);
    size += rest.length;
    if (size <= limit) {
      held.push(rest);
      return;
    }
    skipping = oversized(rest);
    // The answer to the POSTed request is too large: answer it now, and read no further.
    if (requestId === undefined || skipping.startsWithMethod()) return;
    controller.enqueue(sseEvent(tooLargeResponse(requestId, { size: skipping.size, exact: false, limit })));
    controller.terminate();
  };

  return {
    transform(chunk, controller) {
      let start = 0;
      let pos = 0;
      let lf = chunk.indexOf(LF);
      let cr = chunk.indexOf(CR);
      while (pos < chunk.length) {
        if (lf !== -1 && lf < pos) lf = chunk.indexOf(LF, pos);
        if (cr !== -1 && cr < pos) cr = chunk.indexOf(CR, pos);
        const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (at !== pos) {
          lineStart = false;
          afterCr = false;
        }
        if (at === -1) break;
        pos = at + 1;
        if (chunk[at] === LF && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = chunk[at] === CR;
        if (!lineStart) {
          lineStart = true;
          continue;
        }
        // A blank line ends the event.
        endEvent(chunk.subarray(start, pos), controller);
        start = pos;
      }
      if (start < chunk.length) hold(chunk.subarray(start), controller);
    },
    flush(controller) {
      if (skipping !== undefined) endOversized(skipping, controller);
      else for (const bytes of held) controller.enqueue(bytes);
    },
  };
}
