import { AnytoolError, ErrorCode, ExecutionContext, errorResult, resultText, type RunEvent, type Toolset, type ToolSource } from '@anytool/core';
import { isRecord, toError, unknownToolText } from '@anytool/core/internal';
import type {
  AuthInfo,
  CacheScope,
  CallToolResult,
  InputRequiredResult,
  ListToolsResult,
  LoggingLevel,
  Result,
  ServerCapabilities,
  ServerContext,
  Server,
} from '@modelcontextprotocol/server';
import type { Context as TraceContext } from '@opentelemetry/api';
import { InputRounds, TaskAnswer, type InputRound } from './input-rounds.js';
import { MCP_SESSION_KEY } from '../shared/mcp-session.js';
import { CallSession, type ConnectionState } from './call-session.js';
import { MCP_AUTH_KEY, authOf, missingScopes } from './auth.js';
import { toCallToolResult } from './result-content.js';
import { servedCallTelemetry, type ServedCallTelemetry } from './call-telemetry.js';
import { checkTelemetryOptions, type McpTelemetryOptions } from '../telemetry/mcp-telemetry.js';
import type { McpStore } from '../store/store.js';
import { TASKS_EXTENSION, createTaskResult } from './tasks/record.js';
import type { QueuedTaskRunner, TaskManager, TaskProgress } from './tasks/task-manager.js';
import type { BullmqTaskQueue, TaskJob } from './tasks/bullmq-queue.js';
import { checkAskable, declaresTasks, serveTaskMethods, tasksRequired } from './tasks/serve-tasks.js';
import { RawArgumentsServer } from './raw-arguments-server.js';
import { ServedTools, asToolset, taskManager } from './served-tools.js';
import { withoutPayload } from './sdk-error-payload.js';
import { DEFAULT_PAGE_SIZE, DEFAULT_TOOLS_LIST_TTL_MS, decodeCursor } from './tool-list-pages.js';
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
  /**
   * The task queue tasks run on (`new BullmqTaskQueue({ url })`, which needs the `bullmq`
   * package): a task becomes a job that any worker process runs, and outlives the process
   * that started it. When a worker dies, a task of an idempotent tool
   * (`annotations.idempotent`) runs again elsewhere, one of a `resumable` tool resumes from its
   * last checkpoint, any other fails saying why. Give the processes one `store` too (a
   * `RedisStore`): the tasks' records stay there. Default none: a task runs in the process
   * that started it, and fails if that process stops.
   */
  taskQueue?: BullmqTaskQueue;
  /** With `taskQueue`: this process runs queued tasks too (a worker). Default true; false only serves (starts tasks, answers for them). */
  taskWorker?: boolean;
  /** With `taskQueue`: the most tasks waiting for a worker; a call past it is refused (-32000, `SERVER_BUSY`). Default 10,000. */
  maxTasksQueued?: number;
  /** The largest result a task keeps (its JSON), in bytes; a larger one fails the task (`RESULT_TOO_LARGE`). Also bounds a checkpoint. Default 4 MiB. */
  maxTaskResultBytes?: number;
  /**
   * How long a call that starts a task waits for the task to end, in milliseconds (2026-07-28
   * era): a task that completes within it is answered with its result, as a plain call (the Tasks
   * extension's immediate-result path), and is not kept; any other is answered with the task when
   * the wait is over (at once when it failed). For task tools that often return at once: their
   * clients skip the polls. A closing server answers the waiting calls with their tasks first; a
   * process killed inside the wait loses the answer while the task goes on (as a plain call's
   * would): keep it short, or use it for tools that are safe to call again. Default 0: every such
   * call is answered with its task at once.
   */
  taskAnswerWithinMs?: number;
  /**
   * With `taskQueue`, on close (SIGTERM): how long the tasks this process runs get to finish, in
   * milliseconds; then those of idempotent or resumable tools go back to the queue for another
   * worker, the others fail, saying why. Default 20 s.
   */
  taskGraceMs?: number;
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

const RESPONSE_AFTER_NOTIFICATIONS_MS = 5;

/** One tool call being served: what the tool is called with, and where it runs. */
interface ServedCall {
  name: string;
  args: unknown;
  /** The request; on the 2026-07-28 era, the first round's. */
  ctx: ServerContext;
  era: 'legacy' | 'modern';
  /** On the 2026-07-28 era, the round the call's session asks through. */
  round: InputRound | undefined;
  /** Aborts when the client cancels (or the call's rounds or task end). */
  signal: AbortSignal;
  trace: TraceContext | undefined;
  /** Given for a call that runs as a task: where its progress goes (the task's status message). */
  taskProgress?: ((progress: TaskProgress) => void) | undefined;
}

