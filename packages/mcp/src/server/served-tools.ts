import { AnytoolError, ErrorCode, Toolset, isToolset, type McpToolDefinition, type ToolSource } from '@anytool/core';
import { maxErrorCharsProblem, toError } from '@anytool/core/internal';
import type { ListToolsResult } from '@modelcontextprotocol/server';
import { InputRounds } from './input-rounds.js';
import { paramHeaders, type ParamHeader } from './param-headers.js';
import { compileServedPatterns } from './served-patterns.js';
import { MemoryStore } from '../store/memory-store.js';
import { TaskManager, checkTaskOptions, type TaskOptions } from './tasks/task-manager.js';
import { encodeCursor } from './tool-list-pages.js';
import type { McpServerOptions } from './tool-server.js';

/** Turns anything a Toolset takes into a Toolset (a Toolset is used as it is, so its changes are followed). */
export function asToolset(tools: Toolset | ToolSource): Toolset {
  return isToolset(tools) ? tools : new Toolset(tools);
}

/** An error no caller awaits (closing the tasks on dispose): to `onError`, else a process warning, never an unhandled rejection. */
export function reportUnawaited(options: McpServerOptions, error: unknown): void {
  const reported = toError(error);
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
    maxQueued: options.maxTasksQueued,
    maxResultBytes: options.maxTaskResultBytes,
    graceMs: options.taskGraceMs,
    answerWithinMs: options.taskAnswerWithinMs,
    queue: options.taskQueue,
  };
}

/** The tasks of task tools served with `options`, kept in its `store` (else a `MemoryStore` of their own). */
export function taskManager(options: McpServerOptions): TaskManager {
  return new TaskManager(options.store ?? new MemoryStore(), taskOptions(options), options.onError);
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

  /** The calls waiting for their task's end (`taskAnswerWithinMs`) are answered with the task now: the endpoint is closing. */
  stopAnswering(): void {
    this.taskManager?.stopAnswering();
  }

  /** Ends the tasks running here (marked failed: the server stopped) and the store this made for itself. */
  async closeTasks(): Promise<void> {
    const tasks = this.taskManager;
    if (tasks === undefined) return;
    await tasks.close();
    if (this.options.store === undefined) await tasks.store.close();
  }
}
