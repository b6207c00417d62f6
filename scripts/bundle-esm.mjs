// The ES module entries of a package, bundled: what `import('@anytool/core')` and `import('@anytool/mcp')` load.
// tsc writes a file per source (dist/esm); Node 20 pays for every module it resolves, reads, compiles and links,
// and importing @anytool/mcp reached over a hundred of ours. The entries named by the package's `exports` (their
// `import` condition pointing into dist/bundle) are bundled from tsc's output into dist/bundle, the code they share
// split into chunks, so each class exists once whichever entries a program imports. Dependencies stay imports
// (`packages: 'external'`); a class keeps its own name (see `restoreClassNames`).
//
// The CommonJS helpers (`*.cjs`: a `require` of an optional peer from where the package is installed, a file found
// by `__dirname`, the server module `createMcpServer` requires synchronously) are copied into dist/bundle as tsc
// wrote them and imported from there, so what they find next to them is the bundle's: `require('./tool-server.js')`
// and the validation worker's file are bundled entries of their own (LOADED_BY_PATH), sharing the bundle's modules,
// and a user's bundler follows the same literal paths. Source maps go through tsc's to the sources shipped in src/.
// Importing them costs a cold `import('@anytool/mcp')` about 3% (Node's CommonJS lexer and loader). ES module twins
// that load with `createRequire(import.meta.url)` were measured and reverted: a user's esbuild bundle in CommonJS
// format empties `import.meta`, webpack and rollup leave `require('./tool-server.js')` to resolve beside their output,
// and a twin that takes a global `require` (`node -e`, the REPL, Electron) resolves from the working directory.
// The packages ship dist/bundle, not tsc's per-file ES module output (their `files` leave it out).
// Run by scripts/build.mjs after tsc.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUNDLE = './dist/bundle/';
/**
 * Files a package's CommonJS helpers load by path rather than by import (a worker thread's file; the module
 * `createMcpServer` requires synchronously), bundled beside the entries under the names the helpers use.
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

/** A hash of what a bundle is made from: tsc's ES module output, the entries, this script and esbuild's version. */
function inputsOf(dir, entryPoints) {
  const hash = createHash('sha256')
    .update(JSON.stringify(entryPoints))
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(createRequire(import.meta.url)('esbuild/package.json').version);
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

/**
 * esbuild writes a class that refers to itself as `var Toolset = class _Toolset { ... _Toolset ... }`, so its `name`
 * (in stack traces, in what `console.log` prints) would be `_Toolset`. Its `keepNames` option fixes that but also wraps
 * every function made at run time in a call that sets its name, closures of the call path included. Here the inner
 * name is the class's own again (`class Toolset`, which binds the same class inside its body), after checking that
 * `_Toolset` is used nowhere but as that identifier; the build fails if it is.
 */
function restoreClassNames(file) {
  let code = readFileSync(file, 'utf8');
  for (const [, name] of code.matchAll(/\bvar (\w+) = class _\1\b/g)) {
    const inner = `_${name}`;
    const uses = [...code.matchAll(new RegExp(`(.)\\b${inner}\\b(.)`, 'g'))];
    const odd = uses.filter(([, before, after]) => before === '.' || before === '"' || before === "'" || before === '`' || after === ':' || after === '"');
    const declarations = code.match(new RegExp(`\\b(?:var|let|const|function|class) ${inner}\\b`, 'g')) ?? [];
    if (odd.length > 0 || declarations.length !== 1)
      throw new Error(`${file}: ${inner} is used other than as the class ${name}'s inner name; its name cannot be restored`);
    code = code.replace(new RegExp(`\\b${inner}\\b`, 'g'), name);
  }
  writeFileSync(file, code);
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
  const helpers = new Map();
  const commonJsHelpers = {
    name: 'commonjs-helpers',
    setup(build) {
      build.onResolve({ filter: /\.cjs$/ }, ({ path, resolveDir }) => {
        const file = resolve(resolveDir, path);
        const name = basename(file);
        if (helpers.has(name) && helpers.get(name) !== file) throw new Error(`two CommonJS helpers named ${name}: ${helpers.get(name)} and ${file}`);
        helpers.set(name, file);
        return { path: `./${name}`, external: true };
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
  for (const [name, file] of helpers) {
    copyFileSync(file, join(outdir, name));
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    map.sources = map.sources.map((source) =>
      relative(outdir, resolve(dirname(file), source))
        .split(sep)
        .join('/'),
    );
    writeFileSync(join(outdir, `${name}.map`), JSON.stringify(map));
  }
  for (const name of readdirSync(outdir).filter((file) => file.endsWith('.js'))) restoreClassNames(join(outdir, name));
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
