import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toError } from '@anytool/core/internal';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { NodeHttpSdk } from './node-http-sdk.js';
import { isJSONRPCRequest, type EventStore, type RequestId, type Server } from '@modelcontextprotocol/server';
import { sendJsonRpcError } from './node-exchange.js';
import type { ServedTools } from './served-tools.js';
import { sessionEventStore } from './session-event-store.js';
import { createMcpServer, type McpServerOptions } from './tool-server.js';

/** A 2025-era session: its SDK server and transport, who opened it, what of it is open. */
export interface HttpSession {
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

/** What the sessions of an endpoint are made with and held to. */
export interface HttpSessionsOptions {
  served: ServedTools;
  serverOptions: McpServerOptions;
  maxSessions: number;
  maxPerClient: number;
  /** How long an idle session is kept (`Infinity`: until DELETE or close). */
  idleMs: number;
  eventStore: EventStore | undefined;
  retryIntervalMs: number | undefined;
  onError: ((error: Error) => void) | undefined;
  /** The SDK's Node transport class, loaded when serving began (an optional peer). */
  Transport: NodeHttpSdk['NodeStreamableHTTPServerTransport'];
}

/** Who sends a request: the client (`clientIdentity`) and, with auth, the principal. */
export interface Caller {
  client: string | undefined;
  principal: string | undefined;
}

/**
 * The 2025-era sessions of an HTTP endpoint, one SDK server and transport each:
 * found only by the caller that opened them, started within the limits (per
 * client, in all), ended when idle, told of tool changes, closed with the endpoint.
 */
export class HttpSessions {
  private readonly sessions = new Map<string, HttpSession>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: HttpSessionsOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The session `id` names, if `caller` opened it: a session answers only the
   * client, and the principal, that opened it; to anyone else it does not exist.
   */
  find(id: string, caller: Caller): HttpSession | undefined {
    const session = this.sessions.get(id);
    return session !== undefined && session.client === caller.client && session.principal === caller.principal ? session : undefined;
  }

  /** Counts a request or stream as open in its session until its response closes. */
  track(session: HttpSession, res: ServerResponse): void {
    session.open++;
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  }

  /** Hands a request of `session` to its transport; a request id already in flight in the session is refused. */
  serve(session: HttpSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> | void {
    const taken = body === undefined ? undefined : claimIds(session.pending, body, res);
    if (taken !== undefined) {
      return sendJsonRpcError(res, {
        status: 400,
        code: -32600,
        message: `Invalid Request: id ${JSON.stringify(taken).slice(0, 80)} belongs to a request of this session that is not answered yet; give each request in flight its own id`,
        id: taken,
      });
    }
    return session.transport.handleRequest(req, res, body);
  }

  /** Starts a session with an `initialize`, when there is room for one. */
  async start(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller): Promise<void> {
    const { client, principal } = caller;
    const full = this.makeRoom(client);
    if (full !== undefined) return sendJsonRpcError(res, { status: 503, code: -32000, message: full });
    const { served, serverOptions, eventStore, retryIntervalMs, Transport } = this.options;
    const id = randomUUID();
    const server = createMcpServer(served, serverOptions, {
      era: 'legacy',
      rounds: served.rounds,
      owner: principal ?? client,
      authenticated: principal !== undefined,
      transport: 'http',
    });
    const transport = new Transport({
      sessionIdGenerator: () => id,
      ...(eventStore === undefined ? {} : { eventStore: sessionEventStore(eventStore, id) }),
      ...(retryIntervalMs === undefined ? {} : { retryInterval: retryIntervalMs }),
    });
    const session: HttpSession = { transport, server, client, principal, open: 0, lastSeen: Date.now(), pending: new Map() };
    // Held from now on, so concurrent initializes count against the limits.
    this.sessions.set(id, session);
    this.track(session, res);
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      if (!('method' in message) && 'id' in message && message.id !== undefined) session.pending.delete(message.id);
      return send(message, sendOptions);
    };
    const ownOnClose = server.onclose;
    server.onclose = () => {
      this.sessions.delete(id);
      ownOnClose?.();
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // An initialize that failed never got a session: nothing will reach this server again.
      if (transport.sessionId === undefined) {
        this.sessions.delete(id);
        await server.close();
      }
    }
  }

  /**
   * Makes room for a new session of `client`: at its `maxSessionsPerClient`, its
   * least recently used idle session is ended. Returns why there is no room, if none.
   */
  private makeRoom(client: string | undefined): string | undefined {
    const { maxPerClient, maxSessions } = this.options;
    const own = client === undefined ? [] : [...this.sessions].filter(([, session]) => session.client === client);
    if (own.length >= maxPerClient) {
      const idlest = own.filter(([, session]) => session.open === 0).sort(([, a], [, b]) => a.lastSeen - b.lastSeen)[0];
      if (idlest === undefined)
        return `Too many sessions for this client: it holds ${maxPerClient} (maxSessionsPerClient), all of them busy. End one with DELETE, or retry when one is idle.`;
      this.end(...idlest);
    }
    if (this.sessions.size >= maxSessions)
      return `Too many sessions: this server holds ${maxSessions} (maxSessions). Retry later, or end unused sessions with DELETE; idle sessions end after sessionIdleTimeoutMs.`;
    return undefined;
  }

  private end(id: string, session: HttpSession): void {
    this.sessions.delete(id);
    void session.transport
      .close()
      .then(() => session.server.close())
      .catch((error: unknown) => this.report(error));
  }

  /** Ends, from now on, the sessions with no request or stream open for `idleMs`. */
  sweepIdle(): void {
    const idle = this.options.idleMs;
    if (!Number.isFinite(idle)) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [id, session] of this.sessions) if (session.open === 0 && now - session.lastSeen >= idle) this.end(id, session);
      },
      Math.min(Math.max(idle / 4, 10), 60_000),
    );
    this.sweeper.unref();
  }

  /** Another instance's tools changed: the initialized sessions here hear it. */
  toolsChanged(): void {
    for (const { server } of this.sessions.values()) {
      if (server.getClientCapabilities() === undefined) continue;
      server.sendToolListChanged().catch((error: unknown) => this.report(error));
    }
  }

  /** Ends every session and stops sweeping. */
  async close(): Promise<PromiseSettledResult<void>[]> {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    return Promise.allSettled(
      open.map(async ({ transport, server }) => {
        await transport.close();
        await server.close();
      }),
    );
  }

  private report(error: unknown): void {
    this.options.onError?.(toError(error));
  }
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
