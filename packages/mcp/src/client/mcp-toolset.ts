import { AnytoolError, ErrorCode, type DynamicToolSource, type ToolResult } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/client';
import { readMcpServers, type McpServerConfig, type McpServersConfig } from './config.js';
import { McpConnection, type McpClientOptions } from './connection.js';
import { McpTool } from './mcp-tool.js';
import type { McpTaskHandle } from './tasks.js';
import { hintedBudget, type ResultSizeHints } from './result-size-hint.js';
import { mcpToolName } from './tool-names.js';
import { checkMaxTotalTimeout } from './progress-deadline.js';
import { progressEventLimits, type ProgressEventLimits } from './progress-events.js';

/** Options of `McpToolset.connect`: the connection options plus naming. */
export interface McpToolsetOptions extends McpClientOptions {
  /**
   * Name every tool `<server>_<tool>`. Without it, two servers with a tool of the same name are an
   * error at connect; a server that lists such a tool later finds it left out (with a warning):
   * the tool that held the name keeps it.
   */
  prefix?: boolean;
  /**
   * Ask servers for progress notifications on every call (default false), so they
   * become `progress` events of the run and restart the timeout; a server's own
   * `progress` setting wins. See `McpTool.requestProgress`.
   */
  progress?: boolean;
  /**
   * Honour each server's per-tool result size hint (`_meta["anthropic/maxResultSizeChars"]`,
   * as Claude Code does): it sets that tool's output budget in characters, never above
   * `maxChars` (500 000 by default). A trusted server's hint (see `trusted`) takes the place
   * of the toolset's and the agent's budgets, lower or higher; an untrusted server's may only
   * lower them. `false` ignores the hints. On by default.
   */
  resultSizeHints?: ResultSizeHints;
  /**
   * Believe these servers' tool annotations (default false; a server's own
   * `trusted` setting wins). An untrusted server's tools all need approval in an
   * agent, whatever their `readOnlyHint` or `destructiveHint` say: MCP's hints
   * come from the server, and only a server you trust may exempt a tool.
   */
  trusted?: boolean;
  /**
   * The run's `context.state` keys sent with every call to every server, in
   * `params._meta["dev.anytool/context"]` (see `CONTEXT_META_KEY`); a server's own
   * `contextMeta` wins. Default: none, and nothing of the run's state is sent.
   */
  contextMeta?: readonly string[];
  /**
   * How much one call's progress notifications (and a task's statuses) may add to the run's
   * events: at most one `progress` event per `minIntervalMs` (100), at most `maxPerCall`
   * (1 000) a call, messages cut to `maxMessageChars` (1 000). What is held back is not lost:
   * the latest value is recorded once the interval has passed, or when the call ends.
   */
  progressEvents?: ProgressEventLimits;
}

/**
 * The tools of one or more MCP servers as a dynamic tool source: put it in a
 * `Toolset` next to local tools and the toolset follows each server's
 * `tools/list_changed`. One kept connection per server.
 *
 * @example
 * await using mcp = await McpToolset.connect({
 *   mcpServers: { filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] } },
 * }, { prefix: true });
 * const toolset = new Toolset(calculator, mcp);
 * await toolset.invoke('filesystem_list_directory', { path: '/tmp' }, context);
 */
export class McpToolset implements DynamicToolSource {
  /** Tools left out of the list and why (also in their connection's `diagnostics`), each said once. */
  readonly warnings: string[] = [];
  private readonly connectionsByName: ReadonlyMap<string, McpConnection>;
  private readonly options: McpToolsetOptions;
  private current: McpTool[] = [];
  private byName = new Map<string, McpTool>();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribes: Array<() => void> = [];

  private constructor(connections: readonly McpConnection[], options: McpToolsetOptions) {
    this.connectionsByName = new Map(connections.map((c) => [c.name, c]));
    this.options = options;
    this.rebuild(true);
    for (const connection of connections) {
      this.unsubscribes.push(
        connection.onToolsChanged(() => {
          this.rebuild(false);
          this.notify();
        }),
        // A server whose authorization failed stays in the toolset (its other calls may still work, a sign-in may fix it): it is marked in the warnings.
        connection.onAuthFailure((error) => this.warn(`MCP server "${connection.name}" is failing authorization: ${error.message}`)),
      );
    }
  }

