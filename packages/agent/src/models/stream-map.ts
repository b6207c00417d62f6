import type { ModelStreamEvent } from '../model.js';

/** What one chunk of a provider's stream becomes: no event, one, or several (a call's start with its first arguments). */
export type MappedChunk = ModelStreamEvent | readonly ModelStreamEvent[] | undefined;

/**
 * Where a read of a mapped stream goes: its next event, the end of the stream
 * (no `response` came), or its failure. Each is called inside the callback that
 * took the chunk from the client's stream, and what it returns is the read's
 * value: a reader that turns events into its own (the agent's stream) costs no
 * promise of its own.
 */
export interface StreamReader<R> {
  event(event: ModelStreamEvent): R | PromiseLike<R>;
  end(): R | PromiseLike<R>;
  error(error: unknown): R | PromiseLike<R>;
}

/** The key of `read` on the iterators `mapStream` makes (shared by every copy of this package). */
export const READ_MAPPED: unique symbol = Symbol.for('anytool.agent.readMapped') as never;

/** An iterator of a model's stream events that can also hand its next event straight to a reader. */
export interface MappedStream extends AsyncIterator<ModelStreamEvent, undefined> {
  [READ_MAPPED]<R>(reader: StreamReader<R>): Promise<R>;
}

/** Whether `iterator` is one `mapStream` made. */
export function isMappedStream(iterator: AsyncIterator<ModelStreamEvent>): iterator is MappedStream {
  return typeof (iterator as Partial<MappedStream>)[READ_MAPPED] === 'function';
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** The plain iterator's reader: each event as an iterator result. */
const ITERATE: StreamReader<IteratorResult<ModelStreamEvent, undefined>> = {
  event: (event) => ({ value: event, done: false }),
  end: () => DONE,
  error: (error) => {
    throw error;
  },
};

/**
 * A mapping iterator over a provider client's stream, no generator in between:
 * a streamed token costs about what reading the client's stream directly does.
 * `open` sends the request on the first read; each chunk maps to its events;
 * when the client's stream ends, `end` gives the closing event (the turn put
 * together from the chunks), if the chunks did not already carry it. The
 * stream finishes after a `response` event; `return()` (a consumer that stops
 * early) ends the client's stream, which aborts its HTTP request.
 */
export function mapStream<C>(open: () => Promise<AsyncIterator<C>>, map: (chunk: C) => MappedChunk, end: () => ModelStreamEvent | undefined): MappedStream {
  return new MappingIterator(open, map, end);
}

class MappingIterator<C> implements MappedStream {
  private source: AsyncIterator<C> | undefined;
  private finished = false;
  private pending: readonly ModelStreamEvent[] = [];
  private head = 0;
  /** The reader of the read in flight: one at a time, as an iterator is read. */
  private reader: StreamReader<unknown> = ITERATE;
  // Bound once: a read costs the client's next() and one `then`, no closure.
  private readonly onStep = (step: IteratorResult<C>): unknown => this.step(step);
  private readonly onError = (error: unknown): unknown => {
    this.finished = true;
    return this.reader.error(error);
  };
  private readonly onOpen = (source: AsyncIterator<C>): unknown => {
    this.source = source;
    return source.next().then(this.onStep, this.onError);
  };

  constructor(
    private readonly open: () => Promise<AsyncIterator<C>>,
    private readonly map: (chunk: C) => MappedChunk,
    private readonly end: () => ModelStreamEvent | undefined,
  ) {}

  next(): Promise<IteratorResult<ModelStreamEvent, undefined>> {
    return this[READ_MAPPED](ITERATE);
  }

  [READ_MAPPED]<R>(reader: StreamReader<R>): Promise<R> {
    this.reader = reader;
    if (this.head < this.pending.length) return this.settle(() => this.emit(this.pending[this.head++]!));
    if (this.finished) return this.settle(() => reader.end());
    const source = this.source;
    if (source === undefined) return this.open().then(this.onOpen, this.onError) as Promise<R>;
    return source.next().then(this.onStep, this.onError) as Promise<R>;
  }

  async return(): Promise<IteratorResult<ModelStreamEvent, undefined>> {
    this.finished = true;
    await this.source?.return?.();
    return DONE;
  }

  /** A read answered without the client's stream (an event left from a chunk, or the end). */
  private settle<R>(read: () => unknown): Promise<R> {
    try {
      return Promise.resolve(read() as R);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private emit(event: ModelStreamEvent): unknown {
    if (event.type === 'response') this.finished = true;
    return this.reader.event(event);
  }

  private step(step: IteratorResult<C>): unknown {
    let mapped: MappedChunk;
    try {
      if (step.done === true) {
        const last = this.end();
        if (last === undefined) {
          this.finished = true;
          return this.reader.end();
        }
        return this.emit(last);
      }
      mapped = this.map(step.value);
    } catch (error) {
      return this.onError(error);
    }
    if (mapped === undefined) return this.source!.next().then(this.onStep, this.onError);
    if (!isList(mapped)) return this.emit(mapped);
    this.pending = mapped;
    this.head = 0;
    return this.head < this.pending.length ? this.emit(this.pending[this.head++]!) : this.source!.next().then(this.onStep, this.onError);
  }
}

function isList(mapped: ModelStreamEvent | readonly ModelStreamEvent[]): mapped is readonly ModelStreamEvent[] {
  return Array.isArray(mapped);
}
