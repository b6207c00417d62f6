import { unwatchAbort, watchAbort, type AbortWaiter } from '../abort-watch.js';
import { AnytoolError, ErrorCode, describeError, isAnytoolError } from '../errors.js';
import { errorResult, normalizeResult, type ToolResult } from '../tool-result.js';
import type { CallEnd } from './pipeline.js';

/*
 * What a tool's `execute` comes to: its value as a result, what it threw as an error result, and,
 * for an async tool on a run with an abort signal, whichever of its outcome and the abort comes first.
 */

/** The tool a result speaks of: its name for the model, its label for the developer. */
export interface NamedTool {
  readonly name: string;
  readonly label: string;
}

/** What a tool's `execute` gave, as a result. */
export function outcome(tool: NamedTool, value: unknown): ToolResult {
  try {
    return normalizeResult(value);
  } catch (error) {
    return toolFailure(tool, error);
  }
}

/** What a tool's call that threw or was stopped ends with: the error's own code and text, or TOOL_FAILED with the stack for the developer. */
export function toolFailure(tool: NamedTool, error: unknown): ToolResult {
  const message = describeError(error);
  // Reading a hostile thrown value (a revoked proxy, throwing getters) may throw: then only its description is used.
  try {
    if (isAnytoolError(error)) {
      const code: unknown = error.code;
      if (typeof code === 'string') {
        const own = code === ErrorCode.Timeout || code === ErrorCode.Aborted || code === ErrorCode.InvalidArguments;
        const detail: unknown = error.detail;
        const developer = typeof detail === 'string' ? `${tool.label}: ${message}\n${detail}` : `${tool.label}: ${message}`;
        return errorResult(code, own ? message : `Tool "${tool.name}" failed: ${message}`, developer);
      }
    }
    const stack: unknown = error instanceof Error ? error.stack : undefined;
    const detail = typeof stack === 'string' && stack !== '' ? stack : message;
    return errorResult(ErrorCode.ToolFailed, `Tool "${tool.name}" failed: ${message}`, `${tool.label} threw: ${detail}`);
  } catch {
    return errorResult(ErrorCode.ToolFailed, `Tool "${tool.name}" failed: ${message}`, `${tool.label} threw: ${message}`);
  }
}

/** What a call ends with when the run's abort comes before its tool's outcome. */
export function cancelled(tool: NamedTool, reason: unknown): ToolResult {
  return toolFailure(tool, cancelledError(tool.name, reason));
}

/** The error of a call of tool `name` that the run's abort (for `reason`) cancelled. */
export function cancelledError(name: string, reason: unknown): AnytoolError {
  return new AnytoolError(ErrorCode.Aborted, `Tool "${name}" was cancelled because the run was aborted.`, { cause: reason });
}

/** What a settled `AbortRace` resolves with from then on: nothing. */
const settled = (): void => undefined;
/** What an `AbortRace` holds once taken (see `RecordedEnd.take`, pipeline.ts) and before it races. */
const taken = (): void => undefined;

/**
 * `result` recorded as its call's end. Bounding it reads the call's options again, and a getter
 * there may throw: then the result settles the call as it is, rather than leaving it unsettled.
 */
export function finished(end: CallEnd, result: ToolResult): ToolResult {
  try {
    return end.finish(result);
  } catch {
    return result;
  }
}

/**
 * An async `execute` raced against the run's abort signal, as one object per call in flight: it is
 * watched on the signal as it is, and the tool's promise settles it through two bound methods (a
 * closure pair and their scope cost more). The end a toolset hands a tool's stage is a race itself
 * (`RecordedEnd`, pipeline.ts), which records the call's `tool_result` as it settles: a call in
 * flight holds one object for both.
 */
export class AbortRace<Tool extends NamedTool = NamedTool> implements AbortWaiter {
  /** Undefined, then `taken` when a stage took the end (`RecordedEnd`), its resolve while it races, then `settled`. */
  private resolve: ((result: ToolResult) => void) | undefined;
  private signal: AbortSignal | undefined;

  constructor(protected readonly tool: Tool) {}

  /** `value`'s outcome, or the aborted result as soon as `signal` aborts. */
  race(value: PromiseLike<unknown>, signal: AbortSignal): Promise<ToolResult> {
    // Raced already (a stage called again with the same end): this outcome races on its own, and the
    // first race keeps its promise. The end is recorded once whichever settles first.
    if (this.resolve !== undefined && this.resolve !== taken) return new AbortRace(this.tool).race(value, signal).then((result) => this.recorded(result));
    const promise = new Promise<ToolResult>((resolve) => (this.resolve = resolve));
    this.signal = signal;
    watchAbort(signal, this);
    try {
      value.then(this.fulfilled.bind(this), this.rejected.bind(this));
    } catch (error) {
      this.rejected(error);
    }
    return promise;
  }

  aborted(): void {
    this.resolveOnce(cancelled(this.tool, this.signal!.reason));
  }

  private fulfilled(value: unknown): void {
    this.settle(outcome(this.tool, value));
  }

  private rejected(error: unknown): void {
    this.settle(toolFailure(this.tool, error));
  }

  private settle(result: ToolResult): void {
    unwatchAbort(this.signal!, this);
    this.resolveOnce(result);
  }

  /** Settles the call once: an abort and the tool's own outcome may both come. */
  private resolveOnce(result: ToolResult): void {
    const resolve = this.resolve;
    if (resolve === settled || resolve === undefined || resolve === taken) return;
    this.resolve = settled;
    resolve(this.recorded(result));
  }

  /** Marks the race taken by a stage that will race or finish it: a field less per call in flight. */
  protected markTaken(): void {
    this.resolve ??= taken;
  }

  /** Whether a stage took this race, or raced it. */
  protected get wasTaken(): boolean {
    return this.resolve !== undefined;
  }

  /** `result` as the call ends with it: recorded when the race is the call's end (`RecordedEnd`). */
  protected recorded(result: ToolResult): ToolResult {
    return result;
  }
}
