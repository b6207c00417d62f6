import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toError } from '@anytool/core/internal';
import { isInitializeRequest, isJSONRPCRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { ResourceServer, missingScopes, principalOf } from './auth.js';
import { rebindingProblem, urlHost } from './host-check.js';
import { httpSettings, type HttpServeOptions, type HttpSettings } from './http-options.js';
import { ModernEndpoint, claimsModern, isLegacy } from './http-modern.js';
import { loadNodeHttpSdk, type NodeHttpSdk } from './node-http-sdk.js';
import { HttpSessions, type Caller, type HttpSession } from './http-sessions.js';
import { sendJsonRpcError, sendResponse, type JsonRpcErrorAnswer } from './node-exchange.js';
import { BodyBudget, BodyRefused, SMALL_BODY_BYTES, readJsonBody } from './request-body.js';
import type { ServedTools } from './served-tools.js';
import { StoreEventStore } from './store-event-store.js';
import { fanOutToolChanges } from './tool-changes.js';

export type { HttpServeOptions } from './http-options.js';
export { DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_CLIENT, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './http-options.js';

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

/** A request answered with an error before it reaches an MCP server, with any headers the answer needs. */
type Refusal = JsonRpcErrorAnswer & { headers?: Record<string, string> };

/** Who sends a request: the client, and with auth the principal and what its token grants. */
interface Sender extends Caller {
  authInfo: AuthInfo | undefined;
}

/** Marks a request already answered while its body was read. */
const ANSWERED: unique symbol = Symbol('answered');

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

function hasInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  if (refusal.headers !== undefined) for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  sendJsonRpcError(res, refusal);
}

/**
 * An MCP streamable HTTP endpoint serving both protocol eras, a method per
 * concern. 2026-07-28 requests go to the SDK's stateless handler
 * (`ModernEndpoint`); 2025 requests keep sessions (`HttpSessions`). The limits
 * in front (hosts, auth, bodies, sessions, timeouts) apply to both.
 */
export class McpHttpServer {
  private readonly settings: HttpSettings;
  private readonly budget: BodyBudget;
  private readonly modern: ModernEndpoint;
  private readonly sessions: HttpSessions;
  /** The resource server of an endpoint with `auth` (made once the endpoint's URL is known). */
  private resourceServer: ResourceServer | undefined;
  private http: NodeServer | undefined;
  private stopFanOut: (() => Promise<void>) | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;

  /** Checks the options; nothing listens until `listen()`. */
  constructor(
    private readonly served: ServedTools,
    private readonly options: HttpServeOptions,
    sdk: NodeHttpSdk,
  ) {
    const settings = (this.settings = httpSettings(options));
    this.budget = new BodyBudget(settings.maxBodyInFlight);
    this.modern = new ModernEndpoint({
      served,
      serverOptions: settings.serverOptions,
      maxBody: settings.maxBody,
      authenticated: () => this.resourceServer !== undefined,
      onError: options.onError,
      toNodeHandler: sdk.toNodeHandler,
    });
    this.sessions = new HttpSessions({
      served,
      serverOptions: settings.serverOptions,
      maxSessions: settings.maxSessions,
      maxPerClient: settings.maxPerClient,
      idleMs: settings.idleMs,
      eventStore: options.eventStore ?? (options.store === undefined ? undefined : new StoreEventStore(options.store)),
      retryIntervalMs: options.retryIntervalMs,
      onError: options.onError,
      Transport: sdk.NodeStreamableHTTPServerTransport,
    });
  }

  /** Listens; then sets up auth (its metadata names the URL) and the fan-out of tool changes across instances. */
  async listen(): Promise<McpHttpListener> {
    const { host, path } = this.settings;
    const http = (this.http = createServer(this.timeouts(), (req, res) => this.onRequest(req, res)));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(this.options.port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
    const port = (http.address() as AddressInfo).port;
    const url = `http://${urlHost(host)}:${port}${path}`;
    try {
      if (this.options.auth !== undefined) this.resourceServer = new ResourceServer(this.options.auth, url, this.served.toolset, this.options.onError);
      if (this.options.store !== undefined)
        this.stopFanOut = await fanOutToolChanges(
          this.options.store,
          (listener) => this.served.onChange(listener),
          () => this.toolsChangedElsewhere(),
          this.options.onError,
        );
    } catch (error) {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await this.modern.close();
      throw error;
    }
    this.sessions.sweepIdle();
    const sessions = this.sessions;
    return {
      url,
      host,
      port,
      authMode: this.resourceServer?.mode ?? 'none',
      get sessionCount() {
        return sessions.size;
      },
      sessionIdleTimeoutMs: this.settings.idleMs,
      maxSessions: this.settings.maxSessions,
      close: () => this.close(),
    };
  }

  /** Node's limits on receiving a request; Node takes whole milliseconds, 0 for no limit, and checks them every `connectionsCheckingInterval`. */
  private timeouts(): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
    const ms = (value: number): number => (Number.isFinite(value) ? Math.ceil(value) : 0);
    const { headersTimeoutMs, requestTimeoutMs } = this.settings;
    return {
      headersTimeout: ms(headersTimeoutMs),
      requestTimeout: ms(requestTimeoutMs),
      connectionsCheckingInterval: Math.ceil(Math.min(1000, headersTimeoutMs / 4)),
    };
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    this.handleRequest(req, res).catch((error: unknown) => {
      this.options.onError?.(toError(error));
      sendJsonRpcError(res, { status: 500, code: -32603, message: 'Internal server error' });
    });
  }

  /**
   * Everything that can be refused without reading the body is checked first
   * (host, path, method, auth, session, headers, size); then the body is read
   * within the limits, its calls checked against the caller's scopes, and the
   * request goes to its era.
   */
  async handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = this.hostRefusal(req) ?? this.routeRefusal(req);
    if (refusal instanceof Response) return sendResponse(res, refusal);
    if (refusal !== undefined) return refuse(res, refusal);
    const sender = this.resourceServer === undefined ? this.anonymous(req) : await this.authenticate(req);
    if (sender instanceof Response) return sendResponse(res, sender);
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const session = sessionId === undefined ? undefined : this.sessions.find(sessionId, sender);
    if (sessionId !== undefined && session === undefined)
      return sendJsonRpcError(res, { status: 404, code: -32001, message: 'Session not found; start a new session with initialize' });
    if (session === undefined && req.method !== 'POST') return this.serveWithoutSession(req, res, sender);
    if (session !== undefined) this.sessions.track(session, res);
    const body = req.method === 'POST' ? await this.readBody(req, res, session) : undefined;
    if (body === ANSWERED) return;
    if (sender.authInfo !== undefined) {
      // A tool outside the caller's scopes: refused before any server sees the call, in both eras (the SDK client steps up).
      const scopeRefusal = this.scopeRefusal(body, sender.authInfo);
      if (scopeRefusal !== undefined) return sendResponse(res, scopeRefusal);
    }
    return this.routeByEra(req, res, body, sender, session);
  }

  /** DNS-rebinding protection: a request addressed to a host (or from an origin) not allowed. */
  private hostRefusal(req: IncomingMessage): Refusal | undefined {
    const { protect, allowedHosts, allowedOrigins } = this.settings;
    if (!protect) return undefined;
    const problem = rebindingProblem(req.headers.host, req.headers.origin, allowedHosts, allowedOrigins);
    if (problem === undefined) return undefined;
    return {
      status: 403,
      code: -32000,
      message: `Forbidden: ${problem}. This server only answers requests addressed to an allowed host (DNS-rebinding protection).`,
    };
  }

  /** The answer to a request that is not for the endpoint (the resource metadata, another path), or not now, or not a method it serves. */
  private routeRefusal(req: IncomingMessage): Refusal | Response | undefined {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    const method = req.method ?? 'GET';
    const metadata = this.resourceServer?.metadataResponse(method, pathname);
    if (metadata !== undefined) return metadata;
    const path = this.settings.path;
    if (pathname !== path) return { status: 404, code: -32000, message: `Not found: the MCP endpoint is ${path}` };
    if (this.closing) return { status: 503, code: -32000, message: 'The server is shutting down' };
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE')
      return { status: 405, code: -32000, message: `Method ${method} not allowed`, headers: { allow: 'GET, POST, DELETE' } };
    return undefined;
  }

  /** The sender of a request on an endpoint without auth. */
  private anonymous(req: IncomingMessage): Sender {
    return { client: this.settings.clientOf(req), principal: undefined, authInfo: undefined };
  }

  /** Checks the caller's token: its sender, or the challenge to answer with. */
  private async authenticate(req: IncomingMessage): Promise<Sender | Response> {
    const verdict = await this.resourceServer!.authenticate(req);
    if (verdict instanceof Response) return verdict;
    const principal = principalOf(verdict);
    // Where the SDK's transports read it: tool handlers get it as ctx.http.authInfo, in both eras.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = verdict;
    // The principal is the client unless clientIdentity says how clients are known.
    const client = this.options.clientIdentity === undefined ? principal : this.settings.clientOf(req);
    return { client, principal, authInfo: verdict };
  }

  /** A GET or DELETE without a session: a 2026-07-28 request (the SDK answers it), else the client must initialize first. */
  private async serveWithoutSession(req: IncomingMessage, res: ServerResponse, sender: Sender): Promise<void> {
    if (claimsModern(req) || !(await isLegacy(req))) return this.modern.serveUnread(req, res, ownerOf(sender));
    return sendJsonRpcError(res, { status: 400, code: -32000, message: 'Bad Request: no Mcp-Session-Id header; send initialize first' });
  }

  /**
   * Reads a POST's body within the limits: its headers checked first; without a
   * session only a 2025 initialize may come, and it is small (a 2026-07-28
   * request says so in its headers). A refused body is answered here.
   */
  private async readBody(req: IncomingMessage, res: ServerResponse, session: HttpSession | undefined): Promise<unknown> {
    const problem = postHeadersProblem(req);
    if (problem !== undefined) {
      sendJsonRpcError(res, { status: problem.status, code: -32000, message: problem.message });
      return ANSWERED;
    }
    const maxBody = this.settings.maxBody;
    const limit =
      session === undefined && !claimsModern(req)
        ? {
            bytes: Math.min(maxBody, SMALL_BODY_BYTES),
            name: 'a request without Mcp-Session-Id and MCP-Protocol-Version 2026-07-28, which can only be initialize',
          }
        : { bytes: maxBody, name: 'maxBodyBytes' };
    try {
      return await readJsonBody(req, res, limit, this.budget);
    } catch (error) {
      if (!(error instanceof BodyRefused)) throw error;
      refuse(res, { status: error.status, code: error.code, message: error.message, ...(error.status === 503 ? { headers: { 'retry-after': '1' } } : {}) });
      return ANSWERED;
    }
  }

  /** The 403 challenge for a `tools/call` (of a body, batches included) whose tool needs scopes the caller lacks. */
  private scopeRefusal(body: unknown, authInfo: AuthInfo): Response | undefined {
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isJSONRPCRequest(message) || message.method !== 'tools/call') continue;
      const name = message.params?.['name'];
      const needed = typeof name === 'string' ? this.served.toolset.get(name)?.scopes : undefined;
      if (needed !== undefined && missingScopes(needed, authInfo.scopes).length > 0) return this.resourceServer!.insufficientScope(name as string, needed);
    }
    return undefined;
  }

  /**
   * Where a request goes: to its session; without one, to the 2026-07-28 era
   * (its headers claim it, whatever the body: the SDK's rule; else the SDK
   * decides) or, for an initialize, to a new 2025 session.
   */
  private async routeByEra(req: IncomingMessage, res: ServerResponse, body: unknown, sender: Sender, session: HttpSession | undefined): Promise<void> {
    if (session !== undefined) return this.sessions.serve(session, req, res, body);
    if (claimsModern(req) || !(await isLegacy(req, body))) return this.modern.serveParsed(req, res, body, ownerOf(sender));
    if (hasInitialize(body)) return this.sessions.start(req, res, body, sender);
    return sendJsonRpcError(res, { status: 400, code: -32000, message: 'Bad Request: no Mcp-Session-Id header; send initialize first' });
  }

  /** Another instance's tools changed: the clients of this one hear it too (2026-07-28 subscriptions, initialized 2025 sessions). */
  private toolsChangedElsewhere(): void {
    this.modern.toolsChanged();
    this.sessions.toolsChanged();
  }

  /** Stops serving: new requests get 503, every session and stream ends, the listener closes. */
  close(): Promise<void> {
    return (this.closed ??= this.shutDown());
  }

  private async shutDown(): Promise<void> {
    this.closing = true;
    this.modern.stopFollowingTools();
    await this.stopFanOut?.();
    await Promise.allSettled([this.modern.close(), this.sessions.close()]);
    const http = this.http;
    if (http === undefined) return;
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  }
}

/** Whom a parked 2026-07-28 call answers: the principal, else the client. */
function ownerOf(sender: Sender): string | undefined {
  return sender.principal ?? sender.client;
}

/**
 * Serves tools over MCP streamable HTTP, both protocol eras on one endpoint
 * (see `McpHttpServer`).
 */
export async function listenHttp(served: ServedTools, options: HttpServeOptions): Promise<McpHttpListener> {
  return new McpHttpServer(served, options, await loadNodeHttpSdk()).listen();
}
