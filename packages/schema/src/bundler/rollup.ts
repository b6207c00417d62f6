// `import { anytool } from '@anytool/schema/rollup'`: the Rollup plugin (docs/build-setup.md, Bundlers).
import type { RollupPlugin } from 'unplugin';
import { type AnytoolPluginOptions, anytoolPlugin } from './unplugin.js';

export type { AnytoolPluginOptions, FilterPattern } from './unplugin.js';

/**
 * The Rollup plugin: compiles the project's TypeScript files to JavaScript with their tools' schemas,
 * so Rollup needs no other TypeScript plugin for them, and resolves `./x.js` (and `./x`) imported from
 * TypeScript to `./x.ts` as tsc does.
 */
export const anytool: (options?: AnytoolPluginOptions) => RollupPlugin = anytoolPlugin('rollup');
