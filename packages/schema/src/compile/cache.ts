// The disk cache of the file compiler, and all the ways in that see one file at a time need
// before they know whether to compile: which project a file is in, and its cached JavaScript.
// Only Node's own modules are loaded here, so a start whose files are all cached stays light.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ownDirectory } from '../typescript-modules.cjs';

/** JavaScript for one file. */
export interface CompiledFile {
  code: string;
  /** The source map (JSON text). */
  map: string | undefined;
  /** The build step's warnings for the file (imprecise types), formatted like tsc's, if any. */
  warnings?: string;
}

/** A project file the build information read, and the hash of its content then. */
export type Dependency = [file: string, hash: string];

export interface CacheEntry extends CompiledFile {
  dependencies: Dependency[];
}

/**
 * The cached output of one project's files (those of one tsconfig.json, or of
 * a folder without one), valid while the file, its compiler options, this
 * build step, the project's TypeScript and installed packages, and every
 * project file the build information read are unchanged.
 */
export class ProjectCache {
  private readonly disk: DiskCache | undefined;
  private readonly stamp: string;

  constructor(
    /** The tsconfig.json, if the project has one. */
    readonly config: string | undefined,
    /** Its folder (or the file's, without one). */
    readonly directory: string,
    cacheDirectory: string | false | undefined,
    readonly hashes: FileHashes,
  ) {
    const packageDir = packageDirectory(directory);
    const folder =
      process.env['ANYTOOL_CACHE'] === '0' || cacheDirectory === false ? undefined : (cacheDirectory ?? join(packageDir, 'node_modules', '.cache', 'anytool'));
    this.disk = folder === undefined ? undefined : new DiskCache(folder);
    this.stamp = [compilerStamp(), typeScriptVersion(directory), config === undefined ? '' : configText(config), installStamp(packageDir)].join('\0');
  }

  /** The cached output for this content, if it is still valid. */
  read(fileName: string, source: string, format: string): CacheEntry | undefined {
    const entry = this.disk?.read(this.key(fileName, source, format));
    return entry !== undefined && entry.dependencies.every(([file, hash]) => this.hashes.of(file) === hash) ? entry : undefined;
  }

  write(fileName: string, source: string, format: string, entry: CacheEntry): void {
    this.disk?.write(this.key(fileName, source, format), entry);
  }

  private key(fileName: string, source: string, format: string): string {
    return digest(`${this.stamp}\0${format}\0${fileName}\0${source}`);
  }
}

/** The projects of the files compiled, found from each file's folder upward (or named once). */
export class Projects<P extends ProjectCache> {
  private readonly byKey = new Map<string, P>();
  private readonly configs = new Map<string, string | undefined>();
  readonly hashes = new FileHashes();

  constructor(
    private readonly tsconfig: string | undefined,
    private readonly make: (config: string | undefined, directory: string, hashes: FileHashes) => P,
  ) {}

  of(fileName: string): P {
    const dir = dirname(fileName);
    let config: string | undefined;
    if (this.tsconfig !== undefined) config = resolve(this.tsconfig);
    else {
      if (!this.configs.has(dir)) this.configs.set(dir, findUp(dir, 'tsconfig.json'));
      config = this.configs.get(dir);
    }
    const key = config ?? dir;
    let project = this.byKey.get(key);
    if (project === undefined) {
      project = this.make(config, config === undefined ? dir : dirname(config), this.hashes);
      this.byKey.set(key, project);
    }
    return project;
  }
}

/** Content hashes of files, read again only when a file's size or time changes. */
export class FileHashes {
  private readonly known = new Map<string, { stamp: string; hash: string }>();

  of(fileName: string): string {
    const stamp = fileStamp(fileName);
    if (stamp === 'missing') return stamp;
    const known = this.known.get(fileName);
    if (known !== undefined && known.stamp === stamp) return known.hash;
    let hash: string;
    try {
      hash = digest(readFileSync(fileName));
    } catch {
      // Gone since, or not readable: no hash matches it.
      return 'unreadable';
    }
    this.known.set(fileName, { stamp, hash });
    return hash;
  }
}

/** A file's size and modification time, `missing` when it is not there. */
export function fileStamp(fileName: string): string {
  try {
    const stat = statSync(fileName);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Cache entries as JSON files named by their key. A broken or partial entry is a miss. */
class DiskCache {
  private ready = false;

  constructor(private readonly folder: string) {}

  read(key: string): CacheEntry | undefined {
    try {
      const entry = JSON.parse(readFileSync(join(this.folder, `${key}.json`), 'utf8')) as CacheEntry;
      return typeof entry.code === 'string' && Array.isArray(entry.dependencies) ? entry : undefined;
    } catch {
      return undefined;
    }
  }

  write(key: string, entry: CacheEntry): void {
    try {
      if (!this.ready) mkdirSync(this.folder, { recursive: true });
      this.ready = true;
      // Written aside, then renamed: another process reading the entry sees all of it or none.
      const temporary = join(this.folder, `${key}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
      writeFileSync(temporary, JSON.stringify(entry));
      renameSync(temporary, join(this.folder, `${key}.json`));
    } catch {
      // A cache that cannot be written (a read-only install) only costs time.
    }
  }
}

export function digest(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 40);
}

/** The folder of the nearest package.json from `directory` upward (`directory` itself when there is none). */
export function packageDirectory(directory: string): string {
  return dirname(findUp(directory, 'package.json') ?? join(directory, 'package.json'));
}

function findUp(directory: string, name: string): string | undefined {
  for (let dir = resolve(directory); ; dir = dirname(dir)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

let ownStamp: string | undefined;

/** This build step's version: the package version and the newest of its compiled files. */
export function compilerStamp(): string {
  if (ownStamp !== undefined) return ownStamp;
  const directory = ownDirectory();
  let newest = 0;
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.[cm]?js$/.test(entry.name) || /\.[cm]?ts$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  visit(directory);
  const manifest = findUp(directory, 'package.json');
  const version = manifest === undefined ? '' : String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version);
  return (ownStamp = `${version}:${newest}`);
}

/** The version of the TypeScript the project has (read from its package.json, without loading it). */
export function typeScriptVersion(directory: string): string {
  const manifest = findUp(directory, join('node_modules', 'typescript', 'package.json'));
  if (manifest === undefined) return 'shipped';
  try {
    return String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version);
  } catch {
    return 'unknown';
  }
}

/** The text of a tsconfig and of the local configs it extends. */
function configText(config: string): string {
  const seen = new Set<string>();
  const read = (file: string): string => {
    if (seen.has(file) || !existsSync(file)) return '';
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    let all = text;
    for (const match of text.matchAll(/"extends"\s*:\s*(\[[^\]]*\]|"[^"]*")/g)) {
      for (const name of (match[1] ?? '').match(/"[^"]*"/g) ?? []) {
        const target = name.slice(1, -1);
        if (target.startsWith('.')) all += read(resolve(dirname(file), target.endsWith('.json') ? target : `${target}.json`));
        else all += target;
      }
    }
    return all;
  };
  return read(config);
}

const LOCKFILES = [join('node_modules', '.package-lock.json'), 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock'];

/**
 * Changes when packages are installed, so cached build information that read their types is made anew: the nearest
 * lockfile from the package's folder upward (a workspace keeps one at its root).
 */
export function installStamp(packageDir: string): string {
  for (let dir = resolve(packageDir); ; dir = dirname(dir)) {
    for (const name of LOCKFILES) {
      const stamp = fileStamp(join(dir, name));
      if (stamp !== 'missing') return `${join(dir, name)}:${stamp}`;
    }
    if (dirname(dir) === dir) return '';
  }
}
