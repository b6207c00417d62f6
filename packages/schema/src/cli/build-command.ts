import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type * as TS from 'typescript';
import { firstDecorator, keepsStandardDecorators, newestNumberedTarget } from '../transformer/kept-decorators.js';
import { analyzeFile } from '../transformer/tool-sites.js';
import { createTransformer } from '../transformer/transformer.js';
import { projectTypeScript, ts, withProjectTypeScript, withTypeScript } from '../typescript.js';
import { FileHashes, fileStamp } from '../compile/cache.js';
import { type BuildFacts, ReadLog, type RecordedFile, listNames, prepareRecord, projectDirectory, writeRecord } from './build-record.js';

/** Where `anytool build` writes its messages (the CLI passes the process streams). */
export interface CommandOutput {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultOutput: CommandOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/**
 * Reads a project like tsc does (`-p tsconfig.json`, or the files and options on
 * the command line, or the tsconfig.json found from the current directory).
 */
export function readProject(args: readonly string[], output: CommandOutput = defaultOutput): TS.ParsedCommandLine | undefined {
  return withProjectTypeScript(projectDirectory(args), () => readProjectFiles(args, output));
}

function readProjectFiles(args: readonly string[], output: CommandOutput, log?: ReadLog): TS.ParsedCommandLine | undefined {
  const commandLine = ts.parseCommandLine([...args]);
  if (commandLine.errors.length > 0) {
    output.err(formatDiagnostics(commandLine.errors, false));
    return undefined;
  }
  if (commandLine.options.watch === true || args.includes('-b') || args.includes('--build')) {
    output.err(
      'anytool build compiles once; --watch and --build are not supported. For watch mode use tspc --watch with the ts-patch plugin (docs/build-setup.md).\n',
    );
    return undefined;
  }
  let project = commandLine.options.project;
  let configError: TS.Diagnostic | undefined;
  const configHost: TS.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      configError = d;
    },
  };
  if (log !== undefined) logLookups(configHost, log);
  if (project === undefined && commandLine.fileNames.length === 0) project = ts.findConfigFile(process.cwd(), (file) => configHost.fileExists(file));
  if (project === undefined) {
    if (commandLine.fileNames.length === 0) {
      output.err('anytool build: no tsconfig.json found and no files given; run it as `anytool build -p tsconfig.json`\n');
      return undefined;
    }
    return commandLine;
  }
  const configFile = ts.sys.directoryExists(project) ? resolve(project, 'tsconfig.json') : resolve(project);
  const { project: _p, ...overrides } = commandLine.options;
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, overrides, configHost);
  if (parsed === undefined) {
    output.err(configError === undefined ? `anytool build: cannot read ${configFile}\n` : formatDiagnostics([configError], false));
    return undefined;
  }
  // A broken tsconfig (bad JSON, an unknown option or value, no inputs) stops here, as a usage error.
  const configErrors = parsed.errors.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (configErrors.length > 0) {
    output.err(formatDiagnostics(configErrors, false));
    return undefined;
  }
  return parsed;
}

/** The lookups of a host that the build record follows (a compiler host's, a tsconfig parser's). */
interface Lookups {
  readFile?(fileName: string): string | undefined;
  fileExists?(fileName: string): boolean;
  directoryExists?(directoryName: string): boolean;
  getDirectories?(path: string): string[];
  realpath?(path: string): string;
}

/** Tells the log what the host reads, lists and resolves, and what it looks for in vain (build-record.ts). */
function logLookups(host: Lookups, log: ReadLog): void {
  const { readFile, fileExists, directoryExists, getDirectories, realpath } = host;
  if (readFile !== undefined) {
    host.readFile = (file) => {
      log.noteRead(file);
      return readFile.call(host, file);
    };
  }
  if (fileExists !== undefined) {
    host.fileExists = (file) => {
      const found = fileExists.call(host, file);
      if (!found) log.noteMissing(file);
      return found;
    };
  }
  if (directoryExists !== undefined) {
    host.directoryExists = (directory) => {
      const found = directoryExists.call(host, directory);
      if (!found) log.noteMissing(directory);
      return found;
    };
  }
  if (getDirectories !== undefined) {
    host.getDirectories = (path) => {
      const names = getDirectories.call(host, path);
      log.noteListed(path, names);
      return names;
    };
  }
  if (realpath !== undefined) {
    host.realpath = (path) => {
      const real = realpath.call(host, path);
      log.noteLink(path, real);
      return real;
    };
  }
}

/** `logLookups`, and the files the compiler host writes (those it could not write are its diagnostics, as before). */
function logCompilerHost(host: TS.CompilerHost, log: ReadLog): void {
  logLookups(host, log);
  const writeFile = host.writeFile;
  host.writeFile = (fileName, text, writeByteOrderMark, onError, sourceFiles, data) => {
    let failed = false;
    const failure = (message: string): void => {
      failed = true;
      onError?.(message);
    };
    writeFile.call(host, fileName, text, writeByteOrderMark, failure, sourceFiles, data);
    if (!failed) log.noteWritten(fileName);
  };
}

