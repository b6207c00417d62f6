import { resultText, type ToolResult } from '@anytool/core';
import type { Content, Part } from '@google/genai';
import type { AssistantMessage, ModelMessage, UserMessage } from '../model.js';
import { argumentsObject } from './tool-arguments.js';
import { readUserParts, unsupportedPart } from './user-parts.js';

/** The `format` of the provider items a Gemini turn keeps on its assistant message. */
export const GEMINI_FORMAT = 'gemini';

/**
 * A conversation as Gemini contents. The function responses of one turn go back
 * in one user content; a turn that kept its parts (thought signatures, code it
 * ran, function calls) is sent back as Gemini gave it.
 */
export function toGeminiContents(conversation: readonly ModelMessage[]): Content[] {
  const contents: Content[] = [];
  let results: Part[] | undefined;
  for (const message of conversation) {
    if (message.role === 'tool') {
      const part: Part = { functionResponse: { id: message.callId, name: message.name, response: responseOf(message.result) } };
      if (results === undefined) {
        results = [part];
        contents.push({ role: 'user', parts: results });
      } else {
        results.push(part);
      }
      continue;
    }
    results = undefined;
    if (message.role === 'user') {
      contents.push({ role: 'user', parts: userParts(message.content) });
    } else if (message.providerItems?.format === GEMINI_FORMAT) {
      contents.push({ role: 'model', parts: message.providerItems.items as Part[] });
    } else {
      const parts = modelParts(message);
      if (parts.length > 0) contents.push({ role: 'model', parts });
    }
  }
  return contents;
}

/** A turn in neutral terms as parts: its text, then its function calls. */
function modelParts(message: AssistantMessage): Part[] {
  const parts: Part[] = [];
  if (message.content !== '') parts.push({ text: message.content });
  for (const call of message.toolCalls ?? []) parts.push({ functionCall: { id: call.id, name: call.name, args: argumentsObject(call.arguments) } });
  return parts;
}

/** A function response as the API documents it: `output` for a result, `error` for a failure. */
function responseOf(result: ToolResult): Record<string, unknown> {
  const text = resultText(result) || (result.isError ? 'error' : '(no output)');
  return result.isError ? { error: text } : { output: text };
}

/** A user's parts as Gemini parts: bytes as `inlineData`, a URL as `fileData` (which needs the part's MIME type). */
function userParts(content: UserMessage['content']): Part[] {
  const adapter = 'GeminiModel';
  return readUserParts(content, adapter).map((part): Part => {
    if (part.type === 'text') return { text: part.text };
    if (part.url !== undefined) {
      if (part.mimeType === undefined)
        throw unsupportedPart(
          adapter,
          `an image by URL (${part.url.slice(0, 100)}) cannot be sent without its type: Gemini's fileData needs a MIME type`,
          "give the part's `mimeType`, or its bytes as `data`",
        );
      return { fileData: { fileUri: part.url, mimeType: part.mimeType } };
    }
    return { inlineData: { mimeType: part.mimeType!, data: part.base64! } };
  });
}