  /**
   * Connects to every server of a desktop-style `mcpServers` configuration (the
   * object, its JSON text, or a bare map of name to configuration), in parallel.
   * If any server fails to start, the others are closed and the error (with
   * the server's stderr tail) is thrown.
   */
  static async connect(config: McpServersConfig | Record<string, McpServerConfig> | string, options: McpToolsetOptions = {}): Promise<McpToolset> {
    progressEventLimits(options.progressEvents, 'McpToolset.connect()');
    checkMaxTotalTimeout(options.maxTotalTimeoutMs, 'McpToolset.connect()');
    const servers = readMcpServers(config);
    const opened = await Promise.allSettled([...servers].map(([name, server]) => McpConnection.open(name, server, options)));
    const connections = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const failures = opened.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    if (failures.length > 0) {
      await Promise.all(connections.map((c) => c.close()));
      if (failures.length === 1) throw failures[0];
      throw new AnytoolError(
        ErrorCode.McpConnectFailed,
        `${failures.length} MCP servers could not be started:\n${failures.map((f) => `- ${describeError(f)}`).join('\n')}`,
        { cause: failures[0] },
      );
    }
    try {
      return new McpToolset(connections, options);
    } catch (error) {
      await Promise.all(connections.map((c) => c.close()));
      throw error;
    }
  }

  /** A toolset over connections already open (the toolset closes them on `close()`). */
  static from(connections: readonly McpConnection[], options: McpToolsetOptions = {}): McpToolset {
    try {
      return new McpToolset(connections, options);
    } catch (error) {
      void Promise.all(connections.map((c) => c.close()));
      throw error;
    }
  }

  /** Every tool of every server, named for the model. */
  get tools(): readonly McpTool[] {
    return this.current;
  }

  get names(): string[] {
    return this.current.map((t) => t.name);
  }

  get(name: string): McpTool | undefined {
    return this.byName.get(name);
  }

  /** The connection to a server, by its name in the configuration. */
  connection(server: string): McpConnection | undefined {
    return this.connectionsByName.get(server);
  }

  get connections(): McpConnection[] {
    return [...this.connectionsByName.values()];
  }

  /**
   * The tasks a client left running on these servers, from the `taskHandles`
   * store (empty without one): after a restart, resume each with `resumeTask`.
   */
  async pendingTasks(): Promise<McpTaskHandle[]> {
    return (await Promise.all(this.connections.map((c) => c.pendingTasks()))).flat();
  }

