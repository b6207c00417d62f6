import { ErrorCode, ExecutionContext, builtin, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent, type Model, type RunResult } from '@anytool/agent';
import { z } from 'zod';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { GeminiModel } from '../../src/models/gemini.js';
import { OpenAIModel } from '../../src/models/openai.js';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';
import { memoryTelemetry } from '../../../core/test/helpers/otel';
import { startProviderServer, type ProviderServer, type Reply } from '../helpers/provider-server.js';

/**
 * Structured output, the run's tool choice, budgets and usage, for each of the
 * four adapters through its official client against a local provider server:
 * what the request carries, and what the run makes of the replies, streamed
 * and not.
 */

const weather = tool(({ city }: { city: string }) => `${city}: 21 celsius`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

const itinerary = {
  type: 'object',
  title: 'itinerary',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, note: { type: 'string' } },
  required: ['city', 'days'],
  additionalProperties: false,
} as const;

/** What differs between the providers: their replies, and where a request says what the tests look for. */
interface Provider {
  name: string;
  model(url: string): Model;
  /** A reply with this final text (tokens: 50 in, 20 out). */
  text(text: string): Reply;
  /** The same, streamed in two deltas. */
  streamed(first: string, second: string): Reply;
  /** A reply calling get_weather for Oslo (tokens: 50 in, 20 out). */
  call(): Reply;
  /** The same, streamed. */
  streamedCall(): Reply;
  /** The structured output format the request carries. */
  format(body: Record<string, unknown>): unknown;
  /** The tool choice the request carries, undefined without one. */
  toolChoice(body: Record<string, unknown>): unknown;
  /** What a text reply's chat span says of the response: its id, model and the provider's finish reason. */
  span: { id: string; model: string; finish: string };
  /** The native form of `required`, `none` and `{ name: 'get_weather' }`. */
  choices: { required: unknown; none: unknown; named: unknown };
}

// Under jest, the Gemini client's own reference to the global fetch fails to connect; the test file's fetch is the same API.
const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);

const chat: Provider = {
  span: { id: 'chatcmpl-1', model: 'gpt-test-2026-01-01', finish: 'stop' },
  name: 'OpenAI Chat Completions',
  model: (url) => new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  text: (text) => ({ body: completion({ content: text }, 'stop') }),
  streamed: (first, second) => ({
    body: null,
    events: [chunk({ role: 'assistant', content: first }), chunk({ content: second }), chunk({}, 'stop'), { ...chunk({}), choices: [], usage: USAGE }],
  }),
  call: () => ({
    body: completion({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls'),
  }),
  streamedCall: () => ({
    body: null,
    events: [
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
      { ...chunk({}), choices: [], usage: USAGE },
    ],
  }),
  format: (body) => body['response_format'],
  toolChoice: (body) => body['tool_choice'],
  choices: { required: 'required', none: 'none', named: { type: 'function', function: { name: 'get_weather' } } },
};
const USAGE = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 };

function completion(message: Record<string, unknown>, finishReason: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-test-2026-01-01',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: finishReason }],
    usage: USAGE,
  };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  const choices = [{ index: 0, delta, logprobs: null, finish_reason: finishReason }];
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'gpt-test-2026-01-01', choices };
}

