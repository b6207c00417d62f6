// CommonJS in both builds, for a `require` that resolves next to this package: unplugin, an optional peer
// dependency, loads when a bundler plugin is made, not when @anytool/schema is installed or imported. A project
// that builds with `anytool build` or the loader never installs it (nor its eight packages).
import type * as UnpluginModule from 'unplugin';

/** unplugin's `createUnplugin`; throws one line naming the `npm i` to run when unplugin is not installed. */
export function requireCreateUnplugin(plugin: string): typeof UnpluginModule.createUnplugin {
  const needs = (why: string, cause?: unknown, install = 'unplugin'): Error =>
    new Error(`${plugin} needs the unplugin package, which ${why}; install it next to @anytool/schema: npm i -D ${install}`, { cause });
  let createUnplugin: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded on first use
    createUnplugin = (require('unplugin') as typeof UnpluginModule).createUnplugin;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    const missing = code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes("'unplugin'");
    throw needs(missing ? 'is not installed' : `does not load (${String((error as Error).message).split('\n')[0]})`, error);
  }
  // Another major version, without the function this package is written against.
  if (typeof createUnplugin !== 'function') throw needs('has no createUnplugin in the version installed', undefined, 'unplugin@2');
  return createUnplugin as typeof UnpluginModule.createUnplugin;
}
