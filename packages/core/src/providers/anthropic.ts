import type { ToolDefinition } from '../tool-definition.js';
import { SILENT_KEYWORDS, type Lowered, type LoweringNote } from './lowering.js';

/** A tool in the Messages API's shape. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
}

/** Messages API tools. Anthropic takes JSON Schema as it is; only `$schema`-like bookkeeping is left out. */
export function toAnthropicTools(definitions: readonly ToolDefinition[]): Lowered<AnthropicTool> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): AnthropicTool => {
    const schema: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(d.parameters)) if (!SILENT_KEYWORDS.has(key)) schema[key] = value;
    return { name: d.name, description: d.description, input_schema: { ...schema, type: 'object' } };
  });
  return { tools, notes };
}
