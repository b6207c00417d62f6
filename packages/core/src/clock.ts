// Captured once: `globalThis.performance` is a lazy getter in Node, paid on every read.
const clock = globalThis.performance;
const origin = clock.timeOrigin;

/** Epoch milliseconds with sub-millisecond precision (monotonic within the process). */
export function now(): number {
  return origin + clock.now();
}
