import { ErrorCode, builtin, imageResult, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent, type ModelStreamEvent } from '@anytool/agent';
import { Anthropic } from '@anthropic-ai/sdk';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { expectedSdkMajor, startProviderServer, userAgentMajor, type ProviderServer, type Reply } from '../helpers/provider-server.js';

const weather = tool(({ city, unit = 'celsius' }: { city: string; unit?: 'celsius' | 'fahrenheit' }) => `${city}: 21 ${unit}`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' } },
    required: ['city'],
  },
});

/** A Messages API response, in the documented shape. */
function message(content: unknown[], stopReason: string, usage = { input_tokens: 50, output_tokens: 20 }): Record<string, unknown> {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
  };
}

/** A streamed answer that sends its first text delta and then never ends (the client must stop it). */
function storyThatHangs(): Reply {
  return {
    body: null,
    hangAfterEvents: true,
    events: [
      { type: 'message_start', message: { ...message([], null as never), stop_reason: null } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Once upon ' } },
    ],
  };
}

describe('AnthropicModel (Messages through the official client)', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends Anthropic's web search beside a local tool, records its call and result, and sends the turn back verbatim", async () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'Oslo events today' } };
    const found = {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [{ type: 'web_search_result', url: 'https://example.com/oslo', title: 'Oslo events', encrypted_content: 'e', page_age: null }],
    };
    const call = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } };
    server = await startProviderServer([
      { body: message([search, found, { type: 'text', text: 'A concert tonight. Checking the weather.', citations: null }, call], 'tool_use') },
      { body: message([{ type: 'text', text: 'A concert tonight, 21 celsius.' }], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: [weather, builtin.anthropic.webSearch({ max_uses: 1 }), builtin.openai.webSearch()] }).run('Oslo tonight?');

    expect(result.text).toBe('A concert tonight, 21 celsius.');
    const [first, second] = server.requests;
    expect((first!.body['tools'] as unknown[]).slice(1)).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }]);
    expect((second!.body['messages'] as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [search, found, { type: 'text', text: 'A concert tonight. Checking the weather.', citations: null }, call],
    });
    const calls = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(calls).toMatchObject([
      { type: 'tool_call', callId: 'srvtoolu_1', tool: 'anthropic_web_search', args: { query: 'Oslo events today' } },
      {
        type: 'tool_result',
        callId: 'srvtoolu_1',
        tool: 'anthropic_web_search',
        result: { isError: false, content: [{ text: expect.stringContaining('https://example.com/oslo') }] },
      },
      { type: 'tool_call', callId: 'toolu_1', tool: 'get_weather' },
      { type: 'tool_result', callId: 'toolu_1', result: { content: [{ text: 'Oslo: 21 celsius' }] } },
    ]);
  });

  it('streams: tool input deltas, the tool result, text deltas in order, then the result', async () => {
    const start = { type: 'message_start', message: { ...message([], null as never), stop_reason: null } };
    server = await startProviderServer([
      {
        body: null,
        events: [
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
          { type: 'message_stop' },
        ],
      },
      {
        body: null,
        events: [
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Oslo is ' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '21 celsius.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
          { type: 'message_stop' },
        ],
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather] }).stream('Weather in Oslo?')) seen.push(event);
    expect(seen.map((e) => (e.type === 'text_delta' ? e.text : e.type === 'tool_call_delta' ? e.delta : e.type))).toEqual([
      'tool_call_start',
      '{"city":',
      '"Oslo"}',
      'tool_result',
      'Oslo is ',
      '21 celsius.',
      'result',
    ]);
    const last = seen.at(-1)!;
    expect(last.type === 'result' && last.result).toMatchObject({ text: 'Oslo is 21 celsius.', stopReason: 'final_answer', steps: 2 });
    expect(server.requests[0]!.body).toMatchObject({ stream: true });
    expect((server.requests[1]!.body['messages'] as Array<{ content: unknown }>)[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Oslo: 21 celsius' }] },
    ]);
  });

  it('streams through model.stream() alone: text deltas as events, then the turn', async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [
          { type: 'message_start', message: { ...message([], null as never), stop_reason: null } },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Oslo is ' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '21 celsius.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
          { type: 'message_stop' },
        ],
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: ModelStreamEvent[] = [];
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [] })) seen.push(event);
    expect(seen.slice(0, -1)).toEqual([
      { type: 'text_delta', text: 'Oslo is ' },
      { type: 'text_delta', text: '' },
      { type: 'text_delta', text: '21 celsius.' },
    ]);
    expect(seen.at(-1)).toMatchObject({ type: 'response', response: { text: 'Oslo is 21 celsius.', stopReason: 'end', toolCalls: [] } });
  });

  it("fails the turn on an error event mid-stream, after the deltas before it, with the client's error as the cause", async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [
          { type: 'message_start', message: { ...message([], null as never), stop_reason: null } },
          { type: 'ping' },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Once upon ' } },
          { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'never read' } },
        ],
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const texts: string[] = [];
    const run = (async () => {
      for await (const event of new Agent({ model }).stream('A long story.')) if (event.type === 'text_delta') texts.push(event.text);
    })();
    await expect(run).rejects.toMatchObject({ code: ErrorCode.ModelFailed, message: expect.stringContaining('Overloaded') });
    const failure = await run.catch((error: unknown) => error as Error);
    expect((failure as Error).cause).toBeInstanceOf(Anthropic.APIError);
    expect((failure as Error & { cause: InstanceType<typeof Anthropic.APIError> }).cause.type).toBe('overloaded_error');
    expect(texts).toEqual(['Once upon ']);
  });

  it('aborts the HTTP request when the caller aborts mid-stream', async () => {
    server = await startProviderServer([storyThatHangs()]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
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

  it('closes the HTTP request when a reader of model.stream() stops early, with no signal given', async () => {
    server = await startProviderServer([storyThatHangs()]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    for await (const event of model.stream({ messages: [{ role: 'user', content: 'A long story.' }], tools: [] })) if (event.type === 'text_delta') break;
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('fails the turn on an error event that has no data', async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [{ type: 'message_start', message: { ...message([], null as never), stop_reason: null } }],
        trailer: 'event: error\n\n',
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    await expect(new Agent({ model }).run('hello')).rejects.toMatchObject({ code: ErrorCode.ModelFailed });
  });

  it('aborts the HTTP request when the reader stops mid-stream', async () => {
    server = await startProviderServer([storyThatHangs()]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const texts: string[] = [];
    for await (const event of new Agent({ model }).stream('A long story.')) {
      if (event.type === 'text_delta') texts.push(event.text);
      if (texts.length === 1) break;
    }
    expect(texts).toEqual(['Once upon ']);
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('sends the tools, runs two parallel tool_use blocks (a null optional, bad JSON) and returns results in one user message', async () => {
    server = await startProviderServer([
      {
        body: message(
          [
            { type: 'text', text: 'Checking both cities.' },
            { type: 'tool_use', id: 'toolu_oslo', name: 'get_weather', input: { city: 'Oslo', unit: null } },
            // Not a documented shape for non-streaming responses (input is an object there); a proxy or a partial stream could send it.
            { type: 'tool_use', id: 'toolu_paris', name: 'get_weather', input: '{"city": "Paris"' },
          ],
          'tool_use',
        ),
      },
      { body: message([{ type: 'text', text: 'Oslo is 21 celsius.' }], 'end_turn', { input_tokens: 90, output_tokens: 10 }) },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: [weather], instructions: 'You report weather.' }).run('Weather in Oslo and Paris?');

    expect(result).toMatchObject({ text: 'Oslo is 21 celsius.', stopReason: 'final_answer', usage: { inputTokens: 140, outputTokens: 30, totalTokens: 170 } });
    const [first, second] = server.requests;
    // @anthropic-ai/sdk 1.x sends the key as a bearer token; 0.x as x-api-key.
    const key = expectedSdkMajor('anthropic') === 0 ? { 'x-api-key': 'test-key' } : { authorization: 'Bearer test-key' };
    expect(first).toMatchObject({ method: 'POST', path: '/v1/messages', headers: { ...key, 'anthropic-version': expect.any(String) } });
    expect(first!.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 4096,
      system: 'You report weather.',
      messages: [{ role: 'user', content: 'Weather in Oslo and Paris?' }],
    });
    expect(first!.body['tools']).toEqual([{ name: 'get_weather', description: 'Current weather in a city.', input_schema: weather.definition.parameters }]);

    const messages = second!.body['messages'] as Array<{ role: string; content: unknown }>;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking both cities.' },
        { type: 'tool_use', id: 'toolu_oslo', name: 'get_weather', input: { city: 'Oslo', unit: null } },
        { type: 'tool_use', id: 'toolu_paris', name: 'get_weather', input: { raw: '{"city": "Paris"' } },
      ],
    });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_oslo', content: [{ type: 'text', text: 'Oslo: 21 celsius' }] },
        { type: 'tool_result', tool_use_id: 'toolu_paris', is_error: true, content: [{ type: 'text', text: expect.stringContaining('not valid JSON') }] },
      ],
    });
    expect(messages).toHaveLength(3);
    const codes = result.context.events.flatMap((e) => (e.type === 'tool_result' ? [e.result.error?.code] : []));
    expect(codes).toEqual([undefined, ErrorCode.InvalidArguments]);
  });

  it('sends image results as image blocks', () => {
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', params: { metadata: { user_id: 'u1' } } });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const params = model.toParams({
      messages: [
        { role: 'user', content: 'draw' },
        { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'draw', arguments: '{}' }] },
        { role: 'tool', callId: 't1', name: 'draw', result: imageResult(png) },
      ],
      tools: [],
      settings: { maxTokens: 64, temperature: 0.5 },
    });
    expect(params).toMatchObject({ max_tokens: 64, metadata: { user_id: 'u1' } });
    // API version 2026-10-21 (@anthropic-ai/sdk 1.x) has no temperature: the setting is left out there.
    if (expectedSdkMajor('anthropic') === 0) expect(params).toHaveProperty('temperature', 0.5);
    else expect(params).not.toHaveProperty('temperature');
    expect(params).not.toHaveProperty('tools');
    expect(params.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'draw', input: {} }] });
    expect(params.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] },
      ],
    });
  });

  it('leaves an empty assistant answer out of the history (the API rejects empty content)', () => {
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k' });
    const params = model.toParams({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'go on' },
      ],
      tools: [],
    });
    expect(params.messages).toEqual([
      { role: 'user', content: 'x' },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('fails at construction, naming ANTHROPIC_API_KEY, when there is no key', () => {
    const saved = { key: process.env['ANTHROPIC_API_KEY'], token: process.env['ANTHROPIC_AUTH_TOKEN'] };
    delete process.env['ANTHROPIC_API_KEY'];
    delete process.env['ANTHROPIC_AUTH_TOKEN'];
    try {
      const missing = expect.objectContaining({
        name: 'AnytoolError',
        code: ErrorCode.MissingCredentials,
        message: expect.stringMatching(/^new AnthropicModel\(\): no API key: pass \{ apiKey \} or set ANTHROPIC_API_KEY/),
      });
      expect(() => new AnthropicModel({ model: 'claude-test' })).toThrow(missing);
      expect(() => new AnthropicModel({ model: 'claude-test', apiKey: '' })).toThrow(missing);
      process.env['ANTHROPIC_API_KEY'] = '  ';
      expect(() => new AnthropicModel({ model: 'claude-test' })).toThrow(missing);
      // Either variable the client reads is enough, and so is a client of your own.
      process.env['ANTHROPIC_API_KEY'] = 'from-env';
      expect(new AnthropicModel({ model: 'claude-test' }).client.apiKey).toBe('from-env');
      delete process.env['ANTHROPIC_API_KEY'];
      process.env['ANTHROPIC_AUTH_TOKEN'] = 'token-from-env';
      expect(new AnthropicModel({ model: 'claude-test' }).client.authToken).toBe('token-from-env');
      delete process.env['ANTHROPIC_AUTH_TOKEN'];
      const client = new AnthropicModel({ model: 'claude-test', apiKey: 'k' }).client;
      expect(new AnthropicModel({ model: 'claude-test', client }).client).toBe(client);
    } finally {
      for (const [name, value] of [
        ['ANTHROPIC_API_KEY', saved.key],
        ['ANTHROPIC_AUTH_TOKEN', saved.token],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('talks through the @anthropic-ai/sdk major this test project names', async () => {
    server = await startProviderServer([{ body: message([{ type: 'text', text: 'hi' }], 'end_turn') }]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    expect((await new Agent({ model, settings: { temperature: 0.2 } }).run('hello')).text).toBe('hi');
    expect(userAgentMajor(server.requests[0])).toBe(expectedSdkMajor('anthropic'));
    if (expectedSdkMajor('anthropic') === 0) expect(server.requests[0]!.body).toHaveProperty('temperature', 0.2);
    else expect(server.requests[0]!.body).not.toHaveProperty('temperature');
  });

  it('cancels the request in flight when the caller aborts', async () => {
    server = await startProviderServer([{ hang: true, body: null }]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const controller = new AbortController();
    const run = new Agent({ model }).run('hello?', { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await run).toMatchObject({ stopReason: 'aborted', steps: 0 });
  });

  it('lets the client retry a failed request, then ends the run with MODEL_FAILED', async () => {
    const overloaded = { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, headers: { 'retry-after-ms': '1' } };
    server = await startProviderServer([overloaded, { body: message([{ type: 'text', text: 'recovered' }], 'end_turn') }, overloaded, overloaded]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 1 });
    const agent = new Agent({ model });
    expect((await agent.run('first')).text).toBe('recovered');
    expect(server.requests).toHaveLength(2);
    await expect(agent.run('second')).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: expect.stringMatching(/anthropic claude-test.*maxRetries 1.*Overloaded/),
    });
    expect(server.requests).toHaveLength(4);
  });
});