/**
 * A compiler host that parses all JSDoc of the project's own files (tsc skips
 * it since TypeScript 5.3, and descriptions live there), but parses installed
 * declaration files (the lib files, node_modules) as lightly as tsc does.
 */
export function createJsDocHost(options: TS.CompilerOptions): TS.CompilerHost {
  const host = ts.createCompilerHost(options);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseAll;
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    if (fileName.endsWith('.d.ts') && /[\\/](node_modules|typescript[\\/]lib)[\\/]/.test(fileName) && typeof languageVersionOrOptions === 'object') {
      languageVersionOrOptions = { ...languageVersionOrOptions, jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors };
    }
    return getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
  };
  return host;
}

/**
 * `anytool build [tsc options] [-p tsconfig.json]`: compiles the project like
 * tsc, with the anytool transformer, and prints tsc's and the build step's
 * diagnostics. With `noEmit` it only checks. Returns the exit code.
 *
 * It compiles with the project's own TypeScript when that is 5.5 through 6.0,
 * else with the one @anytool/schema ships (saying so when the project has
 * another). Standard decorators are lowered when the target is ESNext, where
 * TypeScript would leave them in the output and Node could not run it.
 * Exit code: 1 for errors in the code, 2 when the project cannot be read.
 *
 * With `remember` (the command line), a build that passes leaves a record of
 * what it read and wrote (build-record.ts), so that the next one can be skipped
 * while they are unchanged; any other outcome forgets the last record.
 */
export function buildCommand(args: readonly string[], output: CommandOutput = defaultOutput, options: { remember?: boolean } = {}): number {
  if (options.remember !== true) return typeCheckedBuild(args, output, undefined).code;
  prepareRecord(args);
  let out = '';
  let err = '';
  const recording: CommandOutput = {
    out: (text) => {
      out += text;
      output.out(text);
    },
    err: (text) => {
      err += text;
      output.err(text);
    },
  };
  const { code, facts } = typeCheckedBuild(args, recording, new ReadLog());
  if (code === 0 && facts !== undefined) writeRecord(args, facts, out, err);
  return code;
}

/** A build's exit code, and what it read and wrote when it passed with a log (not when an input changed while it ran). */
interface Built {
  code: number;
  facts?: BuildFacts | undefined;
}

function typeCheckedBuild(args: readonly string[], output: CommandOutput, log: ReadLog | undefined): Built {
  const choice = projectTypeScript(projectDirectory(args));
  if (choice.note !== undefined) output.err(choice.note);
  return withTypeScript(choice.typescript, () => build(args, output, choice.shipped, log));
}

function build(args: readonly string[], output: CommandOutput, shipped: boolean, log: ReadLog | undefined): Built {
  // A project that cannot be read is a usage error: tsc's message on a line of the command's own.
  const parsed = readProjectFiles(args, { ...output, err: (text) => output.err(text.replace(/^(?!anytool )(?=.)/gm, 'anytool build: ')) }, log);
  if (parsed === undefined) return { code: 2 };
  // The TypeScript shipped here is not the project's: its deprecations are not the project's to fix.
  if (shipped && parsed.options.ignoreDeprecations === undefined && ts.versionMajorMinor === '6.0') parsed.options.ignoreDeprecations = '6.0';
  const program = createBuildProgram(parsed, log);
  const diagnostics: TS.Diagnostic[] = [...ts.getPreEmitDiagnostics(program)];
  const own: TS.Diagnostic[] = [];
  if (parsed.options.noEmit) {
    for (const file of program.getSourceFiles()) {
      if (file.isDeclarationFile || program.isSourceFileFromExternalLibrary(file)) continue;
      own.push(...analyzeFile(program, file).diagnostics);
    }
  } else {
    const emitted = program.emit(undefined, undefined, undefined, undefined, {
      before: [createTransformer(program, (d) => own.push(...d), ts)],
    });
    diagnostics.push(...emitted.diagnostics);
  }
  diagnostics.push(...own);
  const pretty = typeof parsed.options['pretty'] === 'boolean' ? parsed.options['pretty'] : process.stdout.isTTY === true;
  if (diagnostics.length > 0) output.err(formatDiagnostics(diagnostics, pretty));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (errors > 0) output.err(`\nFound ${errors} error${errors === 1 ? '' : 's'}.\n`);
  if (errors > 0) return { code: 1 };
  return { code: 0, facts: log === undefined ? undefined : factsOf(parsed, program, log) };
}

/**
 * What a build read and wrote, for its record (build-record.ts), TypeScript's own libraries aside. Undefined when
 * something it read changed while it ran, or a path it looked for in vain appeared meanwhile (other than what it
 * wrote): that build may not be what the inputs give now.
 */
