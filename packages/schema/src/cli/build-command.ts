import { resolve } from 'node:path';
import ts from 'typescript';
import { analyzeSourceFile } from '../transformer/tool-sites.js';
import { createTransformer } from '../transformer/transformer.js';

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
export function readProject(args: readonly string[], output: CommandOutput = defaultOutput): ts.ParsedCommandLine | undefined {
  const commandLine = ts.parseCommandLine([...args]);
  if (commandLine.errors.length > 0) {
    output.err(formatDiagnostics(commandLine.errors, false));
    return undefined;
  }
  if (commandLine.options.watch === true || args.includes('-b') || args.includes('--build')) {
    output.err('anytool build compiles once; --watch and --build are not supported. For watch mode use tspc --watch with the ts-patch plugin (see docs/build-setup.md in the @anytool/schema package).\n');
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
  let configError: ts.Diagnostic | undefined;
  const host: ts.ParseConfigFileHost = {
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
export function createJsDocHost(options: ts.CompilerOptions): ts.CompilerHost {
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
 * diagnostics. With `noEmit` it only checks. Returns the exit code: 1 for
 * errors in the code, 2 when the project cannot be read.
 */
export function buildCommand(args: readonly string[], output: CommandOutput = defaultOutput): number {
  // A project that cannot be read is a usage error: tsc's message on a line of the command's own.
  const parsed = readProject(args, { ...output, err: (text) => output.err(text.replace(/^(?!anytool )(?=.)/gm, 'anytool build: ')) });
  if (parsed === undefined) return 2;
  const host = createJsDocHost(parsed.options);
  const createOptions: ts.CreateProgramOptions = { rootNames: parsed.fileNames, options: parsed.options, host, configFileParsingDiagnostics: parsed.errors };
  if (parsed.projectReferences !== undefined) createOptions.projectReferences = parsed.projectReferences;
  const program = ts.createProgram(createOptions);
  const diagnostics: ts.Diagnostic[] = [...ts.getPreEmitDiagnostics(program)];
  const own: ts.Diagnostic[] = [];
  if (parsed.options.noEmit) {
    for (const file of program.getSourceFiles()) {
      if (file.isDeclarationFile || program.isSourceFileFromExternalLibrary(file)) continue;
      own.push(...analyzeSourceFile(program, file).diagnostics);
    }
  } else {
    const emitted = program.emit(undefined, undefined, undefined, undefined, {
      before: [createTransformer(program, (d) => own.push(...d))],
    });
    diagnostics.push(...emitted.diagnostics);
  }
  diagnostics.push(...own);
  const pretty = typeof parsed.options['pretty'] === "boolean" ? parsed.options['pretty'] : process.stdout.isTTY === true;
  if (diagnostics.length > 0) output.err(formatDiagnostics(diagnostics, pretty));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (errors > 0) output.err(`\nFound ${errors} error${errors === 1 ? '' : 's'}.\n`);
  return errors > 0 ? 1 : 0;
}

export function formatDiagnostics(diagnostics: readonly ts.Diagnostic[], pretty: boolean): string {
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => '\n',
  };
  const text = pretty ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host);
  return text.replace(/ TS(910\d\d):/g, ' ANYTOOL$1:');
}
