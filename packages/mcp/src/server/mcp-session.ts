import { AnytoolError, ErrorCode, type ExecutionContext } from '@anytool/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  inputRequired,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestURLParams,
  type ElicitResult,
  type Implementation,
  type InputRequest,
  type ListRootsResult,
  type LoggingLevel,
  type RequestOptions,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { InputRound } from './input-rounds.js';

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
  /**
   * The protocol era of the call: `'legacy'` (2025: `initialize`, sessions,
   * server-to-client requests) or `'modern'` (2026-07-28: stateless, every
   * request carries the client's identity, questions to the client travel as
   * `input_required` results).
   */
  readonly era: 'legacy' | 'modern';
  /** The client's name and version: from `initialize` (legacy), or from the request itself (modern). */
  readonly clientInfo: Implementation | undefined;
  /** What the client supports: from `initialize` (legacy), or as the request declares it (modern). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Sends a log message to the client (`notifications/message`) when the server
   * has logging on and the level is at or above the client's threshold: set with
   * `logging/setLevel` (legacy; none set: every level), or carried by the request
   * (modern; none carried: no logs). Resolves to whether it was sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<boolean>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). When the
   * client did not declare sampling: throws (2025 era), or the call is answered
   * with error -32021 (2026-07-28 era). Check `clientCapabilities` first to fall back.
   */
  createMessage(params: CreateMessageRequestParams, options?: McpAskOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (`elicitation/create`). Without the client's elicitation capability: as `createMessage`. */
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: McpAskOptions): Promise<ElicitResult>;
  /** The client's roots (`roots/list`). Without the client's roots capability: as `createMessage`. */
  listRoots(options?: McpAskOptions): Promise<ListRootsResult>;
  /**
   * Closes this call's SSE stream while the call goes on, so the client polls:
   * it reconnects with `Last-Event-ID` and gets what follows, the result
   * included. Only over HTTP with an `eventStore`; returns whether it closed.
   */
  closeStream(): boolean;
  /**
   * Makes the rest of the call a task, for a tool marked `task` and
   * `deferTask`: the request in progress is answered with the task, and the
   * tool runs on as it (its signal aborts on `tasks/cancel`, its progress is
   * the task's status message, its questions the task's `input_required`, its
   * result the task's). Resolves `true` once the call is a task (at once when
   * it is one already), `false` when it cannot become one (the client did not
   * declare the Tasks extension, a 2025-era call, a tool not marked `task`):
   * the tool then just goes on in the request. Call it while no question to
   * the client is open.
   */
  startTask(): Promise<boolean>;
}

/**
 * Options of a question to the client. On the 2025 era it is a request of the
 * server to the client, and the SDK's request options apply (`timeout`,
 * `signal`). On the 2026-07-28 era it is one entry of an `input_required`
 * result, under `inputKey`; questions asked together (`Promise.all`) go out in
 * one round.
 */
export interface McpAskOptions extends RequestOptions {
  /** The key of this question in `inputRequests` (modern era). Default: the method and a counter, as `elicitation-1`. */
  inputKey?: string;
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

/** Per-connection state a call session reads: the log threshold the client set (legacy), and whether logging is on. */
export interface ConnectionState {
  logging: boolean;
  logLevel: LoggingLevel | undefined;
}

type Asked = { kind: 'sampling'; method: 'sampling/createMessage' } | { kind: 'elicitation'; method: 'elicitation/create' } | { kind: 'roots'; method: 'roots/list' };
const SAMPLING: Asked = { kind: 'sampling', method: 'sampling/createMessage' };
const ELICITATION: Asked = { kind: 'elicitation', method: 'elicitation/create' };
const ROOTS: Asked = { kind: 'roots', method: 'roots/list' };

/**
 * The `McpSession` of one `tools/call`; sends through the request's own
 * channel. On the 2025 era questions to the client are requests over the
 * session; on the 2026-07-28 era they go to the call's `InputRound`, which
 * answers the request with `input_required` and waits for the next round.
 */
export class CallSession implements McpSession {
  private asked = 0;

  constructor(
    private readonly server: Server,
    private first: ServerContext,
    private readonly connection: ConnectionState,
    private readonly toolName: string,
    readonly era: 'legacy' | 'modern',
    private input: InputRound | undefined,
    /** Makes the call a task (`startTask()`); `true`: it is one already; `false`: it cannot become one. */
    private readonly starter: (() => Promise<boolean>) | boolean = false,
  ) {}

  startTask(): Promise<boolean> {
    return typeof this.starter === 'boolean' ? Promise.resolve(this.starter) : this.starter();
  }

