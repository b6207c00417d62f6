// One file at a time, for the ways in that see files one by one (the Node loader, the
// bundler plugins): the build information comes from a Program over the file's project,
// the JavaScript from `transpileModule`, in the module format the host asks for. Results
// are kept on disk, so a second start needs no TypeScript at all.
import { resolve } from 'node:path';
import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { createJsDocHost } from '../cli/build-command.js';
import { keepsStandardDecorators, newestNumberedTarget } from '../transformer/kept-decorators.js';
import { analyzeFile, type ToolSite } from '../transformer/tool-sites.js';
import { formatAnytoolDiagnostics, rewrite } from '../transformer/transformer.js';
import { projectTypeScript, ts, withTypeScript } from '../typescript.js';
import { ProjectCache, Projects, type CacheEntry, type CompiledFile, type Dependency } from './cache.js';

export type { CompiledFile };

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

/**
 * Makes a compiler for the ways in that see one file at a time. Files that
 * may hold a tool (any mention of "tool", or a class that extends another)
 * are analysed in a Program over their project, made once and then reused;
 * the others are only transpiled.
 */
export function createFileCompiler(options: FileCompilerOptions = {}): FileCompiler {
  const projects = new Projects(options.tsconfig, (config, directory, hashes) => new Project(config, directory, options.cacheDirectory, hashes));
  return {
    compile(fileName, source, format) {
      const file = resolve(fileName);
      return projects.of(file).compile(file, source, format);
    },
  };
}

/** A tsconfig.json and what compiling its files needs: the TypeScript, the Program. */
class Project extends ProjectCache {
  private typescript: typeof TS | undefined;
  private parsed: TS.ParsedCommandLine | undefined;
  private host: CachingHost | undefined;
  private program: TS.Program | undefined;

  compile(fileName: string, source: string, format: 'module' | 'commonjs'): CompiledFile {
    const cached = this.read(fileName, source, format);
    if (cached !== undefined) return cached;
    this.typescript ??= projectTypeScript(this.directory).typescript;
    const entry = withTypeScript(this.typescript, () => this.build(fileName, source, format));
    this.write(fileName, source, format, entry);
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
    if (parsed === undefined) throw new AnytoolError(ErrorCode.InvalidProject, `anytool: cannot read ${this.config}`);
    const errors = parsed.errors.filter((d) => d.category === ts.DiagnosticCategory.Error && d.code !== NO_INPUTS);
    if (errors.length > 0) throw new AnytoolError(ErrorCode.InvalidProject, `anytool: ${this.config} has errors:\n${formatAnytoolDiagnostics(errors)}`);
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
function transpile(
  fileName: string,
  source: string,
  format: 'module' | 'commonjs',
  projectOptions: TS.CompilerOptions,
  sites: readonly ToolSite[],
): { code: string; map: string | undefined } {
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
  const before: TS.TransformerFactory<TS.SourceFile>[] =
    byPosition.size === 0 ? [] : [(context) => (file) => rewrite(file, (original) => byPosition.get(positionKey(original)), context)];
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
    host.fileExists = (
      (exists) => (fileName: string) =>
        this.overrides.has(resolve(fileName)) || exists(fileName)
    )(host.fileExists.bind(host));
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
