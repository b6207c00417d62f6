import { AnytoolError, ErrorCode } from '../errors.js';
import type { ToolDefinition } from '../tool-definition.js';
import { toAnthropicTools, type AnthropicTool } from './anthropic.js';
import { toGeminiTools, type GeminiFunctionDeclaration } from './gemini.js';
import type { Lowered } from './lowering.js';
import { toMcpTools, type McpToolDefinition } from './mcp.js';
import { toOpenAIChatTools, toOpenAIResponsesTools, type OpenAIChatTool, type OpenAIFormatOptions, type OpenAIResponsesTool } from './openai.js';

export type { Lowered, LoweringNote } from './lowering.js';

/** The formats `Toolset.definitions` speaks. `openai` is the Chat Completions shape. */
export interface FormatMap {
  openai: { tool: OpenAIChatTool; options: OpenAIFormatOptions };
  'openai-responses': { tool: OpenAIResponsesTool; options: OpenAIFormatOptions };
  anthropic: { tool: AnthropicTool; options: Record<string, never> };
  gemini: { tool: GeminiFunctionDeclaration; options: Record<string, never> };
  mcp: { tool: McpToolDefinition; options: Record<string, never> };
}

export type DefinitionFormat = keyof FormatMap;
export type FormatTool<F extends DefinitionFormat> = FormatMap[F]['tool'];
export type FormatOptions<F extends DefinitionFormat> = FormatMap[F]['options'];

export function lowerDefinitions<F extends DefinitionFormat>(format: F, neutral: readonly ToolDefinition[], options?: FormatOptions<F>): Lowered<FormatTool<F>> {
  // The caller gets its own copy: mutating an emitted definition never changes a tool.
  const definitions = structuredClone(neutral) as ToolDefinition[];
  switch (format) {
    case 'openai':
      return toOpenAIChatTools(definitions, options as OpenAIFormatOptions) as Lowered<FormatTool<F>>;
    case 'openai-responses':
      return toOpenAIResponsesTools(definitions, options as OpenAIFormatOptions) as Lowered<FormatTool<F>>;
    case 'anthropic':
      return toAnthropicTools(definitions) as Lowered<FormatTool<F>>;
    case 'gemini':
      return toGeminiTools(definitions) as Lowered<FormatTool<F>>;
    case 'mcp':
      return toMcpTools(definitions) as Lowered<FormatTool<F>>;
    default:
      throw new AnytoolError(ErrorCode.InvalidOptions, `unknown definition format ${JSON.stringify(format)}; use openai, openai-responses, anthropic, gemini or mcp`);
  }
}
