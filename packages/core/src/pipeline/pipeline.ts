import type { BaseTool, InvokeOptions } from '../base-tool.js';
import { now } from '../clock.js';
import { AnytoolError, ErrorCode, describeError } from '../errors.js';
import { ExecutionContext, frameworkContext, type ToolCallEvent } from '../execution-context.js';
import { callMisuse, type CallEntry } from './call-misuse.js';
import { DEFAULT_MAX_ERROR_CHARS, boundErrorResult } from '../error-text.js';
import { errorResult, isToolResult, type ToolResult } from '../tool-result.js';
import { ACTIVE, ToolCall, type GatedMiddleware, type Middleware } from './tool-call.js';
import { AbortRace, finished } from './outcome.js';
import { andThen, isAsync, isThenable, toPromise, whenSettled, type MaybePromise } from './maybe-async.js';

/*
 * The stages of one call, in order, and the file that holds each:
 *
 * 1. entry: `Toolset.invoke` (toolset.ts) or `BaseTool.invoke` (base-tool.ts) picks the call's `CallTarget`;
 * 2. misuse: a call made wrongly ends at once as an `INVALID_OPTIONS` result (pipeline/call-misuse.ts);
 * 3. the `tool_call` event (`recordCallStart`, here);
 * 4. middleware: every `before`, the `around` wrappers, then every `after`, at toolset, source and
 *    tool level (`runChain`, here; the hooks' types in pipeline/tool-call.ts);
 * 5. the tool's own stage (`BaseTool[TOOL_STAGE]`, base-tool.ts): the abort check, argument validation
 *    (pipeline/argument-validation.ts), the time limit, the tool's view of the context, the build
 *    step's preparers, `execute`, and its outcome as a `ToolResult` (an async one raced against the run's
 *    abort signal: pipeline/outcome.ts);
 * 6. an error result cut to its `maxErrorChars` (error-text.ts);
 * 7. the `tool_result` event (`recordCallEnd`, here; an async call without middleware, on a run with an
 *    abort signal or under a time limit, has it written by the tool's stage as the call settles, through
 *    the call's `CallEnd`).
 *
 * Each stage returns its result at once when it has it, and a promise only when
 * something async came up (pipeline/maybe-async.ts says why).
 */

/**
 * The tool's own stage, the innermost of every call: arguments in, result out,
 * never throwing. A `BaseTool` of this version of core, from any copy of it, has
 * it under this registered symbol.
 */
export const TOOL_STAGE: unique symbol = Symbol.for('anytool.toolStage.v1') as never;

/**
 * `end`, when the caller passes it, lets the stage record the call's `tool_result` where an async
 * call settles, saving the caller a promise and a closure per call in flight. A stage that takes
 * it calls `end.take()` before it returns, returns a promise, and resolves it with what
 * `end.finish(result)` returns, calling `finish` once. The caller reads whether it was taken as
 * the stage returns: a stage that does not take it (a sync outcome, a stage of an older copy of
 * core) leaves the recording to the caller. Part of the v1 contract: it is optional on both sides.
 */
export type ToolStage = (
  context: ExecutionContext,
  callId: string,
  args: unknown,
  options: InvokeOptions | undefined,
  end?: CallEnd,
) => MaybePromise<ToolResult>;

/** What ends a chain: the tool's stage, an unknown-tool result, or another toolset's `invoke`. */
export type Terminal = (call: ToolCall) => MaybePromise<ToolResult>;

type Outcome = MaybePromise<ToolResult>;

/** Middleware in call order, outermost first, checked once when it is added. */
export class Chain {
  static readonly EMPTY = new Chain([]);

  /**
   * Set when every middleware of the chain can say whether it is active: then a
   * call for which none is (tracing with no SDK registered) skips the chain.
   */
  readonly gate: (() => boolean) | undefined;

