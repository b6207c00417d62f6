// `import { anytool } from '@anytool/schema/webpack'`: the webpack plugin (docs/build-setup.md, Bundlers).
import type { WebpackPluginInstance } from 'unplugin';
import { type AnytoolPluginOptions, anytoolPlugin } from './unplugin.js';

export type { AnytoolPluginOptions, FilterPattern } from './unplugin.js';

/**
 * The webpack plugin: compiles the project's TypeScript files to JavaScript with their tools' schemas,
 * as a loader that runs before the others (`enforce: 'pre'`), so these files need no other TypeScript
 * loader. webpack still needs `resolve.extensions` (and `resolve.extensionAlias` for `./x.js` imports).
 */
export const anytool: (options?: AnytoolPluginOptions) => WebpackPluginInstance = anytoolPlugin('webpack');
