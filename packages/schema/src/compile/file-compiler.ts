// One file at a time, for the ways in that see files one by one (the Node loader, the
// bundler plugins): the build information comes from a Program over the file's project,
// the JavaScript from `transpileModule`, in the module format the host asks for. Results
// are kept on disk, so a second start needs no TypeScript at all.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { createJsDocHost } from '../cli/build-command.js';
import { keepsStandardDecorators, newestNumberedTarget } from '../transformer/kept-decorators.js';
import { analyzeFile, type ToolSite } from '../transformer/tool-sites.js';
import { formatAnytoolDiagnostics, rewrite } from '../transformer/transformer.js';
import { ownDirectory } from '../typescript-modules.cjs';
import { projectTypeScript, ts, withTypeScript } from '../typescript.js';

/** Options of `createFileCompiler`. */
export interface FileCompilerOptions {
  /** The tsconfig.json to use; by default the one found from each file's folder upward. */
  tsconfig?: string;
  /**
   * Folder of the disk cache, or false for none. By default
   * `node_modules/.cache/anytool` in the project (the folder of the nearest
   * package.json above the tsconfig). `ANYTOOL_CACHE=0` turns it off too.
   */
  cacheDirectory?: string | false;
}

/** JavaScript for one file. */
export interface CompiledFile {
  code: string;
  /** The source map (JSON text). */
  map: string | undefined;
  /** The build step's warnings for the file (imprecise types), formatted like tsc's, if any. */
  warnings?: string;
}

/** Compiles TypeScript files one by one, with build information at every tool site. */
export interface FileCompiler {
  /**
   * Compiles one .ts, .tsx, .mts or .cts file to JavaScript: ES module syntax
   * for `module`, CommonJS for `commonjs`. Every tool site gets the same build
   * information `anytool build` gives it. A type the build step cannot turn
   * into a schema throws an `AnytoolError` (`UNSUPPORTED_TYPE`) with file, line
   * and the fix.
   */
  compile(fileName: string, source: string, format: 'module' | 'commonjs'): CompiledFile;
}

/** The file's own name and content hash, for the cache entry of a file whose build information read it. */
type Dependency = [file: string, hash: string];

interface CacheEntry extends CompiledFile {
  dependencies: Dependency[];
}

/**
 * Makes a compiler for the ways in that see one file at a time. Files that
 * may hold a tool (any mention of "tool", or a class that extends another)
 * are analysed in a Program over their project, made once and then reused;
 * the others are only transpiled.
 */
export function createFileCompiler(options: FileCompilerOptions = {}): FileCompiler {
  const projects = new Map<string, Project>();
  const configs = new Map<string, string | undefined>();
  const hashes = new FileHashes();
  const configFor = (fileName: string): string | undefined => {
    if (options.tsconfig !== undefined) return resolve(options.tsconfig);
    const dir = dirname(fileName);
    if (!configs.has(dir)) configs.set(dir, findUp(dir, 'tsconfig.json'));
    return configs.get(dir);
  };
  const projectFor = (config: string | undefined, fileName: string): Project => {
    const key = config ?? dirname(fileName);
    let project = projects.get(key);
    if (project === undefined) {
      project = new Project(config, dirname(config ?? fileName), options.cacheDirectory, hashes);
      projects.set(key, project);
    }
    return project;
  };
  return {
    compile(fileName, source, format) {
      const file = resolve(fileName);
      return projectFor(configFor(file), file).compile(file, source, format);
    },
  };
}

/** A tsconfig.json and what compiling its files needs: the cache, the TypeScript, the Program. */
class Project {
  private readonly cache: DiskCache | undefined;
  private readonly stamp: string;
  private typescript: typeof TS | undefined;
  private parsed: TS.ParsedCommandLine | undefined;
  private host: CachingHost | undefined;
  private program: TS.Program | undefined;

