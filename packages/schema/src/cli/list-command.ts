import { closestName } from '@anytool/core/internal';
import { lowerDefinitions, type DefinitionFormat, type ToolDefinition } from '@anytool/core';
import type { CommandOutput } from './build-command.js';
import { parseArgs, usageError } from './command-args.js';
import { loadToolset, redirectStdout } from './tool-module.js';

const FORMATS: ReadonlyArray<DefinitionFormat | 'neutral'> = ['neutral', 'openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

/**
 * `anytool list <module> [--format <format>] [--export <name>]`: prints a
 * module's tools, as a table of names and descriptions or, with `--format`
 * (`--json` is `--format neutral`), as definitions in that format. Returns the
 * exit code; usage errors are thrown.
 */
export async function listCommand(args: readonly string[], output: CommandOutput): Promise<number> {
  const parsed = parseArgs('list', args, { flags: ['--json'], values: ['--format', '--export'] });
  if (parsed.positionals.length !== 1) {
    throw usageError(
      'list',
      parsed.positionals.length === 0 ? 'name the module: anytool list <module.js>' : `list one module at a time, got ${parsed.positionals.join(', ')}`,
    );
  }
  const formats = [...(parsed.values.get('--format') ?? []), ...(parsed.flags.has('--json') ? ['neutral'] : [])];
  const format = formats[0];
  if (format !== undefined && !FORMATS.includes(format as DefinitionFormat)) {
    const near = closestName(format, FORMATS);
    throw usageError('list', `unknown format "${format}"; ${near === undefined ? '' : `did you mean ${near}? `}use one of ${FORMATS.join(', ')}`);
  }
  if (new Set(formats).size > 1) throw usageError('list', `give one format, got ${formats.join(' and ')}`);
  const module = parsed.positionals[0]!;
  const restore = redirectStdout();
  let definitions: ToolDefinition[];
  try {
    definitions = (await loadToolset(module, parsed.values.get('--export'))).neutralDefinitions();
  } finally {
    restore();
  }
  if (format === undefined) output.out(table(definitions));
  else if (format === 'neutral') output.out(`${JSON.stringify(definitions, null, 2)}\n`);
  else {
    const lowered = lowerDefinitions(format as DefinitionFormat, definitions);
    output.out(`${JSON.stringify(lowered.tools, null, 2)}\n`);
    for (const note of lowered.notes) output.err(`anytool list: ${format}: ${note.tool} ${note.path || '/'}: ${note.action}, ${note.detail}\n`);
  }
  return 0;
}

/** Names and the first line of each description, in two columns. */
function table(definitions: readonly ToolDefinition[]): string {
  const rows = definitions.map((d) => {
    const lines = (d.description ?? '').trim().split('\n');
    return [d.name, lines.length > 1 ? `${lines[0]!.trim()} …` : lines[0]!.trim()] as const;
  });
  const width = Math.max('NAME'.length, ...rows.map(([name]) => name.length));
  return [['NAME', 'DESCRIPTION'] as const, ...rows].map(([name, description]) => `${name.padEnd(width)}  ${description}`.trimEnd()).join('\n') + '\n';
}
