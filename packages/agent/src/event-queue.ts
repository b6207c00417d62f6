/**
 * A queue a producer pushes into and one reader iterates: the reader waits for
 * the next item, the producer never waits. `end` yields a last item and stops;
 * `fail` makes the iteration throw once the items before it are read.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private done = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
    this.notify();
  }

  end(last: T): void {
    this.push(last);
    this.done = true;
    this.notify();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.failure = { error };
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.failure !== undefined) throw this.failure.error;
      if (this.done) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
