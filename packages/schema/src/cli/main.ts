import { closestName } from '@anytool/core/internal';
import type { CommandOutput } from './build-command.js';
import { BUILD_USAGE, CALL_USAGE, LIST_USAGE, SCHEMA_USAGE, USAGE } from './usage.js';

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** What the `anytool` bin knows about itself. */
export interface MainOptions {
  /** Printed by `--version` (the bin passes its package.json's). */
  version?: string;
  /** Print stack traces under errors. Default: the ANYTOOL_DEBUG environment variable is set (and not 0). */
  debug?: boolean;
}

const HELP = new Set(['-h', '--help']);

/**
 * The `anytool` command line. Returns the exit code: 0 done, 1 the command ran
 * and failed (build errors, an error result), 2 a usage error. A usage error
 * is printed as one line (`anytool <command>: what was wrong; the fix`), with
 * its stack trace only in debug mode.
 */
export async function main(argv: readonly string[], output: CommandOutput = processOutput, options: MainOptions = {}): Promise<number> {
  const [command, ...rest] = argv;
  // Commands are loaded when used: build and schema load the TypeScript compiler, which list and call do not need.
  try {
    switch (command) {
      case 'build':
        if (rest.some((a) => HELP.has(a))) return help(output, BUILD_USAGE);
        return await buildUnlessUpToDate(rest, output);
      case 'schema':
        if (rest.some((a) => HELP.has(a))) return help(output, SCHEMA_USAGE);
        return (await import('./schema-command.js')).schemaCommand(rest, output);
      case 'list':
        if (rest.some((a) => HELP.has(a))) return help(output, LIST_USAGE);
        return await (await import('./list-command.js')).listCommand(rest, output);
      case 'call':
        if (rest.some((a) => HELP.has(a))) return help(output, CALL_USAGE);
        return await (await import('./call-command.js')).callCommand(rest, output);
      case 'serve':
        return await serveCommand(rest, output);
      case 'help':
      case '-h':
      case '--help':
        return help(output, USAGE);
      case '-v':
      case '--version':
        output.out(`${options.version ?? 'unknown'}\n`);
        return 0;
      case undefined:
        output.err(USAGE);
        return 2;
      default:
        output.err(unknownCommand(command));
        return 2;
    }
  } catch (error) {
    return report(command!, error, output, options.debug ?? isDebug());
  }
}

const COMMANDS = ['build', 'schema', 'list', 'call', 'serve', 'help'];

/** The one line for a command or top-level option that does not exist, with the one it most likely meant. */
function unknownCommand(command: string): string {
  if (command.startsWith('-')) {
    const near = closestName(command, ['--help', '--version']);
    return `anytool: unknown option ${command}${near === undefined ? '' : ` (did you mean ${near}?)`}; run anytool --help for the usage\n`;
  }
  const near = closestName(command, COMMANDS);
  return `anytool: unknown command "${command}"; ${near === undefined ? 'the commands are build, schema, list, call and serve' : `did you mean ${near}?`} (anytool --help)\n`;
}

/**
 * `anytool build`: skipped, printing what the last build printed, while everything that build read and wrote is
 * unchanged (checked without loading TypeScript); `--force` builds anyway.
 */
async function buildUnlessUpToDate(args: readonly string[], output: CommandOutput): Promise<number> {
  const force = args.includes('--force');
  const tscArgs = args.filter((a) => a !== '--force');
  const record = force ? undefined : (await import('./build-record.js')).upToDate(tscArgs);
  if (record !== undefined) {
    output.out(record.out);
    output.err(record.err);
    return 0;
  }
  return (await import('./build-command.js')).buildCommand(tscArgs, output, { remember: true });
}

function help(output: CommandOutput, usage: string): number {
  output.out(usage);
  return 0;
}

function isDebug(): boolean {
  const value = process.env['ANYTOOL_DEBUG'];
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

// An AnytoolError from any copy of @anytool/core (the module's tools may come from another build than this command's).
function isUsageError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === 'AnytoolError' && typeof (error as { code?: unknown }).code === 'string';
}

/** Prints a thrown error as one line; 2 for a usage error, 1 for anything else (a bug, in anytool or in the module). */
function report(command: string, error: unknown, output: CommandOutput, debug: boolean): number {
  const usage = isUsageError(error);
  const message = (error instanceof Error ? error.message || error.name : String(error)).replace(/\s*\n\s*/g, ' ').trim();
  const detail = usage ? message : `${error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : ''}${message}`;
  // The stack trace helps with a bug, or with an error the module threw (the cause of a usage error), not with a bad argument.
  const traceHelps = !usage || (error as Error).cause instanceof Error;
  const hint = traceHelps && !debug ? ' (ANYTOOL_DEBUG=1 prints the stack trace)' : '';
  output.err(`anytool ${command}: ${detail.replace(new RegExp(`^anytool ${command}: `), '')}${hint}\n`);
  if (debug) {
    for (let e: unknown = error; e instanceof Error; e = e.cause) output.err(`${e === error ? '' : 'Caused by: '}${e.stack ?? e.message}\n`);
  }
  return usage ? 2 : 1;
}

/**
 * `serve` lives in @anytool/mcp (its `anytool-mcp serve` is the same command), loaded
 * only when asked for: schema does not depend on it.
 */
async function serveCommand(args: readonly string[], output: CommandOutput): Promise<number> {
  const specifier = '@anytool/mcp/internal';
  let mcp: { runServeCommand?: unknown };
  try {
    mcp = (await import(specifier)) as { runServeCommand?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const missing = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED';
    output.err(
      `anytool serve: ${missing ? '@anytool/mcp is not installed' : `@anytool/mcp does not load (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`}; install it next to @anytool/schema: npm i @anytool/mcp\n`,
    );
    return 2;
  }
  if (typeof mcp.runServeCommand !== 'function') {
    output.err('anytool serve: the installed @anytool/mcp has no serve command; install the @anytool/mcp version that matches @anytool/schema\n');
    return 2;
  }
  await (mcp.runServeCommand as (args: string[], command: string) => Promise<void>)([...args], 'anytool serve');
  return 0;
}
