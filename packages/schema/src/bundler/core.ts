// What every bundler plugin does with one module, whichever bundler asks: a TypeScript file
// of the project is compiled to JavaScript with the build information at every tool site
// (what `anytool build` emits there); anything else is left to the bundler.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import picomatch from 'picomatch';
import { ProjectCache, Projects, type CompiledFile } from '../compile/cache.js';
import type { FileCompiler, FileCompilerOptions } from '../compile/file-compiler.js';

/** A path pattern: a RegExp tested against the module's absolute path (with `/`), or a glob (relative to the working directory unless it starts with `**` or `/`). */
export type FilterPattern = string | RegExp | ReadonlyArray<string | RegExp>;

/** Options of the bundler plugins (`@anytool/schema/esbuild`, `/vite`, `/rollup`, `/webpack`, `/rspack`, `/bun`). */
export interface AnytoolPluginOptions extends FileCompilerOptions {
  /** Only the TypeScript files matching one of these are compiled (default: all of them). */
  include?: FilterPattern;
  /** TypeScript files matching one of these are left to the bundler (files under node_modules always are). */
  exclude?: FilterPattern;
}

/** The files the plugins compile: TypeScript sources, not declaration files. */
export const TYPESCRIPT_FILE = /\.(?:ts|tsx|mts|cts)$/;
/** A bundler's id of such a file, which may carry a `?query`. */
export const TYPESCRIPT_ID = /\.(?:ts|tsx|mts|cts)(?:\?.*)?$/;
const DECLARATION_FILE = /\.d\.(?:ts|mts|cts)$|\.d\.[^/\\]*\.ts$/;
const NODE_MODULES = /[\\/]node_modules[\\/]/;

/** One plugin instance's compiler and filter. */
export interface BundlerCore {
  /** Whether the plugin compiles this module (the bundler's id, which may carry a `?query`). */
  accepts(id: string): boolean;
  /** Compiles the module, or undefined when the plugin leaves it to the bundler. */
  transform(id: string, code: string): Promise<CompiledFile | undefined>;
}

/**
 * Creates the part every plugin shares. A file found in the disk cache needs nothing more; the
 * file compiler (and TypeScript with it) is loaded on the first one that is not, once per plugin
 * instance.
 */
export function createBundlerCore(options: AnytoolPluginOptions = {}): BundlerCore {
  const { include, exclude, ...compilerOptions } = options;
  const included = include === undefined ? undefined : matcher(include);
  const excluded = exclude === undefined ? undefined : matcher(exclude);
  let compiler: FileCompiler | undefined;
  const cached = new Projects(
    compilerOptions.tsconfig,
    (config, directory, hashes) => new ProjectCache(config, directory, compilerOptions.cacheDirectory, hashes),
  );
  const accepts = (id: string): boolean => {
    const file = fileOf(id);
    if (file === undefined || !TYPESCRIPT_FILE.test(file) || DECLARATION_FILE.test(file) || NODE_MODULES.test(file)) return false;
    if (excluded?.(file) === true) return false;
    return included === undefined || included(file);
  };
  return {
    accepts,
    async transform(id, code) {
      if (!accepts(id)) return undefined;
      const file = resolve(fileOf(id) as string);
      const format = file.endsWith('.cts') ? 'commonjs' : 'module';
      const found = cached.of(file).read(file, code, format);
      if (found !== undefined) return found;
      compiler ??= (await import('../compile/file-compiler.js')).createFileCompiler(compilerOptions);
      return compiler.compile(file, code, format);
    },
  };
}

/** The file behind a bundler's module id, or undefined for a virtual module. */
function fileOf(id: string): string | undefined {
  if (id.startsWith('\0') || id.startsWith('virtual:')) return undefined;
  const query = id.indexOf('?');
  const file = query === -1 ? id : id.slice(0, query);
  return isAbsolute(file) ? file : undefined;
}

function matcher(pattern: FilterPattern): (file: string) => boolean {
  const tests = (Array.isArray(pattern) ? pattern : [pattern]).map((one: string | RegExp): ((file: string) => boolean) => {
    if (typeof one !== 'string') {
      return (file) => {
        one.lastIndex = 0;
        return one.test(file);
      };
    }
    const glob = one.startsWith('**') || isAbsolute(one) ? one : resolve(one);
    const match = picomatch(slashes(glob), { dot: true });
    return (file) => match(file);
  });
  return (file) => tests.some((test) => test(slashes(file)));
}

function slashes(path: string): string {
  return path.replace(/\\/g, '/');
}

/** The extensions a TypeScript file may be imported by, as tsc maps them. */
const SOURCE_FOR: Record<string, readonly string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

/**
 * The TypeScript file a relative import from a TypeScript file means, for bundlers that
 * resolve only what is on disk (Rollup): `./tools.js` is `./tools.ts` when only that
 * exists, `./tools` is `./tools.ts`, `./tools.tsx` or `./tools/index.ts`.
 */
export function resolveTypeScriptImport(source: string, importer: string | undefined): string | undefined {
  const from = importer === undefined ? undefined : fileOf(importer);
  if (from === undefined || !TYPESCRIPT_FILE.test(from) || !/^\.\.?(?:\/|$)/.test(source)) return undefined;
  const target = resolve(dirname(from), source);
  const extension = /\.[cm]?jsx?$/.exec(target)?.[0];
  const candidates =
    extension === undefined
      ? TYPESCRIPT_FILE.test(target)
        ? []
        : [`${target}.ts`, `${target}.tsx`, resolve(target, 'index.ts'), resolve(target, 'index.tsx')]
      : existsSync(target)
        ? []
        : (SOURCE_FOR[extension] ?? []).map((ts) => target.slice(0, -extension.length) + ts);
  return candidates.find((candidate) => existsSync(candidate));
}
