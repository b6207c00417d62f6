// `node --import @anytool/schema/register main.ts` (or `--require` in CommonJS):
// runs TypeScript directly, with the schemas `anytool build` would give its tools.
import * as nodeModule from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import type { FileCompiler, FileCompilerOptions } from '../compile/file-compiler.js';
import { ownDirectory } from '../typescript-modules.cjs';
import { cachedOutput, moduleFormat, namedTsconfig, resolveTypeScript, TYPESCRIPT_FILE, withInlineMap } from './format.js';

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

let compiler: FileCompiler | undefined;

/** The file's JavaScript: from the disk cache, else compiled (the build step is loaded on the first file not cached). */
function compileFile(fileName: string, format: 'module' | 'commonjs'): string {
  const source = readFileSync(fileName, 'utf8');
  let compiled = cachedOutput(fileName, source, format);
  if (compiled === undefined) {
    compiler ??= loadCompiler();
    compiled = compiler.compile(fileName, source, format);
  }
  if (compiled.warnings !== undefined) process.stderr.write(compiled.warnings);
  return withInlineMap(compiled.code, compiled.map);
}

/** The build step, in its CommonJS build: a require hook cannot wait for an import. */
function loadCompiler(): FileCompiler {
  const { createFileCompiler } = nodeModule.createRequire(join(ownDirectory(), 'package.json'))(
    join(ownDirectory(), '..', 'cjs', 'compile', 'file-compiler.js'),
  ) as { createFileCompiler: (options: FileCompilerOptions) => FileCompiler };
  const tsconfig = namedTsconfig();
  return createFileCompiler(tsconfig === undefined ? {} : { tsconfig });
}

interface SyncHooks {
  resolve(specifier: string, context: { parentURL?: string | undefined }, next: (specifier: string, context?: object) => { url: string }): { url: string };
  load(
    url: string,
    context: object,
    next: (url: string, context?: object) => { format?: string | null | undefined; source?: unknown },
  ): { format?: string | null | undefined; source?: unknown; shortCircuit?: boolean };
}
const registerHooks = (nodeModule as { registerHooks?: (hooks: SyncHooks) => unknown }).registerHooks;

if (!isMainThread) {
  // `--require` preloads this into every thread, Node's own module hooks thread too: the main thread's hooks serve them.
} else if (typeof registerHooks === 'function') {
  // Node 22.15 and later: hooks on this thread that see import and require alike, and run
  // before those registered earlier (tsx's, Node's type stripping).
  registerHooks({
    resolve(specifier, context, next) {
      return resolveTypeScript(specifier, context.parentURL, (candidate) => next(candidate, context));
    },
    load(url, context, next) {
      if (!url.startsWith('file:') || !TYPESCRIPT_FILE.test(new URL(url).pathname)) return next(url, context);
      const file = fileURLToPath(url);
      const format = moduleFormat(file);
      return { format, source: compileFile(file, format), shortCircuit: true };
    },
  });
} else {
  // Node 20 and early 22: CommonJS through require.extensions (deprecated in name, and
  // still how every require hook, ts-node's or Babel's, works).
  const extensions = nodeModule.createRequire(join(process.cwd(), 'package.json')).extensions as unknown as Record<string, ExtensionHandler>;
  const compileCommonJs: ExtensionHandler = (module, fileName) => {
    module._compile(compileFile(fileName, 'commonjs'), fileName);
  };
  for (const extension of ['.ts', '.cts', '.tsx']) extensions[extension] = compileCommonJs;
  // `require('./tools.js')` in tools' TypeScript means tools.ts: Node's resolver is taught that here,
  // as ts-node and tsx teach it (Module._resolveFilename is Node's, undocumented and long stable).
  const Module = nodeModule.Module as unknown as {
    _resolveFilename: (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;
  };
  const resolveFilename = Module._resolveFilename;
  if (typeof resolveFilename === 'function') {
    Module._resolveFilename = function resolveTypeScriptFile(request, parent, ...rest) {
      const parentURL = typeof parent?.filename === 'string' ? pathToFileURL(parent.filename).href : undefined;
      return resolveTypeScript(request, parentURL, (candidate) => resolveFilename.call(this, candidate, parent, ...rest));
    };
  }
}
// And on every Node, hooks on a thread of their own (hooks.ts, from the ES module build whichever
// build this file is from): the entry point and what it imports go through these, ahead of any
// registered earlier (tsx's).
if (isMainThread) register(pathToFileURL(join(ownDirectory(), '..', 'esm', 'register', 'hooks.js')).href);

process.setSourceMapsEnabled(true);
