import { ErrorCode, imageResult, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import { OpenAIModel } from '../../src/models/openai.js';
import { expectedSdkMajor, startProviderServer, userAgentMajor, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city, unit = 'celsius' }: { city: string; unit?: 'celsius' | 'fahrenheit' }) => `${city}: 21 ${unit}`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' } },
    required: ['city'],
  },
});

/** A Chat Completions response, in the documented shape. */
function completion(
  message: Record<string, unknown>,
  finishReason: string,
  usage = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', content: null, refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finishReason },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: null,
  };
}

/** A Chat Completions stream chunk, in the documented shape. */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The last chunk of a stream with `include_usage`: no choices, the usage. */
function usageChunk(prompt: number, completion: number): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'gpt-test',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

describe('OpenAIModel (Chat Completions through the official client)', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends strict tools, runs two parallel calls (a strict null, bad JSON) and sends the results back', async () => {
    server = await startProviderServer([
      {
        body: completion(
          {
            tool_calls: [
              { id: 'call_oslo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":null}' } },
              { id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"' } },
            ],
          },
          'tool_calls',
        ),
      },
      { body: completion({ content: 'Oslo is 21 celsius; Paris failed.' }, 'stop', { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100 }) },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const result = await new Agent({ model, tools: [weather], instructions: 'You report weather.' }).run('Weather in Oslo and Paris?');

    expect(result).toMatchObject({
      text: 'Oslo is 21 celsius; Paris failed.',
      stopReason: 'final_answer',
      usage: { inputTokens: 140, outputTokens: 30, totalTokens: 170 },
    });
    const [first, second] = server.requests;
    expect(first).toMatchObject({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: 'Bearer test-key' } });
    expect(first!.body['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather in a city.',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] } },
            required: ['city', 'unit'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    ]);
    expect(first!.body['messages']).toEqual([
      { role: 'system', content: 'You report weather.' },
      { role: 'user', content: 'Weather in Oslo and Paris?' },
    ]);

    const messages = second!.body['messages'] as Array<Record<string, unknown>>;
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_oslo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo","unit":null}' } },
        { id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"' } },
      ],
    });
    // The strict-mode null reached the tool as "absent", so its default applied.
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_oslo', content: 'Oslo: 21 celsius' });
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_paris', content: expect.stringContaining('not valid JSON') });
    const events = result.context.events.filter((e) => e.type === 'tool_result');
    expect(events.map((e) => e.type === 'tool_result' && [e.callId, e.result.error?.code])).toEqual([
      ['call_oslo', undefined],
      ['call_paris', ErrorCode.InvalidArguments],
    ]);
  });

  it('sends schemas as they are when strict mode is off, and no tools when there are none', async () => {
    server = await startProviderServer([{ body: completion({ content: 'hi' }, 'stop') }, { body: completion({ content: 'hi' }, 'stop') }]);
    const model = new OpenAIModel({
      model: 'gpt-test',
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      strict: false,
      parallelToolCalls: true,
      params: { seed: 7, model: 'ignored' },
    });
    await new Agent({ model, tools: [weather], settings: { temperature: 0, maxTokens: 100 } }).run('hi');
    await new Agent({ model }).run('hi');
    const [withTools, without] = server.requests;
    expect(withTools!.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather.definition.parameters, strict: false } }],
      parallel_tool_calls: true,
      seed: 7,
      model: 'gpt-test',
      temperature: 0,
      max_completion_tokens: 100,
    });
    expect(without!.body).not.toHaveProperty('tools');
  });

  it('lets the client retry a failed request, then ends the run with MODEL_FAILED', async () => {
    const overloaded = {
      status: 500,
      body: { error: { message: 'The server is overloaded', type: 'server_error', code: null, param: null } },
      headers: { 'retry-after-ms': '1' },
    };
    server = await startProviderServer([overloaded, { body: completion({ content: 'recovered' }, 'stop') }, overloaded, overloaded]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 1 });
    const agent = new Agent({ model });
    expect((await agent.run('first')).text).toBe('recovered');
    expect(server.requests).toHaveLength(2);

    const failed = agent.run('second');
    await expect(failed).rejects.toMatchObject({ code: ErrorCode.ModelFailed, message: expect.stringMatching(/openai gpt-test.*maxRetries 1.*overloaded/) });
    expect(server.requests).toHaveLength(4);
  });

  it('takes a tool call without `type` (as some OpenAI-compatible servers send it) as a function call', async () => {
    server = await startProviderServer([
      { body: completion({ tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls') },
      { body: completion({ content: 'done' }, 'stop') },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const result = await new Agent({ model, tools: [weather] }).run('Oslo?');
    expect(result.text).toBe('done');
    expect(result.context.events.filter((e) => e.type === 'tool_call')).toMatchObject([{ callId: 'call_1', tool: 'get_weather', args: '{"city":"Oslo"}' }]);
    expect(server.requests[1]!.body['messages']).toContainEqual({ role: 'tool', tool_call_id: 'call_1', content: 'Oslo: 21 celsius' });
  });

  it('says a 401 was rejected (one request, no retries) and points at the API key', async () => {
    server = await startProviderServer([
      { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key', param: null } } },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'bad', baseURL: `${server.url}/v1`, maxRetries: 3 });
    const failed = new Agent({ model }).run('hello?');
    await expect(failed).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: expect.stringMatching(/openai gpt-test: the request was rejected with 401: Incorrect API key.*OPENAI_API_KEY/),
    });
    await expect(failed).rejects.toMatchObject({ message: expect.not.stringContaining('retries') });
    expect(server.requests).toHaveLength(1);
  });

  it('streams: a tool call assembled from its argument deltas, the tool result, text deltas in order, then the result', async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [
          chunk({
            role: 'assistant',
            content: null,
            tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk(50, 20),
        ],
      },
      {
        body: null,
        events: [
          chunk({ role: 'assistant', content: '' }),
          chunk({ content: 'Oslo is ' }),
          chunk({ content: '21 celsius.' }),
          chunk({}, 'stop'),
          usageChunk(80, 5),
        ],
      },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
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
    expect(seen[0]).toEqual({ type: 'tool_call_start', step: 1, callId: 'call_1', name: 'get_weather' });
    const last = seen.at(-1)!;
    expect(last.type === 'result' && last.result).toMatchObject({
      text: 'Oslo is 21 celsius.',
      stopReason: 'final_answer',
      steps: 2,
      usage: { inputTokens: 130, outputTokens: 25, totalTokens: 155 },
    });
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    // The same deltas, in the same order, in the run's events.
    const recorded = (last.type === 'result' ? last.result.context.events : []).filter((e) => e.type === 'text_delta' || e.type === 'tool_call_delta');
    expect(recorded.map((e) => (e.type === 'text_delta' ? e.text : e.type === 'tool_call_delta' ? e.delta : ''))).toEqual([
      '{"city":',
      '"Oslo"}',
      'Oslo is ',
      '21 celsius.',
    ]);
    // The call went back as the deltas built it.
    expect((server.requests[1]!.body['messages'] as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Oslo: 21 celsius' },
    ]);
  });

  it('streams two parallel calls from one chunk, each with its own id', async () => {
    server = await startProviderServer([
      {
        body: null,
        events: [
          chunk({
            tool_calls: [
              { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: '"Rome"}' } }] }, 'tool_calls'),
        ],
      },
      { body: null, events: [chunk({ content: 'Done.' }, 'stop')] },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather] }).stream('Oslo and Rome?')) seen.push(event);
    expect(seen.slice(0, 4)).toEqual([
      { type: 'tool_call_start', step: 1, callId: 'call_a', name: 'get_weather' },
      { type: 'tool_call_delta', step: 1, callId: 'call_a', delta: '{"city":"Oslo"}', time: expect.any(Number) },
      { type: 'tool_call_start', step: 1, callId: 'call_b', name: 'get_weather' },
      { type: 'tool_call_delta', step: 1, callId: 'call_b', delta: '{"city":', time: expect.any(Number) },
    ]);
    expect(seen[4]).toEqual({ type: 'tool_call_delta', step: 1, callId: 'call_b', delta: '"Rome"}', time: expect.any(Number) });
    const results = seen.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && [e.callId, e.result.content[0]]);
    expect(results).toEqual([
      ['call_a', { type: 'text', text: 'Oslo: 21 celsius' }],
      ['call_b', { type: 'text', text: 'Rome: 21 celsius' }],
    ]);
    expect(seen.at(-1)).toMatchObject({ type: 'result', result: { text: 'Done.', steps: 2, usage: { totalTokens: 0 } } });
  });

  it('aborts the HTTP request when the reader stops mid-stream', async () => {
    server = await startProviderServer([{ body: null, hangAfterEvents: true, events: [chunk({ role: 'assistant', content: 'Once upon ' })] }]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const texts: string[] = [];
    for await (const event of new Agent({ model }).stream('A long story.')) {
      if (event.type === 'text_delta') texts.push(event.text);
      if (texts.length === 1) break;
    }
    expect(texts).toEqual(['Once upon ']);
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('aborts the HTTP request when the caller aborts mid-stream', async () => {
    server = await startProviderServer([{ body: null, hangAfterEvents: true, events: [chunk({ role: 'assistant', content: 'Once upon ' })] }]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const abort = new AbortController();
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model }).stream('A long story.', { signal: abort.signal })) {
      seen.push(event);
      if (event.type === 'text_delta') abort.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(['text_delta', 'result']);
    expect(seen.at(-1)).toMatchObject({ type: 'result', result: { stopReason: 'aborted', steps: 0 } });
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('cancels the request in flight when the run runs out of time', async () => {
    server = await startProviderServer([{ hang: true, body: null }]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const result = await new Agent({ model, timeoutMs: 100 }).run('hello?');
    expect(result).toMatchObject({ stopReason: 'timeout', steps: 0 });
    expect(server.requests).toHaveLength(1);
    expect(result.context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.Timeout });
  });

  it('talks through the openai major this test project names', async () => {
    server = await startProviderServer([{ body: completion({ content: 'hi' }, 'stop') }]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    expect((await new Agent({ model }).run('hello')).text).toBe('hi');
    expect(userAgentMajor(server.requests[0])).toBe(expectedSdkMajor('openai'));
  });

  it('reports a missing API key as a coded error', () => {
    const saved = process.env['OPENAI_API_KEY'];
    delete process.env['OPENAI_API_KEY'];
    try {
      expect(() => new OpenAIModel({ model: 'gpt-test' })).toThrow(
        expect.objectContaining({ code: ErrorCode.MissingCredentials, message: expect.stringContaining('OPENAI_API_KEY') }),
      );
      expect(() => new OpenAIModel({ model: '' })).toThrow(/model id/);
    } finally {
      if (saved !== undefined) process.env['OPENAI_API_KEY'] = saved;
    }
  });

  it("sends image results after the turn's tool messages, in one user message labelled with the call ids", () => {
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k' });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const params = model.toParams({
      messages: [
        { role: 'user', content: 'draw' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 't1', name: 'draw', arguments: '{}' },
            { id: 't2', name: 'echo', arguments: '{}' },
          ],
        },
        { role: 'tool', callId: 't1', name: 'draw', result: imageResult(png) },
        { role: 'tool', callId: 't2', name: 'echo', result: { content: [{ type: 'text', text: 'hi' }], isError: false } },
        { role: 'assistant', content: 'A square.' },
        { role: 'user', content: 'again' },
      ],
      tools: [],
    });
    expect(params.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: '(1 image(s): sent in the next user message, labelled with this call id)' },
      { role: 'tool', tool_call_id: 't2', content: 'hi' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image(s) returned by tool call t1 (draw):' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
      { role: 'assistant', content: 'A square.' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('sends object arguments as JSON strings and an empty result as text the API accepts', () => {
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k' });
    const params = model.toParams({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'get_weather', arguments: { city: 'Oslo' } }] },
        { role: 'tool', callId: 'a', name: 'get_weather', result: { content: [], isError: false } },
      ],
      tools: [],
    });
    expect(params.messages[1]).toMatchObject({ tool_calls: [{ function: { arguments: '{"city":"Oslo"}' } }] });
    expect(params.messages[2]).toEqual({ role: 'tool', tool_call_id: 'a', content: '(no output)' });
  });
});
