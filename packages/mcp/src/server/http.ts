import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnytoolError, ErrorCode } from '@anytool/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { defaultAllowedHosts, rebindingProblem, urlHost } from './host-check.js';
import { createMcpServer, type McpServerOptions, type ServedTools } from './tool-server.js';

/** Options of `serveMcp` over streamable HTTP. */
export interface HttpServeOptions extends McpServerOptions {
  transport: 'http';
  /** The port to listen on; 0 picks a free one (read it from the handle). */
  port: number;
  /** The address to bind. Default `127.0.0.1`: reachable from this machine only. */
  host?: string;
  /** The endpoint path. Default `/mcp`. */
  path?: string;
  /**
   * DNS-rebinding protection: refuse requests whose Host (or Origin) header is
   * not an allowed host name, with 403. On by default; turn it off only behind
   * a proxy that checks hosts itself.
   */
  dnsRebindingProtection?: boolean;
  /** Host names (no port) accepted in the Host header. Default: localhost, 127.0.0.1, [::1], plus the bind address when it is not a wildcard. */
  allowedHosts?: string[];
  /** Host names accepted in an Origin header (`"*"` for any). Default: the allowed hosts. */
  allowedOrigins?: string[];
  /** Largest accepted request body. Default 4 MiB. */
  maxBodyBytes?: number;
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
   * (`new MemoryEventStore()` for one process). Default: none.
   */
  eventStore?: EventStore;
  /** The reconnection delay suggested to clients of resumable streams (SSE `retry`), in milliseconds. */
  retryIntervalMs?: number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Requests and streams of this session still open. */
  open: number;
  lastSeen: number;
}

/** A streamable HTTP MCP server that is listening. */
export interface McpHttpListener {
  url: string;
  host: string;
  port: number;
  /** Open MCP sessions. */
  readonly sessionCount: number;
  /** The idle timeout in effect, in milliseconds (`Infinity`: none). */
  readonly sessionIdleTimeoutMs: number;
  /** The session cap in effect. */
  readonly maxSessions: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
/** How long an HTTP session with no request and no open stream is kept: 5 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 5 * 60_000;
/** How many HTTP sessions a server holds at most by default. */
export const DEFAULT_MAX_SESSIONS = 1_000;

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new AnytoolError(ErrorCode.InvalidArguments, `request body is larger than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function hasInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Serves tools over MCP streamable HTTP: one SDK server and transport per session. */
export async function listenHttp(served: ServedTools, options: HttpServeOptions): Promise<McpHttpListener> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): port must be an integer from 0 to 65535 (0 picks a free port), got ${String(options.port)}`);
  }
  if (!path.startsWith('/')) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): path must start with "/", got ${JSON.stringify(path)}`);
  const idle = options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS;
  if (!(idle > 0)) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): sessionIdleTimeoutMs must be a positive number of milliseconds (Infinity for no limit), got ${String(idle)}`);
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): maxSessions must be a positive integer, got ${String(maxSessions)}`);
  const protect = options.dnsRebindingProtection ?? true;
  const allowedHosts = (options.allowedHosts ?? defaultAllowedHosts(host)).map((h) => h.toLowerCase());
  const allowedOrigins = (options.allowedOrigins ?? allowedHosts).map((h) => h.toLowerCase());
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const sessions = new Map<string, Session>();
  let closing = false;
  /** Initialize requests being answered: their sessions count against maxSessions before they are registered. */
  let initializing = 0;

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = createMcpServer(served, options);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, open: 0, lastSeen: Date.now() });
      },
      ...(options.eventStore === undefined ? {} : { eventStore: options.eventStore }),
      ...(options.retryIntervalMs === undefined ? {} : { retryInterval: options.retryIntervalMs }),
    });
    const ownOnClose = server.onclose;
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      ownOnClose?.();
    };
    initializing++;
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      initializing--;
      // An initialize that failed never got a session: nothing will reach this server again.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (protect) {
      const problem = rebindingProblem(req.headers.host, req.headers.origin, allowedHosts, allowedOrigins);
      if (problem !== undefined) return sendJsonRpcError(res, 403, -32000, `Forbidden: ${problem}. This server only answers requests addressed to an allowed host (DNS-rebinding protection).`);
    }
    if (url.pathname !== path) return sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${path}`);
    if (closing) return sendJsonRpcError(res, 503, -32000, 'The server is shutting down');
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('allow', 'GET, POST, DELETE');
      return sendJsonRpcError(res, 405, -32000, `Method ${method} not allowed`);
    }
    let body: unknown;
    if (method === 'POST') {
      let text: string;
      try {
        text = await readBody(req, maxBody);
      } catch (error) {
        return sendJsonRpcError(res, 413, -32600, error instanceof Error ? error.message : String(error));
      }
      try {
        body = JSON.parse(text);
      } catch {
        return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (session === undefined) return sendJsonRpcError(res, 404, -32001, 'Session not found; start a new session with initialize');
      session.open++;
      res.once('close', () => {
        session.open--;
        session.lastSeen = Date.now();
      });
      return session.transport.handleRequest(req, res, body);
    }
    if (method === 'POST' && hasInitialize(body)) {
      if (sessions.size + initializing >= maxSessions) {
        return sendJsonRpcError(res, 503, -32000, `Too many sessions: this server holds ${maxSessions} (maxSessions). Retry later, or end unused sessions with DELETE; idle sessions end after sessionIdleTimeoutMs.`);
      }
      return startSession(req, res, body);
    }
    return sendJsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first');
  }

  const http = createServer((req, res) => {
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
  let closed: Promise<void> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  if (Number.isFinite(idle)) {
    sweeper = setInterval(() => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.open > 0 || now - session.lastSeen < idle) continue;
        sessions.delete(id);
        void session.transport.close().then(() => session.server.close()).catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
      }
    }, Math.min(Math.max(idle / 4, 10), 60_000));
    sweeper.unref();
  }

  return {
    url: `http://${urlHost(host)}:${port}${path}`,
    host,
    port,
    get sessionCount() {
      return sessions.size;
    },
    sessionIdleTimeoutMs: idle,
    maxSessions,
    close() {
      return (closed ??= (async () => {
        closing = true;
        if (sweeper !== undefined) clearInterval(sweeper);
        const open = [...sessions.values()];
        sessions.clear();
        await Promise.allSettled(open.map(async ({ transport, server }) => {
          await transport.close();
          await server.close();
        }));
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      })());
    },
  };
}
