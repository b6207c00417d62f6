import type { IncomingMessage } from 'node:http';
import { AnytoolError, ErrorCode } from '@anytool/core';
import type { EventStore } from '@modelcontextprotocol/server';
import type { McpAuthOptions } from './auth.js';
import { defaultAllowedHosts, isLoopback, isWildcard, urlHost } from './host-check.js';
import type { McpStore } from '../store/store.js';
import type { McpServerOptions } from './tool-server.js';

/** Options of `serveMcp` over streamable HTTP. */
export interface HttpServeOptions extends McpServerOptions {
  transport: 'http';
  /** The port to listen on; 0 picks a free one (read it from the handle). */
  port: number;
  /**
   * The address to bind. Default `127.0.0.1`: reachable from this machine only.
   * Any other address (`0.0.0.0`, a network interface) needs `auth`, or
   * `allowUnauthenticated: true`, and the host names clients use in `allowedHosts`.
   */
  host?: string;
  /**
   * Who may call: bearer tokens from a static list or JWTs from an identity
   * provider (see `McpAuthOptions`). Callers see and call only the tools their
   * scopes allow. Default: none (anyone who reaches the endpoint calls every tool).
   */
  auth?: McpAuthOptions;
  /**
   * Serve without `auth` on an address other than loopback (behind a proxy that
   * authenticates, or on a trusted network). Default false: such a server refuses to start.
   */
  allowUnauthenticated?: boolean;
  /** The endpoint path. Default `/mcp`. */
  path?: string;
  /**
   * DNS-rebinding protection: refuse requests whose Host (or Origin) header is
   * not an allowed host name, with 403. On by default; turn it off only behind
   * a proxy that checks hosts itself.
   */
  dnsRebindingProtection?: boolean;
  /**
   * Host names (no port) accepted in the Host header. Default for a loopback bind:
   * localhost, 127.0.0.1, [::1] and the bind address; for any other address only
   * the bind address itself (a wildcard bind has no default: name the hosts).
   */
  allowedHosts?: string[];
  /** Host names accepted in an Origin header (`"*"` for any). Default: the allowed hosts. */
  allowedOrigins?: string[];
  /** Largest accepted request body; a larger one gets 413, read no further. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * The most request-body bytes held at once, across all requests, from before a body
   * is read until its response ends. A request past it gets 503 with `Retry-After`,
   * its body unread. Bodies of 64 KiB or less hold none of it, so small calls are
   * served whatever large bodies are in flight. Default 16 MiB.
   */
  maxBodyBytesInFlight?: number;
  /**
   * How a client is known: its sessions answer only requests from the same client
   * (anyone else gets 404, as for an unknown session), and `maxSessionsPerClient`
   * counts per client. `'address'` (default): the connection's remote address.
   * Behind a proxy every client has the proxy's address: pass a function that
   * returns the authenticated principal (or the client address the proxy
   * forwards), or `'none'` to know no client.
   */
  clientIdentity?: 'address' | 'none' | ((req: IncomingMessage) => string | undefined);
  /**
   * The most sessions one client holds. A client at the limit that initializes
   * again ends its own least recently used idle session; when all are busy
   * (a request or stream open), it gets 503. Default 100 (`DEFAULT_MAX_SESSIONS_PER_CLIENT`).
   */
  maxSessionsPerClient?: number;
  /** A connection whose request headers have not all arrived after this long is answered 408 and closed. Default 10 s; at most `requestTimeoutMs`. */
  headersTimeoutMs?: number;
  /**
   * A request (headers and body) not received in full after this long is answered
   * 408 and closed. Response streams are not limited. Default 30 s; `Infinity` for none.
   */
  requestTimeoutMs?: number;
  /**
   * End a session after this many milliseconds with no request in progress and no
   * open stream. Most clients close without ending their session (the SDK's
   * `Client.close()` sends no DELETE), and a client that vanished never will; a
   * client still connected keeps its GET stream open and is never ended.
   * Default 5 minutes (`DEFAULT_SESSION_IDLE_TIMEOUT_MS`); `Infinity` keeps sessions until DELETE or close.
   */
  sessionIdleTimeoutMs?: number;
  /**
   * The most sessions held at once. When full, an `initialize` without a session
   * is answered with HTTP 503 and a JSON-RPC error saying so. Default 1000
   * (`DEFAULT_MAX_SESSIONS`).
   */
  maxSessions?: number;
  /**
   * Makes streams resumable: every message sent on an SSE stream is kept here, so a
   * client that lost its stream reconnects with `Last-Event-ID` and gets the rest
   * (`new MemoryEventStore()` for one process). One store serves every session; a
   * session resumes only from its own events. Default: none.
   */
  eventStore?: EventStore;
  /** The reconnection delay suggested to clients of resumable streams (SSE `retry`), in milliseconds. */
  retryIntervalMs?: number;
  /**
   * What the instances serving this endpoint share (a `RedisStore` when several
   * processes sit behind a load balancer; see the deployment guide): the tasks
   * of task tools, so any instance answers for any task; a change of this
   * instance's tools, which reaches the clients of every instance as
   * `tools/list_changed`; and, without an `eventStore`, the events of 2025-era
   * streams, to resume them. Default: a `MemoryStore` of this process. The
   * caller closes a store it gives, after the server.
   */
  store?: McpStore;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_MAX_BODY_IN_FLIGHT = 16 * 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How many HTTP sessions one client holds at most by default. */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 100;
/** How long an HTTP session with no request and no open stream is kept: 5 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 5 * 60_000;
/** How many HTTP sessions a server holds at most by default. */
export const DEFAULT_MAX_SESSIONS = 1_000;

/** The options of an HTTP endpoint, checked, with their defaults filled in. */
export interface HttpSettings {
  host: string;
  path: string;
  /** How long an idle session is kept (`Infinity`: until DELETE or close). */
  idleMs: number;
  maxSessions: number;
  maxPerClient: number;
  maxBody: number;
  maxBodyInFlight: number;
  requestTimeoutMs: number;
  /** At most `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** Who sends a request, as `clientIdentity` says. */
  clientOf: (req: IncomingMessage) => string | undefined;
  /** DNS-rebinding protection is on. */
  protect: boolean;
  /** Lower-case host names. */
  allowedHosts: string[];
  allowedOrigins: string[];
  /** The options every server instance of the endpoint is made with (with auth, a private list cache). */
  serverOptions: McpServerOptions;
}

function positive(value: number, option: string, integer: boolean): number {
  if (integer ? Number.isInteger(value) && value >= 1 : value > 0) return value;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `serveMcp(): ${option} must be a positive ${integer ? 'integer' : 'number of milliseconds (Infinity for no limit)'}, got ${String(value)}`,
  );
}

