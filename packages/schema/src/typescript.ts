// Which TypeScript the build step works with. Its values (`ts.SyntaxKind`, `ts.TypeFlags`,
// `ts.isIdentifier`...) must come from the TypeScript that made the Program: the numbers
// differ between releases, and read from another copy they find nothing, silently.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { loadShippedTypeScript, loadedTypeScripts, shippedTypeScriptPath } from './typescript-modules.cjs';

/** The TypeScript releases the build step supports: those with a JavaScript compiler API from 5.5 on. */
export const SUPPORTED_TYPESCRIPT = '5.5 through 6.0';

const NONE = new Proxy({} as typeof TS, {
  get: (_target, key) => {
    throw new Error(`anytool internal error: ts.${String(key)} read outside withTypeScript()`);
  },
});

/**
 * The TypeScript every module of the build step reads its values from: a live
 * binding, set by `withTypeScript` for the duration of a call. Read `ts.X` where
 * it is used; never keep `ts` or one of its members across calls.
 */
export let ts: typeof TS = NONE;

/** Runs `work` with `instance` as `ts`, then restores the previous one. */
export function withTypeScript<T>(instance: typeof TS, work: () => T): T {
  const previous = ts;
  ts = instance;
  try {
    return work();
  } finally {
    ts = previous;
  }
}

/** The TypeScript of the call in progress, if any. */
export function activeTypeScript(): typeof TS | undefined {
  return ts === NONE ? undefined : ts;
}

/** Whether a TypeScript version is one the build step supports. */
export function isSupportedVersion(version: string): boolean {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  return (major === 5 && minor !== undefined && minor >= 5) || (major === 6 && minor === 0);
}

function versionOf(instance: unknown): string | undefined {
  const version = (instance as { version?: unknown } | null | undefined)?.version;
  return typeof version === 'string' ? version : undefined;
}

function whyUnsupported(version: string): string {
  const major = Number.parseInt(version, 10);
  if (major >= 7) return `TypeScript ${version} has no JavaScript compiler API (from 7.0 on, TypeScript is a native program)`;
  if (major === 6) return `TypeScript ${version} is newer than this build step`;
  return `TypeScript ${version} is older than 5.5`;
}

/** The message for a host whose TypeScript the build step cannot work with. */
export function unsupportedTypeScriptMessage(version: string, wayIn: string): string {
  return (
    `anytool (${wayIn}): ${whyUnsupported(version)}, and the build step supports TypeScript ${SUPPORTED_TYPESCRIPT}; ` +
    `install a supported one in your project (npm i -D typescript@~5.9, or typescript@~6.0), or compile with \`anytool build\`, ` +
    'which uses the TypeScript @anytool/schema ships when your project has no supported one'
  );
}

/**
 * Checks the TypeScript a host (ts-patch, ts-jest, ts-node) compiles with.
 * Returns a message naming the version, the supported range and the fix, or
 * undefined when the build step can work with it.
 */
export function typeScriptProblem(instance: unknown, wayIn: string): string | undefined {
  const version = versionOf(instance) ?? 'of unknown version';
  const api = typeof (instance as { createProgram?: unknown } | null | undefined)?.createProgram === 'function';
  return api && isSupportedVersion(version) ? undefined : unsupportedTypeScriptMessage(version, wayIn);
}

/** Like `typeScriptProblem`, but throws the problem as an `AnytoolError` (`UNSUPPORTED_TYPESCRIPT`). */
export function supportedTypeScript(instance: unknown, wayIn: string): typeof TS {
  const problem = typeScriptProblem(instance, wayIn);
  if (problem !== undefined) throw new AnytoolError(ErrorCode.UnsupportedTypeScript, problem);
  return instance as typeof TS;
}

/** The TypeScript @anytool/schema depends on (loaded on first use). */
export function shippedTypeScript(): typeof TS {
  return loadShippedTypeScript() as typeof TS;
}

const makers = new WeakMap<TS.Program, typeof TS>();

/**
 * The TypeScript module that made `program`: the one in use, one loaded in the
 * process (by ts-node, for instance), or the one this package ships. Undefined
 * when none of them did.
 */
