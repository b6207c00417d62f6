// `import { anytool } from '@anytool/schema/esbuild'`: the esbuild plugin (docs/build-setup.md, Bundlers).
import type { EsbuildPlugin } from 'unplugin';
import { type AnytoolPluginOptions, anytoolPlugin } from './unplugin.js';

export type { AnytoolPluginOptions, FilterPattern } from './unplugin.js';

/** The esbuild plugin: compiles the project's TypeScript files with their tools' schemas, before esbuild's own TypeScript handling. */
export const anytool: (options?: AnytoolPluginOptions) => EsbuildPlugin = anytoolPlugin('esbuild');
