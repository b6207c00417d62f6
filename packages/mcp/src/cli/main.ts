// The `anytool-mcp` command: serves a module's tools over MCP with only @anytool/core and
// @anytool/mcp installed (production images need no build step). `anytool serve` of
// @anytool/schema runs the same command.
import { isAnytoolError } from '@anytool/core';
import { closestName, describeError } from '@anytool/core/internal';
import { runServeCommand } from '../server/serve-command.js';

const COMMAND = 'anytool-mcp';

export const MCP_USAGE = `Usage: ${COMMAND} <command> [options]

Commands:
  ${COMMAND} serve <module.js> [options]   serve a module's tools over MCP (stdio or --http)

Options:
  -h, --help       show this help (${COMMAND} serve --help: the options of serve)
  -v, --version    show the version

The build step (anytool build, list, call) is the \`anytool\` command of @anytool/schema.
`;

/** Where the command writes. */
export interface McpCommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: McpCommandOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/**
 * The `anytool-mcp` command line. Returns the exit code: 0 done, 1 the command
 * failed, 2 a usage error (printed as one line: what was wrong and the fix).
 * `serve` returns once serving has ended.
 */
export async function mcpMain(argv: readonly string[], output: McpCommandOutput = processOutput, options: { version?: string } = {}): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      try {
        await runServeCommand([...rest], `${COMMAND} serve`);
        return 0;
      } catch (error) {
        return report(error, output);
      }
    case 'help':
    case '-h':
    case '--help':
      output.out(MCP_USAGE);
      return 0;
    case '-v':
    case '--version':
      output.out(`${options.version ?? 'unknown'}\n`);
      return 0;
    case undefined:
      output.err(MCP_USAGE);
      return 2;
    default:
      output.err(`${COMMAND}: unknown ${command.startsWith('-') ? 'option' : 'command'} "${command}"; ${didYouMean(command)}(${COMMAND} --help)\n`);
      return 2;
  }
}

/** What a mistyped command or option most likely meant, else what there is. */
function didYouMean(word: string): string {
  const near = closestName(word, word.startsWith('-') ? ['--help', '--version'] : ['serve', 'help']);
  return near === undefined ? 'the command is serve ' : `did you mean ${near}? `;
}

// As for `anytool serve`: an AnytoolError (of any copy of core: the brand, not instanceof) is a problem
// with what was asked (arguments, the module, its tools), anything else a bug.
function isUsageError(error: unknown): boolean {
  return isAnytoolError(error);
}

/** Prints a thrown error as one line; 2 for a usage error, 1 for anything else. */
function report(error: unknown, output: McpCommandOutput): number {
  const message = describeError(error)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  output.err(`${COMMAND} serve: ${message}\n`);
  return isUsageError(error) ? 2 : 1;
}
