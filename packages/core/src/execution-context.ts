import type { Context as TraceContext } from '@opentelemetry/api';
import { BRAND, brandedHasInstance, hasBrand, setBrand } from './brands.js';
import { now } from './clock.js';
import { RestrictedState, type ContextAccessPlan } from './context-access.js';
import { DiagnosticLog, type Diagnostic, type DiagnosticInput } from './diagnostics.js';
import { AnytoolError, ErrorCode, describeError } from './errors.js';
import { DEFAULT_KEEP_EVENTS, RunLog, checkKeepEvents } from './run-log.js';
import type { ToolResult } from './tool-result.js';

interface EventBase {
  /** When the event happened, epoch milliseconds with sub-millisecond precision. */
  time: number;
}

export interface ToolCallEvent extends EventBase {
  type: 'tool_call';
  callId: string;
  tool: string;
  args: unknown;
}

export interface ToolResultEvent extends EventBase {
  type: 'tool_result';
  callId: string;
  tool: string;
  result: ToolResult;
  /**
   * Milliseconds between the tool_call event and this one. Absent when nobody
   * knows: a built-in tool the provider ran during a model turn (`ranBy` says
   * which), whose API reports no time.
   */
  durationMs?: number;
  /** Set for a call a provider ran on its side (a `BuiltinTool`): its name, "openai", "anthropic", "gcp.gemini". Absent for local calls. */
  ranBy?: string;
}

export interface RunProgressEvent extends EventBase {
  type: 'progress';
  callId?: string;
  tool?: string;
  progress: number;
  total?: number;
  message?: string;
}

export interface RunMessageEvent extends EventBase {
  type: 'message';
  role: 'system' | 'user' | 'assistant';
  text: string;
  /** Extra data a runtime attaches (tool calls of an assistant turn, usage...). */
  data?: unknown;
}

export interface RunErrorEvent extends EventBase {
  type: 'error';
  code: string;
  message: string;
  callId?: string;
  tool?: string;
}

/** A piece of the model's text as it streamed (recorded by a streaming run, e.g. `agent.stream`). */
export interface TextDeltaEvent extends EventBase {
  type: 'text_delta';
  /** The model turn it belongs to, from 1. */
  step: number;
  text: string;
}

/** A tool call the model began to stream; its arguments follow as `tool_call_delta` events. */
export interface ToolCallStartEvent extends EventBase {
  type: 'tool_call_start';
  step: number;
  callId: string;
  tool: string;
}

/** A piece of a streamed tool call's arguments (JSON text, in order). */
export interface ToolCallDeltaEvent extends EventBase {
  type: 'tool_call_delta';
  step: number;
  callId: string;
  delta: string;
}

/** A non-fatal problem noticed during the run (see `Diagnostic`); repeats raise its `count`. */
export type DiagnosticEvent = Diagnostic;

/**
 * An event of a run nested in one tool call (an agent used as a tool): the inner
 * run's own event, recorded in the outer run under the call that started it.
 */
export interface NestedRunEvent extends EventBase {
  type: 'nested';
  /** The outer call the inner run belongs to. */
  callId: string;
  tool: string;
  /** The inner run's id. */
  runId: string;
  /** The inner run's event as it recorded it (its `time` is its own). */
  event: RunEvent;
}

/** Everything a run records, in the order it happened. */
export type RunEvent =
  | ToolCallEvent
  | ToolResultEvent
  | RunProgressEvent
  | RunMessageEvent
  | RunErrorEvent
  | DiagnosticEvent
  | TextDeltaEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | NestedRunEvent;

/** A run event before its time is stamped. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'time'> & { time?: number } : never) : never;

export type RunEventListener = (event: RunEvent) => void;

export interface ExecutionContextOptions {
  runId?: string;
  state?: Map<string, unknown>;
  signal?: AbortSignal;
  /**
   * The OpenTelemetry context the run's spans continue: a caller's span, or the
   * trace context an MCP request carried (`extractTraceContext`). Spans of the
   * run's calls become its children.
   */
  trace?: TraceContext | undefined;
  /**
   * How many of the run's events `context.events` keeps: the last `keepEvents`
   * (`ExecutionContext.DEFAULT_KEEP_EVENTS`, 10,000, by default), so a long run's
   * memory stays bounded; `'all'` keeps every event; 0 keeps none. Listeners
   * (`subscribe`) are told of every event either way: one can store them all.
   * `context.droppedEvents` counts the events no longer kept.
   */
  keepEvents?: number | 'all' | undefined;
}

let runCounter = 0;

