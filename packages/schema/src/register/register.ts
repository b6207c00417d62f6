// `node --import @anytool/schema/register src/main.ts` (or `--require` in CommonJS):
// runs TypeScript directly, with the schemas `anytool build` would give its tools.
// ES modules go through module hooks (hooks.ts), CommonJS through a require hook here.
import * as nodeModule from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileCompiler, FileCompilerOptions } from '../compile/file-compiler.js';
import { ownDirectory } from '../typescript-modules.cjs';
import { cachedOutput, namedTsconfig, withInlineMap } from './format.js';

interface CommonJsModule {
  _compile(code: string, fileName: string): unknown;
}
type ExtensionHandler = (module: CommonJsModule, fileName: string) => void;

// module.register came in Node 20.6; a named import would fail before this message could be given.
const register = (nodeModule as { register?: typeof nodeModule.register }).register;
if (typeof register !== 'function') {
  process.stderr.write(`@anytool/schema/register needs Node 20.6 or later (this is ${process.version}); upgrade Node, or compile with \`anytool build\`\n`);
  process.exit(1);
}

// The hooks are the ES module build's, whichever build this file is from.
const hooks = join(ownDirectory(), '..', 'esm', 'register', 'hooks.js');
register(pathToFileURL(hooks).href);

let compiler: FileCompiler | undefined;
// require.extensions: deprecated in name, and still how every require hook (ts-node, tsx, Babel) works.
const extensions = nodeModule.createRequire(join(process.cwd(), 'package.json')).extensions as unknown as Record<string, ExtensionHandler>;
const compileCommonJs: ExtensionHandler = (module, fileName) => {
  const source = readFileSync(fileName, 'utf8');
  let compiled = cachedOutput(fileName, source, 'commonjs');
  if (compiled === undefined) {
    compiler ??= loadCompiler();
    compiled = compiler.compile(fileName, source, 'commonjs');
  }
  if (compiled.warnings !== undefined) process.stderr.write(compiled.warnings);
  module._compile(withInlineMap(compiled.code, compiled.map), fileName);
};
/** The build step, loaded on the first file that is not cached (its CommonJS build: a require hook cannot wait for an import). */
function loadCompiler(): FileCompiler {
  const { createFileCompiler } = nodeModule.createRequire(hooks)(join(ownDirectory(), '..', 'cjs', 'compile', 'file-compiler.js')) as { createFileCompiler: (options: FileCompilerOptions) => FileCompiler };
  const tsconfig = namedTsconfig();
  return createFileCompiler(tsconfig === undefined ? {} : { tsconfig });
}

for (const extension of ['.ts', '.cts', '.tsx']) extensions[extension] = compileCommonJs;

process.setSourceMapsEnabled(true);
