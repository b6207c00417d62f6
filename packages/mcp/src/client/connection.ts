import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError, type ArgsValidator } from '@anytool/core/internal';
import type { CallToolResult, Client, Implementation, InputRequiredResult, Tool as McpToolInfo, Transport } from '@modelcontextprotocol/client';
import type { CallPath, InputRound, McpCallOptions } from './call-path.js';
import type { ClientSetupHost, ElicitationOption, McpRoot, SamplingHandler } from './client-setup.js';
import type { HeldCall, HeldElicitations } from './held-elicitations.js';
import { isHttpConfig, type McpServerConfig } from './config.js';
import type { McpEra, McpProtocol } from './era.js';
import type { McpRestartOptions, SessionSupervisor } from './supervisor.js';
import type { McpTokenStore } from './auth/token-store.js';
import type { McpStore } from '../store/store.js';
import type { McpTaskHandle, TaskCreations } from './tasks.js';
import type { TaskCalls } from './task-calls.js';
import type { ToolCatalog } from './tool-catalog.js';
import type { McpTelemetryOptions } from './call-telemetry.js';
import { checkMaxTotalTimeout } from './progress-deadline.js';
import { loadImplementation, type ClientImplementation } from './load-implementation.js';

export type { McpCallOptions } from './call-path.js';
export type { ElicitationHandler, ElicitationOption, McpRoot, SamplingHandler } from './client-setup.js';
export type { McpRestartOptions } from './supervisor.js';

