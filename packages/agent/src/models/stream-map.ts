import type { ModelStreamEvent } from '../model.js';
import { NONE, SseEvents } from './sse.js';

/**
 * What one chunk of a provider's stream becomes: no event, one, or several (a call's
 * start with its first arguments). A string is a text delta: the common case, passed
 * on without an event object of its own.
 */
export type MappedChunk = ModelStreamEvent | readonly ModelStreamEvent[] | string | undefined;

/**
 * Where a read of a mapped stream goes: its next text delta, its next other event,
 * the end of the stream (no `response` came), or its failure. Each is called inside
 * the callback that took the chunk from the client's stream, and what it returns is
 * the read's value: a reader that turns events into its own (the agent's stream)
 * costs no promise of its own.
 */
export interface StreamReader<R> {
  text(text: string): R | PromiseLike<R>;
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
  text: (text) => ({ value: { type: 'text_delta', text }, done: false }),
  event: (event) => ({ value: event, done: false }),
  end: () => DONE,
  error: (error) => {
    throw error;
  },
};

/**
 * What turns a provider client's stream into events: one object a turn, read
 * through its methods (no closure a turn on the hot path: code compiled for one
 * turn stays valid for the next).
 */
export interface ChunkMapper<C> {
  /** One chunk's events (a string: a text delta). */
  add(chunk: C): MappedChunk;
  /** When the client's stream ends: the closing event (the turn put together from the chunks), if they did not carry it. */
  end(): ModelStreamEvent | undefined;
}

/**
 * A mapping iterator over a provider client's stream, no generator in between:
 * a streamed token costs about what reading the client's stream directly does.
 * `open` sends the request on the first read; each chunk maps to its events
 * (`mapper.add`); when the client's stream ends, `mapper.end()` gives the
 * closing event, if any. The stream finishes after a `response` event;
 * `return()` (a consumer that stops early) ends the client's stream, which
 * aborts its HTTP request.
 */
export function mapStream<C>(open: () => Promise<AsyncIterator<C>>, mapper: ChunkMapper<C>): MappedStream {
  return new MappingIterator(open, mapper);
}

class MappingIterator<C> implements MappedStream {
  private source: AsyncIterator<C> | undefined;
  private finished = false;
  /** A `response` event came: the client's stream is at its end. */
  private answered = false;
  private pending: readonly ModelStreamEvent[] = [];
  private head = 0;
  /** The reader of the read in flight. */
  private reader: StreamReader<unknown> = ITERATE;
  // The callbacks of a read's one promise, made once: code compiled for one read stays valid for the next.
  private readonly onChunk = (step: IteratorResult<C>): unknown => this.chunk(step);
  private readonly onError = (error: unknown): unknown => {
    this.finished = true;
    return this.reader.error(error);
  };

  constructor(
    private readonly open: () => Promise<AsyncIterator<C>>,
    private readonly mapper: ChunkMapper<C>,
  ) {}

  next(): Promise<IteratorResult<ModelStreamEvent, undefined>> {
    return this[READ_MAPPED](ITERATE);
  }

  /**
   * A read costs the one promise `then` makes on the client's next(), as reading
   * it directly costs an await of it; the reader's answer is the read's value. A
   * chunk without an event, the first read (which opens the stream) and the
   * events after a chunk's first go through `readOn`.
   */
  [READ_MAPPED]<R>(reader: StreamReader<R>): Promise<R> {
    const source = this.source;
    if (source === undefined || this.finished || this.head < this.pending.length) return this.readOn(reader);
    this.reader = reader as StreamReader<unknown>;
    // Events a chunk of an SSE body already gave: mapped without waiting on a promise of the source's.
    if (source instanceof SseEvents) {
      const value = (source as SseEvents<C>).take();
      if (value !== NONE) {
        try {
          return Promise.resolve(this.chunkValue(value) as R | PromiseLike<R>);
        } catch (error) {
          // The plain iterator's reader throws a failed mapping: the read's promise rejects with it.
          return Promise.reject(error as Error);
        }
      }
    }
    let step: Promise<IteratorResult<C>>;
    try {
      step = source.next();
    } catch (error) {
      return this.fail(reader, error);
    }
    return step.then(this.onChunk, this.onError) as Promise<R>;
  }

