import { buildCommand, type CommandOutput } from './build-command.js';
import { schemaCommand } from './schema-command.js';

const USAGE = `usage: anytool <command>

  anytool build [-p tsconfig.json] [tsc options]   compile with schemas generated from the TypeScript types
  anytool schema <file.ts> [-p tsconfig.json]      print the tool definitions the build would inline
  anytool serve <module> [options]                 serve a module's tools over MCP (needs @anytool/mcp)
`;

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** The `anytool` command line. Returns the exit code. */
export async function main(argv: readonly string[], output: CommandOutput = processOutput): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'build':
      return buildCommand(rest, output);
    case 'schema':
      return schemaCommand(rest, output);
    case 'serve':
      return serveCommand(rest, output);
    case undefined:
    case 'help':
    case '-h':
    case '--help':
      output.out(USAGE);
      return command === undefined ? 1 : 0;
    default:
      output.err(`anytool: unknown command "${command}"\n\n${USAGE}`);
      return 1;
  }
}

/** `serve` lives in @anytool/mcp, loaded only when asked for (schema does not depend on it). */
async function serveCommand(args: readonly string[], output: CommandOutput): Promise<number> {
  const specifier = '@anytool/mcp';
  let mcp: { runServeCommand?: unknown };
  try {
    mcp = (await import(specifier)) as { runServeCommand?: unknown };
  } catch (error) {
    output.err(`anytool serve needs @anytool/mcp: install it next to @anytool/schema (npm i @anytool/mcp). (${error instanceof Error ? error.message : String(error)})\n`);
    return 1;
  }
  if (typeof mcp.runServeCommand !== 'function') {
    output.err('anytool serve: the installed @anytool/mcp has no runServeCommand export; update @anytool/mcp to a version that provides `anytool serve`\n');
    return 1;
  }
  await (mcp.runServeCommand as (args: string[]) => Promise<void>)([...args]);
  return 0;
}
