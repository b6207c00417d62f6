/**
 * The options of a tool that matter only when it is served over MCP (`serveMcp` of
 * @anytool/mcp): who may see and call it, and whether a call may outlive its
 * request as a task. Called directly, through a toolset or by an agent, a tool
 * ignores them. `BaseToolOptions` takes them; `BaseTool` checks them here and keeps
 * them (`servingSettings`) as its properties of the same names.
 */
export interface ServingOptions {
  /**
   * OAuth scopes a caller must hold, all of them, to see and call this tool when
   * it is served over MCP with authentication (`serveMcp({ auth })`). Served
   * without authentication, or called directly, the tool ignores them.
   */
  scopes?: readonly string[];
  /**
   * Served over MCP, a call of this tool may outlive its request: to a client
   * that supports the Tasks extension (`io.modelcontextprotocol/tasks`) the call
   * answers at once with a task the client polls, while the tool runs on (its
   * progress, questions to the client and result go through the task). `true`:
   * other clients get the plain call; `'required'`: other clients are refused
   * (error -32021, the extension is required). Called directly, or by an agent,
   * the tool ignores it.
   */
  task?: boolean | 'required';
  /**
   * With `task`: the tool picks up where it left off when the worker running its
   * task stops. On a task queue (`serveMcp({ taskQueue })` of @anytool/mcp) such a
   * task runs again on another worker, where the tool reads what it last saved
   * with `mcpSession(context).checkpoint(data)` as `lastCheckpoint` (an idempotent
   * tool, `annotations.idempotent`, runs again from the start). Without a task
   * queue a task lives in its process and fails with it, whatever this says.
   */
  resumable?: boolean;
  /**
   * With `task`: the call becomes a task only when the tool asks for it, with
   * `await mcpSession(context)?.startTask()`. Until then it runs in its request
   * (its questions to the client are rounds of the call, as in a plain call);
   * from there on it runs as the task. For a tool that gathers input first and
   * then works for long.
   */
  deferTask?: boolean;
}

/** The serving options as a tool keeps them: checked, defaults filled in. */
export interface ServingSettings {
  /** Each scope once, frozen; undefined when the tool asks for none. */
  readonly scopes: readonly string[] | undefined;
  readonly task: boolean | 'required';
  readonly resumable: boolean;
  readonly deferTask: boolean;
}

/** What is wrong with a tool's serving options (a sentence for a message naming the tool), or undefined. */
export function servingOptionsProblem(options: ServingOptions): string | undefined {
  return scopesProblem(options.scopes) ?? taskProblem(options.task, options.resumable, options.deferTask);
}

/** The settings of options that `servingOptionsProblem` passed. */
export function servingSettings(options: ServingOptions): ServingSettings {
  return {
    scopes: options.scopes === undefined ? undefined : Object.freeze([...new Set(options.scopes)]),
    task: options.task ?? false,
    resumable: options.resumable ?? false,
    deferTask: options.deferTask ?? false,
  };
}

/** What is wrong with a tool's `scopes`: each is an OAuth scope token (RFC 6749: printable ASCII, no space, quote or backslash). */
function scopesProblem(scopes: unknown): string | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes)) return `scopes must be an array of scope names, got ${typeof scopes}`;
  const bad = scopes.find((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope));
  if (bad === undefined) return undefined;
  return `scopes must be OAuth scope names (printable characters, no spaces, quotes or backslashes), got ${JSON.stringify(bad)}`;
}

function taskProblem(task: unknown, resumable: unknown, deferTask: unknown): string | undefined {
  if (task !== undefined && typeof task !== 'boolean' && task !== 'required') return `task must be true, false or "required", got ${JSON.stringify(task)}`;
  if (resumable !== undefined && typeof resumable !== 'boolean') return `resumable must be true or false, got ${JSON.stringify(resumable)}`;
  if (resumable === true && (task === undefined || task === false)) return 'resumable applies to task tools: set task: true (or "required") as well';
  if (deferTask !== undefined && typeof deferTask !== 'boolean') return `deferTask must be true or false, got ${JSON.stringify(deferTask)}`;
  if (deferTask === true && (task === undefined || task === false)) return 'deferTask applies to task tools: set task: true (or "required") as well';
  return undefined;
}