/** Where a call's progress goes once it runs as a task (a `deferTask` call becomes one on the way). */
interface TaskProgressSink {
  progress?: ((progress: TaskProgress) => void) | undefined;
}

/**
 * The handlers of one MCP connection's SDK `Server`, a method per concern:
 * listing tools (paged, per caller's scopes), calling one (scopes, era, input
 * rounds, telemetry), calls that become tasks, progress and error events sent
 * to the client, the client's log level, and tool changes. `createMcpServer`
 * makes one and hands out its `server`.
 */
export class McpToolServer {
  readonly server: RawArgumentsServer;
  private readonly served: ServedTools;
  /** The served tools were made for this server alone (not handed in): it disposes of them when it closes. */
  private readonly ownsServed: boolean;
  private readonly rounds: InputRounds;
  private readonly pageSize: number;
  private readonly connection: ConnectionState;

  constructor(
    tools: Toolset | ToolSource | ServedTools,
    private readonly options: McpServerOptions = {},
    private readonly serving?: Serving,
  ) {
    checkTelemetryOptions(options.telemetry, 'createMcpServer()');
    this.served = tools instanceof ServedTools ? tools : new ServedTools(asToolset(tools), options);
    this.ownsServed = !(tools instanceof ServedTools);
    this.rounds = serving?.rounds ?? (this.ownsServed ? sharedRounds(this.served.toolset, options) : this.served.rounds);
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) {
      throw new AnytoolError(ErrorCode.InvalidOptions, `createMcpServer(): pageSize must be a positive integer, got ${String(this.pageSize)}`);
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
    const info = { name: options.name ?? 'anytool', version: options.version ?? VERSION };
    // A list that depends on who asks (callers are authenticated, or tools ask for scopes: a gate of the user's own
    // may hand in auth info) must not be shared between callers.
    const perCaller = serving?.authenticated === true || this.served.scoped;
    const cacheHints = { 'tools/list': { ttlMs, cacheScope: options.toolsListCacheScope ?? (perCaller ? 'private' : 'public') } } as const;
    const server = (this.server = new RawArgumentsServer(
      info,
      options.instructions === undefined ? { capabilities, cacheHints } : { capabilities, cacheHints, instructions: options.instructions },
    ));
    this.connection = { logging, logLevel: undefined };
    const onError = options.onError;
    if (onError) server.onerror = (error) => onError(withoutPayload(error));
    // Replaces the SDK's own handler: the level is kept per connection (this server), which is what a call session reads.
    if (logging) server.setRequestHandler('logging/setLevel', (request) => this.setLogLevel(request.params.level));
    if (taskEra) this.serveTasks();
    server.setRequestHandler('tools/list', (request, ctx) => this.listTools(request.params?.cursor, ctx));
    server.setRequestHandler('tools/call', (request, ctx) => this.callTool(request.params.name, RawArgumentsServer.argumentsOf(request), ctx));
    this.followToolChanges();
  }

