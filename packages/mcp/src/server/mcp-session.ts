import { AnytoolError, ErrorCode, type ExecutionContext } from '@anytool/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Implementation,
  type ListRootsResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** The key under which a served call's `McpSession` sits in `context.state`. Read it with `mcpSession(context)`. */
export const MCP_SESSION_KEY = 'anytool.mcp.session';

/**
 * What a tool served by `serveMcp` can ask of the MCP client that called it.
 * Everything sent from here travels with the call (over HTTP: on the call's own
 * response stream), so the client can tie it to the request.
 *
 * Get it with `mcpSession(context)` in a tool that asked for the context; it is
 * `undefined` when the tool runs outside an MCP server (in an agent, in a test).
 *
 * @example
 * @Tool({ description: 'Summarize a text with the client’s model.', parameters, context: true })
 * async summarize({ text }: { text: string }, context: ExecutionContext) {
 *   const session = mcpSession(context);
 *   if (session === undefined) return text.slice(0, 200);
 *   await session.log('info', 'asking the client to summarize');
 *   const reply = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 200 });
 *   return reply.content.type === 'text' ? reply.content.text : '';
 * }
 */
export interface McpSession {
  /** The MCP session id (streamable HTTP), or undefined over stdio. */
  readonly sessionId: string | undefined;
  /** The JSON-RPC id of the `tools/call` request being served. */
  readonly requestId: string | number;
  /**
   * Whether the client asked for progress on this call (its request carried a
   * progress token). Progress the tool records is sent only then; an `McpTool`
   * called inside this call asks its own server for progress in turn, so a
   * gateway passes progress through.
   */
  readonly progressRequested: boolean;
  /** The client's name and version from `initialize`. */
  readonly clientInfo: Implementation | undefined;
  /** What the client said it supports in `initialize`. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Sends a log message to the client (`notifications/message`) when the server
   * has logging on and the level is at or above what the client set with
   * `logging/setLevel`. Resolves to whether it was sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<boolean>;
  /** Asks the client's model for a completion (`sampling/createMessage`). Throws when the client does not support sampling. */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (`elicitation/create`). Throws when the client does not support elicitation. */
  elicitInput(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult>;
  /** The client's roots (`roots/list`). Throws when the client does not support roots. */
  listRoots(options?: RequestOptions): Promise<ListRootsResult>;
  /**
   * Closes this call's SSE stream while the call goes on, so the client polls:
   * it reconnects with `Last-Event-ID` and gets what follows, the result
   * included. Only over HTTP with an `eventStore`; returns whether it closed.
   */
  closeStream(): boolean;
}

/**
 * The MCP session of a call served by `serveMcp`, or `undefined` when the tool
 * is not running inside an MCP server. The tool must take the context
 * (`@Tool({ context: true })`, a context parameter, or `execute(context, args)`).
 */
export function mcpSession(context: ExecutionContext): McpSession | undefined {
  return context.state.get(MCP_SESSION_KEY) as McpSession | undefined;
}

const SEVERITY: Record<LoggingLevel, number> = { debug: 0, info: 1, notice: 2, warning: 3, error: 4, critical: 5, alert: 6, emergency: 7 };

/** Whether a message at `level` passes the threshold the client set (none set: everything passes). */
export function passesLevel(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  return threshold === undefined || SEVERITY[level] >= SEVERITY[threshold];
}

/** Per-connection state a call session reads: the log threshold the client set, and whether logging is on. */
export interface ConnectionState {
  logging: boolean;
  logLevel: LoggingLevel | undefined;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The `McpSession` of one `tools/call`; sends through the request's own channel. */
export class CallSession implements McpSession {
  constructor(
    private readonly server: Server,
    private readonly extra: Extra,
    private readonly connection: ConnectionState,
    private readonly toolName: string,
  ) {}

  get sessionId(): string | undefined {
    return this.extra.sessionId;
  }

  get requestId(): string | number {
    return this.extra.requestId;
  }

  get progressRequested(): boolean {
    return this.extra._meta?.progressToken !== undefined;
  }

  get clientInfo(): Implementation | undefined {
    return this.server.getClientVersion();
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.server.getClientCapabilities();
  }

  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<boolean> {
    if (!this.connection.logging || !passesLevel(level, this.connection.logLevel)) return false;
    const params: { level: LoggingLevel; data: unknown; logger?: string } = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.extra.sendNotification({ method: 'notifications/message', params });
    return true;
  }

  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    this.require('sampling', 'createMessage', 'sampling/createMessage');
    return this.extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema, this.requestOptions(options)) as Promise<CreateMessageResult>;
  }

  elicitInput(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    this.require('elicitation', 'elicitInput', 'elicitation/create');
    return this.extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, this.requestOptions(options));
  }

  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    this.require('roots', 'listRoots', 'roots/list');
    return this.extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema, this.requestOptions(options));
  }

  closeStream(): boolean {
    if (this.extra.closeSSEStream === undefined) return false;
    this.extra.closeSSEStream();
    return true;
  }

  /** The call's own abort signal unless the tool passed one. */
  private requestOptions(options: RequestOptions | undefined): RequestOptions {
    return { signal: this.extra.signal, ...options };
  }

  private require(capability: 'sampling' | 'elicitation' | 'roots', method: string, wire: string): void {
    if (this.server.getClientCapabilities()?.[capability] !== undefined) return;
    const client = this.server.getClientVersion()?.name ?? 'the client';
    throw new AnytoolError(
      ErrorCode.McpProtocolError,
      `tool "${this.toolName}": McpSession.${method}() needs the client's "${capability}" capability (${wire}), and ${client} did not declare it in initialize; check mcpSession(context).clientCapabilities first and fall back`,
    );
  }
}
