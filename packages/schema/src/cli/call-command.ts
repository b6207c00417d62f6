import { AnytoolError, ErrorCode, ExecutionContext, resultText, type ToolResult } from '@anytool/core';
import type { CommandOutput } from './build-command.js';
import { parseArgs, usageError } from './command-args.js';
import { parseJsonArguments } from './json-arguments.js';
import { loadToolset, redirectStdout } from './tool-module.js';

/** Where `-` reads the arguments from (the CLI passes process.stdin). */
export type ReadInput = () => Promise<string>;

async function readStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

/**
 * `anytool call <module> <tool> [<json> | -]`: invokes one tool through a
 * Toolset with a fresh ExecutionContext and prints the result (structured
 * content as JSON, else its text). Returns 0, or 1 for an error result (its
 * text goes to stderr); usage errors are thrown.
 */
export async function callCommand(args: readonly string[], output: CommandOutput, readInput: ReadInput = readStdin): Promise<number> {
  const parsed = parseArgs('call', args, { values: ['--export'] });
  const [module, name, json, ...extra] = parsed.positionals;
  if (module === undefined || name === undefined)
    throw usageError('call', `name the ${module === undefined ? 'module and the tool' : 'tool'}: anytool call <module.js> <tool> '<json>'`);
  if (extra.length > 0) throw usageError('call', `pass the arguments as one JSON object, got ${extra.length + 1} arguments after the tool name`);
  const toolArgs = parseJsonArguments(json === undefined ? '{}' : json === '-' ? await readInput() : json);
  // What the module prints, at import or in the call, goes to stderr: stdout is the result's.
  const restore = redirectStdout();
  let result: ToolResult;
  try {
    const toolset = await loadToolset(module, parsed.values.get('--export'));
    if (!toolset.has(name))
      throw new AnytoolError(
        ErrorCode.UnknownTool,
        `${module} has no tool "${name}"; its tools are ${toolset.names.join(', ')} (anytool list ${module} shows them)`,
      );
    result = await toolset.invoke(name, toolArgs, new ExecutionContext());
  } finally {
    restore();
  }
  if (result.isError) {
    output.err(`${resultText(result)}\n`);
    return 1;
  }
  if (result.structured !== undefined) output.out(`${JSON.stringify(result.structured, null, 2)}\n`);
  else {
    const text = resultText(result);
    if (text !== '') output.out(`${text}\n`);
  }
  return 0;
}
