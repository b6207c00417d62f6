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
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A hash of what a bundle is made from: tsc's ES module output, the entries, and this script. */
function inputsOf(dir, entryPoints) {
  const hash = createHash('sha256')
    .update(JSON.stringify(entryPoints))
    .update(readFileSync(fileURLToPath(import.meta.url)));
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.c?js(\.map)?$/.test(entry.name)) hash.update(relative(dir, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  walk(join(dir, 'dist', 'esm'));
  return hash.digest('hex');
}

/** Bundles a package's ES module entries into dist/bundle, unless what they are made from is unchanged since. */
export async function bundleEsm(dir) {
  const byPath = Object.entries(LOADED_BY_PATH[basename(dir)] ?? {}).map(([name, file]) => [name, join(dir, 'dist', 'esm', file)]);
  const entryPoints = { ...bundledEntries(dir), ...Object.fromEntries(byPath) };
  if (Object.keys(entryPoints).length === 0) return;
  const outdir = join(dir, 'dist', 'bundle');
  // Beside the package's tsc build info: not in dist, so not published.
  const stamp = join(dir, '.bundle-inputs');
  const inputs = inputsOf(dir, entryPoints);
  const built = existsSync(stamp) && Object.keys(entryPoints).every((name) => existsSync(join(outdir, `${name}.js`)));
  if (built && readFileSync(stamp, 'utf8').trim() === inputs) return;
  const { build } = await import('esbuild');
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
  // A map of an output that only re-exports maps nothing (esbuild writes one all the same): neither is shipped.
  for (const name of readdirSync(outdir).filter((file) => file.endsWith('.js.map'))) {
    const map = join(outdir, name);
    if (JSON.parse(readFileSync(map, 'utf8')).sources.length > 0) continue;
    rmSync(map);
    const code = join(outdir, name.slice(0, -'.map'.length));
    writeFileSync(code, readFileSync(code, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\n?$/, '\n'));
  }
  writeFileSync(stamp, `${inputs}\n`);
}
