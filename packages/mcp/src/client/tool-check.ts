import { ErrorCode, isAnytoolError, type JsonSchema } from '@anytool/core';
import { compileValidator, describeError, schemaProblems, type ArgsValidator } from '@anytool/core/internal';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/client';
import { ToolSchema } from '@modelcontextprotocol/core';
import { linearPatterns } from '../shared/linear-patterns.js';

/**
 * Longest tool listing kept, by default: far above real tools, and ajv compiles a schema this
 * large (dense, nested objects) in about a second of CPU.
 */
export const DEFAULT_MAX_TOOL_BYTES = 262_144;
/** Deepest nesting of objects and arrays in a tool listing kept, by default (the validator runs out of stack near 900). */
export const DEFAULT_MAX_TOOL_DEPTH = 100;

/** How long schema checks run before they let the event loop turn. */
const YIELD_AFTER_MS = 20;

/** What a tool's listing may take; past either limit the tool is left out. */
export interface ToolLimits {
  maxToolBytes: number;
  maxToolDepth: number;
}

/** A tool's name for a message: quoted and cut to 64 characters, or its place in the list when it has none. */
export function toolLabel(name: unknown, index = 0): string {
  if (typeof name !== 'string') return `number ${index + 1} in the list`;
  return name.length <= 64 ? `"${name}"` : `"${name.slice(0, 64)}…" (${name.length} characters)`;
}

/**
 * The tools of a server's `tools/list` that can be used, and a message for each
 * one left out. Every tool is checked on its own, so one the SDK's schema
 * refuses, one too large or too deeply nested to handle, or a second tool of
 * the same name never keeps out the others. The size and depth are measured
 * first, with a walk that stops at the limits, so a hostile listing costs
 * no more than the limits allow.
 */
export function checkTools(
  server: string,
  listed: readonly unknown[],
  limits: ToolLimits,
  names = new Set<string>(),
): { tools: McpToolInfo[]; problems: string[]; bytes: number } {
  const tools: McpToolInfo[] = [];
  const problems: string[] = [];
  const size = { bytes: 0 };
  listed.forEach((raw, index) => {
    const checked = checkTool(raw, limits, names, size);
    if (typeof checked !== 'string') {
      names.add(checked.name);
      tools.push(checked);
      return;
    }
    const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    problems.push(`MCP server "${server}": tool ${toolLabel(name, index)} was left out: ${checked}`);
  });
  return { tools, problems, bytes: size.bytes };
}

/** The tool as the SDK parses it, or what is wrong with it. */
function checkTool(raw: unknown, limits: ToolLimits, names: ReadonlySet<string>, size: { bytes: number }): McpToolInfo | string {
  const tooLarge = sizeProblem(raw, limits, size);
  if (tooLarge !== undefined) return tooLarge;
  const parsed = ToolSchema.safeParse(raw);
  if (!parsed.success) return shapeProblem(parsed.error.issues);
  if (names.has(parsed.data.name)) return 'the server lists another tool of the same name before it';
  return parsed.data as McpToolInfo;
}

/**
 * Whether the tool's JSON is over `maxToolBytes` (escapes and non-ASCII characters count as one byte) or nests deeper
 * than `maxToolDepth`; the bytes measured, up to where the walk stopped, are added to `size` (the listing's total).
 */
function sizeProblem(raw: unknown, { maxToolBytes, maxToolDepth }: ToolLimits, size: { bytes: number }): string | undefined {
  const tooLarge = `its JSON is over ${maxToolBytes} bytes (the maxToolBytes option); fix the tool on the server, or raise the limit`;
  const pending: Array<[unknown, number]> = [[raw, 1]];
  let bytes = 0;
  let problem: string | undefined;
  while (pending.length > 0 && problem === undefined) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value !== 'object' || value === null) bytes += String(value).length;
    else if (depth > maxToolDepth)
      problem = `its JSON nests more than ${maxToolDepth} levels deep (the maxToolDepth option); fix the tool on the server, or raise the limit`;
    else {
      const keys = Object.keys(value);
      // Brackets and commas; each key of an object also costs its quotes and colon.
      bytes += 1 + Math.max(keys.length, 1);
      for (const key of keys) {
        if (!Array.isArray(value)) bytes += key.length + 3;
        if (bytes > maxToolBytes) break;
        pending.push([ownValue(value, key), depth + 1]);
      }
    }
    if (bytes > maxToolBytes) problem = tooLarge;
  }
  size.bytes += bytes;
  return problem;
}

/** `value[key]`, except that an own "__proto__" key (which JSON.parse makes) gives the value it holds. */
function ownValue(value: object, key: string): unknown {
  return key === '__proto__' ? Object.getOwnPropertyDescriptor(value, key)?.value : (value as Record<string, unknown>)[key];
}

/** What the SDK's own schema of a tool refuses, in a line rather than its dump. */
function shapeProblem(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>): string {
  const parts = [
    issues
      .slice(0, 3)
      .map(({ path, message }) => `${path.length === 0 ? '(the tool)' : path.map(String).join('.')}: ${message}`)
      .join('; '),
  ];
  if (issues.length > 3) parts.push(`and ${issues.length - 3} more`);
  const text = parts.join(' ');
  return `it does not have the shape MCP gives a tool (${text.length > 300 ? `${text.slice(0, 300)}…` : text}); fix the tool on the server`;
}