  private constructor(readonly middleware: readonly Middleware[]) {
    const gates = (middleware as readonly GatedMiddleware[]).map((m) => m[ACTIVE]);
    if (middleware.length === 0 || gates.some((g) => g === undefined)) this.gate = undefined;
    else if (gates.length === 1) this.gate = gates[0];
    else this.gate = () => gates.some((g) => g!());
  }

  /** The levels joined, outermost first; the shared empty chain when there is no middleware at all. */
  static of(...levels: ReadonlyArray<readonly Middleware[] | undefined>): Chain {
    const list: Middleware[] = [];
    for (const level of levels) if (level !== undefined) list.push(...level);
    return list.length === 0 ? Chain.EMPTY : new Chain(list);
  }
}

/** Throws the coded error a developer needs for something that is not middleware. */
export function checkMiddleware(value: unknown, owner: string): Middleware {
  const hooks = ['before', 'around', 'after'] as const;
  if (typeof value === 'object' && value !== null) {
    const m = value as Record<string, unknown>;
    const bad = hooks.find((h) => m[h] !== undefined && typeof m[h] !== 'function');
    if (bad === undefined && hooks.some((h) => typeof m[h] === 'function')) return value as Middleware;
    if (bad !== undefined) throw new AnytoolError(ErrorCode.InvalidOptions, `${owner}.use(): the middleware's "${bad}" is a ${typeof m[bad]}, not a function`);
  }
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `${owner}.use(): expected middleware, an object with before, around or after functions; got ${value === null ? 'null' : typeof value}`,
  );
}

function nameOf(middleware: Middleware): string {
  const name: unknown = middleware.name;
  return typeof name === 'string' && name !== '' ? `middleware "${name}"` : 'a middleware';
}

function hookFailed(call: ToolCall, middleware: Middleware, hook: string, error: unknown): ToolResult {
  const detail = describeError(error);
  const who = nameOf(middleware);
  return errorResult(
    ErrorCode.MiddlewareFailed,
    `The call to tool "${call.name}" failed in ${who}: ${detail.slice(0, 300)}`,
    `tool "${call.name}" (call ${call.callId}): the ${hook} hook of ${who} threw: ${detail}`,
  );
}

function asResult(call: ToolCall, middleware: Middleware, hook: string, value: unknown): ToolResult {
  if (isToolResult(value)) return value;
  const what = describeError(value).slice(0, 100);
  const who = nameOf(middleware);
  return errorResult(
    ErrorCode.MiddlewareFailed,
    `The call to tool "${call.name}" failed in ${who}.`,
    `tool "${call.name}" (call ${call.callId}): the ${hook} hook of ${who} returned ${what}, which is not a ToolResult`,
  );
}

/** Runs `call` through the chain's phases to `terminal`. Never throws; a promise it returns never rejects. */
export function runChain(chain: Chain, call: ToolCall, terminal: Terminal): Outcome {
  return befores(chain.middleware, call, terminal, 0);
}

function befores(list: readonly Middleware[], call: ToolCall, terminal: Terminal, from: number): Outcome {
  for (let i = from; i < list.length; i++) {
    const middleware = list[i]!;
    if (middleware.before === undefined) continue;
    let out: unknown;
    try {
      out = middleware.before(call);
    } catch (error) {
      return afters(list, call, i, hookFailed(call, middleware, 'before', error));
    }
    if (isThenable(out)) {
      return whenSettled(
        out,
        (value) => (value === undefined ? befores(list, call, terminal, i + 1) : afters(list, call, i, asResult(call, middleware, 'before', value))),
        (error) => afters(list, call, i, hookFailed(call, middleware, 'before', error)),
      );
    }
    if (out !== undefined) return afters(list, call, i, asResult(call, middleware, 'before', out));
  }
  const last = list.length - 1;
  return andThen(arounds(list, call, terminal, 0), (result) => afters(list, call, last, result));
}

