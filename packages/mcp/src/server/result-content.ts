import type { ContentPart, ToolResult } from '@anytool/core';
import { isRecord } from '@anytool/core/internal';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';

/** One anytool content part as an MCP content block. */
export function toContentBlock(part: ContentPart): ContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mimeType };
    case 'audio':
      return { type: 'audio', data: part.data, mimeType: part.mimeType };
    case 'resource': {
      const base = part.mimeType === undefined ? { uri: part.uri } : { uri: part.uri, mimeType: part.mimeType };
      // MCP needs text or blob on an embedded resource; a part with neither is an empty text resource.
      const resource = part.blob !== undefined && part.text === undefined ? { ...base, blob: part.blob } : { ...base, text: part.text ?? '' };
      return { type: 'resource', resource };
    }
    case 'resource_link': {
      const link: ContentBlock & { type: 'resource_link' } = { type: 'resource_link', uri: part.uri, name: part.name };
      if (part.title !== undefined) link.title = part.title;
      if (part.description !== undefined) link.description = part.description;
      if (part.mimeType !== undefined) link.mimeType = part.mimeType;
      return link;
    }
    default: {
      const unknown: never = part;
      return { type: 'text', text: JSON.stringify(unknown) };
    }
  }
}

/**
 * A `ToolResult` as MCP's `tools/call` result: every content part, `isError`,
 * and `structuredContent` when the structured value is an object (MCP only
 * carries objects there). Error results carry no structured content, so a
 * client does not validate them against the tool's output schema.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const out: CallToolResult = { content: result.content.map(toContentBlock) };
  if (result.isError) out.isError = true;
  else if (isRecord(result.structured)) out.structuredContent = result.structured;
  return out;
}