  /**
   * Polls a task an earlier client started (a handle of `pendingTasks()`) to its
   * end, and returns its result as the tool's call would have.
   */
  resumeTask(handle: McpTaskHandle, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    const tool = this.current.find((t) => t.server === handle.server && t.remoteName === handle.tool);
    if (tool !== undefined) return tool.resume(handle, options);
    const connection = this.connectionsByName.get(handle.server);
    if (connection === undefined)
      return Promise.reject(
        new AnytoolError(ErrorCode.UnknownServer, `Task "${handle.taskId}" belongs to MCP server "${handle.server}", which is not in this toolset.`),
      );
    return Promise.reject(
      new AnytoolError(ErrorCode.UnknownTool, `Task "${handle.taskId}" is of tool "${handle.tool}", which MCP server "${handle.server}" no longer lists.`),
    );
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Ends every session and every server process. The tool list becomes empty
   * and subscribers are told, so a `Toolset` holding this one drops its tools.
   */
  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    if (this.current.length > 0) {
      this.current = [];
      this.byName = new Map();
      this.notify();
    }
    await Promise.all(this.connections.map((c) => c.close()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private timeoutFor(connection: McpConnection, info: McpToolInfo): number | undefined {
    return connection.config.toolTimeouts?.[info.name] ?? connection.config.timeoutMs ?? this.options.timeoutMs;
  }

  /**
   * Makes the tool list from the servers' lists (whose tools the connections checked already).
   * A tool that cannot work here is left out with a note (in `warnings` and its connection's
   * `diagnostics`): one only an MCP task can run, and the later of two tools whose names become
   * the same. The tool that held a name keeps it while its server lists it, whatever the order of
   * the servers and of their lists: a server that later lists a tool of the same name cannot take
   * the name (and the approval given to it) from the one the model has been calling. Two servers
   * with a tool of the same name are a configuration problem with a fix (prefixing): `strict`
   * (at connect) throws, later the newcomer is left out.
   */
  private rebuild(strict: boolean): void {
    const previous = new Map(this.current.map((t) => [`${t.server}\u0000${t.remoteName}`, t]));
    const holders = new Map(this.current.map((t) => [t.name, t]));
    const candidates: Array<{ connection: McpConnection; info: McpToolInfo; name: string }> = [];
    const prefix = this.options.prefix === true;
    for (const connection of this.connectionsByName.values()) {
      for (const info of connection.tools) {
        if (info.execution?.taskSupport === 'required') {
          this.leaveOut(connection, info, 'it can only run as an MCP task, which this client does not drive');
          continue;
        }
        candidates.push({ connection, info, name: mcpToolName(connection.name, info.name, prefix) });
      }
    }
    const holds = (c: (typeof candidates)[number]): boolean => {
      const holder = holders.get(c.name);
      return holder?.server === c.connection.name && holder.remoteName === c.info.name;
    };
    const byName = new Map<string, McpTool>();
    for (const { connection, info, name } of [...candidates.filter(holds), ...candidates.filter((c) => !holds(c))]) {
      const held = byName.get(name);
      if (held?.server === connection.name) {
        this.leaveOut(
          connection,
          info,
          `the server's tool "${held.remoteName}" has the same name once made valid for providers ("${name}"); rename one on the server`,
        );
        continue;
      }
      if (held !== undefined) {
        const both = `MCP servers "${held.server}" and "${connection.name}" both have a tool named "${name}"; pass { prefix: true } to name tools <server>_<tool>`;
        if (strict) throw new AnytoolError(ErrorCode.DuplicateTool, both);
        this.warn(`${both} ("${held.server}"'s tool keeps the name; "${connection.name}"'s was left out)`, connection);
        continue;
      }
      byName.set(name, this.reuse(previous.get(`${connection.name}\u0000${info.name}`), connection, info, name));
    }
    // The new list keeps the servers' order.
    this.current = candidates.flatMap(({ connection, info, name }) => {
      const tool = byName.get(name);
      return tool !== undefined && tool.server === connection.name && tool.remoteName === info.name ? [tool] : [];
    });
    this.byName = byName;
  }

  private leaveOut(connection: McpConnection, info: McpToolInfo, why: string): void {
    this.warn(`MCP server "${connection.name}": tool ${connection.internals.toolLabel(info.name)} was left out: ${why}`, connection);
  }

  /** The tool held before when the server describes it as before (same name, same listing), else a new one. */
  private reuse(old: McpTool | undefined, connection: McpConnection, info: McpToolInfo, name: string): McpTool {
    if (old !== undefined && old.name === name && (old.info === info || JSON.stringify(old.info) === JSON.stringify(info))) return old;
    const trusted = connection.config.trusted ?? this.options.trusted ?? false;
    const tool = new McpTool(
      connection,
      info,
      name,
      this.timeoutFor(connection, info),
      connection.config.progress ?? this.options.progress ?? false,
      trusted,
      connection.config.contextMeta ?? this.options.contextMeta,
    );
    tool.progressEvents = progressEventLimits(this.options.progressEvents, 'McpToolset');
    const budget = hintedBudget(info, this.options.resultSizeHints, trusted, (message) => this.warn(`MCP server "${connection.name}": ${message}`, connection));
    return budget === undefined ? tool : tool.use(budget);
  }

  private warn(message: string, connection?: McpConnection): void {
    // A rebuild after each list_changed meets the same problems again; say each once.
    if (!this.warnings.includes(message)) this.warnings.push(message);
    connection?.noteOnce(message);
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.warn(`a listener threw: ${describeError(error)}`);
      }
    }
  }
}