  constructor(
    private readonly config: string | undefined,
    private readonly directory: string,
    cacheDirectory: string | false | undefined,
    private readonly hashes: FileHashes,
  ) {
    const packageDir = dirname(findUp(directory, 'package.json') ?? join(directory, 'package.json'));
    const folder = process.env['ANYTOOL_CACHE'] === '0' || cacheDirectory === false ? undefined : (cacheDirectory ?? join(packageDir, 'node_modules', '.cache', 'anytool'));
    this.cache = folder === undefined ? undefined : new DiskCache(folder);
    this.stamp = [compilerStamp(), typeScriptVersion(directory), config === undefined ? '' : configText(config), installStamp(packageDir)].join('\0');
  }

  compile(fileName: string, source: string, format: 'module' | 'commonjs'): CompiledFile {
    const key = this.cache === undefined ? '' : digest(`${this.stamp}\0${format}\0${fileName}\0${source}`);
    const cached = this.cache?.read(key);
    if (cached !== undefined && cached.dependencies.every(([file, hash]) => this.hashes.of(file) === hash)) return cached;
    this.typescript ??= projectTypeScript(this.directory).typescript;
    const entry = withTypeScript(this.typescript, () => this.build(fileName, source, format));
    this.cache?.write(key, entry);
    return entry;
  }

  private build(fileName: string, source: string, format: 'module' | 'commonjs'): CacheEntry {
    const parsed = (this.parsed ??= this.readConfig());
    const dependencies: Dependency[] = [];
    let sites: readonly ToolSite[] = [];
    let warnings: string | undefined;
    if (mayHoldTools(source)) {
      const program = this.programWith(fileName, source);
      const sourceFile = program.getSourceFile(fileName);
      if (sourceFile !== undefined) {
        const analysis = analyzeFile(program, sourceFile);
        const errors = analysis.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
        if (errors.length > 0) throw new AnytoolError(ErrorCode.UnsupportedType, `anytool build step:\n${formatAnytoolDiagnostics(errors)}`);
        if (analysis.diagnostics.length > 0) warnings = formatAnytoolDiagnostics(analysis.diagnostics);
        sites = analysis.sites;
        // The build information read the types of the project's own files: a change in any of them makes it anew.
        for (const file of program.getSourceFiles()) {
          if (file.fileName === fileName || program.isSourceFileFromExternalLibrary(file) || program.isSourceFileDefaultLibrary(file)) continue;
          if (/[\\/]node_modules[\\/]/.test(file.fileName)) continue;
          dependencies.push([file.fileName, this.hashes.of(file.fileName)]);
        }
      }
    }
    const { code, map } = transpile(fileName, source, format, parsed.options, sites);
    return warnings === undefined ? { code, map, dependencies } : { code, map, warnings, dependencies };
  }

