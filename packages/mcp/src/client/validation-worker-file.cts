// CommonJS in both builds, so that `__dirname` says where this package's compiled files are
// (dist/esm or dist/cjs): the validation worker runs the file next to this one.
import { join } from 'node:path';

/** The compiled file the worker thread that validates costly arguments runs. */
export function validationWorkerFile(): string {
  return join(__dirname, 'validation-worker.js');
}