/** The ids of a run's first calls, made once: most runs never build a call id string. */
const CALL_IDS: readonly string[] = Array.from({ length: 1024 }, (_, i) => `call_${i}`);

/**
 * Makes one tool call's restricted view of a context of another copy of core (kept off
 * the type, so two copies' types stay compatible). It only ever narrows: on a view that is
 * restricted already it keeps that restriction.
 */
const CALL_VIEW = Symbol.for('anytool.context.callView');

/** What every view of one run shares. */
interface Run {
  readonly runId: string;
  readonly state: Map<string, unknown>;
  readonly log: RunLog<RunEvent>;
  readonly listeners: RunEventListener[];
  calls: number;
  /** Made on the first diagnostic: most runs have none. */
  diagnostics: DiagnosticLog | undefined;
}

/** The constructor's argument when a view is made: its fields are then set by `makeView`, not made. */
const VIEW_SEED: ExecutionContextOptions = Object.freeze({});

type ViewMaker = (
  from: ExecutionContext,
  signal: AbortSignal | undefined,
  callId: string | undefined,
  tool: string | undefined,
  trace: TraceContext | undefined,
  access: ContextAccessPlan | undefined,
) => ExecutionContext;
/** Set by the class's static block: they read the private fields of this copy's contexts. */
let makeView: ViewMaker;
let ownCallView: (context: ExecutionContext, callId: string, tool: string, access: ContextAccessPlan) => ExecutionContext | undefined;
let ownUnrestricted: (context: unknown) => ExecutionContext | undefined;

/**
 * One run's state, handed to every tool call. Most tools ignore it; tools that
 * declare a context parameter receive it.
 *
 * A tool receives a view of it restricted to what the tool declares (its
 * `context` option, see `ContextAccess`): its signal and call id always; state
 * keys, events and progress only as declared. Using anything else throws a
 * `CONTEXT_ACCESS_DENIED` error. The application, the agent and middleware hold
 * the whole context.
 *
 * `events` is append-only: tools and runtimes add to it through `record`, and
 * listeners see each event as it is recorded. It keeps the run's last
 * `keepEvents` events (10,000 unless its options say otherwise, `'all'` for every one);
 * `droppedEvents` counts the older ones, which only listeners saw. JavaScript
 * runs one callback at a time, so tools running concurrently can share `state`
 * and `events` safely.
 *
 * @example
 * const context = new ExecutionContext({ signal: AbortSignal.timeout(30_000) });
 * await toolset.invoke('add', { a: 1, b: 2 }, context);
 * console.log(context.events);
 */
export class ExecutionContext {
  /** How many events a run keeps in `events` unless its `keepEvents` option says otherwise. */
  static readonly DEFAULT_KEEP_EVENTS: number = DEFAULT_KEEP_EVENTS;
  /** The run's abort signal; a tool that honours it stops early. */
  readonly signal: AbortSignal | undefined;
  /** Inside a tool call: the id of that call (what its progress events carry). */
  readonly callId: string | undefined;
  /**
   * The OpenTelemetry context of the current span, when the run is traced: the
   * agent's span, inside a traced call the call's own. A tool that calls out (an
   * MCP client) puts it on the wire with `injectTraceContext`.
   */
  readonly trace: TraceContext | undefined;
  // Private fields, not properties: nothing a tool can read on its view leads to the whole run.
  #run: Run;
  #tool: string | undefined;
  /** Set on a tool's view: what the tool declared. Undefined: the whole context. */
  #access: ContextAccessPlan | undefined;
  /** The restricted `state` of a tool's view, made when first read. */
  #state: RestrictedState | undefined;

  /** `context instanceof ExecutionContext` holds for a context from any copy of @anytool/core. */
  static [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return brandedHasInstance(this, ExecutionContext, BRAND.ExecutionContext, value);
  }

