import { ErrorCode, errorResult, type ContentPart, type ToolResult } from '@anytool/core';
import { type ArgsValidator } from '@anytool/core/internal';
import type { CallToolResult } from '@modelcontextprotocol/client';

type McpContent = CallToolResult['content'][number];

function mapPart(part: McpContent): ContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image', data: part.data, mimeType: part.mimeType };
    case 'audio':
      return { type: 'audio', data: part.data, mimeType: part.mimeType };
    case 'resource_link': {
      const link: ContentPart = { type: 'resource_link', uri: part.uri, name: part.name };
      if (part.title !== undefined) link.title = part.title;
      if (part.description !== undefined) link.description = part.description;
      if (part.mimeType !== undefined) link.mimeType = part.mimeType;
      return link;
    }
    case 'resource': {
      const resource = part.resource;
      const out: ContentPart = { type: 'resource', uri: resource.uri };
      if (resource.mimeType !== undefined) out.mimeType = resource.mimeType;
      if ('text' in resource && typeof resource.text === 'string') out.text = resource.text;
      if ('blob' in resource && typeof resource.blob === 'string') out.blob = resource.blob;
      return out;
    }
    default:
      // A content kind newer than this client: keep it readable rather than dropping it.
      return { type: 'text', text: JSON.stringify(part) };
  }
}

/** Where a result came from, for messages. */
export interface ResultOrigin {
  server: string;
  tool: string;
  outputValidator: ArgsValidator | undefined;
}

/**
 * Turns an MCP `tools/call` result into a `ToolResult`: every content kind,
 * `structuredContent` checked against the tool's output schema, and `isError`
 * results as error results that carry the server's own text.
 */
export function mapCallResult(result: CallToolResult, origin: ResultOrigin): ToolResult {
  const raw = result.content ?? [];
  const content: ContentPart[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) content[i] = mapPart(raw[i]!);
  const structured = result.structuredContent;
  if (result.isError === true) {
    if (content.length === 0) content.push({ type: 'text', text: `Tool "${origin.tool}" failed on MCP server "${origin.server}" and gave no reason.` });
    const text = content
      .map((p) => (p.type === 'text' ? p.text : ''))
      .filter((t) => t !== '')
      .join('\n');
    const out: ToolResult = {
      content,
      isError: true,
      error: { code: ErrorCode.ToolFailed, message: `MCP server "${origin.server}", tool "${origin.tool}" returned an error: ${text}` },
    };
    if (structured !== undefined) out.structured = structured;
    return out;
  }
  const validator = origin.outputValidator;
  if (validator !== undefined) {
    if (structured === undefined) {
      return errorResult(
        ErrorCode.McpInvalidResult,
        `Tool "${origin.tool}" returned no structured content although it declares an output schema.`,
        `MCP server "${origin.server}", tool "${origin.tool}": the result has no structuredContent but the tool declares an outputSchema; the server breaks the MCP tools contract`,
      );
    }
    if (!validator(structured)) {
      const problems = validator
        .problems()
        .map((p) => `${p.path || '/'}: ${p.message}`)
        .join('; ');
      return errorResult(
        ErrorCode.McpInvalidResult,
        `Tool "${origin.tool}" returned structured content that does not match its output schema (${problems}).`,
        `MCP server "${origin.server}", tool "${origin.tool}": structuredContent does not match the declared outputSchema (${problems})`,
      );
    }
  }
  const out: ToolResult = { content, isError: false };
  if (structured !== undefined) {
    out.structured = structured;
    // Models read text: give them the data when the server sent only the structure.
    if (content.length === 0) content.push({ type: 'text', text: JSON.stringify(structured) });
  }
  // Of exactly the ToolResult shape, so it passes through as a result wherever it goes (no marking needed).
  return out;
}
