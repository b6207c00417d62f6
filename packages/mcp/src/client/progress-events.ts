import { AnytoolError, ErrorCode, type ExecutionContext, type RunProgressEvent } from '@anytool/core';

/**
 * How much one MCP call's progress may add to the run's events. A server sends
 * progress as fast as it likes, and every event stays in the run's log: without a
 * bound a server could fill the client's memory through progress alone.
 */
export interface ProgressEventLimits {
  /** After a burst of `PROGRESS_BURST` (10) events, the shortest time between two `progress` events of one call, in milliseconds (default 100); what comes between is held, the latest kept. */
  minIntervalMs?: number;
  /** The most `progress` events one call records (default 1 000); past it only the last value is recorded, when the call ends. */
  maxPerCall?: number;
  /** A progress message longer than this many characters is cut short (default 1 000). */
  maxMessageChars?: number;
}

const DEFAULTS: Required<ProgressEventLimits> = { minIntervalMs: 100, maxPerCall: 1_000, maxMessageChars: 1_000 };

/** The limits with their defaults filled in; a value that is not a fitting number is an `INVALID_OPTIONS` error naming it. */
export function progressEventLimits(limits: ProgressEventLimits | undefined, where: string): Required<ProgressEventLimits> {
  if (limits === undefined) return DEFAULTS;
  if (typeof limits !== 'object' || limits === null)
    throw new AnytoolError(ErrorCode.InvalidOptions, `${where}: "progressEvents" must be an object such as { minIntervalMs: 100, maxPerCall: 1000 }`);
  const out = { ...DEFAULTS };
  for (const key of ['minIntervalMs', 'maxPerCall', 'maxMessageChars'] as const) {
    const value: unknown = limits[key];
    if (value === undefined) continue;
    const least = key === 'minIntervalMs' ? 0 : 1;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least)
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `${where}: "progressEvents.${key}" must be a whole number ${least === 0 ? 'of milliseconds, 0 or more' : 'of 1 or more'}, got ${JSON.stringify(value) ?? String(value)}`,
      );
    out[key] = value;
  }
  return out;
}

/** What a progress event says: the count, the total and the message. */
export interface ProgressValue {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/**
 * How many events a call may record at once before `minIntervalMs` applies: a tool
 * that reports a few steps in quick succession keeps every step; only a flood is thinned.
 */
export const PROGRESS_BURST = 10;

/**
 * The progress of one call on its way into the run's events: bursts of up to
 * `PROGRESS_BURST` events, then on average at most one per `minIntervalMs`, and
 * `maxPerCall` in all, messages cut to `maxMessageChars`. A value held back is
 * recorded when its turn comes, or when the call ends (`end`), so the last value a
 * server reported is always in the events.
 */
export class CallProgress {
  private recorded = 0;
  /** Events the call may record now (a token bucket refilled one per `minIntervalMs`, up to `PROGRESS_BURST`). */
  private tokens = PROGRESS_BURST;
  private refilled = performance.now();
  private held: ProgressValue | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  constructor(
    private readonly context: ExecutionContext,
    private readonly tool: string,
    private readonly limits: Required<ProgressEventLimits>,
  ) {}

  /** A progress value the server reported. */
  push(input: ProgressValue): void {
    if (this.ended) return;
    this.refill();
    if (this.recorded < this.limits.maxPerCall - 1 && this.tokens >= 1 && this.timer === undefined) {
      this.record(input);
      return;
    }
    const wait = (1 - this.tokens) * this.limits.minIntervalMs;
    this.held = input;
    // The last event a call may record is kept for its end; until then the latest waits for the interval.
    if (this.timer === undefined && this.recorded < this.limits.maxPerCall - 1) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, wait);
      this.timer.unref?.();
    }
  }

  /** The call ended: the value held back, if any, is recorded, and nothing after it. */
  end(): void {
    if (this.ended) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush();
    this.ended = true;
  }

  private refill(): void {
    const now = performance.now();
    const interval = this.limits.minIntervalMs;
    this.tokens = interval === 0 ? PROGRESS_BURST : Math.min(PROGRESS_BURST, this.tokens + (now - this.refilled) / interval);
    this.refilled = now;
  }

  private flush(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.refill();
    this.record(held);
  }

  private record(input: ProgressValue): void {
    this.recorded++;
    // The value a call's end records may come before its turn: the bucket then owes it, and the next event waits longer.
    this.tokens -= 1;
    // Only the fields of a progress event: a server's notification may carry anything else.
    const event: Omit<RunProgressEvent, 'time'> = { type: 'progress', tool: this.tool, progress: input.progress };
    const callId = this.context.callId;
    if (callId !== undefined) event.callId = callId;
    if (input.total !== undefined) event.total = input.total;
    const message = input.message;
    if (message !== undefined) {
      const max = this.limits.maxMessageChars;
      event.message = message.length > max ? `${message.slice(0, max)}… (${message.length - max} more characters)` : message;
    }
    this.context.record(event);
  }
}
