// CommonJS in both builds, for a `require` that resolves next to this file: RE2JS (a quarter of a megabyte of
// JavaScript) loads the first time a pattern of a schema from elsewhere is compiled, not when @anytool/mcp is imported.
import type * as Re2Module from 're2js';

/** RE2JS's class, and a compiled pattern (the types of the build `require` loads). */
export type Re2 = typeof Re2Module.RE2JS;
export type Re2Pattern = Re2Module.RE2JS;

export function requireRe2(): Re2 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at import
  return (require('re2js') as typeof Re2Module).RE2JS;
}
