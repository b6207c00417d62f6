import { AnytoolError, ErrorCode, type ExecutionContext, type TextDeltaEvent, type ToolCallDeltaEvent } from '@anytool/core';
import { now } from '@anytool/core/internal';
import type { AgentStreamEvent } from './agent.js';
import { EventQueue } from './event-queue.js';
import type { ModelResponse, ModelStreamEvent } from './model.js';
import { READ_MAPPED, isMappedStream, type StreamReader } from './models/stream-map.js';

type Read = IteratorResult<AgentStreamEvent, undefined>;

/**
 * The reader's side of `agent.stream`. While a model turn streams, each `next()`
 * reads the model's stream itself: the chunk is mapped, recorded in the run's
 * context and handed over as the same object, in the callback that took it from
 * the client (no queue, no loop in between). The run waits for the turn's
 * `response`, which the reader hands back. Everything else (tool results, a turn
 * of a model without `stream`, the result) comes through a queue in order.
 */
export class RunStream implements AsyncIterableIterator<AgentStreamEvent> {
  readonly queue: EventQueue<AgentStreamEvent>;
  private turn: StreamedTurn | undefined;

  /**
   * `signal`: the run's own, aborted when the reader stops early (`break`,
   * `return()`), which also runs `onReturn` once.
   */
  constructor(
    readonly signal: AbortSignal,
    onReturn: () => Promise<void>,
  ) {
    this.queue = new EventQueue<AgentStreamEvent>(onReturn);
  }

  /**
   * A model turn to stream: its events are read by the reader from now on. The
   * promise settles with the turn's response, or the stream's failure.
   */
  streamTurn(events: AsyncIterator<ModelStreamEvent>, step: number, context: ExecutionContext, model: string): Promise<ModelResponse> {
    const turn = new StreamedTurn(this, events, step, context, model);
    this.turn = turn;
    // A reader already waiting reads the turn now (once the events before it are read: none wait, or it would not).
    this.queue.handOver(() => turn.read());
    return turn.response;
  }

  /**
   * The run is done with the turn (it failed or the run was aborted): the
   * model's stream is ended and the reader goes back to the queue. With a
   * `reason`, the turn's response fails with it (the run no longer waits).
   */
  endTurn(reason?: unknown): void {
    const turn = this.turn;
    if (turn === undefined) return;
    this.turn = undefined;
    turn.close(reason);
  }

  /** The turn is over on the reader's side (its response came, or its stream ended or failed). */
  detach(turn: StreamedTurn): void {
    if (this.turn === turn) this.turn = undefined;
  }

  next(): Promise<Read> {
    const turn = this.turn;
    if (turn === undefined || this.queue.pending) return this.queue.next();
    return turn.read();
  }

  return(): Promise<IteratorResult<AgentStreamEvent, undefined>> {
    return this.queue.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** One streamed model turn, read by the stream's reader: a reader of the model's stream (`StreamReader`). */
export class StreamedTurn implements StreamReader<Read | Promise<Read>> {
  readonly response: Promise<ModelResponse>;
  private resolve!: (response: ModelResponse) => void;
  private reject!: (error: unknown) => void;
  /** A read of the model's stream is in flight. */
  private reading = false;
  /** The run left the turn: the read in flight ends the model's stream and goes back to the queue. */
  private closed = false;
  private readonly mapped: boolean;
  // A model's own iterator (not one `mapStream` made) is read through these, bound once.
  private readonly onNext = (result: IteratorResult<ModelStreamEvent>): Read | Promise<Read> => (result.done === true ? this.end() : this.event(result.value));
  private readonly onError = (error: unknown): Promise<Read> => this.error(error);

  constructor(
    private readonly stream: RunStream,
    private readonly events: AsyncIterator<ModelStreamEvent>,
    private readonly step: number,
    private readonly context: ExecutionContext,
    private readonly model: string,
  ) {
    this.response = new Promise<ModelResponse>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // The run may leave the turn on its own (aborted, timed out) and never read this.
    this.response.catch(() => undefined);
    this.mapped = isMappedStream(events);
  }

  read(): Promise<Read> {
    if (this.closed) return this.stream.next();
    this.reading = true;
    if (this.mapped) return (this.events as unknown as { [READ_MAPPED]: (reader: StreamReader<Read | Promise<Read>>) => Promise<Read> })[READ_MAPPED](this);
    return this.events.next().then(this.onNext, this.onError);
  }

  /** A text delta of the model's stream: recorded, and handed to the reader as it was recorded. */
  text(text: string): Read | Promise<Read> {
    this.reading = false;
    if (this.closed) return this.leave();
    const recorded: TextDeltaEvent = { type: 'text_delta', step: this.step, text, time: chunkTime() };
    this.context.record(recorded);
    return { value: recorded, done: false };
  }

  /** One event of the model's stream: recorded, and handed to the reader as it was recorded. */
  event(event: ModelStreamEvent): Read | Promise<Read> {
    this.reading = false;
    if (this.closed) return this.leave();
    switch (event.type) {
      case 'text_delta':
        return this.text(event.text);
      case 'tool_call_delta': {
        const recorded: ToolCallDeltaEvent = { type: 'tool_call_delta', step: this.step, callId: event.id, delta: event.delta, time: chunkTime() };
        this.context.record(recorded);
        return { value: recorded, done: false };
      }
      case 'tool_call_start':
        this.context.record({ type: 'tool_call_start', step: this.step, callId: event.id, tool: event.name, time: chunkTime() });
        return { value: { type: 'tool_call_start', step: this.step, callId: event.id, name: event.name }, done: false };
      case 'response':
        this.resolve(event.response);
        return this.leave();
    }
  }

  /** The model's stream ended without the turn's response. */
  end(): Promise<Read> {
    this.reading = false;
    if (!this.closed) this.reject(new AnytoolError(ErrorCode.ModelFailed, `${this.model}: the stream ended without the turn's response`));
    this.closed = true;
    this.stream.detach(this);
    return this.stream.next();
  }

  /** The model's stream failed: the run decides (an abort ends it, anything else is a failed model call). */
  error(error: unknown): Promise<Read> {
    this.reading = false;
    if (!this.closed) this.reject(error);
    this.closed = true;
    this.stream.detach(this);
    return this.stream.next();
  }

  /** Called by the run once it is done with the turn. */
  close(reason?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    if (reason !== undefined) this.reject(reason);
    if (!this.reading) void this.release();
  }

  /** The reader is done with the turn: the model's stream is ended, the next read comes from the queue. */
  private leave(): Promise<Read> {
    this.closed = true;
    this.stream.detach(this);
    void this.release();
    return this.stream.next();
  }

  /** Ends the model's stream (aborting its request, if it still runs). */
  private async release(): Promise<void> {
    try {
      await this.events.return?.();
    } catch {
      // Already failed or aborted: nothing left to release.
    }
  }
}

// `setImmediate` where there is one (Node, Bun): the events of one read of a stream share one clock reading.
const nextTask: ((callback: () => void) => unknown) | undefined = typeof setImmediate === 'function' ? setImmediate : undefined;
let taskTime: number | undefined;
const forgetTime = (): void => {
  taskTime = undefined;
};

/**
 * The time of a streamed event: when the chunk carrying it was read. A chunk
 * carries many tokens and they are read in one task, so the clock is read once a
 * task (a clock reading costs about as much as the rest of a token's handling).
 */
function chunkTime(): number {
  if (nextTask === undefined) return now();
  if (taskTime === undefined) {
    taskTime = now();
    nextTask(forgetTime);
  }
  return taskTime;
}