  constructor(options: ExecutionContextOptions = {}) {
    if (options === VIEW_SEED) {
      // A view: `makeView` sets every field at once.
      this.#run = undefined as unknown as Run;
      this.signal = undefined;
      this.callId = undefined;
      this.trace = undefined;
      return;
    }
    this.#run = {
      runId: options.runId ?? `run_${Date.now().toString(36)}_${(++runCounter).toString(36)}`,
      state: options.state ?? new Map(),
      log: new RunLog(checkKeepEvents(options.keepEvents)),
      listeners: [],
      calls: 0,
      diagnostics: undefined,
    };
    this.signal = options.signal;
    this.callId = undefined;
    this.trace = options.trace;
  }

  static {
    // A view of the same run with its own signal, call, trace and restriction: no copying.
    makeView = (from, signal, callId, tool, trace, access) => {
      const view = new ExecutionContext(VIEW_SEED);
      const fields = view as { -readonly [K in 'signal' | 'callId' | 'trace']: ExecutionContext[K] };
      view.#run = from.#run;
      fields.signal = signal;
      fields.callId = callId;
      fields.trace = trace;
      view.#tool = tool;
      view.#access = access;
      return view;
    };
    // A view never widens: a context restricted already keeps its restriction.
    ownCallView = (context, callId, tool, access) =>
      #run in context ? makeView(context, context.signal, callId, tool, context.trace, context.#access ?? access) : undefined;
    ownUnrestricted = (context) => {
      if (typeof context !== 'object' || context === null) return undefined;
      try {
        if (!(#run in context)) return undefined;
      } catch {
        // A revoked proxy.
        return undefined;
      }
      const own = context as ExecutionContext;
      return own.#access === undefined ? own : makeView(own, own.signal, own.callId, own.#tool, own.trace, undefined);
    };
  }

  get runId(): string {
    return this.#run.runId;
  }

  /**
   * Shared between the tools of one run. In a tool's view, only the keys it
   * declared (`context: { state: { read, write } }`): other keys throw.
   */
  get state(): Map<string, unknown> {
    const access = this.#access;
    if (access === undefined) return this.#run.state;
    return (this.#state ??= new RestrictedState(this.#run.state, access));
  }

  /**
   * The run's events, oldest first: the last `keepEvents` of them (see
   * `droppedEvents`). In a tool's view, only with `context: { events: 'read' }`,
   * and as a frozen copy: reading the log is no way to write into it.
   */
  get events(): readonly RunEvent[] {
    const access = this.#access;
    const events = this.#run.log.events;
    if (access === undefined) return events;
    if (!access.readEvents) throw access.denied("read the run's events (context.events)", access.withEvents('read'));
    return Object.isFrozen(events) ? events : Object.freeze(events.slice());
  }

  /**
   * How many of the run's events are no longer in `events`: the oldest, past its
   * `keepEvents`. 0 while `events` holds every event recorded. In a tool's view,
   * only with `context: { events: 'read' }`.
   */
  get droppedEvents(): number {
    const access = this.#access;
    if (access !== undefined && !access.readEvents) throw access.denied("read the run's events (context.droppedEvents)", access.withEvents('read'));
    return this.#run.log.dropped;
  }

  /** Appends an event (stamping its time) and tells the listeners. In a tool's view, only with `context: { events: 'record' }`. */
  record(event: RunEventInput): RunEvent {
    const access = this.#access;
    if (access !== undefined && !access.recordEvents)
      throw access.denied(`recorded an event (context.record, type ${JSON.stringify(String(event?.type))})`, access.withEvents('record'));
    return this.#append(event);
  }

  #append(event: RunEventInput): RunEvent {
    const stamped = (event.time === undefined ? { ...event, time: now() } : event) as RunEvent;
    this.#run.log.push(stamped);
    const listeners = this.#run.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(stamped);
      } catch (error) {
        // A broken listener must not break the run: its failure becomes a diagnostic
        // (once: a listener that also fails on that diagnostic is not told about it again).
        if (stamped.type !== 'diagnostic' || stamped.code !== ErrorCode.ListenerFailed) {
          this.diagnose({
            code: ErrorCode.ListenerFailed,
            source: 'run events',
            message: `an event listener threw on a ${stamped.type} event: ${describeError(error)}`,
          });
        }
      }
    }
    return stamped;
  }

  /**
   * Reports a non-fatal problem of the run: recorded once as a `diagnostic` event
   * (a repeat raises its `count`), at most `MAX_DIAGNOSTICS` distinct ones a run.
   * Inside a tool call it carries the call's id and tool name unless given.
   */
  diagnose(input: Omit<DiagnosticInput, 'source'> & { source?: string }): Diagnostic {
    const run = this.#run;
    if (run.diagnostics === undefined) {
      const log = new DiagnosticLog();
      log.subscribe((diagnostic) => void this.#append(diagnostic));
      run.diagnostics = log;
    }
    const full: DiagnosticInput = { ...input, source: input.source ?? (this.#tool === undefined ? 'run' : `tool "${this.#tool}"`) };
    if (full.tool === undefined && this.#tool !== undefined) full.tool = this.#tool;
    if (full.callId === undefined && this.callId !== undefined) full.callId = this.callId;
    return run.diagnostics.report(full);
  }

  /** Calls `listener` for every event recorded from now on; returns the unsubscribe function. In a tool's view, only with `context: { events: 'read' }`. */
  subscribe(listener: RunEventListener): () => void {
    const access = this.#access;
    if (access !== undefined && !access.readEvents) throw access.denied("subscribed to the run's events (context.subscribe)", access.withEvents('read'));
    // Checked now: a listener that is not a function would fail on every event of the run.
    if (typeof listener !== 'function')
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `ExecutionContext.subscribe(): the listener must be a function, got ${listener === null ? 'null' : typeof listener}`,
      );
    const listeners = this.#run.listeners;
    listeners.push(listener);
    return () => {
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    };
  }

  /** A fresh call id, unique within this run. */
  nextCallId(): string {
    const n = ++this.#run.calls;
    return n < CALL_IDS.length ? CALL_IDS[n]! : `call_${n}`;
  }

  /**
   * A view of this run with another abort signal: the same run id, state, events
   * and listeners. Used to give one call its own deadline.
   */
  withSignal(signal: AbortSignal): ExecutionContext {
    return makeView(this, signal, this.callId, this.#tool, this.trace, this.#access);
  }

  /** A view of this run for one tool call: the same run, with `callId` set (and the same restriction, if any). */
  forCall(callId: string, tool?: string): ExecutionContext {
    return makeView(this, this.signal, callId, tool, this.trace, this.#access);
  }

  /** A view of this run whose spans continue `trace` (the tracing middleware gives each traced call one). */
  withTrace(trace: TraceContext | undefined): ExecutionContext {
    return makeView(this, this.signal, this.callId, this.#tool, trace, this.#access);
  }

  /**
   * Records a progress event. Inside a tool call the event carries the call's
   * id and tool name, so concurrent calls' progress stays apart. In a tool's
   * view, only with `context: { progress: true }`.
   */
  progress(progress: number, total?: number, message?: string): void {
    const access = this.#access;
    if (access !== undefined && !access.progress) throw access.denied('reported progress (context.progress)', { ...access.declared, progress: true });
    const event: RunEventInput = { type: 'progress', progress };
    if (total !== undefined) event.total = total;
    if (message !== undefined) event.message = message;
    if (this.callId !== undefined) event.callId = this.callId;
    if (this.#tool !== undefined) event.tool = this.#tool;
    this.#append(event);
  }
}

setBrand(ExecutionContext, BRAND.ExecutionContext);

Object.defineProperty(ExecutionContext.prototype, CALL_VIEW, {
  value(this: ExecutionContext, callId: string, tool: string, access: ContextAccessPlan): ExecutionContext {
    return ownCallView(this, callId, tool, access) ?? this.forCall(callId, tool);
  },
});

/**
 * One tool call's view of `context`, restricted to `access` (or kept to the restriction it
 * has already). A context from another copy of core restricts through its own copy; one
 * from an older copy, which cannot restrict, gives its plain per-call view.
 */
export function callView(context: ExecutionContext, callId: string, tool: string, access: ContextAccessPlan): ExecutionContext {
  const own = ownCallView(context, callId, tool, access);
  if (own !== undefined) return own;
  const make = (context as unknown as Partial<Record<symbol, (callId: string, tool: string, access: ContextAccessPlan) => ExecutionContext>>)[CALL_VIEW];
  return make === undefined ? context.forCall(callId, tool) : make.call(context, callId, tool, access);
}

/**
 * The whole context behind a tool's view: for the framework's own work on a
 * call (the call pipeline's events, an MCP session), never handed to a tool.
 * Only this copy of core can see behind its views; a context of another copy is
 * returned as it is.
 */
export function unrestrictedContext<Context extends object>(context: Context): Context {
  // Generic: a sibling package may see core's types through another entry (ESM and CommonJS declarations).
  return (ownUnrestricted(context) as Context | undefined) ?? context;
}

/**
 * What the call pipeline runs a call with: the whole context behind `value`, or
 * undefined when `value` is not an `ExecutionContext` (of any copy of core). Never throws.
 */
export function frameworkContext(value: unknown): ExecutionContext | undefined {
  const own = ownUnrestricted(value);
  if (own !== undefined) return own;
  try {
    return isExecutionContext(value) ? value : undefined;
  } catch {
    // A revoked proxy, a throwing trap.
    return undefined;
  }
}

/** Whether `value` is an `ExecutionContext` (or a view of one), from this copy of @anytool/core or another. */
export function isExecutionContext(value: unknown): value is ExecutionContext {
  return hasBrand(value, BRAND.ExecutionContext);
}
