import { describeError } from './errors.js';

/**
 * One 'abort' listener per signal, however many calls wait on it: adding and
 * removing an EventTarget listener per tool call costs more than the call.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts; returns the function that stops
 * watching. Many waiters on one long-lived signal (a run's) share a single
 * listener, so watching it per call neither leaks listeners nor slows down.
 */
export function abortWatch(signal: AbortSignal, onAbort: () => void): () => void {
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  let set = watchers.get(signal);
  if (set === undefined) {
    const waiting = new Set<() => void>();
    set = waiting;
    watchers.set(signal, waiting);
    signal.addEventListener(
      'abort',
      () => {
        const all = [...waiting];
        waiting.clear();
        for (const fn of all) {
          try {
            fn();
          } catch (error) {
            // One waiter that throws must not keep the others from hearing of the abort, and an
            // error thrown out of an abort listener would end the process: it becomes a warning.
            process.emitWarning(`a waiter on an abort signal threw: ${describeError(error)}`, {
              code: 'ANYTOOL_ABORT_WAITER',
              detail: error instanceof Error ? error.stack : undefined,
            });
          }
        }
      },
      { once: true },
    );
  }
  set.add(onAbort);
  const owner = set;
  return () => void owner.delete(onAbort);
}
