import { dirname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type * as TS from 'typescript';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { analyzeFile, type BuildInfoData } from '../transformer/tool-sites.js';
import { ts, withProjectTypeScript } from '../typescript.js';
import { createJsDocHost, formatDiagnostics, readProject, type CommandOutput } from './build-command.js';
import { projectDirectory } from './build-record.js';
import { parseArgs, usageError } from './command-args.js';

/** One tool as the build step sees it: what `anytool schema` prints. */
export interface ToolDescription extends BuildInfoData {
  /** The tool's name (an explicit `name` option, else the function, method or class name). */
  name: string;
  /** Where it is declared: `Weather.getWeather`, `tool(searchWeb)`, `class Clock`. */
  source: string;
  /** Names of the argument preparers the build step adds (`revive`, `validateClass`). */
  prepare?: string[];
}

/** The result of describing the tools in one file. */
export interface ToolDescriptions {
  tools: ToolDescription[];
  diagnostics: TS.Diagnostic[];
}

/**
 * Describes the tools declared in `file`, in the program of the nearest
 * tsconfig.json (or `tsconfig` when given): its options and files plus `file`,
 * as the build compiles it. These are the definitions the build step would inline.
 */
export function describeTools(file: string, tsconfig?: string): ToolDescriptions {
  return withProjectTypeScript(projectOf(file, tsconfig), () => describe(file, tsconfig));
}

/** The directory whose TypeScript reads `file`: its tsconfig's, else its own. */
function projectOf(file: string, tsconfig: string | undefined): string {
  return tsconfig === undefined ? dirname(resolve(file)) : projectDirectory(['-p', tsconfig]);
}

function describe(file: string, tsconfig: string | undefined): ToolDescriptions {
  const fileName = resolve(file);
  const configFile = tsconfig ?? ts.findConfigFile(dirname(fileName), ts.sys.fileExists);
  let options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
  };
  // The same program as the build: the tsconfig's files (global declarations included), plus the file.
  let rootNames = [fileName];
  if (configFile !== undefined) {
    let problem = '';
    const parsed = readProject(['-p', configFile], { out: () => undefined, err: (text) => (problem += text) });
    if (parsed === undefined)
      throw new AnytoolError(
        ErrorCode.InvalidProject,
        `cannot read ${configFile}: ${problem.trim().split('\n')[0]!.replace(/\.$/, '')}; fix the tsconfig or name another with -p`,
      );
    options = parsed.options;
    rootNames = [...new Set([...parsed.fileNames.map((f) => resolve(f)), fileName])];
  }
  const program = ts.createProgram({ rootNames, options: { ...options, noEmit: true }, host: createJsDocHost(options) });
  const source = program.getSourceFile(fileName);
  if (source === undefined)
    throw new AnytoolError(
      ErrorCode.InvalidUsage,
      `cannot read ${file}${existsSync(fileName) ? '' : ': there is no such file'}; check the path, which is relative to the current directory`,
    );
  const { sites, diagnostics } = analyzeFile(program, source);
  // A schemaOf<T>() call is not a tool.
  const tools = sites
    .filter((site) => site.kind !== 'schema')
    .map((site): ToolDescription => {
      const tool: ToolDescription = { name: site.name, source: site.label, ...site.info };
      if (site.prepare.length > 0) tool.prepare = site.prepare.map((p) => (p.kind === 'dates' ? 'revive' : 'validateClass'));
      return tool;
    });
  return { tools, diagnostics };
}

/**
 * `anytool schema <file> [-p tsconfig.json]`: prints the definitions as JSON.
 * Returns the exit code (1 when the build step finds an error); usage errors are thrown.
 */
export function schemaCommand(args: readonly string[], output: CommandOutput): number {
  const parsed = parseArgs('schema', args, { values: ['-p', '--project'] });
  const tsconfig = [...(parsed.values.get('-p') ?? []), ...(parsed.values.get('--project') ?? [])].pop();
  const [file, ...extra] = parsed.positionals;
  if (file === undefined) throw usageError('schema', 'name the file: anytool schema <file.ts>');
  if (extra.length > 0) throw usageError('schema', `describe one file at a time, got ${parsed.positionals.join(', ')}`);
  if (!existsSync(file)) throw new AnytoolError(ErrorCode.InvalidUsage, `there is no file ${file}; check the path, which is relative to the current directory`);
  if (tsconfig !== undefined && !existsSync(tsconfig))
    throw new AnytoolError(ErrorCode.InvalidUsage, `there is no tsconfig ${tsconfig}; check the path given with -p`);
  return withProjectTypeScript(projectOf(file, tsconfig), () => printTools(file, tsconfig, output));
}

function printTools(file: string, tsconfig: string | undefined, output: CommandOutput): number {
  const { tools, diagnostics } = describeTools(file, tsconfig);
  if (diagnostics.length > 0) output.err(formatDiagnostics(diagnostics, false));
  output.out(`${JSON.stringify(tools, null, 2)}\n`);
  return diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error) ? 1 : 0;
}