  private readConfig(): TS.ParsedCommandLine {
    if (this.config === undefined) return { options: {}, fileNames: [], errors: [] };
    const parsed = ts.getParsedCommandLineOfConfigFile(this.config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (parsed === undefined) throw new AnytoolError(ErrorCode.InvalidOptions, `anytool: cannot read ${this.config}`);
    const errors = parsed.errors.filter((d) => d.category === ts.DiagnosticCategory.Error && d.code !== NO_INPUTS);
    if (errors.length > 0) throw new AnytoolError(ErrorCode.InvalidOptions, `anytool: ${this.config} has errors:\n${formatAnytoolDiagnostics(errors)}`);
    return parsed;
  }

  /** The project's Program, with `fileName` in it as `source`: made on first use, then reused while it fits. */
  private programWith(fileName: string, source: string): TS.Program {
    const parsed = this.parsed as TS.ParsedCommandLine;
    const options = { ...parsed.options, noEmit: true };
    const host = (this.host ??= new CachingHost(createJsDocHost(options)));
    host.override(fileName, source);
    const current = this.program;
    if (current !== undefined && current.getSourceFile(fileName)?.text === source) return current;
    const roots = new Set(current?.getRootFileNames() ?? parsed.fileNames);
    roots.add(fileName);
    this.program = ts.createProgram({ rootNames: [...roots], options, host: host.host, ...(current === undefined ? {} : { oldProgram: current }) });
    return this.program;
  }
}

/** TS18003: a tsconfig whose include matches no file; the loader compiles the files it is given. */
const NO_INPUTS = 18003;

/** Whether a file may hold a tool site: a cheap test that lets most other files skip the Program. */
function mayHoldTools(source: string): boolean {
  return /tool|extends/i.test(source);
}

/** Emits one file with `transpileModule`, passing build information into the sites found by the Program. */
function transpile(fileName: string, source: string, format: 'module' | 'commonjs', projectOptions: TS.CompilerOptions, sites: readonly ToolSite[]): { code: string; map: string | undefined } {
  const options: TS.CompilerOptions = {
    ...projectOptions,
    module: format === 'module' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS,
    sourceMap: true,
    inlineSourceMap: false,
    inlineSources: true,
    declaration: false,
    declarationMap: false,
    emitDeclarationOnly: false,
    noEmit: false,
  };
  // Resolution plays no part in one file's emit, and NodeNext's would contradict the module kind chosen here.
  delete options.moduleResolution;
  delete options.outDir;
  delete options.outFile;
  delete options.rootDir;
  delete options.sourceRoot;
  delete options.mapRoot;
  // TypeScript refuses import syntax in a CommonJS file under verbatimModuleSyntax; tsc would too.
  if (format === 'commonjs') options.verbatimModuleSyntax = false;
  // Node runs no decorators yet: lower them as `anytool build` does.
  if (keepsStandardDecorators(options)) options.target = newestNumberedTarget().target;
  const byPosition = new Map<string, ToolSite>(sites.map((site) => [positionKey(site.node), site]));
  const before: TS.TransformerFactory<TS.SourceFile>[] = byPosition.size === 0 ? [] : [(context) => (file) => rewrite(file, (original) => byPosition.get(positionKey(original)), context)];
  const output = ts.transpileModule(source, { compilerOptions: options, fileName, reportDiagnostics: false, transformers: { before } });
  const code = output.outputText.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return { code, map: output.sourceMapText };
}

/** Where a node is in its file: the same in the Program's parse and in `transpileModule`'s. */
function positionKey(node: TS.Node): string {
  return `${node.kind}:${node.pos}:${node.end}`;
}

/**
 * A compiler host that keeps every source file it parsed while its text stays
 * the same, so a Program made again after a change reparses only what changed.
 */
class CachingHost {
  private readonly files = new Map<string, { text: string; file: TS.SourceFile }>();
  private readonly overrides = new Map<string, string>();

  constructor(readonly host: TS.CompilerHost) {
    const read = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (fileName) => this.overrides.get(resolve(fileName)) ?? read(fileName);
    host.fileExists = ((exists) => (fileName: string) => this.overrides.has(resolve(fileName)) || exists(fileName))(host.fileExists.bind(host));
    host.getSourceFile = (fileName, languageVersion, onError, fresh) => {
      const text = host.readFile(fileName);
      if (text === undefined) return getSourceFile(fileName, languageVersion, onError, fresh);
      const known = this.files.get(fileName);
      if (known !== undefined && known.text === text) return known.file;
      const file = getSourceFile(fileName, languageVersion, onError, fresh);
      if (file !== undefined) this.files.set(fileName, { text, file });
      return file;
    };
  }

  /** Makes the host read `text` for `fileName` (what the loader or bundler was given, which may differ from the disk). */
  override(fileName: string, text: string): void {
    this.overrides.set(resolve(fileName), text);
  }
}

/** Content hashes of files, read again only when a file's size or time changes. */
class FileHashes {
  private readonly known = new Map<string, { stamp: string; hash: string }>();

  of(fileName: string): string {
    let stamp: string;
    try {
      const stat = statSync(fileName);
      stamp = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      return 'missing';
    }
    const known = this.known.get(fileName);
    if (known !== undefined && known.stamp === stamp) return known.hash;
    const hash = digest(readFileSync(fileName));
    this.known.set(fileName, { stamp, hash });
    return hash;
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

function digest(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 40);
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
function compilerStamp(): string {
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
function typeScriptVersion(directory: string): string {
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

/** Changes when packages are installed, so cached build information that read their types is made anew. */
function installStamp(packageDir: string): string {
  for (const name of [join('node_modules', '.package-lock.json'), 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock']) {
    try {
      const stat = statSync(join(packageDir, name));
      return `${name}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      // try the next one
    }
  }
  return '';
}
