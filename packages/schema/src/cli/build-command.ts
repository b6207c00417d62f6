import { dirname, resolve } from 'node:path';
import type * as TS from 'typescript';
import { firstDecorator, keepsStandardDecorators, newestNumberedTarget } from '../transformer/kept-decorators.js';
import { analyzeFile } from '../transformer/tool-sites.js';
import { createTransformer } from '../transformer/transformer.js';
import { projectTypeScript, ts, withProjectTypeScript, withTypeScript } from '../typescript.js';
import { FileHashes } from '../compile/cache.js';
import { type BuildFacts, dropRecord, listNames, projectDirectory, writeRecord } from './build-record.js';

export { projectDirectory } from './build-record.js';

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

function readProjectFiles(args: readonly string[], output: CommandOutput): TS.ParsedCommandLine | undefined {
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
  if (project === undefined && commandLine.fileNames.length === 0) project = ts.findConfigFile(process.cwd(), ts.sys.fileExists);
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
  if (options.remember !== true) return typeCheckedBuild(args, output, undefined);
  dropRecord(args);
  let out = '';
  let err = '';
  const facts: BuildFacts = { inputs: [], folders: [], extensions: [], outputs: [] };
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
  const code = typeCheckedBuild(args, recording, facts);
  if (code === 0) writeRecord(args, facts, out, err);
  return code;
}

function typeCheckedBuild(args: readonly string[], output: CommandOutput, facts: BuildFacts | undefined): number {
  const choice = projectTypeScript(projectDirectory(args));
  if (choice.note !== undefined) output.err(choice.note);
  return withTypeScript(choice.typescript, () => build(args, output, choice.shipped, facts));
}

function build(args: readonly string[], output: CommandOutput, shipped: boolean, facts: BuildFacts | undefined): number {
  // A project that cannot be read is a usage error: tsc's message on a line of the command's own.
  const parsed = readProjectFiles(args, { ...output, err: (text) => output.err(text.replace(/^(?!anytool )(?=.)/gm, 'anytool build: ')) });
  if (parsed === undefined) return 2;
  // The TypeScript shipped here is not the project's: its deprecations are not the project's to fix.
  if (shipped && parsed.options.ignoreDeprecations === undefined && ts.versionMajorMinor === '6.0') parsed.options.ignoreDeprecations = '6.0';
  const program = createBuildProgram(parsed);
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
  if (errors === 0 && facts !== undefined) collectFacts(parsed, program, written, facts);
  return errors > 0 ? 1 : 0;
}

/** What a build read and wrote, for its record: every file but TypeScript's own libraries, the globs' folders, the outputs. */
function collectFacts(parsed: TS.ParsedCommandLine, program: TS.Program, written: readonly string[], facts: BuildFacts): void {
  const hashes = new FileHashes();
  const libraries = dirname(ts.getDefaultLibFilePath(program.getCompilerOptions()));
  const read = new Set(program.getSourceFiles().map((file) => resolve(file.fileName)));
  // The tsconfig and those it extends: tsc keeps them as `configFile` in the options (TypeScript 5.5 through 6.0).
  const config = parsed.options['configFile'] as Partial<TS.TsConfigSourceFile> | undefined;
  for (const file of [config?.fileName, ...(config?.extendedSourceFiles ?? [])]) if (typeof file === 'string') read.add(resolve(file));
  for (const file of read) if (dirname(file) !== libraries) facts.inputs.push([file, hashes.of(file)]);
  // What TypeScript's globs match (declaration files end in .ts too), and JSON for resolveJsonModule.
  facts.extensions = ['.ts', '.tsx', '.mts', '.cts', ...(parsed.options.allowJs === true ? ['.js', '.jsx', '.mjs', '.cjs'] : []), '.json'];
  const extensions = new Set(facts.extensions);
  for (const [path, flags] of Object.entries(parsed.wildcardDirectories ?? {})) {
    const recursive = (flags & ts.WatchDirectoryFlags.Recursive) !== 0;
    facts.folders.push({ path, recursive, names: listNames(path, recursive, extensions) });
  }
  for (const file of written) facts.outputs.push([resolve(file), hashes.of(resolve(file))]);
}

/**
 * The program to compile, with the project's options except one: with a target
 * of ESNext, where TypeScript leaves standard decorators as written (Node cannot
 * run them), the newest target with a year (ES2024 in TypeScript 5.9) when the
 * project's own files use decorators, with ESNext's default library kept.
 */
function createBuildProgram(parsed: TS.ParsedCommandLine): TS.Program {
  const create = (options: TS.CompilerOptions): TS.Program => {
    const host = createJsDocHost(options);
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
