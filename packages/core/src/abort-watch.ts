import { describeError } from './errors.js';

/** A waiter that is an object of its own: watched as it is, with no closure per waiter. */
export interface AbortWaiter {
  aborted(): void;
}

/**
 * One 'abort' listener per signal, however many calls wait on it: adding and
 * removing an EventTarget listener per tool call costs more than the call.
 */
const watchers = new WeakMap<AbortSignal, Set<(() => void) | AbortWaiter>>();

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
  const owner = waitersOf(signal);
  owner.add(onAbort);
  return () => void owner.delete(onAbort);
}

/** `abortWatch` for a waiter object (`aborted()` is called); `unwatchAbort` stops it. */
export function watchAbort(signal: AbortSignal, waiter: AbortWaiter): void {
  if (signal.aborted) waiter.aborted();
  else waitersOf(signal).add(waiter);
}

export function unwatchAbort(signal: AbortSignal, waiter: AbortWaiter): void {
  watchers.get(signal)?.delete(waiter);
}

function waitersOf(signal: AbortSignal): Set<(() => void) | AbortWaiter> {
  let set = watchers.get(signal);
  if (set !== undefined) return set;
  const waiting = new Set<(() => void) | AbortWaiter>();
  set = waiting;
  watchers.set(signal, waiting);
  signal.addEventListener(
    'abort',
    () => {
      const all = [...waiting];
      waiting.clear();
      for (const waiter of all) {
        try {
          if (typeof waiter === 'function') waiter();
          else waiter.aborted();
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
  return set;
}
