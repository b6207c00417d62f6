import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  isJSONRPCRequest,
  isLegacyRequest,
  type EventStore,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { ResourceServer, missingScopes, principalOf, type McpAuthOptions } from './auth.js';
import { defaultAllowedHosts, isLoopback, isWildcard, rebindingProblem, urlHost } from './host-check.js';
import { HEADER_MISMATCH, paramHeaderProblem } from './param-headers.js';
import { BodyBudget, BodyRefused, SMALL_BODY_BYTES, readJsonBody } from './request-body.js';
import { exchangeParsed, headersRequest, sendJsonRpcError, sendResponse } from './node-exchange.js';
import { sessionEventStore } from './session-event-store.js';
import { StoreEventStore } from './store-event-store.js';
import { fanOutToolChanges } from './tool-changes.js';
import type { McpStore } from '../store/store.js';
import { createMcpServer, type McpServerOptions } from './tool-server.js';
import type { ServedTools, ToolView } from './served-tools.js';
import { listResponseHead } from './tool-list-pages.js';

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

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  /** Who opened it (`clientIdentity`); requests from anyone else are answered as for an unknown session. */
  client: string | undefined;
  /** The authenticated principal that opened it (with `auth`); requests of any other principal are answered as for an unknown session. */
  principal: string | undefined;
  /** Requests and streams of this session still open. */
  open: number;
  lastSeen: number;
  /**
   * Ids of the session's requests not answered yet, with the response each came on.
   * The SDK keys its streams by request id: a second request with an id in flight
   * would be sent the first one's answer, and the first never answered.
   */
  pending: Map<RequestId, ServerResponse>;
}

/** A streamable HTTP MCP server that is listening. */
export interface McpHttpListener {
  url: string;
  host: string;
  port: number;
  /** Open MCP sessions (2025 era; the 2026-07-28 era has none). */
  readonly sessionCount: number;
  /** The idle timeout in effect, in milliseconds (`Infinity`: none). */
  readonly sessionIdleTimeoutMs: number;
  /** The session cap in effect. */
  readonly maxSessions: number;
  /** How callers are authenticated, in words (`'none'` without `auth`). */
  readonly authMode: string;
  close(): Promise<void>;
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

/** What is wrong with a POST's headers, checked before its body is read (as the SDK would check them after). */
function postHeadersProblem(req: IncomingMessage): { status: number; message: string } | undefined {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return { status: 406, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' };
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { status: 415, message: 'Unsupported Media Type: Content-Type must be application/json' };
  return undefined;
}

/**
 * Claims the ids of the requests in `body` for the session until they are
 * answered or their response closes. Returns an id already in flight (or twice
 * in the body), claiming none.
 */
function claimIds(pending: Map<RequestId, ServerResponse>, body: unknown, res: ServerResponse): RequestId | undefined {
  const ids = (Array.isArray(body) ? body : [body]).filter((message) => isJSONRPCRequest(message)).map((request) => request.id);
  const taken = ids.find((id, i) => pending.has(id) || ids.indexOf(id) !== i);
  if (taken !== undefined) return taken;
  for (const id of ids) pending.set(id, res);
  res.once('close', () => {
    for (const id of ids) if (pending.get(id) === res) pending.delete(id);
  });
  return undefined;
}

function positive(value: number, option: string, integer: boolean): number {
  if (integer ? Number.isInteger(value) && value >= 1 : value > 0) return value;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `serveMcp(): ${option} must be a positive ${integer ? 'integer' : 'number of milliseconds (Infinity for no limit)'}, got ${String(value)}`,
  );
}

function hasInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** A request as the SDK's Node adapter types it (Node's own has optional method and url, always set on a server). */
type NodeRequest = IncomingMessage & { method: string; url: string };

/** Where the era of a request is read from its headers: any Host it sends, valid or not, plays no part. */
const LOCAL = 'http://localhost';

/** The protocol revision the stateless path serves. */
const MODERN_REVISION = '2026-07-28';

/**
 * Whether a request claims the 2026-07-28 era in its headers (its
 * `MCP-Protocol-Version`): the SDK routes it to the stateless path whatever its
 * body, and its body, a whole request with no session, gets the full size
 * limit (a 2025 request without a session can only be a small `initialize`).
 */
function claimsModern(req: IncomingMessage): boolean {
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= MODERN_REVISION;
}

/**
 * Serves tools over MCP streamable HTTP, both protocol eras on one endpoint.
 * 2026-07-28 requests go to the SDK's stateless handler (a server instance per
 * request, no session); 2025 requests keep sessions, one SDK server and
 * transport each. The limits in front (hosts, bodies, sessions) apply to both.
 */
