import type { Model } from '@anytool/agent';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { GeminiModel } from '../../src/models/gemini.js';
import { OpenAIModel } from '../../src/models/openai.js';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';
import type { Reply } from './provider-server.js';

// Under jest, the Gemini client's own reference to the global fetch fails to connect; the test file's fetch is the same API.
const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);

/** One provider's turns in its documented wire shapes, whole or streamed, and its adapter pointed at a test server. */
export interface ProviderReplies {
  name: 'openai' | 'openai-responses' | 'anthropic' | 'gemini';
  model(url: string): Model;
  /** A turn that calls one tool. */
  toolCall(id: string, name: string, args: Record<string, unknown>, stream: boolean): Reply;
  /** A turn that answers with text. */
  text(text: string, stream: boolean): Reply;
  /** Tokens each turn above reports: input, output. */
  usage: { input: number; output: number };
}

const USAGE = { input: 50, output: 20 };

const openai: ProviderReplies = {
  name: 'openai',
  usage: USAGE,
  model: (url) => new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  toolCall: (id, name, args, stream) =>
    stream
      ? {
          body: null,
          events: [
            chatChunk({ role: 'assistant', tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
            chatChunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }),
            chatChunk({}, 'tool_calls'),
            chatUsage(),
          ],
        }
      : { body: completion({ tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }, 'tool_calls') },
  text: (text, stream) =>
    stream
      ? { body: null, events: [chatChunk({ role: 'assistant', content: text }), chatChunk({}, 'stop'), chatUsage()] }
      : { body: completion({ content: text }, 'stop') },
};

function completion(message: Record<string, unknown>, finishReason: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
    usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
  };
}

function chatChunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

function chatUsage(): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [],
    usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
  };
}

function response(output: unknown[]): Record<string, unknown> {
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1_760_000_000,
    status: 'completed',
    model: 'gpt-test',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: null,
    error: null,
    usage: {
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      total_tokens: USAGE.input + USAGE.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

const responses: ProviderReplies = {
  name: 'openai-responses',
  usage: USAGE,
  model: (url) => new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  toolCall: (id, name, args, stream) => {
    const item = { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: JSON.stringify(args), status: 'completed' };
    if (!stream) return { body: response([item]) };
    return {
      body: null,
      events: numbered([
        { type: 'response.output_item.added', output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } },
        { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: item.arguments },
        { type: 'response.completed', response: response([item]) },
      ]),
    };
  },
  text: (text, stream) => {
    const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    if (!stream) return { body: response([item]) };
    return {
      body: null,
      events: numbered([
        { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text, logprobs: [] },
        { type: 'response.completed', response: response([item]) },
      ]),
    };
  },
};

function numbered(events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return events.map((event, i) => ({ ...event, sequence_number: i }));
}

function message(content: unknown[], stopReason: string | null): Record<string, unknown> {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: USAGE.input, output_tokens: USAGE.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

const anthropic: ProviderReplies = {
  name: 'anthropic',
  usage: USAGE,
  model: (url) => new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  toolCall: (id, name, args, stream) => {
    if (!stream) return { body: message([{ type: 'tool_use', id, name, input: args }], 'tool_use') };
    return {
      body: null,
      events: [
        { type: 'message_start', message: message([], null) },
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name, input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(args) } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: USAGE.output } },
        { type: 'message_stop' },
      ],
    };
  },
  text: (text, stream) => {
    if (!stream) return { body: message([{ type: 'text', text }], 'end_turn') };
    return {
      body: null,
      events: [
        { type: 'message_start', message: message([], null) },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: USAGE.output } },
        { type: 'message_stop' },
      ],
    };
  },
};

function geminiResponse(parts: unknown[]): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output },
    modelVersion: 'gemini-test',
    responseId: 'resp_1',
  };
}

const gemini: ProviderReplies = {
  name: 'gemini',
  usage: USAGE,
  model: (url) => new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: url, fetch, maxRetries: 0 }),
  toolCall: (id, name, args, stream) => {
    const body = geminiResponse([{ functionCall: { id, name, args } }]);
    return stream ? { body: null, events: [body] } : { body };
  },
  text: (text, stream) => {
    const body = geminiResponse([{ text }]);
    return stream ? { body: null, events: [body] } : { body };
  },
};

/** The four adapters over official clients. */
export const PROVIDERS: readonly ProviderReplies[] = [openai, responses, anthropic, gemini];
