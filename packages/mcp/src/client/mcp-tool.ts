import { AnytoolError, BaseTool, ErrorCode, errorResult, type ExecutionContext, type JsonSchema, type ToolAnnotations, type ToolResult } from '@anytool/core';
import { canPause, compileValidator, formatProblems, type ArgsValidator } from '@anytool/core/internal';
import type { Progress, Tool as McpToolInfo } from '@modelcontextprotocol/client';
import { mcpSession } from '../shared/mcp-session.js';
import type { McpCallOptions, McpConnection } from './connection.js';
import type { McpTaskHandle, McpTaskStatus } from './tasks.js';
import { mapCallResult, type ResultOrigin } from './result-mapping.js';
import { CallProgress, progressEventLimits, type ProgressEventLimits } from './progress-events.js';
import type { OffloadedOutcome, OffloadedValidation } from './offloaded-validation.js';
import type { PausingCalls } from './paused-input.js';

/** Lets every argument through: a costly schema's arguments are validated off the event loop, in `execute`. */
const deferred = Object.assign(() => true, { problems: () => [] }) as ArgsValidator;

/** A task's new status (or status message) as the call's `seen`-th progress value. */
function taskProgress(seen: number, status: McpTaskStatus): { progress: number; message: string } {
  return { progress: seen, message: status.statusMessage ?? `task ${status.status}` };
}

