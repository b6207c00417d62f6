// `anytool build` skips a build whose inputs are all as they were after the last one that passed, as `tsc -b`
// does: a second `npm start` runs at once instead of type-checking the project again. The inputs are what the
// compile's hosts reported (build-command.ts): the files read (sources, declarations, tsconfigs, package.json files),
// the paths looked for in vain, the folders listed, the links resolved. Only Node's own modules are loaded here,
// so an up-to-date build never loads TypeScript.
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileHashes, compilerStamp, digest, fileStamp, installStamp, packageDirectory, typeScriptVersion } from '../compile/cache.js';

/** A file and its content's hash, with its size and time then (read again only when those changed). */
export type RecordedFile = [path: string, hash: string, stamp: string];

/** What a build that passed read and wrote, and what it printed: enough to tell, later, that it would do the same. */
export interface BuildRecord {
  /** The command, the build step, the project's TypeScript and its installed packages (and this record's format). */
  key: string;
  /** Every file the compile read, TypeScript's own libraries aside. */
  inputs: RecordedFile[];
  /** The paths it looked for and did not find (a module's other extensions, a tsconfig nearer the working directory). */
  missing: string[];
  /** The folders whose subfolders it listed (type roots), and those subfolders' names, sorted. */
  listed: [path: string, names: string[]][];
  /** The paths whose symbolic links it resolved, and where they led. */
  links: [path: string, real: string][];
  /** The folders the tsconfig's `include` globs search, and the names of the files in them the globs may match. */
  folders: { path: string; recursive: boolean; names: string[] }[];
  /** The file extensions the globs match (`.json` only when an `include` names it). */
  extensions: string[];
  /** Every file the build wrote. */
  outputs: RecordedFile[];
  /** What it printed (warnings, a note on the TypeScript used), printed again when it is skipped. */
  out: string;
  err: string;
}

/** What a build records besides its key and what it printed. */
export type BuildFacts = Omit<BuildRecord, 'key' | 'out' | 'err'>;

/** Changes when the record's shape does, so that a record of another shape is never read as this one. */
const RECORD_FORMAT = 2;

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
 * What a compile's hosts reported: each file read, with its stamp taken before the read; the paths looked for in
 * vain; the folders listed; the links resolved; the files written. A file whose stamp moved by the time the record is
 * made changed during the build, and the record is not made.
 */
export class ReadLog {
  readonly read = new Map<string, string>();
  readonly missing = new Set<string>();
  readonly listed = new Map<string, string[]>();
  readonly links = new Map<string, string>();
  readonly written: string[] = [];

  noteRead(path: string): void {
    const file = resolve(path);
    if (!this.read.has(file)) this.read.set(file, fileStamp(file));
  }

  noteMissing(path: string): void {
    this.missing.add(resolve(path));
  }

  noteListed(path: string, names: readonly string[]): void {
    this.listed.set(resolve(path), [...names].sort());
  }

  noteLink(path: string, real: string): void {
    this.links.set(resolve(path), real);
  }

  noteWritten(path: string): void {
    this.written.push(resolve(path));
  }
}

/**
 * Where the record of one build command is kept: in the disk cache of the nearest package.json's folder (the
 * loader's and the bundler plugins'), one file per working directory and arguments. Undefined when `ANYTOOL_CACHE=0`.
 */
function recordFile(args: readonly string[]): string | undefined {
  if (process.env['ANYTOOL_CACHE'] === '0') return undefined;
  const packageDir = packageDirectory(projectDirectory(args));
  return join(packageDir, 'node_modules', '.cache', 'anytool', `build-${digest(`${process.cwd()}\0${args.join('\0')}`)}.json`);
}

function keyOf(args: readonly string[]): string {
  const directory = projectDirectory(args);
  // Whether diagnostics were printed for a terminal (with colour) is part of what was printed.
  const terminal = process.stdout.isTTY === true;
  return digest(
    JSON.stringify([RECORD_FORMAT, compilerStamp(), typeScriptVersion(directory), installStamp(packageDirectory(directory)), process.cwd(), args, terminal]),
  );
}

