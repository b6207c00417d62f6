import type { Span } from '@opentelemetry/api';
import type { BaseTool, InvokeOptions } from '../base-tool.js';
import type { ExecutionContext } from '../execution-context.js';
import type { ToolResult } from '../tool-result.js';

/**
 * One tool call on its way through the pipeline: what every middleware hook
 * receives. Hooks may replace `args` (before the tool validates them) and
 * `context` (a view with another signal or trace, which the tool then receives).
 */
export class ToolCall {
  /** The name the caller asked for. */
  readonly name: string;
  /** The tool of that name; undefined when there is none (the call then ends with `UNKNOWN_TOOL`). */
  readonly tool: BaseTool | undefined;
  /** The id that ties the call's events, span and result together. */
  readonly callId: string;
  /** The arguments as given: the model's JSON text or an object, not yet validated. */
  args: unknown;
  /** The run's context as the tool will receive it. */
  context: ExecutionContext;
  /** The caller's per-call options (time limits). */
  readonly options: InvokeOptions | undefined;
  /** When the call started, epoch milliseconds: the time of its `tool_call` event. */
  readonly started: number;
  /** The call's span, while a tracing middleware traces it: other middleware may add attributes to it. */
  span: Span | undefined;
  /** Whether the call got past every `before` hook and `around` wrapper to the tool (or the next toolset). */
  reached = false;
  private locals: Map<unknown, unknown> | undefined;

  constructor(
    name: string,
    tool: BaseTool | undefined,
    callId: string,
    args: unknown,
    context: ExecutionContext,
    options: InvokeOptions | undefined,
    started: number,
  ) {
    this.name = name;
    this.tool = tool;
    this.callId = callId;
    this.args = args;
    this.context = context;
    this.options = options;
    this.started = started;
    this.span = undefined;
    this.locals = undefined;
  }

  /** A value a middleware keeps for this call between its hooks (under a key of its own). */
  get<T>(key: object | symbol): T | undefined {
    return this.locals?.get(key) as T | undefined;
  }

  set(key: object | symbol, value: unknown): void {
    (this.locals ??= new Map()).set(key, value);
  }
}

/**
 * Code that runs with every call through a toolset, a source or a tool. The hooks
 * run in phases, like a server's request lifecycle: every `before` (outermost
 * middleware first), then the `around` wrappers (outermost outside), then the
 * tool, then every `after` (innermost first). Any hook may be async.
 *
 * - `before` may return a `ToolResult` to end the call there (an approval refusal):
 *   the remaining `before` hooks, the wrappers and the tool do not run.
 * - `around` calls `next()` to run the rest (once, several times for retries, or
 *   not at all) and returns the result it wants to give.
 * - `after` sees every result leaving its level, the short-circuited ones
 *   included (those of its own `before` or an inner one), and may return another.
 *
 * A hook that throws, rejects or returns something that is not a `ToolResult`
 * ends the call with a `MIDDLEWARE_FAILED` result; the outer `after` hooks still
 * see it. `next()` never rejects.
 */
export interface Middleware {
  /** Names the middleware in error messages: "approval", "tracing". */
  readonly name?: string;
  before?(call: ToolCall): void | ToolResult | PromiseLike<void | ToolResult>;
  around?(call: ToolCall, next: () => Promise<ToolResult>): ToolResult | PromiseLike<ToolResult>;
  after?(call: ToolCall, result: ToolResult): void | ToolResult | PromiseLike<void | ToolResult>;
}

/**
 * Core's own middleware (tracing) may say, per call, whether it has anything to
 * do: when no middleware of a chain has, the call takes the path without
 * middleware. Internal: other middleware always runs.
 */
export const ACTIVE: unique symbol = Symbol('anytool.middlewareActive') as never;

export type GatedMiddleware = Middleware & { readonly [ACTIVE]?: () => boolean };