/** MCP's `*Hint` annotations in the neutral form. */
function mapAnnotations(info: McpToolInfo): ToolAnnotations | undefined {
  const hints = info.annotations;
  if (hints === undefined) return undefined;
  const out: ToolAnnotations = {};
  if (hints.readOnlyHint !== undefined) out.readOnly = hints.readOnlyHint;
  if (hints.readOnlyHint === true) {
    if (hints.destructiveHint !== undefined) out.destructive = hints.destructiveHint;
    if (hints.idempotentHint !== undefined) out.idempotent = hints.idempotentHint;
  } else {
    // MCP's defaults for a tool that may write: destructiveHint true, idempotentHint false.
    out.destructive = hints.destructiveHint ?? true;
    out.idempotent = hints.idempotentHint ?? false;
  }
  if (hints.openWorldHint !== undefined) out.openWorld = hints.openWorldHint;
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The key of an MCP request's `params._meta` under which a client sends the run's
 * state keys its server is configured to receive (`contextMeta`): `{ key: value }`.
 */
export const CONTEXT_META_KEY = 'dev.anytool/context';

/** A value JSON carries as it is: anything else in a state key sent to a server is an error, not dropped. */
function jsonProblem(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `the number ${value}`;
  if (depth > 64) return 'a value nested too deeply (or cyclic)';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return `an instance of ${(value as object).constructor?.name ?? 'a class'}`;
    for (const item of Object.values(value)) {
      const problem = jsonProblem(item, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return `a ${typeof value}`;
}

/**
 * A tool that lives on an MCP server, as a `BaseTool`: it carries the server's
 * input schema, output schema, title and annotations, and `invoke` calls it on
 * the connection's kept session. Made by `McpToolset`; use it like any tool.
 */
export class McpTool extends BaseTool {
  /** The server's name in the configuration. */
  readonly server: string;
  /** The tool's name on its server (`name` may carry a prefix or be shortened). */
  readonly remoteName: string;
  /** The tool as the server described it in `tools/list`. */
  readonly info: McpToolInfo;
  /** Per-request timeout in milliseconds, restarted by every progress notification (when progress is asked for). */
  requestTimeoutMs: number | undefined;
  /**
   * Ask the server for progress notifications on every call (a progress token),
   * which become `progress` events of the run and restart the call's timeout.
   * Off by default, as in the SDK's own client: a request with a token costs the
   * server extra work on every call, which a quick tool feels. Without it a call
   * still asks for progress when it runs inside an MCP server call whose client
   * asked (a gateway passes progress through).
   */
  requestProgress: boolean;
  /** The run's state keys sent to the server with every call (`params._meta[CONTEXT_META_KEY]`); none by default. */
  readonly contextMeta: readonly string[];
  /** How much one call's progress (and task statuses) may add to the run's events: see `McpToolsetOptions.progressEvents`. */
  progressEvents: Required<ProgressEventLimits> = progressEventLimits(undefined, '');
  private readonly connection: McpConnection;
  private resultOrigin: ResultOrigin | undefined;
  /** The validation off the event loop of a schema that may cost more than linear time, and what makes it costly. */
  private offloaded: { validation: OffloadedValidation; feature: string } | undefined;
  /** With `elicitation: 'pause'`: the calls whose server's questions pause their runs. */
  private pausing: PausingCalls | undefined;

  constructor(
    connection: McpConnection,
    info: McpToolInfo,
    name: string,
    requestTimeoutMs?: number,
    requestProgress = false,
    trusted = false,
    contextMeta: readonly string[] = [],
  ) {
    const title = info.title ?? info.annotations?.title;
    const description =
      info.description !== undefined && info.description.trim() !== ''
        ? info.description
        : (title ?? `Tool "${info.name}" of the MCP server "${connection.name}".`);
    // The server controls the definition: approval pins it, and believes its annotations only when the server is trusted.
    // It records the server's progress as events, and reads only the state keys it is configured to send.
    super({
      name,
      description,
      parameters: info.inputSchema as Record<string, unknown>,
      origin: { protocol: 'mcp', server: connection.name, trusted },
      context: contextMeta.length === 0 ? { events: 'record' } : { events: 'record', state: { read: contextMeta } },
    });
    this.contextMeta = Object.freeze([...contextMeta]);
    if (title !== undefined) this.title = title;
    if (info.outputSchema !== undefined) this.outputSchema = info.outputSchema as Record<string, unknown>;
    const annotations = mapAnnotations(info);
    if (annotations !== undefined) this.annotations = annotations;
    this.source = `mcp ${connection.name}`;
    this.server = connection.name;
    this.remoteName = info.name;
    this.info = info;
    this.requestTimeoutMs = requestTimeoutMs;
    this.requestProgress = requestProgress;
    this.connection = connection;
    // The connection rejects a call the moment the run's signal aborts (and tells the server).
    // Progress may keep a call alive up to its total time, so a caller's default time limit (an agent's) applies too.
    this.settlesOnAbort = true;
  }

  /**
   * Calls the tool on the server; progress notifications (and a task's statuses) become `progress` events
   * of the run, within `progressEvents`; the run's trace goes along. Arguments of a schema that may cost
   * more than linear time to validate are validated first, off the event loop, within `validationTimeoutMs`.
   */
  execute(context: ExecutionContext, args: Record<string, unknown>): Promise<ToolResult> {
    const offloaded = this.offloaded;
    if (offloaded === undefined) return this.call(context, args);
    return offloaded.validation
      .check(args, this.connection.validationTimeoutMs, context.signal)
      .then((outcome) => ('args' in outcome ? this.call(context, outcome.args) : this.refusal(outcome, offloaded.feature)));
  }

  /**
   * The arguments as a call would send them: for a schema validated off the event loop, checked
   * there (defaults filled) as `execute` does, so an approval policy reads what the server would get.
   */
  override async checkArguments(rawArgs: unknown): Promise<{ args: Record<string, unknown> } | { result: ToolResult }> {
    const checked = await super.checkArguments(rawArgs);
    const offloaded = this.offloaded;
    if (offloaded === undefined || !('args' in checked)) return checked;
    const outcome = await offloaded.validation.check(checked.args, this.connection.validationTimeoutMs);
    return 'args' in outcome ? { args: outcome.args } : { result: this.refusal(outcome, offloaded.feature) };
  }

  /** The error result of arguments the validation off the event loop did not pass. */
  private refusal(outcome: Exclude<OffloadedOutcome, { args: Record<string, unknown> }>, feature: string): ToolResult {
    const where = `${this.label}: its input schema has ${feature}`;
    if ('problems' in outcome) {
      const lines = [`Invalid arguments for tool "${this.name}":`, formatProblems(outcome.problems)];
      if (outcome.more > 0) lines.push(`- and ${outcome.more} more problems`);
      lines.push('Fix the arguments and call the tool again.');
      return errorResult(ErrorCode.InvalidArguments, lines.join('\n'));
    }
    if ('aborted' in outcome)
      return errorResult(
        ErrorCode.Aborted,
        `Tool "${this.name}" was not run because the run was aborted.`,
        `${this.label} was not run: the run was aborted while its arguments were validated`,
      );
    if ('timedOut' in outcome)
      return errorResult(
        ErrorCode.InvalidArguments,
        `Invalid arguments for tool "${this.name}": they could not be checked against its schema in time, and were not sent. Send smaller or simpler arguments.`,
        `${where}; validating a call's arguments against it took over ${this.connection.validationTimeoutMs} ms (validationTimeoutMs) and was stopped, so the call did not reach the server. Fix the schema on the server, or raise validationTimeoutMs if such arguments are expected.`,
      );
    return errorResult(
      ErrorCode.InvalidArguments,
      `Invalid arguments for tool "${this.name}": they could not be checked against its schema, and were not sent.`,
      `${where}; validating a call's arguments against it off the event loop failed: ${outcome.failed}`,
    );
  }

  /** Calls the tool on the server with arguments that passed validation. */
  private call(context: ExecutionContext, args: Record<string, unknown>): Promise<ToolResult> {
    const wantsProgress = this.requestProgress || mcpSession(context)?.progressRequested === true;
    const origin = (this.resultOrigin ??= this.makeOrigin());
    const meta = this.contextMeta.length === 0 ? undefined : this.stateMeta(context);
    const options = { signal: context.signal, timeoutMs: this.requestTimeoutMs, trace: context.trace, meta };
    // A connection that pauses runs for its servers' questions: on the 2026-07-28 era every call may be asked one; on the 2025 era a call whose run can pause.
    if (this.connection.held !== undefined && (this.connection.era !== 'legacy' || canPause(context)))
      return this.callPausing(context, args, options, wantsProgress, origin);
    if (!wantsProgress) {
      // A call that became a task reports its statuses, paced by its polls: only their number is bounded.
      let statuses: CallProgress | undefined;
      let seen = 0;
      const onTaskStatus = (status: McpTaskStatus): void =>
        (statuses ??= new CallProgress(context, this.name, { ...this.progressEvents, minIntervalMs: 0 })).push(taskProgress(++seen, status));
      return this.connection.callToolMapped(this.remoteName, args, { ...options, onTaskStatus }, (result) => {
        statuses?.end();
        return mapCallResult(result, origin);
      });
    }
    const progress = new CallProgress(context, this.name, this.progressEvents);
    let seen = 0;
    const onprogress = (value: Progress): void => progress.push(value);
    const onTaskStatus = (status: McpTaskStatus): void => progress.push(taskProgress(++seen, status));
    // The run's trace (the tool call's span when traced): the server continues it.
    return this.connection
      .callToolMapped(this.remoteName, args, { ...options, onprogress, onTaskStatus }, (result) => mapCallResult(result, origin))
      .then(
        (result) => {
          // The latest value held back goes into the events before the call's result.
          progress.end();
          return result;
        },
        (error: unknown) => {
          progress.end();
          throw error;
        },
      );
  }

  /** A call whose server's questions pause its run (see `PausingCalls`), its progress recorded while this run waits for it. */
  private callPausing(
    context: ExecutionContext,
    args: Record<string, unknown>,
    options: McpCallOptions,
    wantsProgress: boolean,
    origin: ResultOrigin,
  ): Promise<ToolResult> {
    const { PausingCalls } = this.connection.internals;
    const pausing = (this.pausing ??= new PausingCalls(this.connection, {
      name: this.name,
      remoteName: this.remoteName,
      server: this.server,
      map: (result) => mapCallResult(result, origin),
    }));
    const progress = new CallProgress(context, this.name, wantsProgress ? this.progressEvents : { ...this.progressEvents, minIntervalMs: 0 });
    let seen = 0;
    const sent: McpCallOptions = { ...options, onTaskStatus: (status) => progress.push(taskProgress(++seen, status)) };
    if (wantsProgress) sent.onprogress = (value) => progress.push(value);
    const call = this.connection.era === 'legacy' ? pausing.held(context, args, sent) : pausing.rounds(context, args, sent);
    return call.finally(() => progress.end());
  }

  /** The configured state keys that are set, under `CONTEXT_META_KEY`. */
  private stateMeta(context: ExecutionContext): Record<string, unknown> {
    const sent: Record<string, unknown> = {};
    for (const key of this.contextMeta) {
      if (!context.state.has(key)) continue;
      const value = context.state.get(key);
      const problem = jsonProblem(value);
      if (problem !== undefined)
        throw new AnytoolError(
          ErrorCode.InvalidOptions,
          `${this.label}: state key ${JSON.stringify(key)} is configured to be sent to the server (contextMeta), but it holds ${problem}, which JSON cannot carry; store plain data under it, or leave it out of contextMeta`,
        );
      Object.defineProperty(sent, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return { [CONTEXT_META_KEY]: sent };
  }

  /**
   * Polls a task of this tool that an earlier client left running (a handle of
   * `McpToolset.pendingTasks()`) to its end; the result is mapped as a call's.
   */
  resume(handle: McpTaskHandle, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    const origin = (this.resultOrigin ??= this.makeOrigin());
    return this.connection.resumeTaskMapped(handle, { signal: options.signal, timeoutMs: this.requestTimeoutMs }, (result) => mapCallResult(result, origin));
  }

  /** The validator the connection compiled when it checked the listed tool: a schema is compiled once. */
  protected override compileParameters(parameters: JsonSchema): ArgsValidator {
    const { OffloadedValidation, costlyFeature, linearPatterns } = this.connection.internals;
    const validator = this.connection.validatorFor(this.info) ?? compileValidator(parameters, this.label, linearPatterns);
    // A schema whose validation may cost more than linear time would hold the event loop: it is validated off it.
    const feature = costlyFeature(parameters);
    this.offloaded = feature === undefined ? undefined : { validation: new OffloadedValidation(parameters), feature };
    return feature === undefined ? validator : deferred;
  }

  private makeOrigin(): ResultOrigin {
    let outputValidator: ArgsValidator | undefined;
    if (this.outputSchema !== undefined) {
      try {
        outputValidator = compileValidator(this.outputSchema, this.label, this.connection.internals.linearPatterns);
      } catch {
        // A schema that does not compile was reported when the toolset checked it; results pass unchecked.
        outputValidator = undefined;
      }
    }
    return { server: this.server, tool: this.name, outputValidator };
  }
}
