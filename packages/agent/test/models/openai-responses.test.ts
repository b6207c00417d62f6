import { ErrorCode, Toolset, builtin, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import { McpToolset, serveMcp } from '@anytool/mcp';
import type OpenAI from 'openai';
import { OpenAI as OpenAIClient } from 'openai';
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';
import { expectedSdkMajor, startProviderServer, userAgentMajor, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city }: { city: string }) => `${city}: 21 celsius`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});
const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});

/** A Responses API response, in the documented shape. */
function response(
  output: ResponseOutputItem[],
  usage = { input_tokens: 50, output_tokens: 20, total_tokens: 70 },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
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
    usage: { ...usage, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 5 } },
    ...extra,
  };
}

function message(text: string): ResponseOutputItem {
  return { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

const reasoning = {
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: 'Look it up, then call the tools.' }],
  encrypted_content: 'opaque-state',
} satisfies ResponseOutputItem;
const webSearch = {
  type: 'web_search_call',
  id: 'ws_1',
  status: 'completed',
  action: { type: 'search', query: 'Oslo events today' },
} satisfies ResponseOutputItem;

describe('OpenAIResponsesModel (Responses API through the official client)', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('runs a hosted web search, a local tool and an MCP tool in one run, and keeps reasoning items across turns', async () => {
    const mcpServer = await serveMcp(new Toolset(add), { transport: 'http', port: 0 });
    const mcp = await McpToolset.connect({ mcpServers: { math: { url: mcpServer.url! } } }, { trusted: true });
    try {
      const [mcpName] = new Toolset(mcp).names;
      server = await startProviderServer([
        {
          body: response([
            reasoning,
            webSearch,
            { type: 'function_call', id: 'fc_1', call_id: 'call_weather', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' },
            { type: 'function_call', id: 'fc_2', call_id: 'call_add', name: mcpName!, arguments: '{"a":2,"b":3}', status: 'completed' },
          ]),
        },
        { body: response([message('Oslo: 21 celsius, a concert tonight; 2 + 3 = 5.')], { input_tokens: 90, output_tokens: 10, total_tokens: 100 }) },
      ]);
      const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const agent = new Agent({ model, tools: [weather, mcp, builtin.openai.webSearch(), builtin.anthropic.webFetch()], instructions: 'Be brief.' });
      const result = await agent.run('Weather and events in Oslo, and 2 + 3?');

      expect(result).toMatchObject({
        text: 'Oslo: 21 celsius, a concert tonight; 2 + 3 = 5.',
        stopReason: 'final_answer',
        steps: 2,
        usage: { inputTokens: 140, outputTokens: 30, totalTokens: 170 },
      });
      const [first, second] = server.requests;
      expect(first).toMatchObject({ method: 'POST', path: '/v1/responses', headers: { authorization: 'Bearer test-key' } });
      // The wire request, as the client's request type and the API reference describe it.
      const expectedTools: OpenAI.Responses.Tool[] = [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather in a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          strict: true,
        },
        expect.objectContaining({ type: 'function', name: mcpName }),
        { type: 'web_search' },
      ];
      expect(first!.body).toEqual({
        model: 'gpt-test',
        instructions: 'Be brief.',
        input: [{ role: 'user', content: 'Weather and events in Oslo, and 2 + 3?' }],
        tools: expectedTools,
      } satisfies ResponseCreateParamsNonStreaming);

      // The second turn sends the first one back verbatim (reasoning included), then the function outputs.
      const input = second!.body['input'] as ResponseInputItem[];
      expect(input.slice(1, 5)).toEqual([
        reasoning,
        webSearch,
        expect.objectContaining({ type: 'function_call', call_id: 'call_weather' }),
        expect.objectContaining({ type: 'function_call', call_id: 'call_add' }),
      ]);
      expect(input.slice(5)).toEqual([
        { type: 'function_call_output', call_id: 'call_weather', output: 'Oslo: 21 celsius' },
        { type: 'function_call_output', call_id: 'call_add', output: '5' },
      ] satisfies ResponseInputItem[]);

      // The hosted call is in the run's events like the two local ones.
      const calls = result.context.events.filter((e) => e.type === 'tool_call');
      expect(calls.map((e) => e.type === 'tool_call' && [e.callId, e.tool])).toEqual([
        ['ws_1', 'openai_web_search'],
        ['call_weather', 'get_weather'],
        ['call_add', mcpName],
      ]);
      const hosted = result.context.events.find((e) => e.type === 'tool_result' && e.callId === 'ws_1');
      expect(hosted).toMatchObject({
        tool: 'openai_web_search',
        result: { isError: false, content: [{ type: 'text', text: expect.stringContaining('Oslo events today') }] },
      });
    } finally {
      await mcp.close();
      await mcpServer.close();
    }
  });

  it('streams: argument deltas, the tool result, text deltas in order, then the result (also in context.events)', async () => {
    const call = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_weather',
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    } satisfies ResponseOutputItem;
    let n = 0;
    const events = (list: Array<Record<string, unknown>>): Array<Record<string, unknown>> => list.map((e) => ({ ...e, sequence_number: n++ }));
    server = await startProviderServer([
      {
        body: null,
        events: events([
          { type: 'response.output_item.added', output_index: 0, item: { ...call, arguments: '', status: 'in_progress' } },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '{"city":' },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 0, delta: '"Oslo"}' },
          { type: 'response.completed', response: response([call]) as unknown as OpenAI.Responses.Response },
        ] satisfies Array<Partial<ResponseStreamEvent>>),
      },
      {
        body: null,
        events: events([
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Oslo is ', logprobs: [] },
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: '21 ', logprobs: [] },
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'celsius.', logprobs: [] },
          { type: 'response.completed', response: response([message('Oslo is 21 celsius.')]) as unknown as OpenAI.Responses.Response },
        ] satisfies Array<Partial<ResponseStreamEvent>>),
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather] }).stream('Weather in Oslo?')) seen.push(event);

    expect(seen.map((e) => (e.type === 'text_delta' ? e.text : e.type === 'tool_call_delta' ? e.delta : e.type))).toEqual([
      'tool_call_start',
      '{"city":',
      '"Oslo"}',
      'tool_result',
      'Oslo is ',
      '21 ',
      'celsius.',
      'result',
    ]);
    expect(seen[0]).toEqual({ type: 'tool_call_start', step: 1, callId: 'call_weather', name: 'get_weather' });
    const last = seen.at(-1)!;
    expect(last.type === 'result' && last.result).toMatchObject({ text: 'Oslo is 21 celsius.', stopReason: 'final_answer', steps: 2 });
    expect(last.type === 'result' && last.result.context.events.filter((e) => e.type === 'tool_result')).toMatchObject([
      { callId: 'call_weather', result: { content: [{ text: 'Oslo: 21 celsius' }] } },
    ]);
    expect(server.requests[0]!.body).toMatchObject({ stream: true, model: 'gpt-test' } satisfies Partial<ResponseCreateParamsStreaming>);
    expect(server.requests[1]!.body['input']).toContainEqual({ type: 'function_call_output', call_id: 'call_weather', output: 'Oslo: 21 celsius' });
  });

  it("fails the turn on an error in the stream, after the deltas before it, with the client's error as the cause", async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Once upon ', logprobs: [], sequence_number: 0 },
          { error: { message: 'The server had an error while processing your request', type: 'server_error', code: null, param: null } },
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'never read', logprobs: [], sequence_number: 1 },
        ],
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const texts: string[] = [];
    const run = (async () => {
      for await (const event of new Agent({ model }).stream('A long story, please.')) if (event.type === 'text_delta') texts.push(event.text);
    })();
    const failure = await run.then(
      () => undefined,
      (error: unknown) => error as Error & { code?: string; cause?: unknown },
    );
    expect(failure).toMatchObject({ code: ErrorCode.ModelFailed, message: expect.stringContaining('The server had an error') });
    expect(failure!.cause).toBeInstanceOf(OpenAIClient.APIError);
    expect(texts).toEqual(['Once upon ']);
  });

  it('aborts the HTTP request when the caller aborts mid-stream', async () => {
    server = await startProviderServer([
      {
        body: null,
        hangAfterEvents: true,
        events: [
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Once upon ', logprobs: [], sequence_number: 0 },
        ],
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const abort = new AbortController();
    const seen: string[] = [];
    for await (const event of new Agent({ model }).stream('A long story.', { signal: abort.signal })) {
      seen.push(event.type);
      if (event.type === 'text_delta') abort.abort();
    }
    expect(seen).toEqual(['text_delta', 'result']);
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('aborts the HTTP request when the reader stops mid-stream', async () => {
    server = await startProviderServer([
      {
        body: null,
        hangAfterEvents: true,
        events: [
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Once upon ', logprobs: [], sequence_number: 0 },
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'a time', logprobs: [], sequence_number: 1 },
        ],
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const texts: string[] = [];
    for await (const event of new Agent({ model }).stream('A long story, please.')) {
      if (event.type === 'text_delta') texts.push(event.text);
      if (texts.length === 1) break;
    }
    expect(texts).toEqual(['Once upon ']);
    // The client closed the connection of the response still streaming.
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('lets the client retry a 429, then goes on', async () => {
    server = await startProviderServer([
      {
        status: 429,
        body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded', param: null } },
        headers: { 'retry-after-ms': '1' },
      },
      { body: response([message('after the wait')]) },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 1 });
    const result = await new Agent({ model }).run('hi');
    expect(result.text).toBe('after the wait');
    expect(server.requests).toHaveLength(2);
  });

  it('says a 401 was rejected (one request, no retries) and points at the API key', async () => {
    server = await startProviderServer([
      { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key', param: null } } },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'bad', baseURL: `${server.url}/v1`, maxRetries: 3 });
    const failed = new Agent({ model }).run('hello?');
    await expect(failed).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: expect.stringMatching(/openai-responses gpt-test: the request was rejected with 401: Incorrect API key.*OPENAI_API_KEY/),
    });
    expect(server.requests).toHaveLength(1);
  });

  it('takes a refusal and a content-filter stop as stop reasons, not failures', async () => {
    server = await startProviderServer([
      {
        body: response([
          { type: 'message', id: 'msg_r', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] },
        ]),
      },
      { body: response([], undefined, { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }) },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ model });
    const refused = await agent.run('something bad');
    expect(refused).toMatchObject({ text: 'I cannot help with that.', stopReason: 'final_answer' });
    expect(refused.context.events.at(-1)).toMatchObject({ type: 'message', data: { stopReason: 'content_filter' } });
    const filtered = await agent.run('again');
    expect(filtered.context.events.at(-1)).toMatchObject({ type: 'message', data: { stopReason: 'content_filter' } });
    expect(userAgentMajor(server.requests[0])).toBe(expectedSdkMajor('openai'));
  });

  it('sends a conversation from another adapter in the neutral shape', () => {
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k' });
    const params = model.toParams({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'a', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { role: 'tool', callId: 'a', name: 'get_weather', result: { content: [], isError: false } },
      ],
      tools: [],
      settings: { temperature: 0, maxTokens: 50 },
    });
    expect(params).toEqual({
      model: 'gpt-test',
      input: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'Looking.' },
        { type: 'function_call', call_id: 'a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'a', output: '(no output)' },
      ],
      temperature: 0,
      max_output_tokens: 50,
    } satisfies ResponseCreateParamsNonStreaming);
  });
});
