import { resultText } from '@anytool/core';
import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { AssistantMessage, ModelMessage, ToolMessage, UserMessage } from '../model.js';
import { argumentString } from './tool-arguments.js';
import { dataUrl, readUserParts, unsupportedPart } from './user-parts.js';

/**
 * A conversation as Chat Completions messages: the instructions as the system
 * message, then each message in order. Tool messages take text only, so the
 * images of a turn's tool results follow its tool messages in one user message,
 * each labelled with its call.
 */
export function toOpenAIMessages(instructions: string | undefined, conversation: readonly ModelMessage[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (instructions !== undefined) messages.push({ role: 'system', content: instructions });
  let images: ChatCompletionContentPart[] = [];
  const flushImages = (): void => {
    if (images.length > 0) messages.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of conversation) {
    if (message.role !== 'tool') flushImages();
    if (message.role === 'user') messages.push({ role: 'user', content: typeof message.content === 'string' ? message.content : userContent(message.content) });
    else if (message.role === 'assistant') messages.push(assistantMessage(message));
    else messages.push(toolMessage(message, images));
  }
  flushImages();
  return messages;
}

function assistantMessage(message: AssistantMessage): ChatCompletionMessageParam {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: message.content };
  return {
    role: 'assistant',
    content: message.content === '' ? null : message.content,
    tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: argumentString(call.arguments) } })),
  };
}

/** A tool result as a tool message; its images are added to `images`, the user message that follows the turn's results. */
function toolMessage(message: ToolMessage, images: ChatCompletionContentPart[]): ChatCompletionToolMessageParam {
  const parts = message.result.content;
  const shown = parts.filter((part) => part.type === 'image');
  const lines = [resultText({ ...message.result, content: parts.filter((part) => part.type !== 'image') })];
  if (shown.length > 0) {
    images.push({ type: 'text', text: `Image(s) returned by tool call ${message.callId} (${message.name}):` });
    for (const image of shown) images.push({ type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
    lines.push(`(${shown.length} image(s): sent in the next user message, labelled with this call id)`);
  }
  const text = lines.filter((line) => line !== '').join('\n');
  return { role: 'tool', tool_call_id: message.callId, content: text || (message.result.isError ? 'error' : '(no output)') };
}

/** The image types Chat Completions takes. */
const CHAT_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** A user's parts as Chat Completions content parts: images as `image_url` (a URL or a data URL), PDFs as `file` with their bytes. */
function userContent(content: UserMessage['content']): ChatCompletionContentPart[] {
  const adapter = 'OpenAIModel (Chat Completions)';
  return readUserParts(content, adapter).map((part): ChatCompletionContentPart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') {
      if (part.mimeType !== undefined && !CHAT_IMAGES.has(part.mimeType))
        throw unsupportedPart(adapter, `an image of type ${part.mimeType} cannot be sent`, 'send a PNG, JPEG, GIF or WebP image');
      return { type: 'image_url', image_url: { url: part.url ?? dataUrl(part) } };
    }
    if (part.url !== undefined)
      throw unsupportedPart(
        adapter,
        `a file by URL (${part.url.slice(0, 100)}) cannot be sent: Chat Completions takes a file's bytes only`,
        'pass its bytes as `data`, or use OpenAIResponsesModel, which takes file URLs',
      );
    if (part.mimeType !== 'application/pdf')
      throw unsupportedPart(
        adapter,
        `a file of type ${part.mimeType} cannot be sent: Chat Completions takes PDF files only`,
        'send a PDF, or its text as a text part',
      );
    return { type: 'file', file: { filename: part.filename ?? 'file.pdf', file_data: dataUrl(part) } };
  });
}
