import { availableParallelism } from 'node:os';

/**
 * How many independent child processes a test file runs at once: one per core and one more, as part of a child's
 * time goes to waiting (on npm, on a socket, on its own children) rather than to the cores.
 */
export const PROCESSES = availableParallelism() + 1;

/** `run(fn)` starts `fn` once fewer than `limit` of the functions given to it are running, in the order given. */
export function limiter(limit = PROCESSES): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A slot is handed from the function that ends to the next waiting one, never freed in between.
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await fn();
    } finally {
      const resume = waiting.shift();
      if (resume === undefined) running -= 1;
      else resume();
    }
  };
}

/**
 * `work`, started now for a test to await later (the processes of a file's tests run side by side, and each test
 * still checks its own). A rejection is not reported as unhandled before a test awaits it: that test fails with it.
 */
export function early<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}