/**
 * The tools whose schemas work, with their argument validators, and a message for each one left
 * out: its input or output schema is not JSON Schema of a dialect anytool validates, or its input
 * schema does not compile (a `$ref` to nothing, a `pattern` that is not a regular expression...).
 * A schema that nothing can keep from compiling (see `compilesSurely`) is only checked against
 * its meta-schema here, and compiled on first use (`compileChecked`): compiling is most of the
 * client's own work at connect. `checkedBefore` says whether a tool passed before. Compiling a
 * large schema takes a while, so this yields to the event loop between tools: a list of many
 * never blocks it for longer than one tool.
 */
export async function checkSchemas(
  server: string,
  tools: readonly McpToolInfo[],
  checkedBefore: (info: McpToolInfo) => boolean,
): Promise<{ tools: McpToolInfo[]; validators: Map<McpToolInfo, ArgsValidator | undefined>; problems: string[] }> {
  const kept: McpToolInfo[] = [];
  // A tool's validator, or undefined: it compiles on first use.
  const validators = new Map<McpToolInfo, ArgsValidator | undefined>();
  const problems: string[] = [];
  let slice = performance.now();
  for (const info of tools) {
    if (checkedBefore(info)) {
      kept.push(info);
      continue;
    }
    if (performance.now() - slice > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    const checked = schemaCheck(info, `tool ${toolLabel(info.name)} of MCP server "${server}"`);
    if (typeof checked === 'string') {
      problems.push(`MCP server "${server}": tool ${toolLabel(info.name)} was left out: ${checked}`);
      continue;
    }
    validators.set(info, checked === DEFERRED ? undefined : checked);
    kept.push(info);
  }
  return { tools: kept, validators, problems };
}

/**
 * The argument validator of a tool `checkSchemas` kept without compiling it; undefined in the
 * unforeseen case that it does not compile after all (the tool then compiles it itself, and
 * fails with that error where it is added).
 */
export function compileChecked(info: McpToolInfo, server: string): ArgsValidator | undefined {
  try {
    return compileValidator(info.inputSchema, `tool ${toolLabel(info.name)} of MCP server "${server}"`, linearPatterns);
  } catch {
    return undefined;
  }
}

/**
 * Keywords whose compiled form ajv builds from any value the meta-schema allows: a schema that
 * uses only these (and `x-` annotations) compiles. Anything else (`$ref` and the other `$`
 * keywords, `pattern`, `patternProperties`, `format`, `id`, an empty `enum`, a keyword of
 * another dialect) may not, and is compiled when the tool is listed, to be left out if it fails.
 */
const SURE_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'default',
  'examples',
  'const',
  'enum',
  'required',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
  'properties',
  'additionalProperties',
  'items',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
]);
/** Nesting of subschemas kept well below where ajv's compiler runs out of stack (near 900). */
const SURE_DEPTH = 100;

/** Whether ajv surely compiles `schema` (one that passed its meta-schema): see `SURE_KEYWORDS`. */
export function compilesSurely(schema: unknown): boolean {
  const pending: Array<[unknown, number]> = [[schema, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (typeof node === 'boolean') continue;
    if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > SURE_DEPTH) return false;
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === '$schema' && depth === 1) continue;
      if (keyword.startsWith('x-')) continue;
      if (!SURE_KEYWORDS.has(keyword)) return false;
      if (keyword === 'enum' && (!Array.isArray(value) || value.length === 0)) return false;
      if (keyword === 'properties') {
        if (typeof value !== 'object' || value === null) return false;
        for (const sub of Object.values(value)) pending.push([sub, depth + 1]);
      } else if (keyword === 'allOf' || keyword === 'anyOf' || keyword === 'oneOf' || (keyword === 'items' && Array.isArray(value))) {
        if (!Array.isArray(value)) return false;
        for (const sub of value) pending.push([sub, depth + 1]);
      } else if (keyword === 'additionalProperties' || keyword === 'items' || keyword === 'not') pending.push([value, depth + 1]);
    }
  }
  return true;
}

/** What `schemaCheck` gives for a tool whose schemas surely compile: it is compiled on first use. */
const DEFERRED = Symbol('compiled on first use');

/** The tool's compiled argument validator (`DEFERRED` when its schemas surely compile), or what is wrong with them. */
function schemaCheck(info: McpToolInfo, owner: string): ArgsValidator | typeof DEFERRED | string {
  try {
    const input = schemaProblems(info.inputSchema, owner);
    if (input !== undefined) return `its input schema is not valid JSON Schema (${input})`;
    const output = info.outputSchema === undefined ? undefined : schemaProblems(info.outputSchema, owner);
    if (output !== undefined) return `its output schema is not valid JSON Schema (${output})`;
    if (compilesSurely(info.inputSchema) && (info.outputSchema === undefined || compilesSurely(info.outputSchema))) return DEFERRED;
    // The server's patterns run on a linear-time engine: JavaScript's backtracks, and could freeze this process.
    const validator = compileValidator(info.inputSchema, owner, linearPatterns);
    if (info.outputSchema !== undefined) outputPatternCheck(info.outputSchema, owner);
    return validator;
  } catch (error) {
    // Core's messages start with the owner, which the caller's message names already.
    const text = describeError(error);
    return text.startsWith(`${owner}: `) ? text.slice(owner.length + 2) : text;
  }
}

/**
 * Throws for an output schema with a pattern the linear-time engine cannot run. Results are
 * checked against the output schema later, and one that does not compile for another reason
 * lets them pass unchecked, as before; this one would too, so the tool is left out now.
 */
function outputPatternCheck(schema: JsonSchema, owner: string): void {
  try {
    compileValidator(schema, owner, linearPatterns);
  } catch (error) {
    if (isAnytoolError(error) && error.code === ErrorCode.UnsupportedPattern) throw error;
  }
}
