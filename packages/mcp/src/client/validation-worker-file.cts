// CommonJS in both builds, so that `__dirname` says where this package's compiled files are (dist/esm or dist/cjs):
// the validation worker runs the file next to this one, or in the ES module build the bundled one.
import { join } from 'node:path';
import { bundledFile } from '../shared/bundled-file.cjs';

/** The compiled file the worker thread that validates costly arguments runs. */
export function validationWorkerFile(): string {
  return bundledFile('validation-worker.js') ?? join(__dirname, 'validation-worker.js');
}