  /** The era of the connection: the serving entry's, else the negotiated protocol version's. */
  private era(): 'legacy' | 'modern' {
    return this.serving?.era ?? ((this.server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28' ? 'modern' : 'legacy');
  }

  private tasks(): TaskManager {
    return this.ownsServed ? sharedTasks(this.served.toolset, this.options) : this.served.tasks;
  }

  private setLogLevel(level: LoggingLevel): Result {
    this.connection.logLevel = level;
    return {};
  }

  /** `tools/list`: a page of the tools the caller sees (an authenticated caller, those its scopes allow). */
  private listTools(cursor: string | undefined, ctx: ServerContext): ListToolsResult {
    const view = this.served.view(ctx.http?.authInfo?.scopes);
    return view.page(cursor === undefined ? 0 : decodeCursor(cursor, view, this.pageSize), this.pageSize);
  }

  /**
   * `tools/call`: refused when outside the caller's scopes; else run (on the
   * 2026-07-28 era through its input rounds) under a span that continues the
   * caller's trace.
   */
  private callTool(name: string, args: unknown, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const refusal = this.scopeRefusal(name, ctx.http?.authInfo);
    if (refusal !== undefined) return Promise.resolve(refusal);
    const era = this.era();
    // The call continues the caller's trace (`params._meta`) under a span of its own.
    const traced = servedCallTelemetry({ server: this.server, ctx, tool: name, transport: this.serving?.transport, options: this.options.telemetry });
    const trace = traced.trace;
    const pending =
      era === 'legacy'
        ? this.call({ name, args, ctx, era, round: undefined, signal: ctx.mcpReq.signal, trace })
        : this.rounds.serve(ctx, this.serving?.owner, (round, signal) => this.call({ name, args, ctx, era, round, signal, trace }));
    return trace === undefined ? pending : endSpan(pending, traced);
  }

  /** Why an authenticated caller may not call `name` (as a result the model reads), if it may not. */
  private scopeRefusal(name: string, authInfo: AuthInfo | undefined): CallToolResult | undefined {
    if (authInfo === undefined) return undefined;
    // The HTTP server refuses such a call with 403 before it gets here; a server behind another gate answers it so.
    if (!this.served.allows(name, authInfo.scopes)) return this.insufficientScope(name, authInfo.scopes);
    // Unknown to this caller: it hears only of the tools it may see, never of those hidden from it.
    if (!this.served.view(authInfo.scopes).has(name)) return this.unknownTool(name, authInfo.scopes);
    return undefined;
  }

  private unknownTool(name: string, held: readonly string[]): CallToolResult {
    const visible = this.served.view(held).definitions.map((definition) => definition.name);
    return toCallToolResult(errorResult(ErrorCode.UnknownTool, unknownToolText(visible, name)));
  }

  private insufficientScope(name: string, held: readonly string[]): CallToolResult {
    const needed = missingScopes(this.served.toolset.get(name)?.scopes, held);
    return {
      content: [{ type: 'text', text: `insufficient_scope: tool "${name}" needs the scope${needed.length === 1 ? '' : 's'} ${needed.join(' ')}` }],
      isError: true,
    };
  }

  /** The Tasks extension (2026-07-28 era): its methods, and the hooks by which a call becomes a task. */
  private serveTasks(): void {
    serveTaskMethods(this.server, () => this.tasks(), this.serving?.owner);
    this.server.startTask = (name, args, ctx) => this.startTask(name, args, ctx);
    this.server.defersTask = (name) => {
      const tool = this.served.toolset.get(name);
      return tool !== undefined && tool.task !== false && tool.deferTask;
    };
  }

  /**
   * A modern call of a task tool from a client that declares the Tasks
   * extension becomes a task: answered at once with the task, the tool runs on
   * (its progress is the task's status message, its questions the task's
   * `input_required`). Undefined (decided at once, no promise on a plain call's
   * path): a plain call.
   */
  private startTask(name: string, args: unknown, ctx: ServerContext): Promise<Result | undefined> | undefined {
    const tool = this.served.toolset.get(name);
    if (tool === undefined || tool.task === false || this.era() !== 'modern') return undefined;
    const authInfo = ctx.http?.authInfo;
    // Outside the caller's scopes, or a round of a call already under way: the plain path answers it.
    if (authInfo !== undefined && !this.served.allows(name, authInfo.scopes)) return undefined;
    if (ctx.mcpReq.requestState() !== undefined) return undefined;
    if (!declaresTasks(ctx)) return tool.task === 'required' ? Promise.reject(tasksRequired(`tool "${name}"`)) : undefined;
    // The tool starts the task itself (`startTask()`), after the rounds it needs in the request.
    if (tool.deferTask) return undefined;
    if (this.tasks().queue !== undefined)
      return this.queueTask(name, args, ctx, tool.resumable ? 'resumable' : tool.annotations?.idempotent === true ? 'idempotent' : undefined);
    return this.createTask(name, args, ctx, tool.resumable);
  }

  /** A task on the task queue: its job carries what a worker needs to run the tool as this request would have. */
  private async queueTask(name: string, args: unknown, ctx: ServerContext, rerun: TaskJob['rerun']): Promise<Result> {
    const job: Omit<TaskJob, 'taskId'> = { tool: name, args };
    if (rerun !== undefined) job.rerun = rerun;
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    if (envelope !== undefined) job.envelope = envelope;
    const authInfo = ctx.http?.authInfo;
    if (authInfo !== undefined) {
      // The bearer token stays here: a worker needs who called and what they may do, not their credential.
      const { token: _token, ...who } = authInfo;
      job.authInfo = who as Record<string, unknown>;
    }
    const tasks = this.tasks();
    const record = await tasks.enqueue({ owner: this.serving?.owner, job, answering: true });
    return (await tasks.answerWithin(record)) ?? (createTaskResult(record) as Result);
  }

  /** How this server's worker runs the tools of queued tasks: as `createTask`'s work, under a request made from the job. */
  queuedTaskRunner(): QueuedTaskRunner {
    return {
      context: (job) => {
        const ctx = jobContext(job);
        return { ctx, canAsk: (request) => checkAskable(ctx, request) };
      },
      run: (job, round, signal, taskProgress) =>
        this.call({ name: job.tool, args: job.args, ctx: round.ctx, era: 'modern', round, signal, trace: undefined, taskProgress }),
    };
  }

  private async createTask(name: string, args: unknown, ctx: ServerContext, resumable: boolean): Promise<Result> {
    const quiet = quietContext(ctx);
    const tasks = this.tasks();
    const record = await tasks.start(
      { tool: name, owner: this.serving?.owner, ctx: quiet, canAsk: (request) => checkAskable(ctx, request), resumable, answering: true },
      (round, signal, taskProgress) => this.call({ name, args, ctx: quiet, era: 'modern', round, signal, trace: undefined, taskProgress }),
    );
    return (await tasks.answerWithin(record)) ?? (createTaskResult(record) as Result);
  }

  /**
   * Runs one tool call to its result; on the modern era its session asks
   * through `round`. A call of a `deferTask` tool may become a task on the way
   * (`startTask()`).
   */
  private call(call: ServedCall): Promise<CallToolResult> {
    const tool = this.served.toolset.get(call.name);
    const handOver = call.round?.handOver?.bind(call.round);
    if (call.taskProgress !== undefined || handOver === undefined || tool === undefined || tool.task === false || !tool.deferTask) {
      const session = this.session(call, call.taskProgress !== undefined);
      return this.runCall(call, call.signal, session, { progress: call.taskProgress });
    }
    return this.callDeferringTask(call, tool.task === 'required', tool.resumable, handOver);
  }

  /** A call of a `deferTask` tool: a plain call until the tool calls `startTask()`, then the rest of it runs as a task. */
  private callDeferringTask(call: ServedCall, required: boolean, resumable: boolean, handOver: NonNullable<InputRound['handOver']>): Promise<CallToolResult> {
    const { name, signal } = call;
    // The tool's signal: the rounds' until the call becomes a task, then also the task's.
    const controller = new AbortController();
    const abort = (): void => controller.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    const toTask: TaskProgressSink = {};
    const start = async (): Promise<boolean> => {
      const current = call.round!.ctx;
      if (!declaresTasks(current)) {
        if (required) throw tasksRequired(`tool "${name}"`);
        return false;
      }
      await handOver(async () => {
        const quiet = quietContext(current);
        const record = await this.tasks().start(
          { tool: name, owner: this.serving?.owner, ctx: quiet, canAsk: (request) => checkAskable(current, request), resumable },
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
    const session = this.session(call, () => (started ??= start()));
    const outcome = this.runCall(call, controller.signal, session, toTask);
    return outcome;
  }

  private session(call: ServedCall, starter: (() => Promise<boolean>) | boolean): CallSession {
    return new CallSession({
      server: this.server,
      ctx: call.ctx,
      connection: this.connection,
      toolName: call.name,
      era: call.era,
      round: call.round,
      starter,
    });
  }

  /** Runs the tool of a call with its session; its progress goes to `toTask.progress` once it runs as a task. */
  private async runCall(call: ServedCall, signal: AbortSignal, session: CallSession, toTask: TaskProgressSink): Promise<CallToolResult> {
    const { name, ctx } = call;
    const context = new ExecutionContext({ signal, trace: call.trace });
    context.state.set(MCP_SESSION_KEY, session);
    const authInfo = ctx.http?.authInfo;
    if (authInfo !== undefined) context.state.set(MCP_AUTH_KEY, authOf(authInfo));
    // Notifications are sent asynchronously; the result waits until they are written, so none is sent after it.
    const sending: Promise<unknown>[] = [];
    const unsubscribe = context.subscribe(this.eventsToClient(call, session, toTask, sending));
    try {
      const callId = String(ctx.mcpReq.id);
      const maxErrorChars = this.options.maxErrorChars;
      const result = await this.served.toolset.invoke(name, call.args ?? {}, context, maxErrorChars === undefined ? { callId } : { callId, maxErrorChars });
      if (sending.length > 0) {
        await Promise.all(sending);
        // The SDK client handles a notification a microtask later but a response at once, so a progress notification
        // read in the same chunk as the response is dropped. Writing the response a moment later keeps them apart.
        await new Promise((resolve) => setTimeout(resolve, RESPONSE_AFTER_NOTIFICATIONS_MS));
      }
      if (!result.isError && !isRecord(result.structured) && this.served.promisesStructure(name)) {
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

  /**
   * What a call's events send to the client: progress as `notifications/progress`
   * when the request carried a progress token (a task's progress to the task),
   * errors as log messages. Each send is pushed to `sending`.
   */
  private eventsToClient(call: ServedCall, session: CallSession, toTask: TaskProgressSink, sending: Promise<unknown>[]): (event: RunEvent) => void {
    const token = call.ctx.mcpReq._meta?.progressToken;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    const report = (error: unknown): void => this.report(error);
    return (event) => {
      if (event.type === 'progress' && toTask.progress !== undefined) {
        toTask.progress(event);
      } else if (event.type === 'progress' && progressToken !== undefined) {
        const progress: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken, progress: event.progress };
        if (event.total !== undefined) progress.total = event.total;
        if (event.message !== undefined) progress.message = event.message;
        sending.push(session.ctx.mcpReq.notify({ method: 'notifications/progress', params: progress }).catch(report));
      } else if (event.type === 'error') {
        sending.push(session.log('error', { code: event.code, message: event.message, tool: event.tool ?? call.name }, 'anytool').catch(report));
      }
    };
  }

  /**
   * Tells the client when the tools change, and stops following them when the
   * server closes (disposing of served tools made for this server alone).
   */
  private followToolChanges(): void {
    const server = this.server;
    const stopListening = this.served.onChange(() => {
      // Only a connected client can be told: an initialized legacy one, or a modern stdio connection (its open
      // subscriptions get it). A failed send (client gone) is not the toolset's problem.
      if (server.transport === undefined) return;
      if (this.era() === 'legacy' && server.getClientCapabilities() === undefined) return;
      server.sendToolListChanged().catch((error: unknown) => this.report(error));
    });
    const previousOnClose = server.onclose;
    server.onclose = () => {
      stopListening();
      if (this.ownsServed) this.served.dispose();
      previousOnClose?.();
    };
  }

  private report(error: unknown): void {
    this.options.onError?.(toError(error));
  }
}

/** Ends a traced call's span when its answer settles; a call that became a task ends it where its request was answered. */
function endSpan<T extends CallToolResult | InputRequiredResult>(pending: Promise<T>, traced: ServedCallTelemetry): Promise<T> {
  return pending.then(
    (result) => (traced.end(result as CallToolResult), result),
    (error: unknown) => {
      traced.end(error instanceof TaskAnswer ? { content: [] } : undefined, error);
      throw error;
    },
  );
}

/**
 * A task's view of the request that started it: that request is answered
 * (with the task) while the tool runs on, so nothing more can go out on it.
 * The client learns of progress by polling.
 */
/**
 * The request a queued task's tool runs under on a worker: the starting request's envelope (what
 * the client declared) and caller, no connection (notifications go nowhere; questions go through
 * the task's round). The tool's signal is the task's; nothing reads this request's.
 */
function jobContext(job: TaskJob): ServerContext {
  const unreachable = (): Promise<never> =>
    Promise.reject(
      new AnytoolError(ErrorCode.McpProtocolError, `tool "${job.tool}": a queued task has no connection to its client; questions go through the task`),
    );
  const ctx: Record<string, unknown> = {
    sessionId: undefined,
    mcpReq: {
      id: job.taskId,
      method: 'tools/call',
      _meta: {},
      envelope: job.envelope,
      signal: new AbortController().signal,
      notify: () => Promise.resolve(),
      send: unreachable,
      requestSampling: unreachable,
      elicitInput: unreachable,
      requestState: () => undefined,
    },
  };
  if (job.authInfo !== undefined) ctx['http'] = { authInfo: { ...job.authInfo, token: '' } };
  // The parts of a ServerContext a served call reads (CallSession, runCall); the SDK's type has more, used by transports only.
  return ctx as unknown as ServerContext;
}

function quietContext(ctx: ServerContext): ServerContext {
  const { progressToken: _token, ...meta } = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
  return { ...ctx, mcpReq: { ...ctx.mcpReq, _meta: meta, notify: () => Promise.resolve() } } as ServerContext;
}

/** `createMcpServer` of the package (lazy-server.ts, which loads this module on first use), and of the serving entries here. */
export function createMcpServer(tools: Toolset | ToolSource | ServedTools, options: McpServerOptions = {}, serving?: Serving): Server {
  return new McpToolServer(tools, options, serving).server;
}
