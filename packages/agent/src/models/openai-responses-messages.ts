import { resultText, type ToolResult } from '@anytool/core';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { AssistantMessage, BuiltinApproval, ModelMessage } from '../model.js';
import { argumentString } from './tool-arguments.js';

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
    if (message.role === 'user') input.push({ role: 'user', content: message.content });
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
