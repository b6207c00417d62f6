// `import { anytool } from '@anytool/schema/bun'`: the plugin for `Bun.build` (docs/build-setup.md, Bundlers).
// unplugin 2 has no Bun target, so this one is written against Bun's plugin API (esbuild's shape:
// an onLoad callback per file) on the same core as the others.
import { readFile } from 'node:fs/promises';
import { type AnytoolPluginOptions, TYPESCRIPT_FILE, createBundlerCore } from './core.js';

export type { AnytoolPluginOptions, FilterPattern } from './core.js';

/** What the plugin uses of Bun's `PluginBuilder`. */
export interface BunPluginBuilder {
  onLoad(constraints: { filter: RegExp; namespace?: string }, callback: (args: { path: string }) => Promise<BunOnLoadResult | undefined>): unknown;
}

/** What the plugin's onLoad callback gives back to Bun. */
export interface BunOnLoadResult {
  contents: string;
  loader: 'js' | 'jsx';
}

/** A Bun plugin (the shape of Bun's `BunPlugin`), for `Bun.build({ plugins })`. */
export interface AnytoolBunPlugin {
  name: string;
  setup(build: BunPluginBuilder): void;
}

/**
 * The Bun plugin: compiles the project's TypeScript files to JavaScript with their tools' schemas,
 * in place of Bun's own TypeScript handling for them. Bun takes no source map from a plugin, so
 * the bundle's source map stops at the compiled JavaScript.
 */
export function anytool(options?: AnytoolPluginOptions): AnytoolBunPlugin {
  const core = createBundlerCore(options);
  return {
    name: 'anytool',
    setup(build) {
      build.onLoad({ filter: TYPESCRIPT_FILE, namespace: 'file' }, async ({ path }) => {
        if (!core.accepts(path)) return undefined;
        const compiled = await core.transform(path, await readFile(path, 'utf8'));
        if (compiled === undefined) return undefined;
        if (compiled.warnings !== undefined) console.warn(compiled.warnings);
        return { contents: compiled.code, loader: path.endsWith('.tsx') ? 'jsx' : 'js' };
      });
    },
  };
}
