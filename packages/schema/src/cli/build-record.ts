// `anytool build` skips a build whose inputs are all as they were after the last one that passed, as `tsc -b`
// does: a second `npm start` runs at once instead of type-checking the project again. Only Node's own modules are
// loaded here, so an up-to-date build never loads TypeScript.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileHashes, compilerStamp, digest, findUp, installStamp, typeScriptVersion, type Dependency } from '../compile/cache.js';

/** What a build that passed read and wrote, and what it printed: enough to tell, later, that it would do the same. */
export interface BuildRecord {
  /** The command, the build step, the project's TypeScript and its installed packages. */
  key: string;
  /** Every file the program read (sources, declarations, tsconfigs) but TypeScript's own libraries, with its hash. */
  inputs: Dependency[];
  /** The folders the tsconfig's `include` globs search, and the names of the files with these extensions in them. */
  folders: { path: string; recursive: boolean; names: string[] }[];
  extensions: string[];
  /** Every file the build wrote, with its hash. */
  outputs: Dependency[];
  /** What it printed (warnings, a note on the TypeScript used), printed again when it is skipped. */
  out: string;
  err: string;
}

/** What a build records: filled in by the build command as it goes. */
export type BuildFacts = Omit<BuildRecord, 'key' | 'out' | 'err'>;

/** The directory whose `typescript` a command uses: the project's (`-p`), else the current directory. */
export function projectDirectory(args: readonly string[]): string {
  const at = args.findIndex((a) => a === '-p' || a === '--project');
  const project = at >= 0 ? args[at + 1] : undefined;
  if (project === undefined) return process.cwd();
  const path = resolve(project);
  try {
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch {
    return dirname(path);
  }
}

/**
 * Where the record of one build command is kept: in the disk cache of the nearest package.json's folder (the
 * loader's and the bundler plugins'), one file per working directory and arguments. Undefined when `ANYTOOL_CACHE=0`.
 */
export function recordFile(args: readonly string[]): string | undefined {
  if (process.env['ANYTOOL_CACHE'] === '0') return undefined;
  const directory = projectDirectory(args);
  const packageDir = dirname(findUp(directory, 'package.json') ?? join(directory, 'package.json'));
  return join(packageDir, 'node_modules', '.cache', 'anytool', `build-${digest(`${process.cwd()}\0${args.join('\0')}`)}.json`);
}

function keyOf(args: readonly string[]): string {
  const directory = projectDirectory(args);
  const packageDir = dirname(findUp(directory, 'package.json') ?? join(directory, 'package.json'));
  // Whether diagnostics were printed for a terminal (with colour) is part of what was printed.
  const terminal = process.stdout.isTTY === true;
  return digest(JSON.stringify([compilerStamp(), typeScriptVersion(directory), installStamp(packageDir), process.cwd(), args, terminal]));
}

/** The record of the last build with these arguments, if every input, folder and output is still as it left them. */
export function upToDate(args: readonly string[]): BuildRecord | undefined {
  const file = recordFile(args);
  if (file === undefined) return undefined;
  let record: BuildRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as BuildRecord;
  } catch {
    return undefined;
  }
  if (record.key !== keyOf(args)) return undefined;
  const hashes = new FileHashes();
  const same = ([path, hash]: Dependency): boolean => hashes.of(path) === hash;
  if (!record.inputs.every(same) || !record.outputs.every(same)) return undefined;
  const extensions = new Set(record.extensions);
  return record.folders.every((folder) => sameNames(listNames(folder.path, folder.recursive, extensions), folder.names)) ? record : undefined;
}

/** Keeps the record of a build that passed (a cache that cannot be written only costs the next build its skip). */
export function writeRecord(args: readonly string[], facts: BuildFacts, out: string, err: string): void {
  const file = recordFile(args);
  if (file === undefined) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const record: BuildRecord = { key: keyOf(args), ...facts, out, err };
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(record));
    renameSync(temporary, file);
  } catch {
    // a read-only install: build every time
  }
}

/** Forgets the last build's record (a build that failed, or one forced). */
export function dropRecord(args: readonly string[]): void {
  const file = recordFile(args);
  if (file !== undefined) rmSync(file, { force: true });
}

/**
 * The names (relative, sorted) of the files with these extensions in a folder the tsconfig's globs search: a file
 * added or removed there may change the project's files. Folders under node_modules and hidden ones are not searched,
 * as TypeScript's globs skip them.
 */
export function listNames(folder: string, recursive: boolean, extensions: ReadonlySet<string>): string[] {
  const names: string[] = [];
  const visit = (dir: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (recursive && entry.name !== 'node_modules' && !entry.name.startsWith('.')) visit(join(dir, entry.name), `${prefix}${entry.name}/`);
      } else if ([...extensions].some((extension) => entry.name.endsWith(extension))) {
        names.push(`${prefix}${entry.name}`);
      }
    }
  };
  visit(folder, '');
  return names.sort();
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
