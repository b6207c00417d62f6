import type { IncomingMessage, ServerResponse } from 'node:http';
import { toError } from '@anytool/core/internal';
import type { AuthInfo, RequestId, createMcpHandler } from '@modelcontextprotocol/server';

/** The SDK's web-standard handler of both eras (`createMcpHandler`). */
type McpHandler = ReturnType<typeof createMcpHandler>;

/** A JSON-RPC error answer: its HTTP status, JSON-RPC code and message, and the id of the request it answers (default none). */
export interface JsonRpcErrorAnswer {
  status: number;
  code: number;
  message: string;
  id?: RequestId | null;
}

/** Answers with a JSON-RPC error, whether or not the request's body was read. */
export function sendJsonRpcError(res: ServerResponse, { status, code, message, id = null }: JsonRpcErrorAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  finish(res, text);
}

/** Sends a whole web `Response` (a JSON answer, an auth challenge, the resource metadata) in one write, with its length. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (response.body !== null) headers['content-length'] = String(body.length);
  res.writeHead(response.status, headers);
  finish(res, body);
}

/** Ends a response whose head is written, with `body`, whether or not the request's body was read. */
function finish(res: ServerResponse, body: string | Buffer): void {
  if (res.req.complete) return void res.end(body);
  // Refused before its body was read: the answer goes out now, and the response ends (which may close the
  // connection) once the rest of the body is read and dropped. A socket closed with unread data is reset, and the
  // client may lose the answer. Node's requestTimeout bounds how long that takes.
  res.write(body);
  res.req.resume().once('end', () => res.end());
}

/**
 * Hands a POST whose body this server has read and parsed (under its own limits)
 * to the SDK's handler, and writes the answer: what the SDK's `toNodeHandler`
 * does, minus two costs that are most of a small call's HTTP work. The web
 * `Request` carries the headers only (the SDK reads the parsed body it is given,
 * so `toNodeHandler`'s serialising of it into a body stream is never read), and a
 * JSON answer goes out whole with its length in one write, where `toNodeHandler`
 * streams it chunked (a second write for the last chunk). An SSE answer streams
 * as `toNodeHandler` streams it. A client that goes away aborts the request's
 * signal, and a handler that throws is a 500 with the request's id, as there.
 */
export async function exchangeParsed(exchange: {
  handler: McpHandler;
  req: IncomingMessage & { auth?: AuthInfo };
  res: ServerResponse;
  body: unknown;
  onError: ((error: Error) => void) | undefined;
}): Promise<void> {
  const { handler, req, res, body, onError } = exchange;
  let finished = false;
  const abort = new AbortController();
  res.once('close', () => {
    if (!finished) abort.abort();
  });
  if (res.destroyed) abort.abort();
  let response: Response;
  try {
    response = await handler.fetch(headersRequest(req, { signal: abort.signal }), {
      parsedBody: body,
      ...(req.auth === undefined ? {} : { authInfo: req.auth }),
    });
  } catch (error) {
    finished = true;
    try {
      onError?.(toError(error));
    } catch {
      // The application's error hook failed too: the client still gets its answer.
    }
    return sendJsonRpcError(res, { status: 500, code: -32603, message: 'Internal server error', id: requestIdOf(body) });
  }
  const type = response.headers.get('content-type') ?? '';
  if (response.body === null || type.startsWith('application/json')) {
    try {
      await sendResponse(res, response);
    } finally {
      finished = true;
    }
    return;
  }
  await streamResponse(res, response, abort.signal);
  finished = true;
}

/**
 * The web `Request` of a Node request, headers only (HTTP/2 pseudo-headers left
 * out), at `origin` (by default the request's own Host), on `signal`.
 */
export function headersRequest(req: IncomingMessage, options: { origin?: string; signal?: AbortSignal } = {}): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const origin = options.origin ?? `http://${single(req.headers.host) ?? single(req.headers[':authority']) ?? 'localhost'}`;
  return new Request(`${origin}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The id of a JSON-RPC request body, for an error answer to it. */
function requestIdOf(body: unknown): RequestId | null {
  const id = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Streams an SSE answer, waiting for the socket to drain, until it ends or the client goes away. */
async function streamResponse(res: ServerResponse, response: Response, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  let drained: (() => void) | undefined;
  const release = (): void => {
    drained?.();
    drained = undefined;
  };
  res.on('drain', release);
  const closed = new Promise<void>((resolve) => gone.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (gone.aborted) break;
      if (!res.write(chunk)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), closed]);
    }
  } catch {
    // The stream failed or the client went away: the response ends with what was sent.
  } finally {
    res.off('drain', release);
  }
  res.end();
}