function arounds(list: readonly Middleware[], call: ToolCall, terminal: Terminal, from: number): Outcome {
  for (let i = from; i < list.length; i++) {
    const middleware = list[i]!;
    if (middleware.around === undefined) continue;
    const next = (): Promise<ToolResult> => toPromise(arounds(list, call, terminal, i + 1));
    let out: unknown;
    try {
      out = middleware.around(call, next);
    } catch (error) {
      return hookFailed(call, middleware, 'around', error);
    }
    if (isThenable(out)) {
      return whenSettled(
        out,
        (value) => asResult(call, middleware, 'around', value),
        (error) => hookFailed(call, middleware, 'around', error),
      );
    }
    return asResult(call, middleware, 'around', out);
  }
  call.reached = true;
  return terminal(call);
}

function afters(list: readonly Middleware[], call: ToolCall, from: number, result: ToolResult): Outcome {
  for (let i = from; i >= 0; i--) {
    const middleware = list[i]!;
    if (middleware.after === undefined) continue;
    let out: unknown;
    try {
      out = middleware.after(call, result);
    } catch (error) {
      result = hookFailed(call, middleware, 'after', error);
      continue;
    }
    if (isThenable(out)) {
      const current = result;
      return whenSettled(
        out,
        (value) => afters(list, call, i - 1, value === undefined ? current : asResult(call, middleware, 'after', value)),
        (error) => afters(list, call, i - 1, hookFailed(call, middleware, 'after', error)),
      );
    }
    if (out !== undefined) result = asResult(call, middleware, 'after', out);
  }
  return result;
}

/** Records the `tool_call` event of a call: the one place it is written. Returns the event. */
export function recordCallStart(context: ExecutionContext, callId: string, name: string, args: unknown, time: number): ToolCallEvent {
  const event: ToolCallEvent = { type: 'tool_call', callId, tool: name, args, time };
  context.record(event);
  return event;
}

/** The end of a call that a tool's stage may take over (see `ToolStage`). */
export interface CallEnd {
  take(): CallEnd;
  /** The call's result within its `maxErrorChars`, recorded as its `tool_result`. */
  finish(result: ToolResult): ToolResult;
}

/**
 * The end of one call without middleware: its `tool_result` event, written by `invokeThrough` or,
 * when the tool's stage took it (`take`), by the stage as the call settles. The stage of an async
 * tool races the call against the run's abort signal with it (`AbortRace`): one object per call in flight.
 */
class RecordedEnd extends AbortRace<BaseTool> implements CallEnd {
  constructor(
    private context: ExecutionContext | undefined,
    /** The call's `tool_call` event: its id, its tool's name, when it started. */
    private callEvent: ToolCallEvent | undefined,
    tool: BaseTool,
    private readonly options: InvokeOptions | undefined,
  ) {
    super(tool);
  }

  /** Called by a stage that will call `finish` itself: the caller then does not. */
  take(): this {
    this.markTaken();
    return this;
  }

  get taken(): boolean {
    return this.wasTaken;
  }

  /**
   * Records the end, once, and bounds the result (a second race of the same end, by a stage called
   * twice, is bounded alike). A tool that ignored an abort may hold the race for long: it then no
   * longer holds the run's context or the call's arguments (in its event).
   */
  finish(result: ToolResult): ToolResult {
    const { context, callEvent, options } = this;
    if (context === undefined || callEvent === undefined) return result.isError ? bounded(result, this.tool, options) : result;
    this.context = this.callEvent = undefined;
    return recordBoundedEnd(context, callEvent, this.tool, options, result);
  }

  protected override recorded(result: ToolResult): ToolResult {
    return finished(this, result);
  }
}

/**
 * `result` within its call's `maxErrorChars`, recorded as the `tool_result` of the call `callEvent` recorded:
 * its id, name and start are read there, whoever records the end.
 */
