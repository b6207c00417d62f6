import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies up to this size hold none of the shared budget, so small calls are read whatever large bodies are in flight. */
export const SMALL_BODY_BYTES = 64 * 1024;
/**
 * JSON nested deeper than this is refused before anything recurses through it (the SDK's error texts
 * `JSON.stringify` whole messages, which overflows the stack past some thousands of levels).
 */
export const MAX_JSON_DEPTH = 1000;

/** A request body that was not taken: the HTTP status and JSON-RPC error to answer with. */
export class BodyRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request-body bytes held at once across all requests. A request holds what
 * it declared (Content-Length) or has read so far, from before it is read until
 * its response ends, since its parsed body lives that long.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/**
 * Reads and parses a JSON request body of at most `limit.bytes` bytes. A body is
 * refused as soon as its Content-Length or the bytes counted so far pass the
 * limit (413) or the shared budget (503), and nothing more of it is kept; the
 * rest is read and dropped, so the answer reaches the client before the
 * connection is reused (a connection reset with unread data could lose it).
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: { bytes: number; name: string }, budget: BodyBudget): Promise<unknown> {
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  let held = 0;
  res.once('close', () => budget.give(held));
  /** Holds budget for a body of `size` bytes; false when the budget is spent. */
  const hold = (size: number): boolean => {
    if (size <= SMALL_BODY_BYTES || size <= held) return true;
    if (!budget.take(size - held)) return false;
    held = size;
    return true;
  };
  // Made only when needed: an error captures a stack, which costs more than reading a small body.
  const tooLarge = (): BodyRefused => new BodyRefused(413, -32600, `Request body too large: at most ${limit.bytes} bytes (${limit.name})`);
  const busy = (): BodyRefused =>
    new BodyRefused(503, -32000, `Server busy: request bodies in flight would pass ${budget.limit} bytes (maxBodyBytesInFlight); retry shortly`);
  if (declared !== undefined && declared > limit.bytes) return drop(req, tooLarge());
  if (declared !== undefined && !hold(declared)) return drop(req, busy());
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    let ended = false;
    const refuse = (refusal: () => BodyRefused): void => {
      refused = true;
      chunks = [];
      reject(refusal());
    };
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit.bytes) refuse(tooLarge);
      else if (!hold(size)) refuse(busy);
      else chunks.push(chunk);
    });
    req.once('end', () => {
      ended = true;
      if (refused) return;
      try {
        resolve(parseJson(Buffer.concat(chunks, size).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.once('close', () => {
      if (!ended && !refused) reject(new BodyRefused(400, -32600, 'The request body was cut off'));
    });
    req.on('error', () => undefined); // the 'close' above answers for it
  });
}

function drop(req: IncomingMessage, refusal: BodyRefused): Promise<never> {
  req.resume();
  return Promise.reject(refusal);
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyRefused(400, -32700, 'Parse error: the body is not JSON');
  }
  if (deeperThan(value, MAX_JSON_DEPTH)) throw new BodyRefused(400, -32600, `Invalid Request: the body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}

/** Whether JSON `value` nests objects and arrays deeper than `limit`, walked without recursion. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [next, depth] = stack.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(next) ? next : Object.values(next)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
