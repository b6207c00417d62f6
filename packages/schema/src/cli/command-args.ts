import { AnytoolError, ErrorCode } from '@anytool/core';
import { closestName } from '@anytool/core/internal';

/** The options one command takes: flags (`--json`) and options with a value (`--format openai`, `--format=openai`). */
export interface ArgSpec {
  flags?: readonly string[];
  values?: readonly string[];
}

/** A command line split into positionals, flags and option values (every value given, in order). */
export interface ParsedArgs {
  positionals: string[];
  flags: Set<string>;
  values: Map<string, string[]>;
}

/** A usage error: main prints it as one line and exits with 2. */
export function usageError(command: string, problem: string): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidUsage, `${problem}; run anytool ${command} --help for the usage`);
}

/** Parses the arguments after `anytool <command>`. `--` ends the options; a lone `-` is a positional (stdin). */
export function parseArgs(command: string, args: readonly string[], spec: ArgSpec): ParsedArgs {
  const parsed: ParsedArgs = { positionals: [], flags: new Set(), values: new Map() };
  const flags = new Set(spec.flags);
  const values = new Set(spec.values);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      parsed.positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (flags.has(name) && eq < 0) {
      parsed.flags.add(name);
    } else if (values.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      if (value === undefined || value === '') throw usageError(command, `${name} needs a value`);
      parsed.values.set(name, [...(parsed.values.get(name) ?? []), value]);
    } else {
      if (flags.has(name)) throw usageError(command, `${name} takes no value`);
      const near = closestName(name, [...flags, ...values, '--help']);
      throw usageError(command, `unknown option ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}`);
    }
  }
  return parsed;
}