  /** From here on the call is a task: it asks through the task's round, and its request is the task's quiet one. */
  becomeTask(round: InputRound): void {
    this.input = round;
    this.first = round.ctx;
  }

  /** The request being served; on the modern era, the round in progress (it changes each round). */
  get ctx(): ServerContext {
    return this.input?.ctx ?? this.first;
  }

  get sessionId(): string | undefined {
    return this.ctx.sessionId;
  }

  get requestId(): string | number {
    return this.ctx.mcpReq.id;
  }

  get progressRequested(): boolean {
    return this.ctx.mcpReq._meta?.progressToken !== undefined;
  }

  get clientInfo(): Implementation | undefined {
    return this.era === 'legacy' ? this.server.getClientVersion() : (this.envelope[CLIENT_INFO_META_KEY] as Implementation | undefined);
  }

  get clientCapabilities(): ClientCapabilities | undefined {
    return this.era === 'legacy' ? this.server.getClientCapabilities() : (this.envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined);
  }

  async log(level: LoggingLevel, data: unknown, logger?: string): Promise<boolean> {
    if (!this.connection.logging) return false;
    if (this.era === 'legacy' ? !passesLevel(level, this.connection.logLevel) : !this.passesRequestLevel(level)) return false;
    const params: { level: LoggingLevel; data: unknown; logger?: string } = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.ctx.mcpReq.notify({ method: 'notifications/message', params });
    return true;
  }

  createMessage(params: CreateMessageRequestParams, options?: McpAskOptions): Promise<CreateMessageResult> {
    this.require(SAMPLING, 'createMessage');
    if (this.era === 'modern') return this.ask(SAMPLING, inputRequired.createMessage(params), options) as Promise<CreateMessageResult>;
    return this.ctx.mcpReq.requestSampling(params, this.requestOptions(options)) as Promise<CreateMessageResult>;
  }

  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: McpAskOptions): Promise<ElicitResult> {
    this.require(ELICITATION, 'elicitInput');
    if (this.era === 'modern') {
      const request = params.mode === 'url' ? inputRequired.elicitUrl(params) : inputRequired.elicit(params);
      return this.ask(ELICITATION, request, options) as Promise<ElicitResult>;
    }
    return this.ctx.mcpReq.elicitInput(params, this.requestOptions(options));
  }

  listRoots(options?: McpAskOptions): Promise<ListRootsResult> {
    this.require(ROOTS, 'listRoots');
    if (this.era === 'modern') return this.ask(ROOTS, inputRequired.listRoots(), options) as Promise<ListRootsResult>;
    return this.ctx.mcpReq.send({ method: 'roots/list' }, this.requestOptions(options));
  }

  closeStream(): boolean {
    const close = this.ctx.http?.closeSSE;
    if (close === undefined) return false;
    close();
    return true;
  }

  private get envelope(): Record<string, unknown> {
    return (this.ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  }

  /** Modern: the request carries its log level; none means the client wants no logs. */
  private passesRequestLevel(level: LoggingLevel): boolean {
    const threshold = this.envelope[LOG_LEVEL_META_KEY];
    return typeof threshold === 'string' && threshold in SEVERITY && passesLevel(level, threshold as LoggingLevel);
  }

  private ask(asked: Asked, request: InputRequest, options: McpAskOptions | undefined): Promise<unknown> {
    if (this.input === undefined) throw new AnytoolError(ErrorCode.McpProtocolError, `tool "${this.toolName}": this server cannot ask the client for input on the 2026-07-28 era`);
    const key = options?.inputKey ?? `${asked.kind}-${++this.asked}`;
    return this.input.ask(key, request, options?.signal);
  }

  /** Legacy: the call's own abort signal unless the tool passed one. */
  private requestOptions(options: McpAskOptions | undefined): RequestOptions {
    const { inputKey: _key, ...rest } = options ?? {};
    return { signal: this.ctx.mcpReq.signal, ...rest };
  }

  /** Legacy: asking without the capability throws here. Modern: the round answers the client -32021 (the era's rule). */
  private require(asked: Asked, method: string): void {
    if (this.era === 'modern' || this.clientCapabilities?.[asked.kind] !== undefined) return;
    const client = this.clientInfo?.name ?? 'the client';
    const where = this.era === 'legacy' ? 'in initialize' : 'in this request';
    throw new AnytoolError(
      ErrorCode.McpProtocolError,
      `tool "${this.toolName}": McpSession.${method}() needs the client's "${asked.kind}" capability (${asked.method}), and ${client} did not declare it ${where}; check mcpSession(context).clientCapabilities first and fall back`,
    );
  }
}