const responses: Provider = {
  span: { id: 'resp_1', model: 'gpt-test-2026-01-01', finish: 'completed' },
  name: 'OpenAI Responses',
  model: (url) => new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  text: (text) => ({ body: response([outputText(text)]) }),
  streamed: (first, second) => ({
    body: null,
    events: [
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: first, logprobs: [], sequence_number: 0 },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: second, logprobs: [], sequence_number: 1 },
      { type: 'response.completed', response: response([outputText(first + second)]), sequence_number: 2 },
    ],
  }),
  call: () => ({
    body: response([{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' }]),
  }),
  streamedCall: () => {
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' };
    return {
      body: null,
      events: [
        { type: 'response.output_item.added', output_index: 0, item: { ...call, arguments: '', status: 'in_progress' }, sequence_number: 0 },
        { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":"Oslo"}', sequence_number: 1 },
        { type: 'response.completed', response: response([call]), sequence_number: 2 },
      ],
    };
  },
  format: (body) => (body['text'] as { format?: unknown } | undefined)?.format,
  toolChoice: (body) => body['tool_choice'],
  choices: { required: 'required', none: 'none', named: { type: 'function', name: 'get_weather' } },
};

function response(output: unknown[]): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1_760_000_000,
    status: 'completed',
    model: 'gpt-test-2026-01-01',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: null,
    error: null,
    usage: {
      input_tokens: 50,
      output_tokens: 20,
      total_tokens: 70,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function outputText(text: string): Record<string, unknown> {
  return { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

const anthropic: Provider = {
  span: { id: 'msg_1', model: 'claude-test-20260101', finish: 'end_turn' },
  name: 'Anthropic Messages',
  model: (url) => new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: url, maxRetries: 0 }),
  text: (text) => ({ body: message([{ type: 'text', text, citations: null }], 'end_turn') }),
  streamed: (first, second) => ({
    body: null,
    events: [
      { type: 'message_start', message: { ...message([], 'end_turn'), stop_reason: null, usage: { input_tokens: 50, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: first } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: second } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } },
      { type: 'message_stop' },
    ],
  }),
  call: () => ({ body: message([{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }], 'tool_use') }),
  streamedCall: () => ({
    body: null,
    events: [
      { type: 'message_start', message: { ...message([], 'tool_use'), stop_reason: null, usage: { input_tokens: 50, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":"Oslo"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
      { type: 'message_stop' },
    ],
  }),
  format: (body) => (body['output_config'] as { format?: unknown } | undefined)?.format,
  toolChoice: (body) => body['tool_choice'],
  choices: { required: { type: 'any' }, none: { type: 'none' }, named: { type: 'tool', name: 'get_weather' } },
};

function message(content: unknown[], stopReason: string): Record<string, unknown> {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-20260101',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 50, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

const gemini: Provider = {
  span: { id: 'resp_1', model: 'gemini-test-001', finish: 'STOP' },
  name: 'Gemini',
  model: (url) => new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: url, fetch, maxRetries: 0 }),
  text: (text) => ({ body: candidate([{ text }], 'STOP') }),
  streamed: (first, second) => ({ body: null, events: [candidate([{ text: first }]), candidate([{ text: second }], 'STOP')] }),
  call: () => ({ body: candidate([{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } } }], 'STOP') }),
  streamedCall: () => ({ body: null, events: [candidate([{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } } }], 'STOP')] }),
  format: (body) => {
    const config = body['generationConfig'] as Record<string, unknown> | undefined;
    return config === undefined ? undefined : { mime: config['responseMimeType'], schema: config['responseJsonSchema'] };
  },
  toolChoice: (body) => (body['toolConfig'] as { functionCallingConfig?: unknown } | undefined)?.functionCallingConfig,
  choices: { required: { mode: 'ANY' }, none: { mode: 'NONE' }, named: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
};

function candidate(parts: unknown[], finishReason?: string): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason === undefined ? {} : { finishReason }) }],
    usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 },
    modelVersion: 'gemini-test-001',
    responseId: 'resp_1',
  };
}

/** The schema each provider is sent for `itinerary`: strict for OpenAI, closed and without `minimum` for Anthropic, Gemini's subset. */
const STRICT_ITINERARY = {
  type: 'object',
  title: 'itinerary',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, note: { type: ['string', 'null'] } },
  required: ['city', 'days', 'note'],
  additionalProperties: false,
};
const expectedFormat: Record<string, unknown> = {
  [chat.name]: { type: 'json_schema', json_schema: { name: 'itinerary', strict: true, schema: STRICT_ITINERARY } },
  [responses.name]: { type: 'json_schema', name: 'itinerary', strict: true, schema: STRICT_ITINERARY },
  [anthropic.name]: {
    type: 'json_schema',
    schema: { ...STRICT_ITINERARY, properties: { ...STRICT_ITINERARY.properties, days: { type: 'integer', description: '{minimum: 1}' } } },
  },
  [gemini.name]: {
    mime: 'application/json',
    schema: { type: 'object', title: 'itinerary', properties: itinerary.properties, required: ['city', 'days'], additionalProperties: false },
  },
};

