import { BaseTool, type ExecutionContext, type JsonSchema, type RunEventInput, type ToolAnnotations, type ToolResult } from '@anytool/core';
import { compileValidator, type ArgsValidator } from '@anytool/core/internal';
import type { Progress, Tool as McpToolInfo } from '@modelcontextprotocol/client';
import { mcpSession } from '../shared/mcp-session.js';
import type { McpConnection } from './connection.js';
import type { McpTaskHandle, McpTaskStatus } from './tasks.js';
import { mapCallResult, type ResultOrigin } from './result-mapping.js';

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
  private readonly connection: McpConnection;
  private resultOrigin: ResultOrigin | undefined;

  constructor(connection: McpConnection, info: McpToolInfo, name: string, requestTimeoutMs?: number, requestProgress = false, trusted = false) {
    const title = info.title ?? info.annotations?.title;
    const description =
      info.description !== undefined && info.description.trim() !== ''
        ? info.description
        : (title ?? `Tool "${info.name}" of the MCP server "${connection.name}".`);
    // The server controls the definition: approval pins it, and believes its annotations only when the server is trusted.
    super({ name, description, parameters: info.inputSchema as Record<string, unknown>, origin: { protocol: 'mcp', server: connection.name, trusted } });
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
    this.settlesOnAbort = true;
    // Its request timeout (restarted by progress) ends every call: an agent's default tool timeout does not apply.
    this.ownDeadline = true;
  }

  /** Calls the tool on the server; progress notifications become `progress` events of the run; the run's trace goes along. */
  execute(context: ExecutionContext, args: Record<string, unknown>): Promise<ToolResult> {
    const wantsProgress = this.requestProgress || mcpSession(context)?.progressRequested === true;
    const onprogress = wantsProgress ? this.progressRecorder(context) : undefined;
    const origin = (this.resultOrigin ??= this.makeOrigin());
    const onTaskStatus = this.taskRecorder(context);
    // The run's trace (the tool call's span when traced): the server continues it.
    return this.connection.callToolMapped(
      this.remoteName,
      args,
      { signal: context.signal, timeoutMs: this.requestTimeoutMs, onprogress, onTaskStatus, trace: context.trace },
      (result) => mapCallResult(result, origin),
    );
  }

  /**
   * Polls a task of this tool that an earlier client left running (a handle of
   * `McpToolset.pendingTasks()`) to its end; the result is mapped as a call's.
   */
  resume(handle: McpTaskHandle, options: { signal?: AbortSignal } = {}): Promise<ToolResult> {
    const origin = (this.resultOrigin ??= this.makeOrigin());
    return this.connection.resumeTaskMapped(handle, { signal: options.signal, timeoutMs: this.requestTimeoutMs }, (result) => mapCallResult(result, origin));
  }

  /** A call the server turned into a task reports each new status (and status message) as a `progress` event. */
  private taskRecorder(context: ExecutionContext): (status: McpTaskStatus) => void {
    const callId = context.callId;
    let seen = 0;
    return (status) => {
      const event: RunEventInput = { type: 'progress', tool: this.name, progress: ++seen, message: status.statusMessage ?? `task ${status.status}` };
      if (callId !== undefined) event.callId = callId;
      context.record(event);
    };
  }

  /** The validator the connection compiled when it checked the listed tool: a schema is compiled once. */
  protected override compileParameters(parameters: JsonSchema): ArgsValidator {
    return this.connection.validatorFor(this.info) ?? super.compileParameters(parameters);
  }

  /** Records each progress notification as a `progress` event; the per-call context's id keeps concurrent calls apart. */
  private progressRecorder(context: ExecutionContext): (progress: Progress) => void {
    const callId = context.callId;
    return (progress) => {
      const event: RunEventInput = { type: 'progress', tool: this.name, progress: progress.progress };
      if (callId !== undefined) event.callId = callId;
      if (progress.total !== undefined) event.total = progress.total;
      if (progress.message !== undefined) event.message = progress.message;
      context.record(event);
    };
  }

  private makeOrigin(): ResultOrigin {
    let outputValidator: ArgsValidator | undefined;
    if (this.outputSchema !== undefined) {
      try {
        outputValidator = compileValidator(this.outputSchema, this.label);
      } catch {
        // A schema that does not compile was reported when the toolset checked it; results pass unchecked.
        outputValidator = undefined;
      }
    }
    return { server: this.server, tool: this.name, outputValidator };
  }
}