  /** One chunk of the client's stream, for the reader of the read in flight. */
  private chunk(step: IteratorResult<C>): unknown {
    return step.done === true ? this.ended(this.reader) : this.chunkValue(step.value);
  }

  private chunkValue(value: C): unknown {
    const reader = this.reader;
    let mapped: MappedChunk;
    try {
      mapped = this.mapper.add(value);
    } catch (error) {
      this.finished = true;
      return reader.error(error);
    }
    if (typeof mapped === 'string') return reader.text(mapped);
    if (mapped === undefined) return this.readOn(reader);
    if (!isList(mapped)) return this.emit(mapped, reader);
    if (mapped.length === 0) return this.readOn(reader);
    this.pending = mapped;
    this.head = 1;
    return this.emit(mapped[0]!, reader);
  }

  /** The client's stream ended: the closing event the mapper puts together, if any. */
  private ended<R>(reader: StreamReader<R>): R | PromiseLike<R> {
    let event: ModelStreamEvent | undefined;
    try {
      event = this.mapper.end();
    } catch (error) {
      this.finished = true;
      return reader.error(error);
    }
    if (event === undefined) {
      this.finished = true;
      return reader.end();
    }
    return this.emit(event, reader);
  }

  /**
   * The general read: the events left of a chunk, the end, opening the stream,
   * and the chunks without an event (awaited in one loop, not a chain of promises).
   */
  private async readOn<R>(reader: StreamReader<R>): Promise<R> {
    if (this.head < this.pending.length) return this.emit(this.pending[this.head++]!, reader);
    if (this.finished) return reader.end();
    let mapped: MappedChunk;
    let ended = false;
    try {
      const source = this.source ?? (this.source = await this.open());
      for (;;) {
        const step = await source.next();
        if (step.done === true) {
          ended = true;
          break;
        }
        mapped = this.mapper.add(step.value);
        if (mapped !== undefined && (typeof mapped === 'string' || !isList(mapped) || mapped.length > 0)) break;
      }
    } catch (error) {
      this.finished = true;
      return reader.error(error);
    }
    if (ended || mapped === undefined) return this.ended(reader);
    if (typeof mapped === 'string') return reader.text(mapped);
    if (!isList(mapped)) return this.emit(mapped, reader);
    this.pending = mapped;
    this.head = 1;
    return this.emit(mapped[0]!, reader);
  }

  /** A read that fails with `error` (the client's next() threw). */
  private async fail<R>(reader: StreamReader<R>, error: unknown): Promise<R> {
    this.finished = true;
    return reader.error(error);
  }

  async return(): Promise<IteratorResult<ModelStreamEvent, undefined>> {
    const source = this.source;
    const answered = this.answered;
    this.finished = true;
    this.answered = false;
    if (source === undefined) return DONE;
    // After its response (OpenAI's response.completed) the client's stream is at its end: read to
    // it, as the client's own reader does, rather than aborting the request (which costs more).
    if (answered) {
      try {
        if ((await source.next()).done === true) return DONE;
      } catch {
        return DONE;
      }
    }
    await source.return?.();
    return DONE;
  }

  private emit<R>(event: ModelStreamEvent, reader: StreamReader<R>): R | PromiseLike<R> {
    if (event.type === 'response') {
      this.finished = true;
      this.answered = true;
    }
    return reader.event(event);
  }
}

function isList(mapped: ModelStreamEvent | readonly ModelStreamEvent[]): mapped is readonly ModelStreamEvent[] {
  return Array.isArray(mapped);
}
