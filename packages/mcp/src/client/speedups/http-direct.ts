import { pipeline, Transform, type Readable } from 'node:stream';
import { http, zlib } from '../../shared/builtins.cjs';

/*
 * The requests of a streamable HTTP session (its POSTs, its GET stream, its DELETE)
 * sent through the dispatcher Node's own `fetch` uses, without `fetch` itself.
 *
 * `fetch` wraps every response body in WHATWG streams, and the SDK then reads it
 * through two more (text decoding, SSE parsing); on a small call that machinery is
 * most of the client's CPU. Here the request goes to the same undici dispatcher
 * (`Dispatcher.request`, its public API), so whatever the application set with
 * `setGlobalDispatcher` (a proxy, its own certificates, a mock) applies as it does to
 * `fetch`; the body comes back as a Node stream, and `limitedFetch` turns it into the
 * one WHATWG stream the SDK reads.
 *
 * What `fetch` would do and this does too: default `accept`, `accept-encoding` and
 * `user-agent` headers, a `text/plain` content type for a text body without one,
 * gzip, deflate and brotli bodies decoded, no body for 204, 205 and 304, header
 * values read as Latin-1, a network failure rejected as
 * `TypeError: fetch failed` with the cause, an aborted request rejected with the
 * signal's reason. What it leaves to `fetch`: any request that does not ask for
 * manual redirects (the SDK follows redirects itself, within the origin, and asks so
 * for every request of a session; OAuth requests do not), a body other than text,
 * other methods and schemes, and a process where no dispatcher is registered.
 */

/** Where undici, every copy of it and Node's own, keeps the dispatcher `fetch` uses (see its `setGlobalDispatcher`). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface DispatcherResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

interface Dispatcher {
  request(options: {
    origin: string;
    path: string;
    method: string;
    headers: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
  }): Promise<DispatcherResponse>;
}

/** A response as `fetch` would give it, its body still a Node stream (null when the status has none). */
export interface DirectResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Readable | null;
}

/** The dispatcher `fetch` would use, if one is registered (Node registers its own once its `fetch` classes load). */
function globalDispatcher(): Dispatcher | undefined {
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as Partial<Dispatcher> | undefined;
  return typeof dispatcher?.request === 'function' ? (dispatcher as Dispatcher) : undefined;
}

/**
 * Sends the request through the global dispatcher; undefined when it is not one
 * sent this way (the caller then uses `fetch`).
 */
export function directRequest(url: string | URL, init: RequestInit | undefined): Promise<DirectResponse> | undefined {
  if (init?.redirect !== 'manual') return undefined;
  const method = (init.method ?? 'GET').toUpperCase();
  if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') return undefined;
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string') return undefined;
  let target: URL;
  try {
    target = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  // fetch refuses a URL with credentials in it: so it should here.
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.username !== '' || target.password !== '') return undefined;
  // Headers first: making one loads Node's fetch classes, which register its dispatcher.
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const dispatcher = globalDispatcher();
  if (dispatcher === undefined) return undefined;
  headers['accept'] ??= '*/*';
  headers['accept-encoding'] ??= 'gzip, deflate';
  headers['user-agent'] ??= 'node';
  if (body !== undefined) headers['content-type'] ??= 'text/plain;charset=UTF-8';
  const signal = init.signal ?? undefined;
  const options = {
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(signal === undefined ? {} : { signal }),
  };
  return dispatcher.request(options).then(response, (error: unknown) => {
    throw signal?.aborted ? (signal.reason as unknown) : new TypeError('fetch failed', { cause: error });
  });
}

function response(sent: DispatcherResponse): DirectResponse {
  try {
    return readResponse(sent);
  } catch (error) {
    // The body is never read: nothing may be left holding its connection, or failing unheard.
    sent.body.on('error', () => undefined);
    sent.body.destroy();
    throw new TypeError('fetch failed', { cause: error });
  }
}

function readResponse(sent: DispatcherResponse): DirectResponse {
  const status = sent.statusCode;
  if (!(status >= 200 && status <= 599)) throw new Error(`the server answered with status ${status}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(sent.headers)) {
    if (Array.isArray(value)) for (const one of value) appendHeader(headers, name, one);
    else if (value !== undefined) appendHeader(headers, name, value);
  }
  const statusText = http().STATUS_CODES[status] ?? '';
  if (status === 204 || status === 205 || status === 304) {
    sent.body.on('error', () => undefined);
    sent.body.resume();
    return { status, statusText, headers, body: null };
  }
  return { status, statusText, headers, body: decoded(sent.body, headers) };
}

/**
 * `fetch` reads a header's bytes as Latin-1; the `request` of undici 6 (Node 20
 * and 22) decodes them as UTF-8, which `Headers` refuses past U+00FF. Such a
 * value is given as `fetch` gives it: its UTF-8 bytes read as Latin-1 (a byte
 * that was not UTF-8 is already lost to U+FFFD by then).
 */
function appendHeader(headers: Headers, name: string, value: string): void {
  try {
    headers.append(name, value);
  } catch {
    headers.append(name, Buffer.from(value, 'utf8').toString('latin1'));
  }
}

/** How a decoder flushes: as `fetch`'s do, so a body cut short gives what it holds. */
interface Flush {
  flush: number;
  finishFlush: number;
}

/**
 * A `deflate` body, zlib-wrapped as the coding says or raw as some servers send
 * it: told apart by the first byte, as `fetch` does.
 */
class Inflate extends Transform {
  private inner: Transform | undefined;

  constructor(private readonly flush: Flush) {
    super();
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.inner === undefined) {
      if (chunk.length === 0) return callback();
      const inner = (chunk[0]! & 0x0f) === 0x08 ? zlib().createInflate(this.flush) : zlib().createInflateRaw(this.flush);
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('end', () => this.push(null));
      inner.on('error', (error) => this.destroy(error));
      this.inner = inner;
    }
    this.inner.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.inner?.end();
    this.inner = undefined;
    callback();
  }
}

/**
 * The body with its content codings undone as `fetch` undoes them: gzip, deflate
 * (zlib or raw) and brotli, leniently (a body cut short gives what it holds); an
 * unknown coding leaves the body as it is.
 */
function decoded(body: Readable, headers: Headers): Readable {
  const codings = (headers.get('content-encoding') ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  if (codings.length === 0) return body;
  const { constants, createBrotliDecompress, createGunzip } = zlib();
  const zlibFlush: Flush = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  const brotliFlush: Flush = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH };
  const decoders: Transform[] = [];
  for (const coding of codings) {
    const decoder =
      coding === 'gzip' || coding === 'x-gzip'
        ? createGunzip(zlibFlush)
        : coding === 'deflate'
          ? new Inflate(zlibFlush)
          : coding === 'br'
            ? createBrotliDecompress(brotliFlush)
            : undefined;
    if (decoder === undefined) return body;
    decoders.push(decoder);
  }
  headers.delete('content-encoding');
  headers.delete('content-length');
  return pipeline([body, ...decoders], () => undefined) as unknown as Readable;
}