/** Options of a connection to one MCP server. */
export interface McpClientOptions {
  /** Sent in `initialize` (default `{ name: 'anytool', version: <package version> }`). */
  clientInfo?: Implementation;
  /** Default per-request timeout in milliseconds, reset whenever the server reports progress (default 60 000). */
  timeoutMs?: number;
  /**
   * The longest a call may run while its server keeps reporting progress (which restarts `timeoutMs`), in
   * milliseconds: the first progress after it cancels the call (`notifications/cancelled`) and the call fails
   * with `TIMEOUT`. Default 600 000 (10 minutes), or the call's timeout when that is longer; `Infinity` for none.
   */
  maxTotalTimeoutMs?: number;
  /** How long a server may take to start and answer `initialize` (default 30 000). */
  startTimeoutMs?: number;
  restart?: McpRestartOptions;
  /** Serves the servers' sampling requests; without it the client does not offer sampling and refuses such requests. */
  sampling?: SamplingHandler;
  /**
   * How the servers' questions to the user (elicitation) are answered; without it the client does not offer
   * elicitation and servers cannot ask. A handler answers during the call. `'pause'` pauses the call's run
   * with the question instead (as an agent's `approve: 'pause'` does with approvals): the run ends
   * `interrupted` with an `input` item showing the server's message and schema, and `resume` sends the answer
   * to the server. On the 2026-07-28 era the answer goes in a later round of the call (`inputResponses` and the
   * server's `requestState`), from any process; on the 2025 era the question is a request that lives in this
   * process only (see `heldElicitations`), and a resume elsewhere ends the call with `INPUT_EXPIRED`. A call
   * whose run cannot pause ends with `INPUT_REQUIRED` when its server asks.
   */
  elicitation?: ElicitationOption;
  /**
   * With `elicitation: 'pause'`, on 2025-era connections: how long a server's question is held open in this
   * process for the paused run's resume (`ttlMs`, default 600 000), and how many one connection holds at once
   * (`max`, default 100). Past `ttlMs` the server gets `cancel` and the call is cancelled; a question past `max`
   * ends its call with `SERVER_BUSY`. The call's own timeout (`timeoutMs`) still runs while a question is held.
   */
  heldElicitations?: { ttlMs?: number; max?: number };
  /** Roots offered to servers; give `[]` to offer the capability and set them later with `setRoots`. */
  roots?: McpRoot[];
  /**
   * Which protocol era to speak to every server (a server's own `protocol` wins): `auto` (the default) probes
   * with `server/discover` and falls back to the 2025 `initialize`; `legacy` and `modern` pin the era.
   */
  protocol?: McpProtocol;
  /** Sees each chunk a stdio server writes to stderr (it is captured, never printed). */
  onStderr?: (server: string, text: string) => void;
  /**
   * Put the last lines of a stdio server's stderr into the error result a model reads when
   * the server dies during a call, or cannot be started again for one (default false: a
   * server may log secrets there, so they go to the developer only, in the result's
   * `error.message`, the error's `detail` and the connection's `diagnostics`). A server's
   * own `stderrToModel` wins.
   */
  stderrToModel?: boolean;
  /**
   * The largest message read from a server, in bytes (default 10 MiB): a tool
   * result over it fails that call with `RESULT_TOO_LARGE`, without being held
   * in memory, and the connection stays up. A server's own `maxResultBytes` wins.
   */
  maxResultBytes?: number;
  /** A tool whose listing in `tools/list` is larger (bytes of JSON) is left out, with a diagnostic (default 262 144, 256 KiB). */
  maxToolBytes?: number;
  /** A tool whose listing nests objects and arrays deeper is left out, with a diagnostic (default 100). */
  maxToolDepth?: number;
  /**
   * How long, in milliseconds, the arguments of a call may take to validate against a tool's input
   * schema when that schema may cost more than linear time (`uniqueItems` over objects, combinators
   * that share definitions through `$ref`): such arguments are validated off the event loop, and a
   * call past this fails with `INVALID_ARGUMENTS` without reaching the server (default 500). A
   * server's own `validationTimeoutMs` wins.
   */
  validationTimeoutMs?: number;
  /**
   * The most tools a server may list in `tools/list` (default 1 000), and so the most pages
   * read (one more than this). Past it the server is not started (`MCP_TOOL_LIST_LIMIT`), or,
   * after a `tools/list_changed`, keeps the tools it had. A server's own `maxTools` wins.
   */
  maxTools?: number;
  /**
   * The most JSON a server's whole `tools/list` may be, in bytes over every page (default
   * 16 MiB); past it as past `maxTools`. A server's own `maxToolListBytes` wins.
   */
  maxToolListBytes?: number;
  /**
   * Where the OAuth tokens of servers with `auth` settings are kept, unless a server's
   * `auth.store` names another (default: in memory, for the life of the process).
   * `new FileTokenStore(path)` keeps them across runs in a file only its owner may read.
   */
  tokenStore?: McpTokenStore;
  /**
   * Where the spans and metrics of MCP requests go (`tools/call {tool}` spans of
   * kind CLIENT, `mcp.client.operation.duration`): the globally registered
   * OpenTelemetry SDK unless given. With neither, nothing is recorded.
   */
  telemetry?: McpTelemetryOptions;
  /**
   * Offer servers of the 2026-07-28 era the tasks extension (`io.modelcontextprotocol/tasks`, default true): a
   * server may then answer a long call with a task, which the client polls to its end (`tasks/get`). Without it
   * every call is a plain `tools/call`, bound by its timeout.
   */
  tasks?: boolean;
  /**
   * A cap on the whole life of a call that became a task, in milliseconds, counted from its creation (default:
   * none; each poll is still bound by `timeoutMs`). When it runs out the task is cancelled and the call fails
   * with `TIMEOUT`. A server's own `taskTimeoutMs` wins.
   */
  taskTimeoutMs?: number;
  /** The longest wait between two polls of a task, whatever interval the server asks for (default 30 000). */
  maxTaskPollIntervalMs?: number;
  /**
   * Where the handles of running tasks are kept (default: nowhere). With a store shared by the client's runs
   * (a `RedisStore`, say), a client started again finds the tasks its predecessor left running with
   * `pendingTasks()` and polls them to their end with `resumeTask()`.
   */
  taskHandles?: McpStore;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TASK_POLL_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 30_000;
/** A server whose user signs in (OAuth authorization code) may wait for that during its first request. */
const SIGN_IN_START_TIMEOUT_MS = 300_000;
const MAX_DIAGNOSTICS = 100;
const DEFAULT_MAX_TOOLS = 1_000;
const DEFAULT_MAX_TOOL_LIST_BYTES = 16 * 1024 * 1024;

/** The validation deadline of the options: a positive number of milliseconds a timer can wait. */
function validationTimeout(value: number | undefined, { DEFAULT_VALIDATION_TIMEOUT_MS, MAX_TIMER_MS }: ClientImplementation): number {
  if (value === undefined) return DEFAULT_VALIDATION_TIMEOUT_MS;
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS)
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `MCP client options: "validationTimeoutMs" must be a positive number of milliseconds up to ${MAX_TIMER_MS} (got ${JSON.stringify(value) ?? String(value)})`,
    );
  return value;
}