export function typeScriptOf(program: TS.Program): typeof TS | undefined {
  const known = makers.get(program);
  if (known !== undefined) return known;
  const file = program.getSourceFiles()[0];
  if (file === undefined) return activeTypeScript();
  const candidates = [activeTypeScript(), ...loadedTypeScripts()];
  let maker = candidates.find((candidate) => madeBy(candidate, file));
  if (maker === undefined) {
    const shipped = shippedTypeScript();
    if (madeBy(shipped, file)) maker = shipped;
  }
  if (maker !== undefined) makers.set(program, maker as typeof TS);
  return maker as typeof TS | undefined;
}

/**
 * The supported TypeScript that made `program`. Throws an `AnytoolError`
 * (`UNSUPPORTED_TYPESCRIPT`) when it is not supported or cannot be told.
 */
export function programTypeScript(program: TS.Program, wayIn: string): typeof TS {
  const maker = typeScriptOf(program);
  if (maker === undefined) {
    throw new AnytoolError(
      ErrorCode.UnsupportedTypeScript,
      `anytool (${wayIn}): cannot tell which TypeScript made this Program (none of the TypeScript modules loaded in this process did); pass the one that did: anytoolTransformer(program, { typescript })`,
    );
  }
  return supportedTypeScript(maker, wayIn);
}

/** Whether `candidate` made `file` (each TypeScript module creates its nodes with its own constructors). */
function madeBy(candidate: unknown, file: TS.SourceFile): boolean {
  // `objectAllocator` is internal to TypeScript, and present in every supported release.
  const allocator = (candidate as { objectAllocator?: { getSourceFileConstructor?: () => unknown } } | null | undefined)?.objectAllocator;
  const constructor = allocator?.getSourceFileConstructor?.();
  return typeof constructor === 'function' && file instanceof constructor;
}

/** The TypeScript `anytool build` compiles a project with, and the note it prints about it. */
export interface ProjectTypeScript {
  typescript: typeof TS;
  /** Set when the project has a TypeScript the build step does not support, so the shipped one is used. */
  note?: string;
  /** Whether this is the TypeScript @anytool/schema ships rather than the project's own. */
  shipped: boolean;
}

const byDirectory = new Map<string, ProjectTypeScript>();

/**
 * The TypeScript for the project in `directory`: the project's own `typescript`
 * (resolved from there, like `npx tsc` would) when it is 5.5 through 6.0, else the
 * one @anytool/schema ships, with a one-line note when the project has another.
 */
export function projectTypeScript(directory: string): ProjectTypeScript {
  const dir = resolve(directory);
  const cached = byDirectory.get(dir);
  if (cached !== undefined) return cached;
  const requireHere = createRequire(join(dir, 'package.json'));
  let version: string | undefined;
  try {
    version = versionOf(JSON.parse(readFileSync(requireHere.resolve('typescript/package.json'), 'utf8')));
  } catch {
    // No typescript in the project: the shipped one is used, and there is nothing to say.
  }
  let choice: ProjectTypeScript | undefined;
  if (version !== undefined && isSupportedVersion(version)) {
    const main = requireHere.resolve('typescript');
    // The one found may be this package's own, hoisted next to the project's packages.
    const own = requireHere('typescript') as typeof TS;
    if (typeof own.createProgram === 'function') choice = { typescript: own, shipped: main === shippedTypeScriptPath() };
  }
  if (choice === undefined) {
    const shipped = shippedTypeScript();
    choice = { typescript: shipped, shipped: true };
    if (version !== undefined && !isSupportedVersion(version)) {
      choice.note = `anytool build: this project's ${whyUnsupported(version)}; compiling with TypeScript ${shipped.version}, which @anytool/schema ships (the build step supports ${SUPPORTED_TYPESCRIPT})\n`;
    }
  }
  byDirectory.set(dir, choice);
  return choice;
}

/** Runs `work` with the TypeScript in use, or else with the one for the project in `directory`. */
export function withProjectTypeScript<T>(directory: string, work: () => T): T {
  return withTypeScript(activeTypeScript() ?? projectTypeScript(directory).typescript, work);
}