async function streamed<T>(agent: Agent<T>, input: string): Promise<{ events: AgentStreamEvent<T>[]; result: RunResult<T> }> {
  const events: AgentStreamEvent<T>[] = [];
  for await (const event of agent.stream(input)) events.push(event);
  const last = events.at(-1)!;
  if (last.type !== 'result') throw new Error(`the stream ended with ${last.type}`);
  return { events, result: last.result };
}

function errorEvents(context: ExecutionContext): Array<{ code: string }> {
  return context.events.filter((e) => e.type === 'error') as Array<{ code: string }>;
}

describe.each([chat, responses, anthropic, gemini])('$name', (provider) => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  describe('structured output', () => {
    it("sends the schema as the provider's structured output and returns the validated answer, a strict null taken as absent", async () => {
      server = await startProviderServer([provider.text('{"city":"Oslo","days":3,"note":null}')]);
      const agent = new Agent({ model: provider.model(server.url), output: itinerary });
      const result = await agent.run('Plan three days in Oslo.');
      expect(result.output).toEqual({ city: 'Oslo', days: 3 });
      expect(result.stopReason).toBe('final_answer');
      expect(provider.format(server.requests[0]!.body)).toEqual(expectedFormat[provider.name]);
    });

    it('gives an answer that does not match one repair turn with the problems, then returns the repaired answer (streamed)', async () => {
      server = await startProviderServer([provider.streamed('{"city":"Oslo",', '"days":"three"}'), provider.streamed('{"city":"Oslo",', '"days":3}')]);
      const agent = new Agent({ model: provider.model(server.url), output: itinerary });
      const { events, result } = await streamed(agent, 'Plan three days in Oslo.');
      expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { text: string }).text)).toEqual([
        '{"city":"Oslo",',
        '"days":"three"}',
        '{"city":"Oslo",',
        '"days":3}',
      ]);
      expect(result).toMatchObject({ output: { city: 'Oslo', days: 3 }, stopReason: 'final_answer', steps: 2 });
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[1]!.body)).toContain('- /days: must be integer');
      expect(provider.format(server.requests[1]!.body)).toEqual(expectedFormat[provider.name]);
    });

    it('fails the run with OUTPUT_INVALID when the repaired answer does not match either', async () => {
      server = await startProviderServer([provider.text('Three days in Oslo!'), provider.text('{"city":"Oslo"}')]);
      const context = new ExecutionContext();
      const agent = new Agent({ model: provider.model(server.url), output: itinerary });
      const failure = agent.run('Plan three days in Oslo.', { context });
      await expect(failure).rejects.toMatchObject({ code: ErrorCode.OutputInvalid, message: expect.stringContaining('- /days: is required') });
      expect(JSON.stringify(server.requests[1]!.body)).toContain('is not JSON');
      expect(errorEvents(context).map((e) => e.code)).toEqual([ErrorCode.OutputInvalid]);
    });

    it('takes a zod schema: its JSON Schema goes to the provider, its parsed value is the output', async () => {
      server = await startProviderServer([provider.text('{"city":"Oslo","days":3}')]);
      const schema = z.object({
        city: z.string(),
        days: z
          .number()
          .int()
          .transform((days) => days * 24),
      });
      const agent = new Agent({ model: provider.model(server.url), output: schema });
      const result = await agent.run('Plan three days in Oslo.');
      const hours: number | undefined = result.output?.days;
      expect(hours).toBe(72);
      expect(JSON.stringify(provider.format(server.requests[0]!.body))).toContain('"city"');
    });

    it('runs tools first, then answers in the schema', async () => {
      server = await startProviderServer([provider.call(), provider.text('{"city":"Oslo","days":1,"note":"21 celsius"}')]);
      const agent = new Agent({ model: provider.model(server.url), tools: [weather], output: itinerary });
      const result = await agent.run('A day in Oslo, with the weather.');
      expect(result.output).toEqual({ city: 'Oslo', days: 1, note: '21 celsius' });
      expect(result.steps).toBe(2);
    });
  });

  describe('tool choice per run', () => {
    it("sends the agent's named choice until the model called a tool, then none; a run's own choice wins", async () => {
      server = await startProviderServer([provider.call(), provider.text('Oslo is 21 celsius.'), provider.text('No tools today.')]);
      const agent = new Agent({ model: provider.model(server.url), tools: [weather], toolChoice: { name: 'get_weather' } });
      expect((await agent.run('Weather in Oslo?')).text).toBe('Oslo is 21 celsius.');
      expect((await agent.run('Just say hi.', { toolChoice: 'none' })).text).toBe('No tools today.');
      expect(server.requests.map((r) => provider.toolChoice(r.body))).toEqual([provider.choices.named, undefined, provider.choices.none]);
    });

    it("streams a run with toolChoice 'required': forced on the first turn, the answer after the call", async () => {
      server = await startProviderServer([provider.streamedCall(), provider.streamed('Oslo is ', '21 celsius.')]);
      const agent = new Agent({ model: provider.model(server.url), tools: [weather], toolChoice: 'required' });
      const { result } = await streamed(agent, 'Weather in Oslo?');
      expect(result.text).toBe('Oslo is 21 celsius.');
      expect(server.requests.map((r) => provider.toolChoice(r.body))).toEqual([provider.choices.required, undefined]);
    });

    it('refuses a choice that forces a call when no tool of the request reaches the provider (UNSUPPORTED_BY_MODEL), sending nothing', async () => {
      server = await startProviderServer([]);
      // Another provider's built-in only: left out of this provider's request, so nothing could be called.
      const other = provider === anthropic ? builtin.gemini.googleSearch() : builtin.anthropic.webSearch();
      const agent = new Agent({ model: provider.model(server.url), tools: [other], toolChoice: 'required' });
      await expect(agent.run('Search.')).rejects.toMatchObject({ code: ErrorCode.UnsupportedByModel, message: expect.stringContaining('no tool') });
      expect(server.requests).toHaveLength(0);
    });
  });

  it("traces each turn with the response id, the model that answered and its finish reason in the provider's words, streamed and not", async () => {
    server = await startProviderServer([provider.text('Hi.'), provider.streamed('H', 'i.')]);
    const otel = memoryTelemetry();
    const agent = new Agent({ model: provider.model(server.url), tracing: otel });
    await agent.run('Hi');
    await streamed(agent, 'Hi');
    const chats = otel.spans().filter((span) => span.name.startsWith('chat'));
    const expected = {
      'gen_ai.response.id': provider.span.id,
      'gen_ai.response.model': provider.span.model,
      'gen_ai.response.finish_reasons': [provider.span.finish],
    };
    expect(chats.map((span) => span.attributes)).toEqual([expect.objectContaining(expected), expect.objectContaining(expected)]);
  });

  describe('budgets and usage', () => {
    it('stops with max_total_tokens once the turns reach it (streamed), usage by model and by turn', async () => {
      server = await startProviderServer([provider.streamedCall(), provider.streamedCall(), provider.text('never sent')]);
      const model = provider.model(server.url);
      const agent = new Agent({ model, tools: [weather], budget: { maxTotalTokens: 100 } });
      const { result } = await streamed(agent, 'Weather in Oslo, twice?');
      expect(result.stopReason).toBe('max_total_tokens');
      expect(result.steps).toBe(2);
      expect(server.requests).toHaveLength(2);
      expect(result.usage).toEqual({ inputTokens: 100, outputTokens: 40, totalTokens: 140 });
      expect(result.usageByModel).toEqual({ [model.name]: result.usage });
      expect(result.turns).toEqual([
        { step: 1, model: model.name, usage: { inputTokens: 50, outputTokens: 20, totalTokens: 70 } },
        { step: 2, model: model.name, usage: { inputTokens: 50, outputTokens: 20, totalTokens: 70 } },
      ]);
      expect(errorEvents(result.context).map((e) => e.code)).toEqual([ErrorCode.BudgetExceeded]);
    });

    it('stops with max_tool_calls after the call that used the budget up', async () => {
      server = await startProviderServer([provider.call(), provider.text('never sent')]);
      const agent = new Agent({ model: provider.model(server.url), tools: [weather], budget: { maxToolCalls: 1 } });
      const result = await agent.run('Weather in Oslo?');
      expect(result).toMatchObject({ stopReason: 'max_tool_calls', steps: 1 });
      expect(result.messages.at(-1)).toMatchObject({ role: 'tool', result: { isError: false } });
    });
  });
});

