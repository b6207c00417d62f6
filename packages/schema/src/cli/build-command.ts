import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type * as TS from 'typescript';
import { firstDecorator, keepsStandardDecorators, newestNumberedTarget } from '../transformer/kept-decorators.js';
import { analyzeFile } from '../transformer/tool-sites.js';
import { createTransformer } from '../transformer/transformer.js';
import { projectTypeScript, ts, withProjectTypeScript, withTypeScript } from '../typescript.js';
import { FileHashes } from '../compile/cache.js';
import { type BuildFacts, ReadLog, type RecordedFile, dropRecord, listNames, projectDirectory, statStamp, writeRecord } from './build-record.js';

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
  if (project === undefined && commandLine.fileNames.length === 0) project = ts.findConfigFile(process.cwd(), (file) => fileExists(file, log));
  if (project === undefined) {
    if (commandLine.fileNames.length === 0) {
      output.err('anytool build: no tsconfig.json found and no files given; run it as `anytool build -p tsconfig.json`\n');
      return undefined;
    }
    return commandLine;
  }
  const configFile = ts.sys.directoryExists(project) ? resolve(project, 'tsconfig.json') : resolve(project);
  const { project: _p, ...overrides } = commandLine.options;
  let configError: TS.Diagnostic | undefined;
  const host: TS.ParseConfigFileHost = {
    ...ts.sys,
    readFile: (file) => {
      log?.noteRead(file);
      return ts.sys.readFile(file);
    },
    fileExists: (file) => fileExists(file, log),
    onUnRecoverableConfigFileDiagnostic: (d) => {
      configError = d;
    },
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, overrides, host);
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

/** Whether a file exists, telling the log when it does not. */
function fileExists(file: string, log: ReadLog | undefined): boolean {
  const found = ts.sys.fileExists(file);
  if (!found) log?.noteMissing(file);
  return found;
}

/** Tells the log what the compiler host reads, and the files and folders it looks for in vain. */
function logReads(host: TS.CompilerHost, log: ReadLog): void {
  const { readFile, fileExists: exists, directoryExists } = host;
  host.readFile = (file) => {
    log.noteRead(file);
    return readFile.call(host, file);
  };
  host.fileExists = (file) => {
    const found = exists.call(host, file);
    if (!found) log.noteMissing(file);
    return found;
  };
  if (directoryExists !== undefined) {
    host.directoryExists = (directory) => {
      const found = directoryExists.call(host, directory);
      if (!found) log.noteMissing(directory);
      return found;
    };
  }
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
  dropRecord(args);
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

/** A build's exit code, and with a log, what it read and wrote (undefined when an input changed while it ran). */
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
  const written: string[] = [];
  if (parsed.options.noEmit) {
    for (const file of program.getSourceFiles()) {
      if (file.isDeclarationFile || program.isSourceFileFromExternalLibrary(file)) continue;
      own.push(...analyzeFile(program, file).diagnostics);
    }
  } else {
    const writeFile: TS.WriteFileCallback = (fileName, text, writeByteOrderMark) => {
      ts.sys.writeFile(fileName, text, writeByteOrderMark);
      written.push(fileName);
    };
    const emitted = program.emit(undefined, writeFile, undefined, undefined, {
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
  return { code: 0, facts: log === undefined ? undefined : factsOf(parsed, program, log, written) };
}

/**
 * What a build read and wrote, for its record: the files its hosts read (TypeScript's own libraries aside), the paths
 * they found missing, the folders of the tsconfig's globs, the outputs. Undefined when an input changed while it ran.
 */
function factsOf(parsed: TS.ParsedCommandLine, program: TS.Program, log: ReadLog, written: readonly string[]): BuildFacts | undefined {
  const hashes = new FileHashes();
  const libraries = resolve(dirname(ts.getDefaultLibFilePath(program.getCompilerOptions())));
  const inputs: RecordedFile[] = [];
  for (const [file, stampWhenRead] of log.read) {
    if (dirname(file) === libraries) continue;
    // Hashed first, then its stamp compared: a file written since it was read has moved it either way.
    const hash = hashes.of(file);
    if (statStamp(file) !== stampWhenRead) return undefined;
    inputs.push([file, hash, stampWhenRead]);
  }
  const outputs: RecordedFile[] = written.map((file) => [resolve(file), hashes.of(resolve(file)), statStamp(resolve(file))]);
  // A path looked for before the build wrote it is no reason to build again.
  const missing = [...log.missing].filter((path) => !existsSync(path));
  // What TypeScript's globs match (declaration files end in .ts too), and JSON for resolveJsonModule.
  const extensions = ['.ts', '.tsx', '.mts', '.cts', ...(parsed.options.allowJs === true ? ['.js', '.jsx', '.mjs', '.cjs'] : []), '.json'];
  const folders = Object.entries(parsed.wildcardDirectories ?? {}).map(([path, flags]) => {
    const recursive = (flags & ts.WatchDirectoryFlags.Recursive) !== 0;
    return { path, recursive, names: listNames(path, recursive, new Set(extensions)) };
  });
  return { inputs, missing, folders, extensions, outputs };
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
    if (log !== undefined) logReads(host, log);
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
  if ([...roots].some(hasDecorators)) return create(lowered);
  const program = create(parsed.options);
  // A decorated file reached only through an import: compile again, lowered.
  const reached = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !program.isSourceFileFromExternalLibrary(f) && !roots.has(f.fileName));
  return reached.some((f) => firstDecorator(f) !== undefined) ? create(lowered) : program;
}

function hasDecorators(fileName: string): boolean {
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
