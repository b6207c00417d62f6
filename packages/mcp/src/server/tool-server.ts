import {
  AnytoolError,
  ErrorCode,
  ExecutionContext,
  Toolset,
  errorResult,
  isToolset,
  resultText,
  type McpToolDefinition,
  type RunEvent,
  type ToolSource,
} from '@anytool/core';
import { maxErrorCharsProblem, unknownToolText } from '@anytool/core/internal';
import {
  ProtocolError,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
  Server,
  type CacheScope,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCRequest,
  type ListToolsResult,
  type Result,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { InputRounds, TaskAnswer, type InputRound } from './input-rounds.js';
import { paramHeaders, type ParamHeader } from './param-headers.js';
import { MCP_SESSION_KEY } from '../shared/mcp-session.js';
import { CallSession, type ConnectionState } from './call-session.js';
import { MCP_AUTH_KEY, authOf, missingScopes } from './auth.js';
import { toCallToolResult } from './result-content.js';
import { compileServedPatterns } from './served-patterns.js';
import { servedCallTelemetry } from './call-telemetry.js';
import type { McpTelemetryOptions } from '../telemetry/mcp-telemetry.js';
import type { Context as TraceContext } from '@opentelemetry/api';
import type { McpStore } from '../store/store.js';
import { MemoryStore } from '../store/memory-store.js';
import { TASKS_EXTENSION, createTaskResult } from './tasks/record.js';
import { TaskManager, checkTaskOptions, type TaskOptions, type TaskProgress } from './tasks/task-manager.js';
import { checkAskable, declaresTasks, serveTaskMethods, tasksRequired } from './tasks/serve-tasks.js';
import { VERSION } from '../version.js';

/** Options of every MCP server anytool makes, whatever the transport. */
export interface McpServerOptions {
  /** The server name sent in `initialize`. Default `"anytool"`. */
  name?: string;
  /** The server version sent in `initialize`. Default: the version of @anytool/mcp. */
  version?: string;
  /** Instructions sent in `initialize`, which clients may show to their model. */
  instructions?: string;
  /** How many tools one `tools/list` page holds. Default 100. */
  pageSize?: number;
  /** Declare the logging capability, so tools can log to the client through `mcpSession(context).log()`. Default true. */
  logging?: boolean;
  /**
   * Called with errors of the transport or protocol, and with a task's write the
   * store refused (those default to a process warning). Never with tool
   * failures, which are results.
   */
  onError?: (error: Error) => void;
  /**
   * How long a client may reuse a `tools/list` result before listing again, in
   * milliseconds (the `ttlMs` of the 2026-07-28 era; 2025 results carry none).
   * A change of the toolset tells subscribed clients at once. Default 60 s; 0 for
   * no caching.
   */
  toolsListTtlMs?: number;
  /**
   * Who may share a cached `tools/list` result (`cacheScope`): `'public'` (any
   * cache: the list is the same for every client) or `'private'` (this client
   * only, for a server whose tools depend on who asks). Default `'private'` when
   * a tool declares `scopes` (always with `auth`), else `'public'`.
   */
  toolsListCacheScope?: CacheScope;
  /**
   * On the 2026-07-28 era, a tool that asks the client (elicitation, sampling,
   * roots) waits between rounds in this process: how long it waits for the next
   * round, in milliseconds. Default 10 minutes.
   */
  inputTtlMs?: number;
  /** The most calls waiting for the client's input at once (2026-07-28 era). Default 1000. */
  maxParkedCalls?: number;
  /**
   * The longest error text a tool's error result sends, in characters (its text,
   * and the developer's message the server keeps); a longer one (a tool throwing a
   * huge message) is cut, with a note of its full length. Default: the tool's own
   * `maxErrorChars`, else 4,096 (`DEFAULT_MAX_ERROR_CHARS`).
   */
  maxErrorChars?: number;
  /**
   * Where the spans and metrics of served calls go (`tools/call {tool}` spans of
   * kind SERVER, children of the caller's span from `params._meta`, and
   * `mcp.server.operation.duration`): the globally registered OpenTelemetry SDK
   * unless given. With neither, nothing is recorded.
   */
  telemetry?: McpTelemetryOptions;
  /**
   * What the processes serving this endpoint share: the tasks of task tools
   * (`@Tool({ task: true })`), so any process answers for any task. Default: a
   * `MemoryStore` of this process.
   */
  store?: McpStore;
  /** How long a task (and its result) is kept after its last change, in milliseconds. Default 1 hour. */
  taskTtlMs?: number;
  /** How often clients are asked to poll a task, in milliseconds. Default 500. */
  taskPollIntervalMs?: number;
  /**
   * How long a task's process vouches for it without a heartbeat, in
   * milliseconds: a task whose process stopped is marked failed once its lease
   * ran out and as long again passed (a margin for clock skew between processes
   * and a blocked event loop). Default 15 s (a dead process's task fails after 30 s).
   */
  taskLeaseMs?: number;
  /**
   * The most tasks running at once, in all the processes sharing the `store`; a call
   * past it is refused with a JSON-RPC error (-32000, `data.code` `SERVER_BUSY`) naming
   * the limit. Default 1,000.
   */
  maxTasksRunning?: number;
  /** The most tasks one client (the principal, else its `clientIdentity`) has running at once. Default 100. */
  maxTasksRunningPerClient?: number;
  /** The most tasks kept at once, running or ended within `taskTtlMs`, in all the processes sharing the `store`. Default 10,000. */
  maxTasksKept?: number;
  /** The most tasks of one client kept at once, running or ended within `taskTtlMs`. Default 1,000. */
  maxTasksKeptPerClient?: number;
}

/** How a server instance is served: its era when the serving entry knows it, the calls waiting for input, the client. */
export interface Serving {
  era?: 'legacy' | 'modern';
  rounds: InputRounds;
  /** Who the client is (`clientIdentity`, or the authenticated principal), so a parked call answers only its own client. */
  owner?: string | undefined;
  /** Callers are authenticated: what they see depends on who they are (the list's cache hint is private). */
  authenticated?: boolean;
  /** The transport, for the spans' `network.transport`. */
  transport?: 'stdio' | 'http';
}

export const DEFAULT_TOOLS_LIST_TTL_MS = 60_000;

const roundsByToolset = new WeakMap<Toolset, InputRounds>();

/**
 * The parked calls of a toolset served through `createMcpServer` alone: a
 * stateless entry (`createMcpHandler(() => createMcpServer(toolset))`) makes a
 * server per request, and a call's next round must find it parked.
 */
function sharedRounds(toolset: Toolset, options: McpServerOptions): InputRounds {
  let rounds = roundsByToolset.get(toolset);
  if (rounds === undefined) roundsByToolset.set(toolset, (rounds = new InputRounds({ ttlMs: options.inputTtlMs, maxParked: options.maxParkedCalls })));
  return rounds;
}

const tasksByToolset = new WeakMap<Toolset, TaskManager>();

/** The tasks of a toolset served through `createMcpServer` alone (a server per request must find them, as the rounds). */
function sharedTasks(toolset: Toolset, options: McpServerOptions): TaskManager {
  let tasks = tasksByToolset.get(toolset);
  if (tasks === undefined) tasksByToolset.set(toolset, (tasks = taskManager(options)));
  return tasks;
}

/** An error no caller awaits (closing the tasks on dispose): to `onError`, else a process warning, never an unhandled rejection. */
function reportUnawaited(options: McpServerOptions, error: unknown): void {
  const reported = error instanceof Error ? error : new Error(String(error));
  if (options.onError !== undefined) options.onError(reported);
  else process.emitWarning(reported);
}

function taskOptions(options: McpServerOptions): TaskOptions {
  return {
    ttlMs: options.taskTtlMs,
    pollIntervalMs: options.taskPollIntervalMs,
    leaseMs: options.taskLeaseMs,
    maxRunning: options.maxTasksRunning,
    maxRunningPerClient: options.maxTasksRunningPerClient,
    maxKept: options.maxTasksKept,
    maxKeptPerClient: options.maxTasksKeptPerClient,
  };
}

function taskManager(options: McpServerOptions): TaskManager {
  return new TaskManager(options.store ?? new MemoryStore(), taskOptions(options), options.onError);
}

const DEFAULT_PAGE_SIZE = 100;
const RESPONSE_AFTER_NOTIFICATIONS_MS = 5;

/** Turns anything a Toolset takes into a Toolset (a Toolset is used as it is, so its changes are followed). */
export function asToolset(tools: Toolset | ToolSource): Toolset {
  return isToolset(tools) ? tools : new Toolset(tools);
}

/** The most scope sets whose tool lists are kept at once (each is a few lists; a new set past it starts over). */
const MAX_SCOPE_VIEWS = 256;

/**
 * The tools one kind of caller sees (every tool, or those a set of scopes
 * allows), with its `tools/list` pages and their bytes built once per toolset
 * version.
 */
export class ToolView {
  private cached: McpToolDefinition[] | undefined;
  private names: Set<string> | undefined;
  private readonly pages = new Map<string, ListToolsResult>();
  /** Whole `tools/list` responses as bytes up to the request id, by page (see `listResponseHead`). */
  readonly listJson = new Map<string, Buffer>();

  constructor(
    private readonly served: ServedTools,
    /** The caller's scopes; undefined: no authentication, every tool. */
    private readonly scopes: readonly string[] | undefined,
  ) {}

  /** Whether some tool asks for scopes (what a caller lists may then depend on who it is). */
  get scoped(): boolean {
    return this.served.scoped;
  }

  get definitions(): McpToolDefinition[] {
    if (this.cached !== undefined) return this.cached;
    const all = this.served.definitions;
    const scopes = this.scopes;
    return (this.cached = scopes === undefined ? all : all.filter((definition) => this.served.allows(definition.name, scopes)));
  }

  /** Whether the caller sees the tool `name`. */
  has(name: string): boolean {
    if (this.names === undefined) this.names = new Set(this.definitions.map((definition) => definition.name));
    return this.names.has(name);
  }

  /** One `tools/list` page: a stateless server makes a server instance per request, and lists cost no schema work. */
  page(start: number, pageSize: number): ListToolsResult {
    const key = `${start}:${pageSize}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      const all = this.definitions;
      const end = start + pageSize;
      page = { tools: all.slice(start, end) };
      if (end < all.length) page.nextCursor = encodeCursor(end);
      this.pages.set(key, page);
    }
    return page;
  }
}

/**
 * The tools of a toolset as MCP sees them, recomputed only when the toolset
 * changes (definitions are lowered once, not on every `tools/list`). Over an
 * authenticated endpoint each caller sees the tools its scopes allow: one view
 * per set of scopes that matters (those the tools ask for), built once.
 */
export class ServedTools {
  private cached: McpToolDefinition[] | undefined;
  /** What a caller without authentication sees: every tool. */
  readonly all: ToolView;
  private views = new Map<string, ToolView>();
  /** Every scope some tool asks for, found once per toolset version. */
  private toolScopes: Set<string> | undefined;
  private headers: Map<string, ParamHeader[]> | undefined;
  private readonly unsubscribe: () => void;
  private readonly listeners = new Set<() => void>();
  /** The calls waiting for the client's input, shared by every server instance of these tools (2026-07-28 era). */
  readonly rounds: InputRounds;
  private taskManager: TaskManager | undefined;

  constructor(
    readonly toolset: Toolset,
    private readonly options: McpServerOptions = {},
  ) {
    // Refused when serving starts: a pattern the linear engine cannot run.
    compileServedPatterns(toolset);
    this.rounds = new InputRounds({ ttlMs: options.inputTtlMs, maxParked: options.maxParkedCalls });
    // Refused when serving starts, not at the first task.
    checkTaskOptions(taskOptions(options));
    const errorCharsProblem = maxErrorCharsProblem(options.maxErrorChars);
    if (errorCharsProblem !== undefined) throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): ${errorCharsProblem}`);
    this.all = new ToolView(this, undefined);
    this.unsubscribe = toolset.subscribe(() => {
      compileServedPatterns(toolset, (error) => reportUnawaited(options, error));
      this.cached = undefined;
      (this as { all: ToolView }).all = new ToolView(this, undefined);
      this.views = new Map();
      this.toolScopes = undefined;
      this.headers = undefined;
      for (const listener of [...this.listeners]) listener();
    });
  }

  get definitions(): McpToolDefinition[] {
    return (this.cached ??= this.toolset.definitions('mcp'));
  }

  /** Whether some tool asks for scopes: what a caller lists may then depend on who it is. */
  get scoped(): boolean {
    return this.scopesOfTools().size > 0;
  }

  private scopesOfTools(): Set<string> {
    if (this.toolScopes === undefined) {
      this.toolScopes = new Set();
      for (const tool of this.toolset.tools) for (const scope of tool.scopes ?? []) this.toolScopes.add(scope);
    }
    return this.toolScopes;
  }

  /** Whether a caller holding `scopes` may see and call the tool (it holds every scope the tool asks for). */
  allows(name: string, scopes: readonly string[]): boolean {
    const needed = this.toolset.get(name)?.scopes;
    return needed === undefined || needed.every((scope) => scopes.includes(scope));
  }

  /**
   * The tools a caller sees: with `scopes` undefined (no authentication) every
   * tool, else those its scopes allow. Callers whose scopes differ only in
   * scopes no tool asks for share one view.
   */
  view(scopes: readonly string[] | undefined): ToolView {
    if (scopes === undefined) return this.all;
    const toolScopes = this.scopesOfTools();
    const relevant = [...new Set(scopes.filter((scope) => toolScopes.has(scope)))].sort();
    const key = relevant.join(' ');
    let view = this.views.get(key);
    if (view === undefined) {
      if (this.views.size >= MAX_SCOPE_VIEWS) this.views.clear();
      this.views.set(key, (view = new ToolView(this, relevant)));
    }
    return view;
  }

  /** One `tools/list` page of every tool (see `ToolView.page`). */
  page(start: number, pageSize: number): ListToolsResult {
    return this.all.page(start, pageSize);
  }

  /** The parameters of a tool mirrored into `Mcp-Param-*` headers (2026-07-28 era), found once per toolset version. */
  paramHeaders(name: string): ParamHeader[] {
    this.headers ??= new Map(this.definitions.map((definition) => [definition.name, paramHeaders(definition.inputSchema)]));
    return this.headers.get(name) ?? [];
  }

  /** Whether clients were told this tool returns structured content (it has an object output schema). */
  promisesStructure(name: string): boolean {
    const schema = this.toolset.get(name)?.definition.outputSchema;
    return schema !== undefined && schema['type'] === 'object';
  }

  /** Calls `listener` after the toolset changed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.unsubscribe();
    this.listeners.clear();
    this.rounds.close();
    void this.closeTasks().catch((error: unknown) => reportUnawaited(this.options, error));
  }

  /** The tasks of task tools, kept in the store (`McpServerOptions.store`); made on first use. */
  get tasks(): TaskManager {
    return (this.taskManager ??= taskManager(this.options));
  }

  /** Ends the tasks running here (marked failed: the server stopped) and the store this made for itself. */
  async closeTasks(): Promise<void> {
    const tasks = this.taskManager;
    if (tasks === undefined) return;
    await tasks.close();
    if (this.options.store === undefined) await tasks.store.close();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A server whose `tools/call` takes arguments of any shape: the SDK checks the
 * request before the handler runs and would answer bad arguments with a
 * protocol error; here they reach the toolset, which answers them with an
 * `isError` result the model can act on. A call without a tool name is a
 * clean -32602 that says what is missing.
 */
class ToolServer extends Server {
  /** The arguments as the client sent them, for requests whose arguments are not an object. */
  static readonly rawArguments = new WeakMap<object, unknown>();
  /** Starts a call as a task, when it becomes one: its result (a `CreateTaskResult`) is the answer as it is. */
  startTask: ((name: string, args: unknown, ctx: ServerContext) => Promise<Result | undefined> | undefined) | undefined;
  /** Whether a call of the tool may become a task on one of its rounds (`deferTask`): its handler may throw a `TaskAnswer`. */
  defersTask: ((name: string) => boolean) | undefined;

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => {
      const params: Record<string, unknown> = isRecord(request.params) ? request.params : {};
      const name = params['name'];
      if (typeof name !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `tools/call needs params.name, the name of the tool to call (a string), got ${name === undefined ? 'none' : typeof name}; tools/list gives the names`,
        );
      }
      const args = params['arguments'];
      const plain = (): Promise<Result> => {
        if (args === undefined || isRecord(args)) return wrapped(request, ctx);
        const checked = { ...request, params: { ...params, arguments: {} } };
        ToolServer.rawArguments.set(checked, args);
        return wrapped(checked, ctx);
      };
      // A task's answer is not a tool result: it goes out as it is, past the SDK's check of tools/call results.
      const task = this.startTask?.(name, args, ctx);
      if (task !== undefined) return task.then((created) => created ?? plain());
      return this.defersTask?.(name) === true ? plain().catch(taskAnswer) : plain();
    };
  }
}

