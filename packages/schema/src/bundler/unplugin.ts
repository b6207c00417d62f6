// The bundler plugins, one definition for all bundlers unplugin supports. Each plugin
// instance compiles the project's TypeScript files itself, before the bundler's own
// TypeScript handling, so the bundler receives JavaScript with the build information in it.
// unplugin is an optional peer dependency: it loads when the first plugin is made.
import type { UnpluginInstance, UnpluginOptions } from 'unplugin';
import { type AnytoolPluginOptions, TYPESCRIPT_FILE, TYPESCRIPT_ID, createBundlerCore, resolveTypeScriptImport } from './core.js';
import { requireCreateUnplugin } from './unplugin-module.cjs';

export type { AnytoolPluginOptions, FilterPattern } from './core.js';

type Bundler = 'esbuild' | 'vite' | 'rollup' | 'webpack' | 'rspack';
type AnytoolUnplugin = UnpluginInstance<AnytoolPluginOptions | undefined, false>;

let instance: AnytoolUnplugin | undefined;

/** The plugin factory for one bundler (`@anytool/schema/<bundler>`'s `anytool`), loading unplugin on its first call. */
export function anytoolPlugin<B extends Bundler>(bundler: B): AnytoolUnplugin[B] {
  const factory = (options?: AnytoolPluginOptions) => {
    instance ??= requireCreateUnplugin(`The anytool ${bundler} plugin (@anytool/schema/${bundler})`)<AnytoolPluginOptions | undefined, false>(pluginOptions);
    return instance[bundler](options);
  };
  return factory as AnytoolUnplugin[B];
}

function pluginOptions(options: AnytoolPluginOptions | undefined): UnpluginOptions {
  const core = createBundlerCore(options);
  return {
    name: 'anytool',
    enforce: 'pre',
    transform: {
      filter: { id: TYPESCRIPT_ID },
      async handler(code, id) {
        const compiled = await core.transform(id, code);
        if (compiled === undefined) return undefined;
        if (compiled.warnings !== undefined) this.warn(compiled.warnings);
        return { code: compiled.code, map: compiled.map === undefined ? null : JSON.parse(compiled.map) };
      },
    },
    // The output is JavaScript (JSX kept as written under "jsx": "preserve"); a file the options leave out stays TypeScript.
    esbuild: {
      onLoadFilter: TYPESCRIPT_FILE,
      loader: (_code, id) => (core.accepts(id) ? (id.endsWith('.tsx') ? 'jsx' : 'js') : id.endsWith('.tsx') ? 'tsx' : 'ts'),
    },
    // Rollup resolves only files that exist: `./tools.js` written in TypeScript means `./tools.ts`.
    rollup: {
      resolveId(source, importer) {
        return resolveTypeScriptImport(source, importer) ?? null;
      },
      // TypeScript's helpers look for a copy on `this` (`(this && this.__esDecorate) || ...`), which is
      // undefined at the top of an ES module: Rollup would warn about each. `(void 0)` is what `this` is
      // there, without the warning (tsc itself reports a top-level `this` in the module's own code).
      options(input) {
        const given = input.moduleContext;
        const contextOf = typeof given === 'function' ? given : (id: string): string | null | undefined => given?.[id];
        return { ...input, moduleContext: (id: string) => contextOf(id) ?? (core.accepts(id) ? '(void 0)' : null) };
      },
    },
  };
}
