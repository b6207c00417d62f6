import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** What `SseEvents.take` returns when no event is buffered. */
export const NONE: unique symbol = Symbol('anytool.sse.none') as never;

function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/**
 * The events of a server-sent event stream, read from a response body by chunks:
 * each chunk of bytes is parsed at once into all the events it holds, which are
 * then handed out without a promise each (`take`). The official clients' streams
 * put two async generators between the bytes and each event; read this way a
 * streamed token costs less than reading the client's stream.
 *
 * `decode` turns one SSE message into an event, or undefined to skip it (a
 * ping); what it throws ends the stream with that error after the events before
 * it. An abort of the request ends the stream quietly, as the clients' streams do.
 */
export class SseEvents<T> implements AsyncIterator<T, undefined> {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private queue: T[] = [];
  private head = 0;
  private ended = false;
  /** The text read so far ends in a CR, which the parser holds back in case an LF follows. */
  private endsInCR = false;
  private failed = false;
  private failure: unknown;

  /** `release`: called once when the stream is over (read to its end, failed or stopped early). */
  constructor(
    body: ReadableStream<Uint8Array> | null,
    decode: (message: EventSourceMessage) => T | undefined,
    private release: (() => void) | undefined = undefined,
  ) {
    this.reader = body?.getReader();
    this.ended = body === null;
    if (this.ended) this.over();
    this.parser = createParser({
      onEvent: (message) => {
        if (this.failed) return;
        try {
          const event = decode(message);
          if (event !== undefined) this.queue.push(event);
        } catch (error) {
          this.fail(error);
        }
      },
    });
  }

  /** The next event already read, without a promise; `NONE` when a read is needed (or the stream is over). */
  take(): T | typeof NONE {
    return this.head < this.queue.length ? this.queue[this.head++]! : NONE;
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (this.head < this.queue.length) return { value: this.queue[this.head++]!, done: false };
      if (this.failed) {
        // `fail` has cancelled the body and released the signal already.
        this.failed = false;
        this.ended = true;
        throw this.failure;
      }
      if (this.ended) return DONE;
      this.queue = [];
      this.head = 0;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.reader!.read();
      } catch (error) {
        this.ended = true;
        this.over();
        if (isAbortError(error)) return DONE;
        throw error;
      }
      if (chunk.done) {
        this.ended = true;
        this.over();
        // An event the body ends in the middle of (no blank line after it) is dropped, as the spec and the
        // clients do; a CR at the very end is a whole line ending (the parser waited for an LF).
        const rest = this.decoder.decode();
        if (rest !== '') this.parser.feed(rest);
        else if (this.endsInCR) this.parser.feed('\n');
      } else {
        const text = this.decoder.decode(chunk.value, { stream: true });
        if (text !== '') {
          this.endsInCR = text.charCodeAt(text.length - 1) === 13;
          this.parser.feed(text);
        }
      }
    }
  }

  /** Stops reading: the response body is cancelled, which ends its HTTP request. */
  async return(): Promise<IteratorResult<T, undefined>> {
    this.queue = [];
    this.head = 0;
    if (!this.ended) {
      this.ended = true;
      await this.reader?.cancel().catch(() => undefined);
    }
    this.over();
    return DONE;
  }

  private fail(error: unknown): void {
    this.failed = true;
    this.failure = error;
    this.reader?.cancel().catch(() => undefined);
    this.over();
  }

  private over(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
  }
}

/**
 * The signal of one streamed request: it follows `signal` (the run's) through a
 * listener that `release` removes. The official clients attach a listener of
 * their own to the signal of each request and, when the application reads the
 * response body itself, leave it there until the body is garbage collected: on
 * a signal of its own each request's listener goes with the request, and a run
 * of many turns does not pile listeners on the run's signal.
 */
export function requestSignal(signal: AbortSignal | undefined): { options: { signal: AbortSignal } | undefined; release: () => void } {
  if (signal === undefined) return { options: undefined, release: () => undefined };
  const own = new AbortController();
  if (signal.aborted) {
    own.abort(signal.reason);
    return { options: { signal: own.signal }, release: () => undefined };
  }
  const follow = (): void => own.abort(signal.reason);
  signal.addEventListener('abort', follow, { once: true });
  return { options: { signal: own.signal }, release: () => signal.removeEventListener('abort', follow) };
}

/**
 * Sends a streamed request through an official client (`send`: its call with
 * `.asResponse()`) on a signal of its own that follows `signal`, and reads the
 * response's events; the signal's listener goes when the stream is over.
 */
export async function readEvents<T>(
  signal: AbortSignal | undefined,
  send: (options: { signal: AbortSignal } | undefined) => PromiseLike<Response>,
  decode: (headers: Headers) => (message: EventSourceMessage) => T | undefined,
): Promise<SseEvents<T>> {
  const { options, release } = requestSignal(signal);
  let response: Response;
  try {
    response = await send(options);
  } catch (error) {
    release();
    throw error;
  }
  return new SseEvents(response.body, decode(response.headers), release);
}
