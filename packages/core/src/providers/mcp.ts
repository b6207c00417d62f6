import type { ToolDefinition } from '../tool-definition.js';
import type { Lowered, LoweringNote } from './lowering.js';
import { toJsonSchema2020 } from './mcp-dialect.js';

/** A tool as MCP's `tools/list` describes it. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [keyword: string]: unknown };
  outputSchema?: { type: 'object'; [keyword: string]: unknown };
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/**
 * MCP tool definitions: JSON Schema in the 2020-12 dialect MCP assumes (see `toJsonSchema2020`),
 * annotations as MCP's hints.
 */
export function toMcpTools(definitions: readonly ToolDefinition[]): Lowered<McpToolDefinition> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): McpToolDefinition => {
    const tool: McpToolDefinition = { name: d.name, description: d.description, inputSchema: { ...toJsonSchema2020(d.parameters), type: 'object' } };
    if (d.title !== undefined) tool.title = d.title;
    if (d.outputSchema !== undefined) {
      if (d.outputSchema['type'] === 'object') tool.outputSchema = { ...toJsonSchema2020(d.outputSchema), type: 'object' };
      else
        notes.push({
          tool: d.name,
          path: '/outputSchema',
          action: 'dropped',
          detail: 'MCP output schemas must have type "object" at the root; the result is still sent as content',
        });
    }
    const a = d.annotations;
    if (a !== undefined || d.title !== undefined) {
      const hints: NonNullable<McpToolDefinition['annotations']> = {};
      if (d.title !== undefined) hints.title = d.title;
      if (a?.readOnly !== undefined) hints.readOnlyHint = a.readOnly;
      if (a?.destructive !== undefined) hints.destructiveHint = a.destructive;
      if (a?.idempotent !== undefined) hints.idempotentHint = a.idempotent;
      if (a?.openWorld !== undefined) hints.openWorldHint = a.openWorld;
      tool.annotations = hints;
    }
    return tool;
  });
  return { tools, notes };
}
