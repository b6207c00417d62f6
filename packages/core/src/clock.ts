// `globalThis.performance` is a lazy getter in Node, paid on every read, and its first read loads perf_hooks:
// captured by the first call, so importing @anytool/core does not load it.
let clock: typeof globalThis.performance | undefined;
let origin = 0;

/** Epoch milliseconds with sub-millisecond precision (monotonic within the process). */
export function now(): number {
  if (clock === undefined) {
    clock = globalThis.performance;
    origin = clock.timeOrigin;
  }
  return origin + clock.now();
}