export async function listenHttp(served: ServedTools, options: HttpServeOptions): Promise<McpHttpListener> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): port must be an integer from 0 to 65535 (0 picks a free port), got ${String(options.port)}`);
  }
  if (!path.startsWith('/')) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): path must start with "/", got ${JSON.stringify(path)}`);
  const idle = positive(options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS, 'sessionIdleTimeoutMs', false);
  const maxSessions = positive(options.maxSessions ?? DEFAULT_MAX_SESSIONS, 'maxSessions', true);
  const maxPerClient = positive(options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT, 'maxSessionsPerClient', true);
  const maxBody = positive(options.maxBodyBytes ?? DEFAULT_MAX_BODY, 'maxBodyBytes', true);
  const budget = new BodyBudget(positive(options.maxBodyBytesInFlight ?? DEFAULT_MAX_BODY_IN_FLIGHT, 'maxBodyBytesInFlight', true));
  const requestTimeout = positive(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeoutMs', false);
  const headersTimeout = Math.min(positive(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, 'headersTimeoutMs', false), requestTimeout);
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
  /** The resource server of an endpoint with `auth` (made once the endpoint's URL is known). */
  let resourceServer: ResourceServer | undefined;
  const allowedOrigins = (options.allowedOrigins ?? allowedHosts).map((h) => h.toLowerCase());
  const sessions = new Map<string, Session>();
  let closing = false;
  /** Who sends the modern request being served, for the server instance the handler makes for it. */
  const caller = new AsyncLocalStorage<string | undefined>();
  const modernHandler = createMcpHandler(
    ({ era }) =>
      createMcpServer(served, serverOptions, {
        era,
        rounds: served.rounds,
        owner: caller.getStore(),
        authenticated: resourceServer !== undefined,
        transport: 'http',
      }),
    {
      legacy: 'reject',
      ...(options.onError === undefined ? {} : { onerror: options.onError }),
      maxRequestBodySize: maxBody,
    },
  );
  const modern = toNodeHandler(modernHandler);
  const stopNotifying = served.onChange(() => void modernHandler.notify.toolsChanged());
  const eventStore = options.eventStore ?? (options.store === undefined ? undefined : new StoreEventStore(options.store));

  /** Counts a request or stream as open in its session until its response closes. */
  function track(session: Session, res: ServerResponse): void {
    session.open++;
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  }

  function endSession(id: string, session: Session): void {
    sessions.delete(id);
    void session.transport
      .close()
      .then(() => session.server.close())
      .catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  }

  /**
   * Makes room for a new session of `client`: at its `maxSessionsPerClient`, its
   * least recently used idle session is ended. Returns why there is no room, if none.
   */
  function makeRoom(client: string | undefined): string | undefined {
    const own = client === undefined ? [] : [...sessions].filter(([, session]) => session.client === client);
    if (own.length >= maxPerClient) {
      const idlest = own.filter(([, session]) => session.open === 0).sort(([, a], [, b]) => a.lastSeen - b.lastSeen)[0];
      if (idlest === undefined)
        return `Too many sessions for this client: it holds ${maxPerClient} (maxSessionsPerClient), all of them busy. End one with DELETE, or retry when one is idle.`;
      endSession(...idlest);
    }
    if (sessions.size >= maxSessions)
      return `Too many sessions: this server holds ${maxSessions} (maxSessions). Retry later, or end unused sessions with DELETE; idle sessions end after sessionIdleTimeoutMs.`;
    return undefined;
  }

  async function startSession(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    client: string | undefined,
    principal: string | undefined,
  ): Promise<void> {
    const full = makeRoom(client);
    if (full !== undefined) return sendJsonRpcError(res, 503, -32000, full);
    const id = randomUUID();
    const server = createMcpServer(served, serverOptions, {
      era: 'legacy',
      rounds: served.rounds,
      owner: principal ?? client,
      authenticated: principal !== undefined,
      transport: 'http',
    });
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      ...(eventStore === undefined ? {} : { eventStore: sessionEventStore(eventStore, id) }),
      ...(options.retryIntervalMs === undefined ? {} : { retryInterval: options.retryIntervalMs }),
    });
    const session: Session = { transport, server, client, principal, open: 0, lastSeen: Date.now(), pending: new Map() };
    // Held from now on, so concurrent initializes count against the limits.
    sessions.set(id, session);
    track(session, res);
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      if (!('method' in message) && 'id' in message && message.id !== undefined) session.pending.delete(message.id);
      return send(message, sendOptions);
    };
    const ownOnClose = server.onclose;
    server.onclose = () => {
      sessions.delete(id);
      ownOnClose?.();
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that failed never got a session: nothing will reach this server again.
      if (transport.sessionId === undefined) {
        sessions.delete(id);
        await server.close();
      }
    }
  }

  /**
   * Everything that can be refused without reading the body is checked first
   * (host, path, method, session, headers, size); then the body is read within
   * the limits.
   */
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (protect) {
      const problem = rebindingProblem(req.headers.host, req.headers.origin, allowedHosts, allowedOrigins);
      if (problem !== undefined)
        return sendJsonRpcError(
          res,
          403,
          -32000,
          `Forbidden: ${problem}. This server only answers requests addressed to an allowed host (DNS-rebinding protection).`,
        );
    }
    const metadata = resourceServer?.metadataResponse(req.method ?? 'GET', url.pathname);
    if (metadata !== undefined) return sendResponse(res, metadata);
    if (url.pathname !== path) return sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${path}`);
    if (closing) return sendJsonRpcError(res, 503, -32000, 'The server is shutting down');
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return sendJsonRpcError(res, 405, -32000, `Method ${method} not allowed`);
    }
    let authInfo: AuthInfo | undefined;
    let principal: string | undefined;
    if (resourceServer !== undefined) {
      const verdict = await resourceServer.authenticate(req);
      if (verdict instanceof Response) return sendResponse(res, verdict);
      authInfo = verdict;
      principal = principalOf(verdict);
      // Where the SDK's transports read it: tool handlers get it as ctx.http.authInfo, in both eras.
      (req as IncomingMessage & { auth?: AuthInfo }).auth = verdict;
    }
    const client = principal !== undefined && options.clientIdentity === undefined ? principal : clientOf(req);
    /** Whom a parked 2026-07-28 call answers. */
    const owner = principal ?? client;
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId === undefined ? undefined : sessions.get(sessionId);
    // A session answers only the client, and the principal, that opened it: to anyone else it does not exist.
    if (sessionId !== undefined && (session === undefined || session.client !== client || session.principal !== principal)) {
      return sendJsonRpcError(res, 404, -32001, 'Session not found; start a new session with initialize');
    }
    if (session === undefined && method !== 'POST') {
      if (claimsModern(req) || !(await isLegacyRequest(headersRequest(req, { origin: LOCAL }))))
        return caller.run(owner, () => modern(req as NodeRequest, res));
      return sendJsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first');
    }
    if (session !== undefined) track(session, res);
    let body: unknown;
    if (method === 'POST') {
      const problem = postHeadersProblem(req);
      if (problem !== undefined) return sendJsonRpcError(res, problem.status, -32000, problem.message);
      // Without a session only a 2025 initialize may come, and it is small; a 2026-07-28 request says so in its headers.
      const limit =
        session === undefined && !claimsModern(req)
          ? {
              bytes: Math.min(maxBody, SMALL_BODY_BYTES),
              name: 'a request without Mcp-Session-Id and MCP-Protocol-Version 2026-07-28, which can only be initialize',
            }
          : { bytes: maxBody, name: 'maxBodyBytes' };
      try {
        body = await readJsonBody(req, res, limit, budget);
      } catch (error) {
        if (!(error instanceof BodyRefused)) throw error;
        if (error.status === 503) res.setHeader('retry-after', '1');
        return sendJsonRpcError(res, error.status, error.code, error.message);
      }
    }
    if (authInfo !== undefined) {
      // A tool outside the caller's scopes: refused before any server sees the call, in both eras (the SDK client steps up).
      const refusal = scopeRefusal(body, authInfo);
      if (refusal !== undefined) return sendResponse(res, refusal);
    }
    if (session !== undefined) {
      const taken = body === undefined ? undefined : claimIds(session.pending, body, res);
      if (taken !== undefined) {
        return sendJsonRpcError(
          res,
          400,
          -32600,
          `Invalid Request: id ${JSON.stringify(taken).slice(0, 80)} belongs to a request of this session that is not answered yet; give each request in flight its own id`,
          taken,
        );
      }
      return session.transport.handleRequest(req, res, body);
    }
    // A modern MCP-Protocol-Version header makes it modern whatever the body (the SDK's rule); otherwise the SDK decides.
    if (claimsModern(req) || !(await isLegacyRequest(headersRequest(req, { origin: LOCAL }), body))) {
      const list = constantList(req, body, authInfo);
      if (list !== undefined) {
        const tail = `${JSON.stringify((body as { id: RequestId }).id)}}`;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': list.length + Buffer.byteLength(tail) }).write(list);
        return void res.end(tail);
      }
      const mismatch = paramMismatch(req, body);
      if (mismatch !== undefined)
        return sendJsonRpcError(res, 400, HEADER_MISMATCH, `Bad Request: the request headers and body disagree: ${mismatch.problem}`, mismatch.id);
      return caller.run(owner, () => exchangeParsed(modernHandler, req, res, body, options.onError));
    }
    if (hasInitialize(body)) return startSession(req, res, body, client, principal);
    return sendJsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first');
  }

  /**
   * The answer to a plain 2026-07-28 `tools/list`, from bytes built once per
   * toolset version: the list is the same for every request of a stateless
   * server, so it is not serialised per request (the SDK would, which costs
   * milliseconds for a large toolset). Only a request the SDK classifies as a
   * well-formed modern request, with its standard headers and this server's
   * revision, is answered here; anything else goes to the SDK, which answers it
   * (errors included).
   */
  function constantList(req: IncomingMessage, body: unknown, authInfo: AuthInfo | undefined): Buffer | undefined {
    if (!isJSONRPCRequest(body) || body.method !== 'tools/list') return undefined;
    const version = req.headers['mcp-protocol-version'];
    const method = req.headers['mcp-method'];
    if (version !== MODERN_REVISION || method !== 'tools/list' || req.headers['mcp-name'] !== undefined) return undefined;
    const meta = body.params?._meta as Record<string, unknown> | undefined;
    const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
    if (meta?.[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION || typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities))
      return undefined;
    const outcome = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: version, mcpMethodHeader: method, body });
    if (outcome.kind !== 'modern' || outcome.messageKind !== 'request') return undefined;
    const view: ToolView = served.view(authInfo?.scopes);
    return listResponseHead(view, serverOptions, body.params?.['cursor']);
  }

  /** The 403 challenge for a `tools/call` (of a body, batches included) whose tool needs scopes the caller lacks. */
  function scopeRefusal(body: unknown, authInfo: AuthInfo): Response | undefined {
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isJSONRPCRequest(message) || message.method !== 'tools/call') continue;
      const name = message.params?.['name'];
      const needed = typeof name === 'string' ? served.toolset.get(name)?.scopes : undefined;
      if (needed !== undefined && missingScopes(needed, authInfo.scopes).length > 0) return resourceServer!.insufficientScope(name as string, needed);
    }
    return undefined;
  }

  /** A modern tools/call whose `Mcp-Param-*` headers disagree with its arguments (the SDK checks them only for its McpServer). */
  function paramMismatch(req: IncomingMessage, body: unknown): { problem: string; id: RequestId } | undefined {
    if (!isJSONRPCRequest(body) || body.method !== 'tools/call') return undefined;
    const name = body.params?.['name'];
    const declared = typeof name === 'string' ? served.paramHeaders(name) : [];
    if (declared.length === 0) return undefined;
    const problem = paramHeaderProblem(declared, body.params?.['arguments'], (header) => {
      const value = req.headers[header];
      return Array.isArray(value) ? value.join(', ') : value;
    });
    return problem === undefined ? undefined : { problem, id: body.id };
  }

  // Node takes whole milliseconds, 0 for no limit; it checks them every connectionsCheckingInterval (30 s by default).
  const ms = (value: number): number => (Number.isFinite(value) ? Math.ceil(value) : 0);
  const timeouts = {
    headersTimeout: ms(headersTimeout),
    requestTimeout: ms(requestTimeout),
    connectionsCheckingInterval: Math.ceil(Math.min(1000, headersTimeout / 4)),
  };
  const http = createServer(timeouts, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      sendJsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${port}${path}`;
  if (options.auth !== undefined) {
    try {
      resourceServer = new ResourceServer(options.auth, url, served.toolset, options.onError);
    } catch (error) {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      stopNotifying();
      await modernHandler.close();
      throw error;
    }
  }
  let stopFanOut: (() => Promise<void>) | undefined;
  if (options.store !== undefined) {
    try {
      stopFanOut = await fanOutToolChanges(options.store, (listener) => served.onChange(listener), toolsChangedElsewhere, options.onError);
    } catch (error) {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      stopNotifying();
      await modernHandler.close();
      throw error;
    }
  }

  /** Another instance's tools changed: the clients of this one hear it too (2026-07-28 subscriptions, initialized 2025 sessions). */
  function toolsChangedElsewhere(): void {
    void modernHandler.notify.toolsChanged();
    for (const { server } of sessions.values()) {
      if (server.getClientCapabilities() === undefined) continue;
      server.sendToolListChanged().catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
    }
  }

  let closed: Promise<void> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  if (Number.isFinite(idle)) {
    sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [id, session] of sessions) if (session.open === 0 && now - session.lastSeen >= idle) endSession(id, session);
      },
      Math.min(Math.max(idle / 4, 10), 60_000),
    );
    sweeper.unref();
  }

  return {
    url,
    host,
    port,
    authMode: resourceServer?.mode ?? 'none',
    get sessionCount() {
      return sessions.size;
    },
    sessionIdleTimeoutMs: idle,
    maxSessions,
    close() {
      return (closed ??= (async () => {
        closing = true;
        stopNotifying();
        await stopFanOut?.();
        if (sweeper !== undefined) clearInterval(sweeper);
        const open = [...sessions.values()];
        sessions.clear();
        await Promise.allSettled([
          modernHandler.close(),
          ...open.map(async ({ transport, server }) => {
            await transport.close();
            await server.close();
          }),
        ]);
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      })());
    },
  };
}
