import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ProjectCache, Projects, type CompiledFile } from '../compile/cache.js';

/** The TypeScript files the loader compiles (declaration files are never run). */
export const TYPESCRIPT_FILE = /(?<!\.d)\.(?:[cm]?ts|tsx)$/;

const packageTypes = new Map<string, 'module' | 'commonjs'>();

/**
 * How Node would run `file` were it JavaScript: `.mts` as an ES module, `.cts`
 * as CommonJS, `.ts` and `.tsx` as the nearest package.json's `type` says.
 */
export function moduleFormat(file: string): 'module' | 'commonjs' {
  if (file.endsWith('.mts')) return 'module';
  if (file.endsWith('.cts')) return 'commonjs';
  return packageType(dirname(file));
}

function packageType(directory: string): 'module' | 'commonjs' {
  const known = packageTypes.get(directory);
  if (known !== undefined) return known;
  let type: 'module' | 'commonjs';
  try {
    type = (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { type?: unknown }).type === 'module' ? 'module' : 'commonjs';
  } catch {
    const parent = dirname(directory);
    type = parent === directory ? 'commonjs' : packageType(parent);
  }
  packageTypes.set(directory, type);
  return type;
}

/** The code with its source map inline, where Node's `--enable-source-maps` (which the loader turns on) finds it. */
export function withInlineMap(code: string, map: string | undefined): string {
  if (map === undefined) return code;
  return `${code}//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}\n`;
}

/** The tsconfig.json named by `ANYTOOL_TSCONFIG`, if any (else each file's own is found). */
export function namedTsconfig(): string | undefined {
  const named = process.env['ANYTOOL_TSCONFIG'];
  return named === undefined || named === '' ? undefined : named;
}

let projects: Projects<ProjectCache> | undefined;

/**
 * The file's output from the disk cache, if it is there and valid. Looking
 * needs none of the build step, so a start whose files are all cached never
 * loads TypeScript or the compiler.
 */
export function cachedOutput(file: string, source: string, format: 'module' | 'commonjs'): CompiledFile | undefined {
  projects ??= new Projects(namedTsconfig(), (config, directory, hashes) => new ProjectCache(config, directory, undefined, hashes));
  return projects.of(file).read(file, source, format);
}

/**
 * The TypeScript files a specifier may mean when a TypeScript file imports it:
 * `first`, tried before the specifier itself (tools.ts before a tools.js beside
 * it, a stale build output say), and `fallback`, tried when it is not found
 * (no extension, a folder).
 */
export function typeScriptCandidates(specifier: string, parentURL: string | undefined): { first: string[]; fallback: string[] } {
  const none = { first: [], fallback: [] };
  if (parentURL?.startsWith('file:') !== true || !TYPESCRIPT_FILE.test(new URL(parentURL).pathname)) return none;
  if (!(specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/') || specifier.startsWith('file:'))) return none;
  const match = /\.([cm]?)js$/.exec(specifier);
  if (match !== null) {
    const base = specifier.slice(0, -match[0].length);
    const candidates = match[1] === '' ? [`${base}.ts`, `${base}.tsx`] : [`${base}.${match[1]}ts`];
    return { first: candidates, fallback: [] };
  }
  if (/\.[cm]?tsx?$/.test(specifier)) return none;
  return { first: [], fallback: [`${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`] };
}

export function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_UNSUPPORTED_DIR_IMPORT' || code === 'MODULE_NOT_FOUND';
}

/**
 * Resolves a specifier as `resolve` (a resolver that throws when it finds nothing) does,
 * trying the TypeScript files it may mean (`typeScriptCandidates`) before and after it.
 */
export function resolveTypeScript<T>(specifier: string, parentURL: string | undefined, resolve: (specifier: string) => T): T {
  const { first, fallback } = typeScriptCandidates(specifier, parentURL);
  const attempt = (candidate: string): { found: T } | undefined => {
    try {
      return { found: resolve(candidate) };
    } catch {
      return undefined;
    }
  };
  for (const candidate of first) {
    const found = attempt(candidate);
    if (found !== undefined) return found.found;
  }
  try {
    return resolve(specifier);
  } catch (error) {
    for (const candidate of isNotFound(error) ? fallback : []) {
      const found = attempt(candidate);
      if (found !== undefined) return found.found;
    }
    throw error;
  }
}