/** The answer of a round on which the call became a task; any other error stays one. */
function taskAnswer(error: unknown): Result {
  if (error instanceof TaskAnswer) return error.answer;
  throw error;
}

/**
 * A task's view of the request that started it: that request is answered
 * (with the task) while the tool runs on, so nothing more can go out on it.
 * The client learns of progress by polling.
 */
function quietContext(ctx: ServerContext): ServerContext {
  const { progressToken: _token, ...meta } = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
  return { ...ctx, mcpReq: { ...ctx.mcpReq, _meta: meta, notify: () => Promise.resolve() } } as ServerContext;
}

/**
 * The SDK puts whole messages into some error texts ("Received a response for an
 * unknown message ID: {...}"), such as a user's answer to an elicitation, passwords
 * included. Keeps the id and the kind of the message, never its content.
 */
function withoutPayload(error: Error): Error {
  const match = /^([^{]*?):? (\{.*\})$/s.exec(error.message);
  if (match === null) return error;
  let message: Record<string, unknown> = {};
  try {
    message = JSON.parse(match[2]!) as Record<string, unknown>;
  } catch {
    // not JSON after all: the kind stays unknown
  }
  const kind =
    'result' in message
      ? 'a result'
      : 'error' in message
        ? 'an error'
        : typeof message['method'] === 'string'
          ? `method ${message['method'].slice(0, 80)}`
          : 'a message';
  const id = 'id' in message ? `request id ${JSON.stringify(message['id']).slice(0, 80)}` : 'no id';
  return new Error(`${match[1]} (${id}, ${kind}; its content is not logged)`);
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

/**
 * A 2026-07-28 `tools/list` response as the SDK would write it (the page,
 * `resultType`, the cache hints, the server's identity), as bytes up to its
 * request id, built once per toolset version: a stateless server answers a
 * list with no per-request serialisation. `undefined` for a cursor this server
 * did not give out (the SDK path then answers the error).
 */
export function listResponseHead(view: ToolView, options: McpServerOptions, cursor: unknown): Buffer | undefined {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const start = cursor === undefined ? 0 : cursorStart(cursor, view, pageSize);
  if (start === undefined) return undefined;
  const key = `${start}:${pageSize}`;
  let head = view.listJson.get(key);
  if (head === undefined) {
    const result = {
      ...view.page(start, pageSize),
      resultType: 'complete',
      ttlMs: options.toolsListTtlMs ?? DEFAULT_TOOLS_LIST_TTL_MS,
      cacheScope: options.toolsListCacheScope ?? (view.scoped ? 'private' : 'public'),
      _meta: { [SERVER_INFO_META_KEY]: { name: options.name ?? 'anytool', version: options.version ?? VERSION } },
    };
    head = Buffer.from(`{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":`);
    view.listJson.set(key, head);
  }
  return head;
}

/**
 * Where the page of `cursor` starts, if it is a cursor this server can have
 * given out for this view (a page boundary within the list): pages are cached
 * by where they start, so any other number would be a new cache entry on a
 * caller's say-so.
 */
function cursorStart(cursor: unknown, view: ToolView, pageSize: number): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match === null) return undefined;
  const start = Number(match[1]);
  return start % pageSize === 0 && start < view.definitions.length ? start : undefined;
}

