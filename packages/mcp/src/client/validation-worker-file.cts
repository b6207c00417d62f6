// CommonJS in both builds, so that `__dirname` says where this package's compiled files are (dist/esm/client or
// dist/cjs/client): the validation worker runs the CommonJS build's file next to this one, or the ES module build's
// bundled one (dist/bundle, as the package's ES module entries are: see scripts/bundle-esm.mjs).
import { basename, dirname, join } from 'node:path';

/** The compiled file the worker thread that validates costly arguments runs. */
export function validationWorkerFile(): string {
  return basename(dirname(__dirname)) === 'esm' ? join(__dirname, '..', '..', 'bundle', 'validation-worker.js') : join(__dirname, 'validation-worker.js');
}
