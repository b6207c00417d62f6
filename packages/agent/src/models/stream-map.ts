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
 * What turns a provider client's stream into events: one object a turn, read
 * through its methods (no closure a turn on the hot path: code compiled for one
 * turn stays valid for the next).
 */
export interface ChunkMapper<C> {
  /** One chunk's events. */
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

  constructor(
    private readonly open: () => Promise<AsyncIterator<C>>,
    private readonly mapper: ChunkMapper<C>,
  ) {}

  next(): Promise<IteratorResult<ModelStreamEvent, undefined>> {
    return this[READ_MAPPED](ITERATE);
  }

  // One await of the client's next() a chunk, as reading it directly costs; the reader's answer is the read's value.
  async [READ_MAPPED]<R>(reader: StreamReader<R>): Promise<R> {
    if (this.head < this.pending.length) return this.emit(this.pending[this.head++]!, reader);
    if (this.finished) return reader.end();
    let event: ModelStreamEvent | undefined;
    try {
      const source = this.source ?? (this.source = await this.open());
      for (;;) {
        const step = await source.next();
        if (step.done === true) {
          event = this.mapper.end();
          break;
        }
        const mapped = this.mapper.add(step.value);
        if (mapped === undefined) continue;
        if (!isList(mapped)) {
          event = mapped;
          break;
        }
        if (mapped.length === 0) continue;
        this.pending = mapped;
        this.head = 1;
        event = mapped[0];
        break;
      }
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
