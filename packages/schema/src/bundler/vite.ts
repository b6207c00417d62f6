// `import { anytool } from '@anytool/schema/vite'`: the Vite plugin (docs/build-setup.md, Bundlers).
import type { VitePlugin } from 'unplugin';
import { type AnytoolPluginOptions, anytoolPlugin } from './unplugin.js';

export type { AnytoolPluginOptions, FilterPattern } from './unplugin.js';

/** The Vite plugin: compiles the project's TypeScript files with their tools' schemas, before Vite's own TypeScript handling. */
export const anytool: (options?: AnytoolPluginOptions) => VitePlugin = anytoolPlugin('vite');
