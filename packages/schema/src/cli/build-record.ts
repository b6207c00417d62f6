// `anytool build` skips a build whose inputs are all as they were after the last one that passed, as `tsc -b`
// does: a second `npm start` runs at once instead of type-checking the project again. The inputs are what the
// compile read through its compiler host (sources, declarations, tsconfigs, package.json files) and the paths it
// looked for and did not find; only Node's own modules are loaded here, so an up-to-date build never loads TypeScript.
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { FileHashes, compilerStamp, digest, installStamp, packageDirectory, typeScriptVersion } from '../compile/cache.js';

/** A file and its content's hash, with its size and time then (read again only when those changed). */
export type RecordedFile = [path: string, hash: string, stamp: string];

/** What a build that passed read and wrote, and what it printed: enough to tell, later, that it would do the same. */
export interface BuildRecord {
  /** The command, the build step, the project's TypeScript and its installed packages. */
  key: string;
  /** Every file the compile read, TypeScript's own libraries aside. */
  inputs: RecordedFile[];
  /** The paths it looked for and did not find (a module's other extensions, a tsconfig further down). */
  missing: string[];
  /** The folders the tsconfig's `include` globs search, and the names of the files with these extensions in them. */
  folders: { path: string; recursive: boolean; names: string[] }[];
  extensions: string[];
  /** Every file the build wrote. */
  outputs: RecordedFile[];
  /** What it printed (warnings, a note on the TypeScript used), printed again when it is skipped. */
  out: string;
  err: string;
}

/** What a build records besides its key and what it printed. */
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

/** A file's size and modification time, or `missing`. */
export function statStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/**
 * What a compile read, with each file's stamp taken before it was read, and what it looked for in vain: the build
 * command's compiler hosts report here. A file whose stamp moved by the time the record is made changed during the
 * build, and the record is not made.
 */
export class ReadLog {
  readonly read = new Map<string, string>();
  readonly missing = new Set<string>();

  noteRead(path: string): void {
    const file = resolve(path);
    if (!this.read.has(file)) this.read.set(file, statStamp(file));
  }

  noteMissing(path: string): void {
    this.missing.add(resolve(path));
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
  return digest(JSON.stringify([compilerStamp(), typeScriptVersion(directory), installStamp(packageDirectory(directory)), process.cwd(), args, terminal]));
}

/** The record of the last build with these arguments, if every input, lookup, folder and output is as it left them. */
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
  const same = ([path, hash, stamp]: RecordedFile): boolean => statStamp(path) === stamp || hashes.of(path) === hash;
  if (!record.inputs.every(same) || !record.outputs.every(same) || record.missing.some((path) => existsSync(path))) return undefined;
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

/** Forgets the last build's record, before a build (one that fails leaves none). */
export function dropRecord(args: readonly string[]): void {
  const file = recordFile(args);
  try {
    if (file !== undefined) rmSync(file, { force: true });
  } catch {
    // a read-only install: there is no record to trust either way, as none can be written
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
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = statSync(join(dir, entry.name));
          isDirectory = target.isDirectory();
          isFile = target.isFile();
        } catch {
          continue;
        }
      }
      if (isDirectory) {
        if (recursive && !UNSEARCHED.has(entry.name)) visit(join(dir, entry.name), `${prefix}${entry.name}/`);
      } else if (isFile && matches(entry.name)) {
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
