// CommonJS in both builds, so that `__dirname` says which build this is: dist/esm/shared or dist/cjs/shared.
import { basename, dirname, join } from 'node:path';

/**
 * A file of this package that is loaded by path rather than imported (a worker thread's file, a module required
 * synchronously): in the ES module build, the bundled file of that name (dist/bundle/validation-worker.js, see
 * scripts/bundle-esm.mjs), which shares the bundle's modules as the package's ES module entries do; undefined in the
 * CommonJS build (and the sources), where the file next to the caller is the one.
 */
export function bundledFile(name: string): string | undefined {
  const build = dirname(__dirname);
  return basename(build) === 'esm' ? join(build, '..', 'bundle', name) : undefined;
}