describe('Gemini: structured output beside tools', () => {
  it.each([
    ['gemini-2.5-flash', {}, 'instructions'],
    ['gemini-3-pro-preview', {}, 'native'],
    ['gemini-2.5-flash', { outputWithTools: 'native' as const }, 'native'],
  ])('%s %j sends the schema %s when tools are offered', async (id, options, how) => {
    const server = await startProviderServer([gemini.call(), gemini.text('{"city":"Oslo","days":1}')]);
    try {
      const model = new GeminiModel({ model: id, apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0, ...options });
      const result = await new Agent({ model, tools: [weather], output: itinerary, instructions: 'Be brief.' }).run('A day in Oslo.');
      expect(result.output).toEqual({ city: 'Oslo', days: 1 });
      const body = server.requests[0]!.body;
      const system = JSON.stringify(body['systemInstruction']);
      if (how === 'native') {
        expect(gemini.format(body)).toEqual(expectedFormat[gemini.name]);
        expect(system).not.toContain('JSON Schema');
      } else {
        // Models before Gemini 3 refuse a JSON response beside tools: the schema is in the instructions.
        expect(gemini.format(body)).toEqual({ mime: undefined, schema: undefined });
        expect(system).toContain('Be brief.');
        expect(system).toContain('matches this JSON Schema');
      }
    } finally {
      await server.close();
    }
  });
});