/** Checks the options of an HTTP endpoint before anything listens, and fills in their defaults. */
export function httpSettings(options: HttpServeOptions): HttpSettings {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): port must be an integer from 0 to 65535 (0 picks a free port), got ${String(options.port)}`);
  }
  if (!path.startsWith('/')) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): path must start with "/", got ${JSON.stringify(path)}`);
  const idleMs = positive(options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS, 'sessionIdleTimeoutMs', false);
  const maxSessions = positive(options.maxSessions ?? DEFAULT_MAX_SESSIONS, 'maxSessions', true);
  const maxPerClient = positive(options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT, 'maxSessionsPerClient', true);
  const maxBody = positive(options.maxBodyBytes ?? DEFAULT_MAX_BODY, 'maxBodyBytes', true);
  const maxBodyInFlight = positive(options.maxBodyBytesInFlight ?? DEFAULT_MAX_BODY_IN_FLIGHT, 'maxBodyBytesInFlight', true);
  const requestTimeoutMs = positive(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs', false);
  const headersTimeoutMs = Math.min(positive(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs', false), requestTimeoutMs);
  const identity = options.clientIdentity ?? 'address';
  const clientOf = typeof identity === 'function' ? identity : identity === 'none' ? () => undefined : (req: IncomingMessage) => req.socket.remoteAddress;
  const protect = options.dnsRebindingProtection ?? true;
  if (options.auth === undefined && !isLoopback(host) && options.allowUnauthenticated !== true) {
    throw new AnytoolError(
      ErrorCode.InsecureServer,
      `serveMcp(): refusing to serve without authentication on ${host}, which is not a loopback address (anyone who reaches it could call every tool); give auth, or allowUnauthenticated: true to serve it open behind a proxy that authenticates`,
    );
  }
  if (options.auth?.jwt !== undefined && options.auth.resource === undefined && isWildcard(host)) {
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `serveMcp(): JWT auth on ${host} (every interface) needs auth.resource, the URL clients reach the endpoint at: tokens are bound to it as their audience, and no token names http://${urlHost(host)}:…`,
    );
  }
  const allowedHosts = (options.allowedHosts ?? defaultAllowedHosts(host)).map((h) => h.toLowerCase());
  if (protect && allowedHosts.length === 0) {
    throw new AnytoolError(
      ErrorCode.InsecureServer,
      `serveMcp(): host ${host} accepts requests addressed to any name; list the host names clients use in allowedHosts (DNS-rebinding protection), or set dnsRebindingProtection: false behind a proxy that checks hosts`,
    );
  }
  if (options.auth !== undefined && options.toolsListCacheScope === 'public') {
    throw new AnytoolError(
      ErrorCode.ConflictingOptions,
      'serveMcp(): toolsListCacheScope "public" does not fit auth: each caller sees the tools its scopes allow; leave it out (with auth it is "private")',
    );
  }
  // With auth, what a caller lists depends on who it is: no shared cache may keep it.
  const serverOptions: McpServerOptions = options.auth === undefined ? options : { ...options, toolsListCacheScope: 'private' };
  const allowedOrigins = (options.allowedOrigins ?? allowedHosts).map((h) => h.toLowerCase());
  return {
    host,
    path,
    idleMs,
    maxSessions,
    maxPerClient,
    maxBody,
    maxBodyInFlight,
    requestTimeoutMs,
    headersTimeoutMs,
    clientOf,
    protect,
    allowedHosts,
    allowedOrigins,
    serverOptions,
  };
}
