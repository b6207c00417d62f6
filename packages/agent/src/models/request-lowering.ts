import { AnytoolError, ErrorCode, lowerDefinitions, type JsonSchema, type ToolDefinition } from '@anytool/core';
import type { OutputFormat, ToolChoice } from '../model.js';

/**
 * The parts of a request every adapter lowers the same way: the structured
 * output's schema (through core's lowering of tool parameters, so an output
 * schema meets the same rules a tool's does) and the checks of a tool choice
 * a provider cannot honour.
 */

/** The output schema in OpenAI's strict mode (Chat Completions, Responses, and Anthropic, whose structured output takes the same subset). */
export function strictOutputSchema(output: OutputFormat, strict: boolean): { schema: JsonSchema; strict: boolean } {
  const { tools } = lowerDefinitions('openai', [asDefinition(output)], { strict });
  const lowered = tools[0]!.function;
  return { schema: lowered.parameters, strict: lowered.strict };
}

/** Constraints Anthropic's structured output does not take: told to the model in the description instead (validation still checks them). */
const ANTHROPIC_UNSUPPORTED = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
]);

/**
 * The output schema for Anthropic's structured output (`output_config.format`):
 * the strict lowering (every object closed, as Anthropic requires), with the
 * numeric, length and pattern constraints it does not take moved into the
 * description, as Anthropic's own SDK helpers do.
 */
export function anthropicOutputSchema(output: OutputFormat): JsonSchema {
  return withoutConstraints(strictOutputSchema(output, true).schema) as JsonSchema;
}

function withoutConstraints(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutConstraints);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  const moved: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (ANTHROPIC_UNSUPPORTED.has(key) && (typeof value === 'number' || typeof value === 'string')) moved.push(`${key}: ${JSON.stringify(value)}`);
    // Property names and $defs names are keys, not keywords: only their schemas are walked.
    else if (key === 'properties' || key === '$defs')
      out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, withoutConstraints(v)]));
    else out[key] = withoutConstraints(value);
  }
  if (moved.length > 0) out['description'] = [out['description'], `{${moved.join(', ')}}`].filter((part) => typeof part === 'string').join(' ');
  return out;
}

/** The output schema in the subset Gemini takes (`$ref`s inlined, unsupported keywords left out), for `responseJsonSchema`. */
export function geminiOutputSchema(output: OutputFormat): JsonSchema {
  const { tools } = lowerDefinitions('gemini', [asDefinition(output)]);
  return (tools[0] as { parametersJsonSchema: JsonSchema }).parametersJsonSchema;
}

function asDefinition(output: OutputFormat): ToolDefinition {
  return { name: output.name, description: output.description ?? '', parameters: output.schema };
}

/**
 * A tool choice that makes the model call a tool (`required`, `{ name }`) needs
 * a function tool in the request as the provider receives it: a request whose
 * tools were all left out (another provider's built-ins) cannot honour it.
 */
export function checkToolChoice(adapter: string, choice: ToolChoice | undefined, sentTools: number): void {
  if (choice === undefined || choice === 'auto' || choice === 'none' || sentTools > 0) return;
  throw unsupported(
    adapter,
    `the tool choice ${JSON.stringify(choice)} asks for a tool call, but no tool of this request can be sent to this provider (only other providers' built-in tools were offered)`,
    "offer a tool this provider can call, or use toolChoice 'auto'",
  );
}

/** What an adapter throws for a request its provider cannot carry out: names the adapter, what, and the fix. */
export function unsupported(adapter: string, what: string, fix: string): AnytoolError {
  return new AnytoolError(ErrorCode.UnsupportedByModel, `${adapter}: ${what}; ${fix}`);
}