/** An option that is a count (a positive whole number), or undefined when not given; anything else is refused. */
function count(value: number | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new AnytoolError(ErrorCode.InvalidOptions, `MCP client options: "${option}" must be a positive whole number (got ${JSON.stringify(value)})`);
  return value;
}

/** A server's text in an error message, cut short: the message is for a model to read. */
function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/**
 * One kept connection to one MCP server, over stdio or HTTP. It is opened once
 * and reused for every call; when a stdio server dies, the calls in flight fail
 * at once with `MCP_CONNECTION_CLOSED` and the next call starts the server again
 * (with backoff, a bounded number of attempts); an HTTP session the server
 * forgot (404) is initialized again. The server's stderr is captured, not
 * printed, and its tail goes into start errors.
 *
 * Most code uses `McpToolset`, which holds one connection per server.
 *
 * @example
 * await using everything = await McpConnection.open('everything', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] });
 * const result = await everything.callTool('echo', { message: 'hi' });
 */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  /**
   * Problems seen on the connection (unparseable lines on stdout, transport errors, restarts, tools
   * left out of the list and why), oldest first, the last 100.
   */
  readonly diagnostics: string[] = [];
  /**
   * The client's implementation this connection was built with (implementation.ts, loaded by the first `open()`). Its
   * tools and toolsets read it here rather than from their own module: one made by another copy of the package (its
   * ES module or CommonJS build) uses the copy that opened the connection.
   * @internal
   */
  readonly internals: ClientImplementation;
  private readonly options: McpClientOptions;
  /** Starts, restarts and closes the session; holds its client. */
  private readonly supervisor: SessionSupervisor;
  private roots: McpRoot[];
  private readonly authListeners = new Set<(error: AnytoolError) => void>();
  private readonly defaultTimeout: number;
  /** Masks the credentials of an HTTP server's URL in a text. */
  private readonly redact: (text: string) => string;
  /** The server's tools, read at each start and after each change. */
  private readonly catalog: ToolCatalog;
  /**
   * How long validating a call's arguments off the event loop may take (see `McpClientOptions.validationTimeoutMs`).
   * @internal
   */
  readonly validationTimeoutMs: number;
  /** Answers with a task, taken from the transport before the SDK refuses them. */
  private readonly taskCreations: TaskCreations;
  /** The calls that became tasks: followed to their end, their handles kept. */
  private readonly tasks: TaskCalls;
  /** One call, from its options to its result or coded error. */
  private readonly calls: CallPath;
  /**
   * With `elicitation: 'pause'`: the calls in flight and the 2025-era questions held for paused runs.
   * @internal
   */
  readonly held: HeldElicitations | undefined;
  /** A session opened whose `subscriptions/listen` stream is not open yet (see `opened`). */
  private unlistened: Client | undefined;
  /** Answers a server's input request with the connection's handlers (sampling, roots, elicitation). */
  private readonly answer: (method: string, params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

  private constructor(name: string, config: McpServerConfig, options: McpClientOptions, implementation: ClientImplementation) {
    const {
      CallPath,
      DEFAULT_HELD_TTL_MS,
      DEFAULT_MAX_HELD,
      DEFAULT_MAX_RESULT_BYTES,
      DEFAULT_MAX_TOOL_BYTES,
      DEFAULT_MAX_TOOL_DEPTH,
      HeldElicitations,
      MAX_TIMER_MS,
      SessionSupervisor,
      TaskCalls,
      TaskCreations,
      ToolCatalog,
      answerInput,
      checkRestartOptions,
      createClient,
      positive,
      redactor,
    } = implementation;
    this.internals = implementation;
    this.name = name;
    this.config = config;
    this.options = options;
    this.roots = options.roots ?? [];
    this.taskCreations = new TaskCreations();
    const maxPollInterval = positive(options.maxTaskPollIntervalMs, DEFAULT_MAX_TASK_POLL_MS, 'maxTaskPollIntervalMs');
    checkRestartOptions(options.restart ?? {});
    this.defaultTimeout = positive(config.timeoutMs, positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs'), 'timeoutMs');
    this.redact = isHttpConfig(config) ? redactor(config.url) : (text) => text;
    const taskTimeout = config.taskTimeoutMs ?? options.taskTimeoutMs;
    // What the SDK client of each session offers the server, and how its requests are answered.
    const elicitation: unknown = options.elicitation;
    if (elicitation !== undefined && elicitation !== 'pause' && typeof elicitation !== 'function')
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `MCP client options: "elicitation" must be a function answering each question, or 'pause' to pause the call's run with it (got ${JSON.stringify(elicitation) ?? typeof elicitation})`,
      );
    this.held =
      elicitation === 'pause'
        ? new HeldElicitations(
            name,
            {
              ttlMs: Math.min(positive(options.heldElicitations?.ttlMs, DEFAULT_HELD_TTL_MS, 'heldElicitations.ttlMs'), MAX_TIMER_MS),
              max: count(options.heldElicitations?.max, 'heldElicitations.max') ?? DEFAULT_MAX_HELD,
            },
            (message) => this.note(message),
          )
        : undefined;
    const setup: ClientSetupHost = {
      name,
      options,
      roots: () => this.roots,
      toolsChanged: (client) => this.catalog.scheduleRefresh(client, this.defaultTimeout),
      heldElicitation: (params, signal) => this.held!.ask(params, signal),
    };
    this.answer = (method, params, signal) => answerInput(setup, method, params, signal);
    this.tasks = new TaskCalls(
      {
        name,
        session: () => this.supervisor.session(),
        closed: () => this.supervisor.closed,
        defaultTimeout: this.defaultTimeout,
        taskTimeout: taskTimeout !== undefined && taskTimeout > 0 ? taskTimeout : undefined,
        maxPollInterval,
        answer: this.answer,
        redact: this.redact,
        note: (message) => this.note(message),
        noteOnce: (message) => this.noteOnce(message),
      },
      options.taskHandles,
    );
    this.validationTimeoutMs = validationTimeout(config.validationTimeoutMs ?? options.validationTimeoutMs, implementation);
    this.catalog = new ToolCatalog(
      {
        name,
        current: () => this.client,
        note: (message) => this.note(message),
        noteOnce: (message) => this.noteOnce(message),
        quote: (text, max) => this.quote(text, max),
      },
      {
        tool: {
          maxToolBytes: positive(options.maxToolBytes, DEFAULT_MAX_TOOL_BYTES, 'maxToolBytes'),
          maxToolDepth: positive(options.maxToolDepth, DEFAULT_MAX_TOOL_DEPTH, 'maxToolDepth'),
        },
        list: {
          maxTools: config.maxTools ?? count(options.maxTools, 'maxTools') ?? DEFAULT_MAX_TOOLS,
          maxBytes: config.maxToolListBytes ?? count(options.maxToolListBytes, 'maxToolListBytes') ?? DEFAULT_MAX_TOOL_LIST_BYTES,
        },
      },
    );
    this.supervisor = new SessionSupervisor(
      {
        name,
        config,
        createClient: (negotiation) => createClient(setup, negotiation),
        opened: (client, startTimeout, restarted) => this.opened(client, startTimeout, restarted),
        note: (message) => this.note(message),
        noteOnce: (message) => this.noteOnce(message),
        redact: this.redact,
      },
      {
        protocol: config.protocol ?? options.protocol ?? 'auto',
        startTimeout: positive(
          config.startTimeoutMs,
          positive(
            options.startTimeoutMs,
            isHttpConfig(config) && config.auth?.type === 'authorization_code' ? SIGN_IN_START_TIMEOUT_MS : DEFAULT_START_TIMEOUT_MS,
            'startTimeoutMs',
          ),
          'startTimeoutMs',
        ),
        maxResultBytes: positive(config.maxResultBytes, positive(options.maxResultBytes, DEFAULT_MAX_RESULT_BYTES, 'maxResultBytes'), 'maxResultBytes'),
        restart: options.restart ?? {},
        onStderr: options.onStderr,
        stderrToModel: (isHttpConfig(config) ? undefined : config.stderrToModel) ?? options.stderrToModel ?? false,
        tokenStore: options.tokenStore,
      },
    );
    this.calls = new CallPath(
      {
        name,
        config,
        supervisor: this.supervisor,
        mirrored: () => this.catalog.mirrored,
        taskCreations: this.taskCreations,
        tasks: this.tasks,
        note: (message) => this.note(message),
        noteOnce: (message) => this.noteOnce(message),
        quote: (text) => this.quote(text),
        redact: this.redact,
        authFailed: (error) => this.authFailed(error),
      },
      { defaultTimeout: this.defaultTimeout, maxTotalTimeout: options.maxTotalTimeoutMs, telemetry: options.telemetry },
    );
  }

  /** Starts (or connects to) the server, initializes the session and reads every page of its tools. */
  static async open(name: string, config: McpServerConfig, options: McpClientOptions = {}): Promise<McpConnection> {
    checkMaxTotalTimeout(options.maxTotalTimeoutMs, `MCP server "${name}"`);
    const connection = new McpConnection(name, config, options, await loadImplementation());
    await connection.supervisor.open();
    return connection;
  }

  /** The server's tools as it describes them, every page of `tools/list`. */
  get tools(): readonly McpToolInfo[] {
    return this.catalog.tools;
  }

  /**
   * The SDK client of the open session (undefined while none is open), for what
   * the tools do not cover: resources, prompts, completions. Do not close it;
   * close the connection.
   */
  get sdkClient(): Client | undefined {
    return this.client;
  }

  /** The client of the open session, undefined while none is open. */
  private get client(): Client | undefined {
    return this.supervisor.client;
  }

  /** The transport of the open session. */
  private get transport(): Transport | undefined {
    return this.supervisor.openTransport;
  }

  /** True while a session is open. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /**
   * The protocol era the server speaks (`legacy`: 2025, `initialize` and sessions;
   * `modern`: 2026-07-28, `server/discover`), once connected. Found once, by a
   * probe unless the server's `protocol` pins it, and kept for the connection's
   * life: restarts and new sessions do not probe again.
   */
  get era(): McpEra | undefined {
    return this.supervisor.verdict?.era;
  }

  /** The pid of the stdio server's process while it runs. */
  get pid(): number | undefined {
    return this.internals.stdioPid(this.transport);
  }

  /** How many times the server was started (or connected to); more than 1 after restarts. */
  get starts(): number {
    return this.supervisor.starts;
  }

  /** What the server wrote to stderr since it was last started (the last 16 KB). */
  get stderr(): string {
    return this.supervisor.stderr;
  }

  get serverInfo(): Implementation | undefined {
    return this.client?.getServerVersion();
  }

  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /**
   * Calls `listener` when a call failed for want of authorization (`MCP_AUTH_FAILED`):
   * `McpToolset` marks the server broken in its warnings. Returns the unsubscribe function.
   */
  onAuthFailure(listener: (error: AnytoolError) => void): () => void {
    this.authListeners.add(listener);
    return () => this.authListeners.delete(listener);
  }

  /** Calls `listener` after the server's tool list changed (and was read again); returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void {
    return this.catalog.onChanged(listener);
  }

  /**
   * Calls a tool on the kept session. The signal cancels the request (the server
   * gets `notifications/cancelled`); the timeout restarts on every progress
   * notification. Failures throw `AnytoolError`s: `TIMEOUT`,
   * `MCP_CONNECTION_CLOSED`, `MCP_CONNECT_FAILED`, `MCP_PROTOCOL_ERROR`, `ABORTED`,
   * `RESULT_TOO_LARGE` (over `maxResultBytes`), `PAYLOAD_TOO_LARGE` (arguments
   * over the server's request limit, HTTP 413), `MCP_INVALID_RESULT` (a result
   * that breaks the MCP schema; a content part of a type this client does not know
   * is kept as a text part instead, with a diagnostic). A call a 2026-07-28
   * server answers with a task is followed to its end (see `followTask`): the
   * timeout then bounds each poll, `taskTimeoutMs` the task's whole life.
   */
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    this.listenNow();
    const sent = this.calls.call(name, args, options, undefined) as Promise<CallToolResult>;
    return this.held === undefined ? sent : this.held.track(sent);
  }

  /**
   * `callTool`, with `map` applied to the result in the same promise step:
   * `McpTool`'s hot path, one microtask shorter. An error thrown by `map`
   * rejects the returned promise as it is.
   * @internal
   */
  callToolMapped<T>(name: string, args: Record<string, unknown>, options: McpCallOptions, map: (result: CallToolResult) => T): Promise<T> {
    this.listenNow();
    const sent = this.calls.call(name, args, options, map) as Promise<T>;
    return this.held === undefined ? sent : this.held.track(sent);
  }

  /**
   * One round of a call whose questions the caller answers (`elicitation: 'pause'`, 2026-07-28
   * era): an `input_required` answer comes back as it is (see `InputRound`).
   * @internal
   */
  callRound(name: string, args: Record<string, unknown>, options: McpCallOptions, round: InputRound): Promise<CallToolResult | InputRequiredResult> {
    this.listenNow();
    const sent = this.calls.call(name, args, options, undefined, round) as Promise<CallToolResult | InputRequiredResult>;
    return this.held === undefined ? sent : this.held.track(sent);
  }

  /**
   * A call of a run that may pause on a 2025-era connection with `elicitation: 'pause'`: the
   * questions its server asks during it go to `call` (see `HeldElicitations`).
   * @internal
   */
  callHeld(name: string, args: Record<string, unknown>, options: McpCallOptions, call: HeldCall): Promise<CallToolResult> {
    this.listenNow();
    const sent = this.calls.call(name, args, options, undefined) as Promise<CallToolResult>;
    return this.held === undefined ? sent : this.held.track(sent, call);
  }

  /**
   * Answers a server's input request (`sampling/createMessage`, `roots/list`) with the
   * connection's handlers; throws when it has none for it.
   * @internal
   */
  answerRequest(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this.answer(method, params, signal);
  }

  /**
   * Whether `answerRequest` has a handler for `method`.
   * @internal
   */
  answers(method: string): boolean {
    if (method === 'sampling/createMessage') return this.options.sampling !== undefined;
    if (method === 'roots/list') return this.options.roots !== undefined;
    return method === 'elicitation/create' && typeof this.options.elicitation === 'function';
  }

  /**
   * The handles of this server's tasks that a client left running (this one, or
   * one before it that used the same `taskHandles` store); empty without a store.
   */
  pendingTasks(): Promise<McpTaskHandle[]> {
    return this.tasks.pending();
  }

  /**
   * Polls a task started earlier (a handle from `pendingTasks()`, kept by a
   * client that has since stopped) to its end, and returns the tool's result
   * as `callTool` would have. The signal cancels the task (`tasks/cancel`).
   */
  resumeTask(handle: McpTaskHandle, options: McpCallOptions = {}): Promise<CallToolResult> {
    return this.resumeTaskMapped(handle, options, (result) => result);
  }

  /**
   * `resumeTask`, with `map` applied to the result.
   * @internal
   */
  resumeTaskMapped<T>(handle: McpTaskHandle, options: McpCallOptions, map: (result: CallToolResult) => T): Promise<T> {
    this.listenNow();
    return this.calls.resume(handle, options, map);
  }

  /** Reads every page of `tools/list` again and tells the listeners. */
  async refreshTools(): Promise<void> {
    this.listenNow();
    await this.catalog.refresh(await this.supervisor.session(), this.defaultTimeout);
  }

  /** Replaces the roots and tells the server (`notifications/roots/list_changed`). Needs the `roots` option at open. */
  async setRoots(roots: McpRoot[]): Promise<void> {
    if (this.options.roots === undefined) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `MCP server "${this.name}": setRoots() needs the client to offer roots; pass { roots: [] } (or the first roots) when connecting`,
      );
    }
    this.roots = roots;
    if (this.client !== undefined) await this.client.sendRootsListChanged();
  }

  /**
   * Ends the session and the server's process with everything it started.
   * Calls in flight fail with `MCP_CONNECTION_CLOSED`. A restart in progress is
   * cut short: the server being started is killed and the backoff wait ends.
   */
  close(): Promise<void> {
    // Held questions go first: their requests end with the session.
    this.held?.close();
    return this.supervisor.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** A session was opened: its tools are read (listeners told when a restart changed them), and changes listened for. */
  private async opened(client: Client, startTimeout: number, restarted: boolean): Promise<void> {
    this.internals.speedUpClient(client, (problem) => this.note(problem));
    // Only the 2026-07-28 era has the tasks extension; a legacy server's answers are read by the SDK alone.
    if (this.options.tasks !== false && client.getProtocolEra() === 'modern' && client.transport !== undefined) this.taskCreations.watch(client.transport);
    await this.catalog.opened(client, startTimeout, restarted);
    // Listening starts once the open has returned (its caller has the tools sooner), or before the first request
    // sent on the session if that comes first, so a change that request makes still reaches the stream.
    this.unlistened = client;
    setImmediate(() => this.listenNow());
  }

  /** Opens the `subscriptions/listen` stream of the session opened last, unless already done (see `opened`). */
  private listenNow(): void {
    const client = this.unlistened;
    if (client === undefined) return;
    this.unlistened = undefined;
    if (this.client === client && !this.supervisor.closed) this.listenForChanges(client);
  }

  /**
   * On the modern era a server tells of changes only on a `subscriptions/listen`
   * stream the client opens; its `tools/list_changed` then reaches the same
   * handler as on the legacy era. A stream the server dropped is opened again
   * (once per drop) while the session lasts.
   */
  private listenForChanges(client: Client): void {
    if (client.getProtocolEra() !== 'modern' || client.getServerCapabilities()?.tools?.listChanged !== true) return;
    client.listen({ toolsListChanged: true }).then(
      (subscription) =>
        void subscription.closed.then((how) => {
          if (how === 'remote' && this.client === client && !this.supervisor.closed) {
            this.note('the server ended the subscriptions/listen stream for tools/list_changed: opening it again');
            this.listenForChanges(client);
          }
        }),
      (error: unknown) => {
        if (this.client === client && !this.supervisor.closed)
          this.note(`could not subscribe to tools/list_changed (subscriptions/listen): ${describeError(error)}`);
      },
    );
  }

  /**
   * The argument validator compiled for a tool of `tools` when it was checked.
   * @internal
   */
  validatorFor(info: McpToolInfo): ArgsValidator | undefined {
    return this.catalog.validatorFor(info);
  }

  /** A text from the server or the SDK for a message: credentials masked, then cut short. */
  private quote(text: string, max = 500): string {
    return clip(this.redact(text), max);
  }

  private note(message: string): void {
    // Capped: a diagnostic may quote what the server sent (the SDK's "unknown message ID" quotes the whole response).
    this.diagnostics.push(this.quote(message, 2_000));
    if (this.diagnostics.length > MAX_DIAGNOSTICS) this.diagnostics.splice(0, this.diagnostics.length - MAX_DIAGNOSTICS);
  }

  /**
   * Notes a problem unless it is already among the diagnostics: every read of the
   * list meets a bad tool again. `McpToolset` reports the tools it leaves out here.
   * @internal
   */
  noteOnce(message: string): void {
    if (!this.diagnostics.includes(message)) this.note(message);
  }

  /** A call failed for want of authorization: noted once, and told to the listeners. */
  private authFailed(denied: AnytoolError): void {
    this.noteOnce(denied.message);
    for (const listener of this.authListeners) {
      try {
        listener(denied);
      } catch (listenerError) {
        this.note(`an auth-failure listener threw: ${describeError(listenerError)}`);
      }
    }
  }
}
