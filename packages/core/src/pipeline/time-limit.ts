import { unwatchAbort, watchAbort, type AbortWaiter } from '../abort-watch.js';
import { AnytoolError, ErrorCode } from '../errors.js';
import type { ToolResult } from '../tool-result.js';
import { cancelled, finished, toolFailure, type NamedTool } from './outcome.js';
import type { CallEnd } from './pipeline.js';

/**
 * A call under a time limit (the tool's `timeoutMs`, a call's own, or the agent's default for every
 * call), as one object: the signal of the tool's view, which aborts at the deadline or as soon as the
 * run's does (with its reason), and what settles the call with whichever comes first of its result and
 * a `TIMEOUT` result at the deadline (even if the tool ignores its signal). With `endsOnAbort`, the
 * run's abort ends the call too, with the aborted result; without it (a tool whose own promise settles
 * on abort, as an MCP call's does) the tool's outcome is waited for.
 *
 * Every call of an agent has one. A closure pair, a second race against the view's signal and
 * `AbortSignal.any` (which links each call's signal to the run's for as long as either lives) held
 * more per call in flight: 1.80 KB against 1.50 KB for an agent's call (bench/local-dispatch.mjs, Node 20).
 */
export class TimeLimit extends AbortController implements AbortWaiter {
  private resolve: ((result: ToolResult) => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private end: CallEnd | undefined;

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
    this.timer = setTimeout(this.expired.bind(this), this.ms);
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

  private expired(): void {
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
    clearTimeout(this.timer);
    this.release();
    const end = this.end;
    this.end = undefined;
    resolve(end === undefined ? result : finished(end, result));
  }
}
