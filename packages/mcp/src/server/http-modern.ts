import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeHttpSdk } from './node-http-sdk.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type AuthInfo,
  classifyInboundRequest,
  createMcpHandler,
  isJSONRPCRequest,
  isLegacyRequest,
  type RequestId,
} from '@modelcontextprotocol/server';
import { exchangeParsed, headersRequest, sendJsonRpcError } from './node-exchange.js';
import { HEADER_MISMATCH, paramHeaderProblem } from './param-headers.js';
import type { ServedTools, ToolView } from './served-tools.js';
import { listResponseHead } from './tool-list-pages.js';
import { createMcpServer, type McpServerOptions } from './tool-server.js';

/** Where the era of a request is read from its headers: any Host it sends, valid or not, plays no part. */
const LOCAL = 'http://localhost';

/** The protocol revision the stateless path serves. */
const MODERN_REVISION = '2026-07-28';

/** A request as the SDK's Node adapter types it (Node's own has optional method and url, always set on a server). */
type NodeRequest = IncomingMessage & { method: string; url: string };

/**
 * Whether a request claims the 2026-07-28 era in its headers (its
 * `MCP-Protocol-Version`): the SDK routes it to the stateless path whatever its
 * body, and its body, a whole request with no session, gets the full size
 * limit (a 2025 request without a session can only be a small `initialize`).
 */
export function claimsModern(req: IncomingMessage): boolean {
  const version = req.headers['mcp-protocol-version'];
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= MODERN_REVISION;
}

/** Whether the SDK takes a request (and its body, if read) for a 2025-era one. */
export function isLegacy(req: IncomingMessage, body?: unknown): Promise<boolean> {
  return isLegacyRequest(headersRequest(req, { origin: LOCAL }), body);
}

/** What the 2026-07-28 era of an endpoint is made with. */
export interface ModernEndpointOptions {
  served: ServedTools;
  serverOptions: McpServerOptions;
  maxBody: number;
  /** Whether callers are authenticated (read per request: the endpoint's auth is set up once it listens). */
  authenticated: () => boolean;
  onError: ((error: Error) => void) | undefined;
  /** The SDK's Node adapter, loaded when serving began (an optional peer). */
  toNodeHandler: NodeHttpSdk['toNodeHandler'];
}

/**
 * The 2026-07-28 era of an HTTP endpoint: the SDK's stateless handler (a
 * server instance per request, no session), each instance knowing whom it
 * answers; a plain `tools/list` from bytes built once; `Mcp-Param-*` headers
 * checked against the arguments.
 */
export class ModernEndpoint {
  /** Who sends the request being served, for the server instance the handler makes for it. */
  private readonly caller = new AsyncLocalStorage<string | undefined>();
  private readonly handler: ReturnType<typeof createMcpHandler>;
  private readonly nodeHandler: ReturnType<NodeHttpSdk['toNodeHandler']>;
  private stopNotifying: (() => void) | undefined;

  constructor(private readonly options: ModernEndpointOptions) {
    const { served, serverOptions, onError } = options;
    this.handler = createMcpHandler(
      ({ era }) =>
        createMcpServer(served, serverOptions, {
          era,
          rounds: served.rounds,
          owner: this.caller.getStore(),
          authenticated: options.authenticated(),
          transport: 'http',
        }),
      {
        legacy: 'reject',
        ...(onError === undefined ? {} : { onerror: onError }),
        maxRequestBodySize: options.maxBody,
      },
    );
    this.nodeHandler = options.toNodeHandler(this.handler);
    this.stopNotifying = served.onChange(() => this.toolsChanged());
  }

  /** A request with no body read (a GET stream, a DELETE), for `owner`: the SDK's Node handler answers it. */
  serveUnread(req: IncomingMessage, res: ServerResponse, owner: string | undefined): Promise<void> {
    return this.caller.run(owner, () => this.nodeHandler(req as NodeRequest, res));
  }

  /** A POST whose body was read: a plain list from its bytes, a call whose headers disagree refused, else the SDK's handler. */
  serveParsed(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown, owner: string | undefined): Promise<void> | void {
    const list = this.constantList(req, body, req.auth);
    if (list !== undefined) {
      const tail = `${JSON.stringify((body as { id: RequestId }).id)}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': list.length + Buffer.byteLength(tail) }).write(list);
      return void res.end(tail);
    }
    const mismatch = this.paramMismatch(req, body);
    if (mismatch !== undefined)
      return sendJsonRpcError(res, {
        status: 400,
        code: HEADER_MISMATCH,
        message: `Bad Request: the request headers and body disagree: ${mismatch.problem}`,
        id: mismatch.id,
      });
    return this.caller.run(owner, () => exchangeParsed({ handler: this.handler, req, res, body, onError: this.options.onError }));
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
  private constantList(req: IncomingMessage, body: unknown, authInfo: AuthInfo | undefined): Buffer | undefined {
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
    const view: ToolView = this.options.served.view(authInfo?.scopes);
    return listResponseHead(view, this.options.serverOptions, body.params?.['cursor']);
  }

  /** A modern tools/call whose `Mcp-Param-*` headers disagree with its arguments (the SDK checks them only for its McpServer). */
  private paramMismatch(req: IncomingMessage, body: unknown): { problem: string; id: RequestId } | undefined {
    if (!isJSONRPCRequest(body) || body.method !== 'tools/call') return undefined;
    const name = body.params?.['name'];
    const declared = typeof name === 'string' ? this.options.served.paramHeaders(name) : [];
    if (declared.length === 0) return undefined;
    const problem = paramHeaderProblem(declared, body.params?.['arguments'], (header) => {
      const value = req.headers[header];
      return Array.isArray(value) ? value.join(', ') : value;
    });
    return problem === undefined ? undefined : { problem, id: body.id };
  }

  /** The tools changed (here or on another instance): subscribed clients hear it. */
  toolsChanged(): void {
    void this.handler.notify.toolsChanged();
  }

  /** Stops telling clients of this instance's tool changes. */
  stopFollowingTools(): void {
    this.stopNotifying?.();
    this.stopNotifying = undefined;
  }

  async close(): Promise<void> {
    this.stopFollowingTools();
    await this.handler.close();
  }
}
