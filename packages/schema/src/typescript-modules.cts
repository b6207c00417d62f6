// CommonJS in both builds, so that `require` here is this package's own: it loads the
// TypeScript that @anytool/schema depends on only when it is needed (loading a TypeScript
// costs a third of a second, and a project's own one is usually the one used), and it sees
// which TypeScript modules the process has loaded.

/** The TypeScript this package depends on. */
export function loadShippedTypeScript(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return require('typescript');
}

/** Where the TypeScript this package depends on is, without loading it. */
export function shippedTypeScriptPath(): string {
  return require.resolve('typescript');
}

/** The TypeScript compiler modules already loaded in this process (by tsc, ts-node, ts-jest or the user). */
export function loadedTypeScripts(): unknown[] {
  const found: unknown[] = [];
  for (const [file, entry] of Object.entries(require.cache ?? {})) {
    if (entry !== undefined && /[\\/]typescript[\\/]lib[\\/](typescript|tsserverlibrary)\.js$/.test(file)) found.push(entry.exports);
  }
  return found;
}

/** The folder this module was loaded from (dist/esm, dist/cjs or src of @anytool/schema). */
export function ownDirectory(): string {
  return __dirname;
}
