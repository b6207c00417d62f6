// The ES module entries of a package, bundled: what `import('@anytool/core')` and `import('@anytool/mcp')` load.
// tsc writes a file per source (dist/esm); Node 20 pays for every module it resolves, reads, compiles and links,
// and importing @anytool/mcp reached over a hundred of ours. The entries named by the package's `exports` (their
// `import` condition pointing into dist/bundle) are bundled from tsc's output into dist/bundle, the code they share
// split into chunks, so each class exists once whichever entries a program imports. Dependencies stay imports
// (`packages: 'external'`). The CommonJS helpers (`*.cjs`, which `require` optional peers from where the package is
// installed, or find a file next to them by `__dirname`) stay the files tsc wrote, imported from dist/esm; a file they
// load by path is bundled as an entry of its own. Source maps go through tsc's to the sources shipped in src/.
// The packages do not ship tsc's per-file ES module output (their `files` leave it out): nothing loads it.
// Run by scripts/build.mjs after tsc.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';

const BUNDLE = './dist/bundle/';
/**
 * Files a package loads by path rather than by import (a worker thread's file; the module `createMcpServer` requires
 * synchronously), bundled beside its entries under these names: the CommonJS helper that finds one picks the bundled
 * file in the ES module build, so it shares the bundle's modules.
 */
const LOADED_BY_PATH = { mcp: { 'validation-worker': 'client/validation-worker.js', 'tool-server': 'server/tool-server.js' } };

/** The bundled entries of a package: output name (without .js) to the file tsc wrote. */
export function bundledEntries(dir) {
  const { exports = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const entries = {};
  for (const [subpath, conditions] of Object.entries(exports)) {
    const target = conditions?.import?.default;
    if (typeof target !== 'string' || !target.startsWith(BUNDLE)) continue;
    const name = target.slice(BUNDLE.length).replace(/\.js$/, '');
    // `./internal` is dist/esm/internal.js; `./code-mode` is dist/esm/code-mode/index.js.
    const base = join(dir, 'dist', 'esm', subpath === '.' ? 'index' : subpath.slice(2));
    entries[name] = existsSync(`${base}.js`) ? `${base}.js` : join(base, 'index.js');
  }
  return entries;
}

export async function bundleEsm(dir) {
  const byPath = Object.entries(LOADED_BY_PATH[basename(dir)] ?? {}).map(([name, file]) => [name, join(dir, 'dist', 'esm', file)]);
  const entryPoints = { ...bundledEntries(dir), ...Object.fromEntries(byPath) };
  if (Object.keys(entryPoints).length === 0) return;
  const { build } = await import('esbuild');
  const outdir = join(dir, 'dist', 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  const commonJsHelpers = {
    name: 'commonjs-helpers',
    setup(build) {
      build.onResolve({ filter: /\.cjs$/ }, ({ path, resolveDir }) => {
        const target = relative(outdir, resolve(resolveDir, path)).split(sep).join('/');
        return { path: target.startsWith('.') ? target : `./${target}`, external: true };
      });
    },
  };
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: '[name]-[hash]',
    sourcemap: true,
    sourcesContent: false,
    plugins: [commonJsHelpers],
    logLevel: 'warning',
  });
}
