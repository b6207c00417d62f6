/**
 * A queue a producer pushes into and one reader iterates: the reader waits for
 * the next item, the producer never waits. `end` yields a last item and stops;
 * `fail` makes the iteration throw once the items before it are read. A plain
 * iterator, not an async generator: a streamed token costs one settled promise.
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private done = false;
  private failure: { error: unknown } | undefined;
  private waiting:
    { resolve: (result: IteratorResult<T, undefined> | Promise<IteratorResult<T, undefined>>) => void; reject: (error: unknown) => void } | undefined;

  /** Called once when the reader stops early (`break`, `return()`). */
  constructor(private readonly onReturn: () => Promise<void> = () => Promise.resolve()) {}

  push(item: T): void {
    if (this.done) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Whether items wait to be read. */
  get pending(): boolean {
    return this.head < this.items.length;
  }

  /**
   * Answers a reader waiting for the next item with what `read` gives instead
   * (another source's next item); false when no reader waits.
   */
  handOver(read: () => Promise<IteratorResult<T, undefined>>): boolean {
    const waiting = this.waiting;
    if (waiting === undefined) return false;
    this.waiting = undefined;
    waiting.resolve(read());
    return true;
  }

  end(last: T): void {
    this.push(last);
    this.done = true;
    this.settleWaiting();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.failure = { error };
    this.done = true;
    this.settleWaiting();
  }

  private settleWaiting(): void {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    this.waiting = undefined;
    if (this.failure !== undefined) waiting.reject(this.failure.error);
    else waiting.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head++]!;
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== undefined) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    const stopping = !this.done;
    this.done = true;
    this.items = [];
    this.head = 0;
    if (stopping) await this.onReturn();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
