// The module hooks of `@anytool/schema/register` (Node runs them on a thread of their own).
// ES modules written in TypeScript are compiled here; CommonJS ones are handed back to
// Node's CommonJS loader, where the register module's require hook compiles them.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FileCompiler } from '../compile/file-compiler.js';
import { cachedOutput, isNotFound, moduleFormat, namedTsconfig, TYPESCRIPT_FILE, typeScriptCandidates, withInlineMap } from './format.js';

interface ResolveContext {
  parentURL?: string | undefined;
  conditions?: readonly string[];
  importAttributes?: Record<string, string>;
}
interface ResolveResult {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean;
}
interface LoadContext {
  format?: string | null | undefined;
  conditions?: readonly string[];
  importAttributes?: Record<string, string>;
}
interface LoadResult {
  format: string;
  source?: string | ArrayBuffer | Uint8Array | null | undefined;
  shortCircuit?: boolean;
}

let compiler: FileCompiler | undefined;

/**
 * Finds the TypeScript file behind a specifier written for the JavaScript it
 * becomes (`./tools.js` for tools.ts), or written without an extension.
 */
export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: (specifier: string, context: ResolveContext) => Promise<ResolveResult>,
): Promise<ResolveResult> {
  const { first, fallback } = typeScriptCandidates(specifier, context.parentURL);
  for (const candidate of first) {
    const found = await nextResolve(candidate, context).catch(() => undefined);
    if (found !== undefined) return found;
  }
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    for (const candidate of fallback) {
      const found = await nextResolve(candidate, context).catch(() => undefined);
      if (found !== undefined) return found;
    }
    throw error;
  }
}

export async function load(url: string, context: LoadContext, nextLoad: (url: string, context: LoadContext) => Promise<LoadResult>): Promise<LoadResult> {
  if (!url.startsWith('file:') || !TYPESCRIPT_FILE.test(new URL(url).pathname)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const format = moduleFormat(file);
  // CommonJS goes to Node's CommonJS loader, which reads the file: the hooks the register module sets on
  // the main thread compile it there, and the module's own requires.
  if (format === 'commonjs') return { format: 'commonjs', shortCircuit: true };
  const source = await readFile(file, 'utf8');
  let compiled = cachedOutput(file, source, 'module');
  if (compiled === undefined) {
    // Loaded on the first file that is not cached: the build step, and TypeScript with it.
    const tsconfig = namedTsconfig();
    compiler ??= (await import('../compile/file-compiler.js')).createFileCompiler(tsconfig === undefined ? {} : { tsconfig });
    compiled = compiler.compile(file, source, 'module');
  }
  if (compiled.warnings !== undefined) process.stderr.write(compiled.warnings);
  return { format: 'module', source: withInlineMap(compiled.code, compiled.map), shortCircuit: true };
}