describe('what a provider cannot honour', () => {
  it('Chat Completions refuses a Responses API built-in with UNSUPPORTED_BY_MODEL (it was silently left out), naming the tool and OpenAIResponsesModel', async () => {
    const server = await startProviderServer([]);
    try {
      const agent = new Agent({ model: chat.model(server.url), tools: [weather, builtin.openai.webSearch()] });
      await expect(agent.run('News?')).rejects.toMatchObject({
        code: ErrorCode.UnsupportedByModel,
        message: expect.stringMatching(/"openai_web_search".*OpenAIResponsesModel/),
      });
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('Anthropic refuses a forced tool call while extended thinking is on; auto still goes', async () => {
    const server = await startProviderServer([anthropic.text('Hi.')]);
    try {
      const params = { thinking: { type: 'enabled' as const, budget_tokens: 1024 } };
      const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0, params });
      const forced = new Agent({ model, tools: [weather], toolChoice: { name: 'get_weather' } });
      await expect(forced.run('Weather?')).rejects.toMatchObject({ code: ErrorCode.UnsupportedByModel, message: expect.stringContaining('extended thinking') });
      expect(server.requests).toHaveLength(0);
      expect((await new Agent({ model, tools: [weather], toolChoice: 'auto' }).run('Hi')).text).toBe('Hi.');
    } finally {
      await server.close();
    }
  });
});
