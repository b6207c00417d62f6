import type { FetchLike, RequestId } from '@modelcontextprotocol/client';
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
 *   and reading stops;
 * - an SSE stream is passed on event by event, and an event over `limit` is not: on
 *   the stream that answers a POSTed request, the request is answered with the
 *   too-large error in its place and reading stops; on a long-lived stream the event
 *   is skipped to its end and a response is answered the same way (anything else is
 *   dropped, and `problem` says so);
 * - an error body (status 400 and up) is cut to 4 KiB.
 * The SDK reads what it gets as it would the server's own response.
 */
export function limitedFetch(limit: number, problem: (message: string) => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const body = response.body;
    if (body === null) return response;
    if (response.status >= 400) return withBody(response, body.pipeThrough(cutAt(ERROR_BODY_BYTES)));
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return withBody(response, body.pipeThrough(jsonLimiter(limit)));
    if (type !== 'text/event-stream') return response;
    const id = init?.method === 'POST' && typeof init.body === 'string' ? requestIdOf(init.body) : undefined;
    return withBody(response, body.pipeThrough(eventLimiter(limit, id, problem)));
  };
}

/** The response with another body; its length and encoding no longer apply. */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Passes the first `bytes` bytes and ends the stream (the rest is never read). */
function cutAt(bytes: number): TransformStream<Uint8Array, Uint8Array> {
  let left = bytes;
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk.subarray(0, left));
      left -= Math.min(left, chunk.length);
      if (left === 0) controller.terminate();
    },
  });
}

/** Fails a JSON body past `limit` bytes with the error the SDK then rejects its request with. */
function jsonLimiter(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.length;
      if (size > limit) controller.error(tooLargeError({ size, exact: false, limit }));
      else controller.enqueue(chunk);
    },
  });
}

const encoder = new TextEncoder();
const sseEvent = (message: object): Uint8Array => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/**
 * Passes an SSE stream on event by event, unchanged, holding the bytes of the event
 * being read until it ends; an event over `limit` is never held (see `limitedFetch`).
 * `requestId`: the request whose answer this stream carries, if any.
 */
function eventLimiter(limit: number, requestId: RequestId | undefined, problem: (message: string) => void): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let size = 0;
  let skipping: OversizedMessage | undefined;
  // Where the stream is: at the start of a line (so a line break ends the event), just after a CR (so an LF is its pair).
  let lineStart = true;
  let afterCr = false;
  type Controller = TransformStreamDefaultController<Uint8Array>;

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

  return new TransformStream({
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
  });
}