function recordBoundedEnd(
  context: ExecutionContext,
  callEvent: ToolCallEvent,
  tool: BaseTool | undefined,
  options: InvokeOptions | undefined,
  result: ToolResult,
): ToolResult {
  return recordCallEnd(context, callEvent.callId, callEvent.tool, callEvent.time, result.isError ? bounded(result, tool, options) : result);
}

/** Records the `tool_result` event of a call: the one place it is written. Returns the result. */
export function recordCallEnd(context: ExecutionContext, callId: string, name: string, started: number, result: ToolResult): ToolResult {
  const ended = now();
  context.record({ type: 'tool_result', callId, tool: name, result, durationMs: ended - started, time: ended });
  return result;
}

const toolStage: Terminal = (call) =>
  (call.tool as unknown as Record<typeof TOOL_STAGE, ToolStage>)[TOOL_STAGE](call.context, call.callId, call.args, call.options);

/**
 * Where calls of one name go: the middleware, the tool (undefined for a name no tool
 * has) and what ends a call without a tool. Made once per tool (and per toolset
 * route), not per call.
 */
export interface CallTarget {
  readonly name: string;
  readonly tool: BaseTool | undefined;
  readonly chain: Chain;
  /** Ends a call that has no tool: the unknown-tool result. */
  readonly unknown: Terminal;
  /** Which entry point the call came through, for the text of a misuse. */
  readonly entry: CallEntry;
}

/**
 * The one path of a call through a toolset or a tool: records `tool_call`, runs
 * the chain's middleware around the tool's stage (or `unknown` when there is no
 * tool), records `tool_result` (or hands it to the tool's stage: `CallEnd`). With no
 * middleware it goes straight to the tool's stage: no call object, no closures. Never
 * throws; the promise never rejects.
 */
export function invokeThrough(
  target: CallTarget,
  context: ExecutionContext | undefined,
  args: unknown,
  options: InvokeOptions | undefined,
): Promise<ToolResult> {
  const { name, tool, chain } = target;
  // A tool calling another through its own view: the call's events are the framework's, and the callee gets its own view.
  const ctx = context === undefined ? new ExecutionContext() : frameworkContext(context);
  if (ctx === undefined || typeof name !== 'string' || options !== undefined) {
    const misuse = callMisuse(target.entry, tool, name, context, ctx, options);
    if (misuse !== undefined) return toPromise(misuse);
  }
  const callId = options?.callId ?? ctx!.nextCallId();
  const started = now();
  const stage = tool === undefined ? undefined : (tool as unknown as Partial<Record<typeof TOOL_STAGE, ToolStage>>)[TOOL_STAGE];
  // A tool from an older copy of core has no stage: its own invoke runs (and records) the call.
  if (tool !== undefined && stage === undefined) {
    const call = new ToolCall(name, tool, callId, args, ctx!, options, started);
    return invokeInside(call, chain, (c, forward) => tool.invoke(c.context, c.args, forward));
  }
  const callEvent = recordCallStart(ctx!, callId, name, args, started);
  let out: Outcome;
  let end: RecordedEnd | undefined;
  try {
    if (stage !== undefined && (chain === Chain.EMPTY || (chain.gate !== undefined && !chain.gate()))) {
      // Only a call that can go async with an abort signal or a time limit has an end to hand over.
      if (ctx!.signal !== undefined || options !== undefined || tool!.timeoutMs !== undefined) end = new RecordedEnd(ctx!, callEvent, tool!, options);
      out = stage.call(tool, ctx!, callId, args, options, end);
    } else out = runChain(chain, new ToolCall(name, tool, callId, args, ctx!, options, started), tool === undefined ? target.unknown : toolStage);
  } catch (error) {
    // The stages never throw on their own; options whose fields throw when read again can make them.
    out = errorResult(
      ErrorCode.ToolFailed,
      `Tool "${name}" failed: ${describeError(error).slice(0, 300)}`,
      `tool "${name}" (call ${callId}): ${describeError(error)}`,
    );
  }
  // The tool's stage records the end of an async call it took as the call settles.
  if (end?.taken === true && isAsync(out)) return out;
  // Written out rather than with `andThen`: a sync call makes no closure.
  if (isAsync(out)) return out.then((result) => recordBoundedEnd(ctx!, callEvent, tool, options, result));
  return toPromise(recordBoundedEnd(ctx!, callEvent, tool, options, out));
}

