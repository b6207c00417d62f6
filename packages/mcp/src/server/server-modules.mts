// The ES module bundle's server-modules.cts (see core's on-first-use.mts for why): `createMcpServer` is
// synchronous, and `require` of the ES module ./tool-server.js (Node 20.19+, 22.12+) shares the module cache of
// `import()`. Where a user's bundler bundles this file it follows the literal `require('./tool-server.js')`.
import { createRequire as requireFrom } from 'node:module';

const nodeRequire = requireFrom(import.meta.url);

/** The module of `createMcpServer` (./tool-server.js), loaded synchronously. */
export function requireToolServer(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return typeof require === 'function' ? require('./tool-server.js') : nodeRequire('./tool-server.js');
}