/**
 * The record of the last build with these arguments, if everything it read, looked for, listed, resolved and wrote
 * is as it left them. Any doubt (no record, another shape, a file that cannot be read) means building.
 */
export function upToDate(args: readonly string[]): BuildRecord | undefined {
  try {
    const file = recordFile(args);
    if (file === undefined) return undefined;
    const record: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isBuildRecord(record) || record.key !== keyOf(args)) return undefined;
    const hashes = new FileHashes();
    const same = ([path, hash, stamp]: RecordedFile): boolean => fileStamp(path) === stamp || hashes.of(path) === hash;
    if (!record.inputs.every(same) || !record.outputs.every(same) || record.missing.some((path) => existsSync(path))) return undefined;
    if (!record.listed.every(([path, names]) => sameNames(subfolders(path), names))) return undefined;
    if (!record.links.every(([path, real]) => realPath(path) === real)) return undefined;
    const extensions = new Set(record.extensions);
    return record.folders.every((folder) => sameNames(listNames(folder.path, folder.recursive, extensions), folder.names)) ? record : undefined;
  } catch {
    return undefined;
  }
}

function isBuildRecord(value: unknown): value is BuildRecord {
  const record = value as Partial<BuildRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.key === 'string' &&
    [record.inputs, record.missing, record.listed, record.links, record.folders, record.extensions, record.outputs].every(Array.isArray) &&
    typeof record.out === 'string' &&
    typeof record.err === 'string'
  );
}

/**
 * Makes the record's folder before a build (its `node_modules`, looked for while resolving modules, then exists
 * already, and is not found anew after it) and forgets the last record: a build that fails leaves none.
 */
export function prepareRecord(args: readonly string[]): void {
  const file = recordFile(args);
  if (file === undefined) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    rmSync(file, { force: true });
  } catch {
    // a read-only install: no record is written, and none can be trusted
  }
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

/** Folders TypeScript's globs never search (besides hidden ones). */
const UNSEARCHED = new Set(['node_modules', 'bower_components', 'jspm_packages']);

/**
 * The names (relative, sorted) of the files with these extensions in a folder the tsconfig's globs search: a file
 * added or removed there may change the project's files. Symbolic links are followed, as TypeScript's globs follow
 * them; folders it never searches are left out.
 */
export function listNames(folder: string, recursive: boolean, extensions: ReadonlySet<string>): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  const matches = (name: string): boolean => {
    for (const extension of extensions) if (name.endsWith(extension)) return true;
    return false;
  };
  const visit = (dir: string, prefix: string): void => {
    let real: string;
    let entries;
    try {
      real = realpathSync(dir);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const kind = kindOf(join(dir, entry.name), entry);
      if (kind === 'folder') {
        if (recursive && !UNSEARCHED.has(entry.name)) visit(join(dir, entry.name), `${prefix}${entry.name}/`);
      } else if (kind === 'file' && matches(entry.name)) {
        names.push(`${prefix}${entry.name}`);
      }
    }
  };
  visit(folder, '');
  return names.sort();
}

/** A folder's subfolders (through symbolic links), sorted, as a compiler host's `getDirectories` lists them. */
function subfolders(path: string): string[] {
  let entries;
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => kindOf(join(path, entry.name), entry) === 'folder')
    .map((entry) => entry.name)
    .sort();
}

/** A folder entry's kind, a symbolic link's target's. */
function kindOf(path: string, entry: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): 'folder' | 'file' | 'other' {
  if (!entry.isSymbolicLink()) return entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : 'other';
  try {
    const target = statSync(path);
    return target.isDirectory() ? 'folder' : target.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

/** Where a path's links lead, or the path itself when it cannot be resolved (as a compiler host answers). */
function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}
