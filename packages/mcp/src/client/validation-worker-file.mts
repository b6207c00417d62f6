// The ES module bundle's validation-worker-file.cts (see core's on-first-use.mts for why): the worker runs the
// bundle's file beside this one.
import { fileURLToPath as pathOfUrl } from 'node:url';

/** The file the worker thread that validates costly arguments runs. */
export function validationWorkerFile(): string {
  return pathOfUrl(new URL('./validation-worker.js', import.meta.url));
}