function factsOf(parsed: TS.ParsedCommandLine, program: TS.Program, log: ReadLog): BuildFacts | undefined {
  const hashes = new FileHashes();
  const libraries = resolve(dirname(ts.getDefaultLibFilePath(program.getCompilerOptions())));
  const inputs: RecordedFile[] = [];
  for (const [file, stampWhenRead] of log.read) {
    if (dirname(file) === libraries) continue;
    // Hashed first, then its stamp compared: a file written since it was read has moved it either way.
    const hash = hashes.of(file);
    if (hash === 'unreadable' || fileStamp(file) !== stampWhenRead) return undefined;
    inputs.push([file, hash, stampWhenRead]);
  }
  const outputs: RecordedFile[] = [];
  const produced = new Set<string>();
  for (const file of log.written) {
    const hash = hashes.of(file);
    if (hash === 'unreadable' || hash === 'missing') return undefined;
    outputs.push([file, hash, fileStamp(file)]);
    for (let path = file; !produced.has(path) && dirname(path) !== path; path = dirname(path)) produced.add(path);
  }
  const missing: string[] = [];
  for (const path of log.missing) {
    if (!existsSync(path)) missing.push(path);
    else if (!produced.has(path)) return undefined;
  }
  // What TypeScript's globs match: its source extensions (declaration files end in .ts too), JSON when an
  // `include` pattern names it.
  const includes: unknown = parsed.raw?.include;
  const json = Array.isArray(includes) && includes.some((spec) => typeof spec === 'string' && spec.endsWith('.json'));
  const extensions = ['.ts', '.tsx', '.mts', '.cts', ...(parsed.options.allowJs === true ? ['.js', '.jsx', '.mjs', '.cjs'] : []), ...(json ? ['.json'] : [])];
  const matched = new Set(extensions);
  const folders = Object.entries(parsed.wildcardDirectories ?? {}).map(([path, flags]) => {
    const recursive = (flags & ts.WatchDirectoryFlags.Recursive) !== 0;
    return { path, recursive, names: listNames(path, recursive, matched) };
  });
  return { inputs, missing, listed: [...log.listed], links: [...log.links], folders, extensions, outputs };
}

/**
 * The program to compile, with the project's options except one: with a target
 * of ESNext, where TypeScript leaves standard decorators as written (Node cannot
 * run them), the newest target with a year (ES2024 in TypeScript 5.9) when the
 * project's own files use decorators, with ESNext's default library kept.
 */
function createBuildProgram(parsed: TS.ParsedCommandLine, log: ReadLog | undefined): TS.Program {
  const create = (options: TS.CompilerOptions): TS.Program => {
    const host = createJsDocHost(options);
    if (log !== undefined) logCompilerHost(host, log);
    if (options !== parsed.options && options.lib === undefined && options.noLib !== true) {
      // The same default library as the project's own target, so types check as they would with tsc.
      const lib = ts.getDefaultLibFilePath(parsed.options);
      host.getDefaultLibFileName = () => lib;
    }
    const createOptions: TS.CreateProgramOptions = { rootNames: parsed.fileNames, options, host, configFileParsingDiagnostics: parsed.errors };
    if (parsed.projectReferences !== undefined) createOptions.projectReferences = parsed.projectReferences;
    return ts.createProgram(createOptions);
  };
  if (parsed.options.noEmit === true || !keepsStandardDecorators(parsed.options)) return create(parsed.options);
  const lowered = { ...parsed.options, target: newestNumberedTarget().target };
  // The project's files are read first, so that usually one program is made.
  const roots = new Set(parsed.fileNames.filter((f) => !/\.d\.[cm]?ts$/.test(f)));
  if ([...roots].some((file) => hasDecorators(file, log))) return create(lowered);
  const program = create(parsed.options);
  // A decorated file reached only through an import: compile again, lowered.
  const reached = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !program.isSourceFileFromExternalLibrary(f) && !roots.has(f.fileName));
  return reached.some((f) => firstDecorator(f) !== undefined) ? create(lowered) : program;
}

function hasDecorators(fileName: string, log: ReadLog | undefined): boolean {
  // Read before the program reads it: its stamp is this read's, so a change in between leaves no record.
  log?.noteRead(fileName);
  const text = ts.sys.readFile(fileName);
  if (text === undefined || !text.includes('@')) return false;
  return (
    firstDecorator(ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.ESNext, jsDocParsingMode: ts.JSDocParsingMode.ParseNone })) !==
    undefined
  );
}

export function formatDiagnostics(diagnostics: readonly TS.Diagnostic[], pretty: boolean): string {
  const host: TS.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => '\n',
  };
  const text = pretty ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host);
  return text.replace(/ TS(910\d\d):/g, ' ANYTOOL$1:');
}
