// `globalThis.performance` is a lazy getter in Node, paid on every read, and its first read loads perf_hooks:
// captured by the first call, so importing @anytool/core does not load it.
let clock: typeof globalThis.performance | undefined;
let origin = 0;

/** Epoch milliseconds with sub-millisecond precision (monotonic within the process). */
export function now(): number {
  if (clock === undefined) {
    clock = globalThis.performance;
    // Jest's fake timers put a function where `timeOrigin` is: the epoch is then the (fake) clock's own.
    origin = typeof clock.timeOrigin === 'number' ? clock.timeOrigin : Date.now() - clock.now();
  }
  return origin + clock.now();
}
