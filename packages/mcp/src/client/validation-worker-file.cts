// CommonJS, so that `__dirname` says where this package's compiled files are (the ES module bundle takes its twin,
// validation-worker-file.mts): the validation worker runs the file next to this one.
import { join } from 'node:path';

/** The compiled file the worker thread that validates costly arguments runs. */
export function validationWorkerFile(): string {
  return join(__dirname, 'validation-worker.js');
}
