import { AnytoolError, ErrorCode } from '@anytool/core';
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
import type { McpAskOptions, McpSession } from '../shared/mcp-session.js';
import type { InputRound } from './input-rounds.js';

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

type Asked =
  { kind: 'sampling'; method: 'sampling/createMessage' } | { kind: 'elicitation'; method: 'elicitation/create' } | { kind: 'roots'; method: 'roots/list' };
const SAMPLING: Asked = { kind: 'sampling', method: 'sampling/createMessage' };
const ELICITATION: Asked = { kind: 'elicitation', method: 'elicitation/create' };
const ROOTS: Asked = { kind: 'roots', method: 'roots/list' };

/** What a call's session sends through and on behalf of. */
export interface CallSessionOptions {
  server: Server;
  /** The request being served (on the modern era, the first round's). */
  ctx: ServerContext;
  connection: ConnectionState;
  toolName: string;
  era: 'legacy' | 'modern';
  /** On the modern era, the round questions go to. */
  round: InputRound | undefined;
  /** Makes the call a task (`startTask()`); `true`: it is one already; `false` (default): it cannot become one. */
  starter?: (() => Promise<boolean>) | boolean;
}

/**
 * The `McpSession` of one `tools/call`; sends through the request's own
 * channel. On the 2025 era questions to the client are requests over the
 * session; on the 2026-07-28 era they go to the call's `InputRound`, which
 * answers the request with `input_required` and waits for the next round.
 */
export class CallSession implements McpSession {
  private asked = 0;
  private readonly server: Server;
  private first: ServerContext;
  private readonly connection: ConnectionState;
  private readonly toolName: string;
  readonly era: 'legacy' | 'modern';
  private input: InputRound | undefined;
  private readonly starter: (() => Promise<boolean>) | boolean;

  constructor(call: CallSessionOptions) {
    this.server = call.server;
    this.first = call.ctx;
    this.connection = call.connection;
    this.toolName = call.toolName;
    this.era = call.era;
    this.input = call.round;
    this.starter = call.starter ?? false;
  }

  startTask(): Promise<boolean> {
    return typeof this.starter === 'boolean' ? Promise.resolve(this.starter) : this.starter();
  }

  checkpoint(data: unknown): Promise<boolean> {
    return this.input?.checkpoint?.(data) ?? Promise.resolve(false);
  }

  get lastCheckpoint(): unknown {
    return this.input?.lastCheckpoint;
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
    if (this.input === undefined)
      throw new AnytoolError(ErrorCode.McpProtocolError, `tool "${this.toolName}": this server cannot ask the client for input on the 2026-07-28 era`);
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