function decodeCursor(cursor: string, view: ToolView, pageSize: number): number {
  const start = cursorStart(cursor, view, pageSize);
  if (start === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `tools/list: the cursor ${JSON.stringify(cursor.slice(0, 100))} is not one this server gave out; call tools/list without a cursor to start over`,
    );
  return start;
}

/**
 * One MCP connection's low-level SDK `Server`, answering `tools/list` (paged)
 * and `tools/call` from a toolset, in either protocol era. Each call runs with
 * a fresh `ExecutionContext` whose signal aborts when the client cancels;
 * progress the tool records goes out as `notifications/progress` when the
 * request carried a progress token; error events and `mcpSession(context).log()`
 * go out as MCP log messages. Tool failures of every kind are `isError`
 * results, never protocol errors.
 *
 * Most users call `serveMcp`; use this to connect a transport of your own, or
 * as the factory of the SDK's serving entries (`createMcpHandler`, `serveStdio`).
 *
 * @example
 * const server = createMcpServer(new Toolset(new WeatherTools()), { name: 'weather' });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(tools: Toolset | ToolSource | ServedTools, options: McpServerOptions = {}, serving?: Serving): Server {
  const served = tools instanceof ServedTools ? tools : new ServedTools(asToolset(tools), options);
  const ownsServed = !(tools instanceof ServedTools);
  const rounds = serving?.rounds ?? (ownsServed ? sharedRounds(served.toolset, options) : served.rounds);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `createMcpServer(): pageSize must be a positive integer, got ${String(pageSize)}`);
  }
  const ttlMs = options.toolsListTtlMs ?? DEFAULT_TOOLS_LIST_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs < 0)
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `createMcpServer(): toolsListTtlMs must be a whole number of milliseconds, 0 or more, got ${String(ttlMs)}`,
    );
  const logging = options.logging ?? true;
  const capabilities: ServerCapabilities = { tools: { listChanged: true } };
  if (logging) capabilities.logging = {};
  // The Tasks extension lives on the 2026-07-28 era (a legacy connection gets plain calls).
  const taskEra = serving?.era !== 'legacy';
  if (taskEra) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const tasks = (): TaskManager => (ownsServed ? sharedTasks(served.toolset, options) : served.tasks);
  const info = { name: options.name ?? 'anytool', version: options.version ?? VERSION };
  // A list that depends on who asks (callers are authenticated, or tools ask for scopes: a gate of the user's own
  // may hand in auth info) must not be shared between callers.
  const perCaller = serving?.authenticated === true || served.scoped;
  const cacheHints = { 'tools/list': { ttlMs, cacheScope: options.toolsListCacheScope ?? (perCaller ? 'private' : 'public') } } as const;
  const server = new ToolServer(
    info,
    options.instructions === undefined ? { capabilities, cacheHints } : { capabilities, cacheHints, instructions: options.instructions },
  );
  const connection: ConnectionState = { logging, logLevel: undefined };
  const onError = options.onError;
  if (onError) server.onerror = (error) => onError(withoutPayload(error));
  const eraOf = (): 'legacy' | 'modern' => serving?.era ?? ((server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28' ? 'modern' : 'legacy');

  if (logging) {
    // Replaces the SDK's own handler: the level is kept per connection (this server), which is what a call session reads.
    server.setRequestHandler('logging/setLevel', (request) => {
      connection.logLevel = request.params.level;
      return {};
    });
  }

  if (taskEra) {
    serveTaskMethods(server, tasks, serving?.owner);
    server.startTask = startTask;
    server.defersTask = (name) => {
      const tool = served.toolset.get(name);
      return tool !== undefined && tool.task !== false && tool.deferTask;
    };
  }

  server.setRequestHandler('tools/list', (request, ctx) => {
    const cursor = request.params?.cursor;
    // An authenticated caller sees the tools its scopes allow.
    const view = served.view(ctx.http?.authInfo?.scopes);
    return view.page(cursor === undefined ? 0 : decodeCursor(cursor, view, pageSize), pageSize);
  });

  server.setRequestHandler('tools/call', (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const params = request.params;
    const name = params.name;
    const args = ToolServer.rawArguments.has(request) ? ToolServer.rawArguments.get(request) : params.arguments;
    const authInfo = ctx.http?.authInfo;
    // The HTTP server refuses such a call with 403 before it gets here; a server behind another gate answers it so.
    if (authInfo !== undefined && !served.allows(name, authInfo.scopes)) return Promise.resolve(insufficientScope(name, authInfo.scopes));
    // Unknown to this caller: it hears only of the tools it may see, never of those hidden from it.
    if (authInfo !== undefined && !served.view(authInfo.scopes).has(name)) return Promise.resolve(unknownTool(name, authInfo.scopes));
    const era = eraOf();
    // The call continues the caller's trace (`params._meta`) under a span of its own.
    const traced = servedCallTelemetry(server, ctx, name, serving?.transport, options.telemetry);
    const pending =
      era === 'legacy'
        ? call(name, args, ctx, era, undefined, ctx.mcpReq.signal, traced.trace)
        : rounds.serve(ctx, serving?.owner, (round, signal) => call(name, args, ctx, era, round, signal, traced.trace));
    return traced.trace === undefined
      ? pending
      : pending.then(
          (result) => (traced.end(result as CallToolResult), result),
          (error: unknown) => {
            // A call that became a task: its span ends here, where its request was answered.
            traced.end(error instanceof TaskAnswer ? { content: [] } : undefined, error);
            throw error;
          },
        );
  });

  /**
   * A modern call of a task tool from a client that declares the Tasks
   * extension becomes a task: answered at once with the task, the tool runs on
   * (its progress is the task's status message, its questions the task's
   * `input_required`). Undefined (decided at once, no promise on a plain call's
   * path): a plain call.
   */
  function startTask(name: string, args: unknown, ctx: ServerContext): Promise<Result | undefined> | undefined {
    const tool = served.toolset.get(name);
    if (tool === undefined || tool.task === false || eraOf() !== 'modern') return undefined;
    const authInfo = ctx.http?.authInfo;
    // Outside the caller's scopes, or a round of a call already under way: the plain path answers it.
    if (authInfo !== undefined && !served.allows(name, authInfo.scopes)) return undefined;
    if (ctx.mcpReq.requestState() !== undefined) return undefined;
    if (!declaresTasks(ctx)) return tool.task === 'required' ? Promise.reject(tasksRequired(`tool "${name}"`)) : undefined;
    // The tool starts the task itself (`startTask()`), after the rounds it needs in the request.
    if (tool.deferTask) return undefined;
    return createTask(name, args, ctx, tool.resumable);
  }

  async function createTask(name: string, args: unknown, ctx: ServerContext, resumable: boolean): Promise<Result> {
    const quiet = quietContext(ctx);
    const record = await tasks().start(
      { tool: name, owner: serving?.owner, ctx: quiet, canAsk: (request) => checkAskable(ctx, request), resumable },
      (round, signal, progress) => call(name, args, quiet, 'modern', round, signal, undefined, progress),
    );
    return createTaskResult(record) as Result;
  }

  /**
   * Runs one tool call to its result; on the modern era its session asks
   * through `round`, and `ctx` is the first round's. `taskProgress` is given
   * for a call that runs as a task; a call of a `deferTask` tool may become one
   * on the way (`startTask()`).
   */
  function call(
    name: string,
    args: unknown,
    ctx: ServerContext,
    era: 'legacy' | 'modern',
    round: InputRound | undefined,
    signal: AbortSignal,
    trace: TraceContext | undefined,
    taskProgress?: (progress: TaskProgress) => void,
  ): Promise<CallToolResult> {
    const tool = served.toolset.get(name);
    const handOver = round?.handOver?.bind(round);
    if (taskProgress !== undefined || handOver === undefined || tool === undefined || tool.task === false || !tool.deferTask) {
      const session = new CallSession(server, ctx, connection, name, era, round, taskProgress !== undefined);
      return runCall(name, args, ctx, signal, trace, session, { progress: taskProgress });
    }
    // The tool's signal: the rounds' until the call becomes a task, then also the task's.
    const controller = new AbortController();
    const abort = (): void => controller.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    const toTask: { progress?: ((progress: TaskProgress) => void) | undefined } = {};
    const start = async (): Promise<boolean> => {
      const current = round!.ctx;
      if (!declaresTasks(current)) {
        if (tool.task === 'required') throw tasksRequired(`tool "${name}"`);
        return false;
      }
      await handOver(async () => {
        const quiet = quietContext(current);
        const record = await tasks().start(
          { tool: name, owner: serving?.owner, ctx: quiet, canAsk: (request) => checkAskable(current, request), resumable: tool.resumable },
          (task, taskSignal, progress) => {
            signal.removeEventListener('abort', abort);
            taskSignal.addEventListener('abort', () => controller.abort(taskSignal.reason), { once: true });
            session.becomeTask(task);
            toTask.progress = progress;
            // The rest of the call is the task's work.
            return outcome;
          },
        );
        return createTaskResult(record) as Result;
      });
      return true;
    };
    let started: Promise<boolean> | undefined;
    const session = new CallSession(server, ctx, connection, name, era, round, () => (started ??= start()));
    const outcome = runCall(name, args, ctx, controller.signal, trace, session, toTask);
    return outcome;
  }

  /** Runs the tool of a call with its session; its progress goes to `toTask.progress` once it runs as a task. */
  async function runCall(
    name: string,
    args: unknown,
    ctx: ServerContext,
    signal: AbortSignal,
    trace: TraceContext | undefined,
    session: CallSession,
    toTask: { progress?: ((progress: TaskProgress) => void) | undefined },
  ): Promise<CallToolResult> {
    const context = new ExecutionContext({ signal, trace });
    context.state.set(MCP_SESSION_KEY, session);
    const authInfo = ctx.http?.authInfo;
    if (authInfo !== undefined) context.state.set(MCP_AUTH_KEY, authOf(authInfo));
    const token = ctx.mcpReq._meta?.progressToken;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    // Notifications are sent asynchronously; the result waits until they are written, so none is sent after it.
    const sending: Promise<unknown>[] = [];
    const unsubscribe = context.subscribe((event: RunEvent) => {
      if (event.type === 'progress' && toTask.progress !== undefined) {
        toTask.progress(event);
      } else if (event.type === 'progress' && progressToken !== undefined) {
        const progress: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken, progress: event.progress };
        if (event.total !== undefined) progress.total = event.total;
        if (event.message !== undefined) progress.message = event.message;
        sending.push(session.ctx.mcpReq.notify({ method: 'notifications/progress', params: progress }).catch(report));
      } else if (event.type === 'error') {
        sending.push(session.log('error', { code: event.code, message: event.message, tool: event.tool ?? name }, 'anytool').catch(report));
      }
    });
    try {
      const callId = String(ctx.mcpReq.id);
      const maxErrorChars = options.maxErrorChars;
      const result = await served.toolset.invoke(name, args ?? {}, context, maxErrorChars === undefined ? { callId } : { callId, maxErrorChars });
      if (sending.length > 0) {
        await Promise.all(sending);
        // The SDK client handles a notification a microtask later but a response at once, so a progress notification
        // read in the same chunk as the response is dropped. Writing the response a moment later keeps them apart.
        await new Promise((resolve) => setTimeout(resolve, RESPONSE_AFTER_NOTIFICATIONS_MS));
      }
      if (!result.isError && !isRecord(result.structured) && served.promisesStructure(name)) {
        // A client checks structured content against the output schema and fails the whole call without it:
        // say what went wrong as a result instead.
        return {
          content: [
            {
              type: 'text',
              text: `Tool "${name}" declares an output schema but returned no structured object; it returned: ${resultText(result).slice(0, 500)}`,
            },
          ],
          isError: true,
        };
      }
      return toCallToolResult(result);
    } finally {
      unsubscribe();
    }
  }

  function unknownTool(name: string, held: readonly string[]): CallToolResult {
    const visible = served.view(held).definitions.map((definition) => definition.name);
    return toCallToolResult(errorResult(ErrorCode.UnknownTool, unknownToolText(visible, name)));
  }

  function insufficientScope(name: string, held: readonly string[]): CallToolResult {
    const needed = missingScopes(served.toolset.get(name)?.scopes, held);
    return {
      content: [{ type: 'text', text: `insufficient_scope: tool "${name}" needs the scope${needed.length === 1 ? '' : 's'} ${needed.join(' ')}` }],
      isError: true,
    };
  }

  function report(error: unknown): void {
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  const stopListening = served.onChange(() => {
    // Only a connected client can be told: an initialized legacy one, or a modern stdio connection (its open
    // subscriptions get it). A failed send (client gone) is not the toolset's problem.
    if (server.transport === undefined) return;
    if (eraOf() === 'legacy' && server.getClientCapabilities() === undefined) return;
    server.sendToolListChanged().catch(report);
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stopListening();
    if (ownsServed) served.dispose();
    previousOnClose?.();
  };
  return server;
}
