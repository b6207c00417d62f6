import { resultText, type ToolResult } from '@anytool/core';
import type { Anthropic } from '@anthropic-ai/sdk';
import type { AssistantMessage, ModelMessage, UserMessage } from '../model.js';
import { argumentsObject } from './tool-arguments.js';
import { readUserParts, unsupportedPart } from './user-parts.js';

/** The `format` of the provider items a Messages API turn keeps on its assistant message. */
export const ANTHROPIC_FORMAT = 'anthropic';

type ContentBlockParam = Anthropic.ContentBlockParam;
type ToolResultContent = Exclude<Anthropic.ToolResultBlockParam['content'], string | undefined>;

/**
 * A conversation as Messages API messages. The tool results of one turn go back
 * in one user message, as the API requires; a turn that kept its blocks (server
 * tool calls and their results, thinking) is sent back as the API gave it.
 */
export function toAnthropicMessages(conversation: readonly ModelMessage[]): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [];
  let pendingResults: ContentBlockParam[] | undefined;
  // Calls a program made in Anthropic's code execution: their results go to the program, as data.
  const programCalls = new Set<string>();
  for (const message of conversation) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) if (call.caller !== undefined) programCalls.add(call.id);
  }
  for (const message of conversation) {
    if (message.role === 'tool') {
      const content = programCalls.has(message.callId) ? toProgramContent(message.result) : toResultContent(message.result);
      const block: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: message.callId, content };
      if (message.result.isError) block.is_error = true;
      if (pendingResults === undefined) {
        pendingResults = [block];
        messages.push({ role: 'user', content: pendingResults });
      } else {
        pendingResults.push(block);
      }
      continue;
    }
    pendingResults = undefined;
    if (message.role === 'user') {
      messages.push({ role: 'user', content: typeof message.content === 'string' ? message.content : userContent(message.content) });
    } else if (message.providerItems?.format === ANTHROPIC_FORMAT) {
      messages.push({ role: 'assistant', content: message.providerItems.items as ContentBlockParam[] });
    } else {
      const content = assistantContent(message);
      // The API rejects an empty assistant message: an empty final answer is left out.
      if (content.length > 0) messages.push({ role: 'assistant', content });
    }
  }
  return messages;
}

/** A turn in neutral terms as blocks: its text, then its tool calls. */
function assistantContent(message: AssistantMessage): ContentBlockParam[] {
  const content: ContentBlockParam[] = [];
  if (message.content !== '') content.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.arguments) });
  return content;
}

/** A tool result as tool_result content: its images as image blocks (the types the API takes), the rest as text. */
function toResultContent(result: ToolResult): ToolResultContent {
  const blocks: ToolResultContent = [];
  for (const part of result.content) {
    if (part.type === 'image' && ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].includes(part.mimeType)) {
      blocks.push({ type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.data } });
    } else {
      const text = resultText({ content: [part], isError: false });
      if (text !== '') blocks.push({ type: 'text', text });
    }
  }
  if (blocks.length === 0) blocks.push({ type: 'text', text: result.isError ? 'error' : '(no output)' });
  return blocks;
}

/**
 * A result for a program in Anthropic's code execution: the structured value as JSON
 * when the tool gave one (what its declared output type describes, whatever text came
 * with it), as the portable runner gives a program; else the result as the model reads it.
 */
function toProgramContent(result: ToolResult): ToolResultContent {
  if (result.isError || result.structured === undefined) return toResultContent(result);
  return [{ type: 'text', text: JSON.stringify(result.structured) }];
}

/** The code execution container of the latest assistant turn that had one: its files stay for the next calls. */
export function lastContainer(conversation: readonly ModelMessage[]): string | undefined {
  for (let i = conversation.length - 1; i >= 0; i--) {
    const message = conversation[i]!;
    if (message.role !== 'assistant' || message.providerItems?.format !== ANTHROPIC_FORMAT) continue;
    const container = message.providerItems.state?.['container'];
    if (typeof container === 'string') return container;
  }
  return undefined;
}

/** The image types the Messages API takes. */
const ANTHROPIC_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A user's parts as Messages API blocks: images as `image`, PDFs and plain text files as `document`, each by bytes (base64) or URL. */
function userContent(content: UserMessage['content']): ContentBlockParam[] {
  const adapter = 'AnthropicModel';
  return readUserParts(content, adapter).map((part): ContentBlockParam => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') {
      if (part.url !== undefined) return { type: 'image', source: { type: 'url', url: part.url } };
      if (!ANTHROPIC_IMAGES.has(part.mimeType!))
        throw unsupportedPart(adapter, `an image of type ${part.mimeType} cannot be sent`, 'send a JPEG, PNG, GIF or WebP image');
      return { type: 'image', source: { type: 'base64', media_type: part.mimeType as 'image/png', data: part.base64! } };
    }
    const document: Anthropic.DocumentBlockParam | undefined =
      part.mimeType === 'application/pdf'
        ? {
            type: 'document',
            source: part.url !== undefined ? { type: 'url', url: part.url } : { type: 'base64', media_type: 'application/pdf', data: part.base64! },
          }
        : part.mimeType === 'text/plain' && part.base64 !== undefined
          ? { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(part.base64, 'base64').toString('utf8') } }
          : undefined;
    if (document === undefined)
      throw unsupportedPart(
        adapter,
        `a file of type ${part.mimeType}${part.url === undefined ? '' : ' by URL'} cannot be sent: the Messages API takes PDFs (bytes or URL) and plain text (bytes)`,
        'send a PDF, or its text as a text part',
      );
    if (part.filename !== undefined) document.title = part.filename;
    return document;
  });
}
