import type { ToolDefinition } from '../tool-definition.js';
import { SILENT_KEYWORDS, type Lowered, type LoweringNote } from './lowering.js';

/** A tool in the Messages API's shape. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; [keyword: string]: unknown };
  /** Set on a deferred tool: Anthropic loads it when its tool search finds it. */
  defer_loading?: boolean;
  /** Examples of arguments (the definition's `examples`). */
  input_examples?: Record<string, unknown>[];
}

/** Anthropic's tool-search tool, sent when some tools are deferred (`Toolset.defer`). */
export type AnthropicToolSearchTool =
  | { type: 'tool_search_tool_bm25_20251119'; name: 'tool_search_tool_bm25'; [setting: string]: unknown }
  | { type: 'tool_search_tool_regex_20251119'; name: 'tool_search_tool_regex'; [setting: string]: unknown };

export interface AnthropicFormatOptions {
  /**
   * Which of Anthropic's tool searches finds deferred tools: `bm25` (natural-language
   * queries; the default) or `regex` (the model writes regular expressions).
   */
  toolSearch?: 'bm25' | 'regex';
}

/** The declaration of Anthropic's tool-search tool of that kind. */
export function anthropicToolSearchTool(kind: 'bm25' | 'regex' = 'bm25'): AnthropicToolSearchTool {
  return kind === 'regex'
    ? { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }
    : { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' };
}

/** One of Anthropic's own tools (`web_search_20250305`, `bash_20250124`...), in the Messages API's shape. */
export type AnthropicBuiltinTool =
  | { type: 'web_search_20250305'; name: 'web_search'; [setting: string]: unknown }
  | { type: 'web_fetch_20250910'; name: 'web_fetch'; [setting: string]: unknown }
  | { type: 'code_execution_20250825'; name: 'code_execution'; [setting: string]: unknown }
  | { type: 'bash_20250124'; name: 'bash'; [setting: string]: unknown }
  | { type: 'text_editor_20250728'; name: 'str_replace_based_edit_tool'; [setting: string]: unknown }
  | { type: 'memory_20250818'; name: 'memory'; [setting: string]: unknown };

/** Messages API tools. Anthropic takes JSON Schema as it is; only `$schema`-like bookkeeping is left out. */
export function toAnthropicTools(definitions: readonly ToolDefinition[]): Lowered<AnthropicTool> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): AnthropicTool => {
    const schema: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(d.parameters)) if (!SILENT_KEYWORDS.has(key)) schema[key] = value;
    const tool: AnthropicTool = { name: d.name, description: d.description, input_schema: { ...schema, type: 'object' } };
    if (d.examples !== undefined && d.examples.length > 0) tool.input_examples = d.examples;
    return tool;
  });
  return { tools, notes };
}
