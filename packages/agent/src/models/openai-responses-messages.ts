import { resultText, type ToolResult } from '@anytool/core';
import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';
import type { AssistantMessage, BuiltinApproval, ModelMessage, UserMessage } from '../model.js';
import { argumentString } from './tool-arguments.js';
import { dataUrl, readUserParts, unsupportedPart } from './user-parts.js';

/** The `format` of the provider items a Responses API turn keeps on its assistant message. */
export const RESPONSES_FORMAT = 'openai-responses';

/**
 * A conversation as Responses API input items. A turn that kept its output items
 * (reasoning, hosted tool calls) is sent back as the API gave it, followed by the
 * user's answers to the hosted MCP calls it held for approval; any other turn is
 * its text and its function calls.
 */
export function toResponsesInput(conversation: readonly ModelMessage[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const message of conversation) {
    if (message.role === 'user') input.push({ role: 'user', content: typeof message.content === 'string' ? message.content : userContent(message.content) });
    else if (message.role === 'assistant') addAssistantTurn(message, input);
    else input.push({ type: 'function_call_output', call_id: message.callId, output: outputText(message.result) });
  }
  return input;
}

function addAssistantTurn(message: AssistantMessage, input: ResponseInputItem[]): void {
  if (message.providerItems?.format === RESPONSES_FORMAT) {
    for (const item of message.providerItems.items) input.push(item as ResponseInputItem);
    for (const answer of message.approvals ?? []) input.push(approvalResponse(answer));
    return;
  }
  if (message.content !== '') input.push({ role: 'assistant', content: message.content });
  for (const call of message.toolCalls ?? [])
    input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: argumentString(call.arguments) });
}

function approvalResponse(answer: BuiltinApproval): ResponseInputItem.McpApprovalResponse {
  const item: ResponseInputItem.McpApprovalResponse = { type: 'mcp_approval_response', approval_request_id: answer.id, approve: answer.approved };
  if (answer.reason !== undefined) item.reason = answer.reason;
  return item;
}

/** A tool result as function_call_output text (images as a note: the output takes text here). */
function outputText(result: ToolResult): string {
  const images = result.content.filter((part) => part.type === 'image').length;
  const lines = [resultText({ ...result, content: result.content.filter((part) => part.type !== 'image') })];
  if (images > 0) lines.push(`(${images} image(s) not shown: function outputs carry text)`);
  return lines.filter((line) => line !== '').join('\n') || (result.isError ? 'error' : '(no output)');
}

/** The image types the Responses API takes. */
const RESPONSES_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** A user's parts as Responses input content: `input_image` (a URL or a data URL), `input_file` (a URL, or the bytes as a data URL). */
function userContent(content: UserMessage['content']): ResponseInputContent[] {
  const adapter = 'OpenAIResponsesModel';
  return readUserParts(content, adapter).map((part): ResponseInputContent => {
    if (part.type === 'text') return { type: 'input_text', text: part.text };
    if (part.type === 'image') {
      if (part.mimeType !== undefined && !RESPONSES_IMAGES.has(part.mimeType))
        throw unsupportedPart(adapter, `an image of type ${part.mimeType} cannot be sent`, 'send a PNG, JPEG, GIF or WebP image');
      return { type: 'input_image', image_url: part.url ?? dataUrl(part), detail: 'auto' };
    }
    if (part.url !== undefined) return { type: 'input_file', file_url: part.url };
    return { type: 'input_file', filename: part.filename ?? 'file', file_data: dataUrl(part) };
  });
}