/** An error result within the call's `maxErrorChars` (else the tool's, else the default). */
function bounded(result: ToolResult, tool: BaseTool | undefined, options: InvokeOptions | undefined): ToolResult {
  const max = options?.maxErrorChars ?? (tool as { maxErrorChars?: number } | undefined)?.maxErrorChars ?? DEFAULT_MAX_ERROR_CHARS;
  return boundErrorResult(result, max);
}

/**
 * Runs `call` through `chain` in front of `inner`, something that records the
 * call's events itself (another toolset's or tool's `invoke`); a call that ends
 * before reaching it (a refusal) gets its pair of events here.
 */
function invokeInside(call: ToolCall, chain: Chain, inner: (call: ToolCall, options: InvokeOptions) => Promise<ToolResult>): Promise<ToolResult> {
  const { name, tool, callId, args, options, started } = call;
  const ctx = call.context;
  const forward = options?.callId === callId ? options : { ...options, callId };
  const reach: Terminal = (c) => {
    try {
      return inner(c, forward).catch((error: unknown) => failedInside(c, error));
    } catch (error) {
      return failedInside(c, error);
    }
  };
  return toPromise(runChain(chain, call, reach)).then((outcome) => {
    const result = outcome.isError ? bounded(outcome, tool, options) : outcome;
    if (call.reached) return result;
    recordCallStart(ctx, callId, name, args, started);
    return recordCallEnd(ctx, callId, name, started, result);
  });
}

function failedInside(call: ToolCall, error: unknown): ToolResult {
  return errorResult(ErrorCode.ToolFailed, `Tool "${call.name}" failed: ${describeError(error)}`);
}

/** What a `Pipeline` calls into: a `Toolset` of any copy of core, or anything shaped like one. */
export interface ToolInvoker {
  get(name: string): BaseTool | undefined;
  invoke(name: string, args: unknown, context?: ExecutionContext, options?: InvokeOptions): Promise<ToolResult>;
}

/**
 * Middleware of a caller's own in front of a toolset it does not own: the agent
 * runs its approval and call order this way, whatever toolset it was given. The
 * toolset's own middleware (and its sources' and tools') still run inside. A call
 * that ends before reaching the toolset (a refusal) gets its pair of events here.
 *
 * @example
 * const guarded = new Pipeline(approval({ approve: askTheUser }));
 * await guarded.invoke(toolset, 'delete_file', '{"path":"/tmp/x"}', context);
 */
export class Pipeline {
  private readonly chain: Chain;

  constructor(...middleware: Middleware[]) {
    this.chain = Chain.of(middleware.map((m) => checkMiddleware(m, 'Pipeline')));
  }

  invoke(toolset: ToolInvoker, name: string, args: unknown, context?: ExecutionContext, options?: InvokeOptions): Promise<ToolResult> {
    const ctx = context === undefined ? new ExecutionContext() : frameworkContext(context);
    const misuse = callMisuse('pipeline', undefined, name, context, ctx, options);
    if (misuse !== undefined || ctx === undefined) return toPromise(misuse!);
    const callId = options?.callId ?? ctx.nextCallId();
    let tool: BaseTool | undefined;
    try {
      tool = toolset.get(name);
    } catch {
      tool = undefined;
    }
    const call = new ToolCall(name, tool, callId, args, ctx, options, now());
    return invokeInside(call, this.chain, (c, forward) => toolset.invoke(c.name, c.args, c.context, forward));
  }
}
