// `import { anytool } from '@anytool/schema/rspack'`: the Rspack plugin (docs/build-setup.md, Bundlers).
import type { RspackPluginInstance } from 'unplugin';
import { type AnytoolPluginOptions, anytoolPlugin } from './unplugin.js';

export type { AnytoolPluginOptions, FilterPattern } from './unplugin.js';

/**
 * The Rspack plugin: compiles the project's TypeScript files to JavaScript with their tools' schemas,
 * as a loader that runs before the others (`enforce: 'pre'`), so these files need no other TypeScript
 * loader. Rspack still needs `resolve.extensions` (and `resolve.extensionAlias` for `./x.js` imports).
 */
export const anytool: (options?: AnytoolPluginOptions) => RspackPluginInstance = anytoolPlugin('rspack');
