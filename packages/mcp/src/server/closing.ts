import type { ServedTools } from './served-tools.js';

/** How a serving or worker process stops: once, whatever asks it to. */
export interface Closing {
  /** Runs `stop`, then ends the tasks running here and releases `served`; later calls get the same promise. */
  close(): Promise<void>;
  /** Settles once closed, whatever closed it. */
  readonly closed: Promise<void>;
}

/**
 * The one closing of `served` (`serveMcp`'s handle and `runTaskWorker`'s): `stop` closes what
 * the process opened for its clients (nothing for a worker), then the running tasks get their
 * grace period (`served.closeTasks`). With `handleSignals`, SIGINT and SIGTERM close it.
 */
export function closing(served: ServedTools, stop: () => Promise<void>, handleSignals: boolean | undefined): Closing {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let once: Promise<void> | undefined;
  const onSignal = (): void => void close();
  const close = (): Promise<void> =>
    (once ??= (async () => {
      if (handleSignals) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      try {
        // A call waiting for its task's end gets the task before the endpoint closes (its answer is written first).
        served.stopAnswering();
        await new Promise((resolve) => setImmediate(resolve));
        await stop();
        await served.closeTasks();
      } finally {
        served.dispose();
        resolveClosed();
      }
    })());
  if (handleSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return { close, closed };
}
