import { unwatchAbort, watchAbort, type AbortWaiter } from '../abort-watch.js';
import { AnytoolError, ErrorCode } from '../errors.js';
import type { ToolResult } from '../tool-result.js';
import { cancelled, finished, toolFailure, type NamedTool } from './outcome.js';
import type { CallEnd } from './pipeline.js';

/**
 * A call under a time limit (the tool's `timeoutMs`, a call's own, or the agent's default for every
 * call), as one object: the signal of the tool's view, which aborts at the deadline or as soon as the
 * run's does (with its reason) until the call ends, and what settles the call with whichever comes
 * first of its result and a `TIMEOUT` result at the deadline (even if the tool ignores its signal).
 * With `endsOnAbort`, the run's abort ends the call too, with the aborted result; without it (a tool
 * whose own promise settles on abort, as an MCP call's does) the tool's outcome is waited for.
 *
 * Every call of an agent has one, and its deadline waits in `Deadlines`, not on a timer of its own. A
 * closure pair, a timer per call, a second race against the view's signal and `AbortSignal.any` (which
 * links each call's signal to the run's for as long as either lives) held 1.80 KB per agent's call in
 * flight; this holds 1.38 KB (bench/local-dispatch.mjs, Node 20 and 24).
 */
export class TimeLimit extends AbortController implements AbortWaiter {
  private resolve: ((result: ToolResult) => void) | undefined;
  private end: CallEnd | undefined;
  /** When it expires (a `Date.now()` time) while it waits in `Deadlines`; 0 when it does not wait. */
  at = 0;
  /** Its neighbours in `Deadlines`. */
  prev: TimeLimit | undefined;
  next: TimeLimit | undefined;

  constructor(
    private readonly tool: NamedTool,
    private readonly ms: number,
    private readonly run: AbortSignal | undefined,
    private readonly endsOnAbort: boolean,
  ) {
    super();
    if (run !== undefined) watchAbort(run, this);
  }

  /** The run's signal aborted: this one follows, and the call ends now if it ends on abort. */
  aborted(): void {
    const reason = this.run!.reason;
    if (this.endsOnAbort) this.settle(cancelled(this.tool, reason));
    this.abort(reason);
  }

  /**
   * What `running` settles with, or the timeout (or aborted) result if that comes first. `end`, when
   * given, records the call's end as it settles.
   */
  race(running: Promise<ToolResult>, end: CallEnd | undefined): Promise<ToolResult> {
    this.end = end;
    const promise = new Promise<ToolResult>((resolve) => (this.resolve = resolve));
    this.at = Date.now() + this.ms;
    deadlines.add(this);
    // The rest of the call never rejects (the stages turn what is thrown into results).
    void running.then(this.completed.bind(this));
    // The run aborted while the call was starting: this signal did too, but nothing was settled.
    if (this.endsOnAbort && this.run?.aborted === true) this.settle(cancelled(this.tool, this.run.reason));
    return promise;
  }

  /** The call ended at once, with no race: the run's signal no longer needs this one. */
  release(): void {
    if (this.run !== undefined) unwatchAbort(this.run, this);
  }

  /** Its deadline came (called by `Deadlines`). */
  expired(): void {
    const error = new AnytoolError(ErrorCode.Timeout, `Tool "${this.tool.name}" timed out after ${this.ms} ms.`);
    this.settle(toolFailure(this.tool, error));
    this.abort(error);
  }

  private completed(result: ToolResult): void {
    this.settle(result);
  }

  private settle(result: ToolResult): void {
    const resolve = this.resolve;
    if (resolve === undefined) return;
    this.resolve = undefined;
    deadlines.remove(this);
    this.release();
    const end = this.end;
    this.end = undefined;
    resolve(end === undefined ? result : finished(end, result));
  }
}

/**
 * The time limits waiting, earliest deadline first, under one timer. A timer of each call's own (made
 * and cleared with it) cost more than the rest of an agent's call: Node makes and drops its list of
 * timers of that duration each time. The timer is armed for the earliest deadline, and holds the
 * process open only while a limit waits.
 *
 * Deadlines are `Date.now()` times, and a limit is due when the timer armed for it fires, whatever the
 * clock says then: under fake timers (Jest's, Vitest's) the timer and the clock may disagree, and the
 * timer is what a test advances. (A step of the system clock moves the deadlines armed after it.) When
 * `setTimeout` is another than the timer was armed with (fake timers installed or removed since), the
 * timer is left to fire on its own clock, no longer holding the process open, and a new one is armed.
 */
class Deadlines {
  private head: TimeLimit | undefined;
  private tail: TimeLimit | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The deadline the timer was armed for; Infinity when there is none. */
  private timerAt = Infinity;
  /** The `setTimeout` and `clearTimeout` the timer was armed with. */
  private armedWith: typeof setTimeout | undefined;
  private clearWith: typeof clearTimeout | undefined;
  private readonly fire = (at: number): void => this.expire(at);

  /** Adds `limit`, whose `at` is set. Limits of one duration come in order: found from the end at once. */
  add(limit: TimeLimit): void {
    const idle = this.head === undefined;
    let before = this.tail;
    while (before !== undefined && before.at > limit.at) before = before.prev;
    const after = before === undefined ? this.head : before.next;
    limit.prev = before;
    limit.next = after;
    if (before === undefined) this.head = limit;
    else before.next = limit;
    if (after === undefined) this.tail = limit;
    else after.prev = limit;
    if (this.timer !== undefined && this.armedWith !== setTimeout) {
      this.timer.unref();
      this.timer = undefined;
      this.timerAt = Infinity;
    }
    // The first deadline waiting, which may be this one.
    const first = this.head!.at;
    if (this.timer === undefined || first < this.timerAt) this.arm(first);
    else if (idle) this.timer.ref();
  }

  /** Takes `limit` out, if it waits. */
  remove(limit: TimeLimit): void {
    if (limit.at === 0) return;
    const { prev, next } = limit;
    if (prev === undefined) this.head = next;
    else prev.next = next;
    if (next === undefined) this.tail = prev;
    else next.prev = prev;
    limit.prev = limit.next = undefined;
    limit.at = 0;
    // Nothing waits: the timer, still armed, no longer holds the process open.
    if (this.head === undefined) this.timer?.unref();
  }

  private arm(at: number): void {
    if (this.timer !== undefined) this.clearWith!(this.timer);
    this.timerAt = at;
    this.armedWith = setTimeout;
    this.clearWith = clearTimeout;
    this.timer = setTimeout(this.fire, Math.max(1, at - Date.now()), at);
  }

  /** A timer armed for `armedAt` fired: what is due by then (or by the clock) expires. */
  private expire(armedAt: number): void {
    // A timer left to fire on another clock does not replace the one armed since.
    if (armedAt === this.timerAt) {
      this.timer = undefined;
      this.timerAt = Infinity;
    }
    const due = Math.max(armedAt, Date.now());
    for (let limit = this.head; limit !== undefined && limit.at <= due; limit = this.head) {
      this.remove(limit);
      limit.expired();
    }
    // The timer may fire for a limit that has settled since: then it waits for the next one. (A limit
    // added by what an expiry ran may have armed it for a later deadline than the first one waiting.)
    if (this.head !== undefined && (this.timer === undefined || this.head.at < this.timerAt)) this.arm(this.head.at);
  }
}

const deadlines = new Deadlines();
