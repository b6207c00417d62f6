// The ES module bundle's re2.cts (see core's on-first-use.mts for why): RE2JS loads the first time a pattern of a
// schema from elsewhere is compiled. Where a user's bundler bundles this file it follows the literal `require('re2js')`.
import { createRequire as requireFrom } from 'node:module';
import type { Re2 } from './re2.cjs';

const nodeRequire = requireFrom(import.meta.url);

export function requireRe2(): Re2 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return (typeof require === 'function' ? require('re2js') : nodeRequire('re2js')).RE2JS;
}
