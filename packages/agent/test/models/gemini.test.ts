import { ErrorCode, Toolset, builtin, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import { McpToolset, serveMcp } from '@anytool/mcp';
import type { Content, GenerateContentResponse, Part, Tool } from '@google/genai';
import { GeminiModel } from '../../src/models/gemini.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

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

/** A generateContent response, in the documented (REST, camelCase) shape. */
function response(
  parts: Part[],
  extra: Record<string, unknown> = {},
  usage = { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 },
): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0, ...extra }],
    usageMetadata: usage,
    modelVersion: 'gemini-test',
    responseId: 'resp_1',
  } as Partial<GenerateContentResponse>;
}

const thought = { text: 'I should run code and call the tools.', thought: true, thoughtSignature: 'c2lnbmF0dXJl' } satisfies Part;
const code = { executableCode: { language: 'PYTHON', code: 'print(6 * 7)' } } as Part;
const codeResult = { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '42\n' } } as Part;

// Under jest, the client's own reference to the global fetch fails to connect; the test file's fetch is the same API.
const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);

describe('GeminiModel (generateContent through @google/genai)', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("runs Gemini's code execution and search grounding, a local tool and an MCP tool in one run", async () => {
    const mcpServer = await serveMcp(new Toolset(add), { transport: 'http', port: 0 });
    const mcp = await McpToolset.connect({ mcpServers: { math: { url: mcpServer.url! } } }, { trusted: true });
    try {
      const mcpName = new Toolset(mcp).names[0]!;
      server = await startProviderServer([
        {
          body: response(
            [
              thought,
              code,
              codeResult,
              { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
              { functionCall: { id: 'fc_add', name: mcpName, args: { a: 2, b: 3 } } },
            ],
            {
              finishReason: 'STOP',
              groundingMetadata: {
                webSearchQueries: ['Oslo events today'],
                groundingChunks: [{ web: { uri: 'https://example.com/oslo', title: 'Oslo events' } }],
              },
            },
          ),
        },
        {
          body: response([{ text: 'Oslo: 21 celsius; 6 * 7 = 42; 2 + 3 = 5.' }], {}, { promptTokenCount: 90, candidatesTokenCount: 10, totalTokenCount: 100 }),
        },
      ]);
      const model = new GeminiModel({ model: 'gemini-test', apiKey: 'test-key', baseURL: server.url, fetch, maxRetries: 0 });
      const agent = new Agent({
        model,
        tools: [weather, mcp, builtin.gemini.codeExecution(), builtin.gemini.googleSearch(), builtin.openai.webSearch()],
        instructions: 'Be brief.',
      });
      const result = await agent.run('Weather in Oslo, 6 * 7 and 2 + 3?');

      expect(result).toMatchObject({
        text: 'Oslo: 21 celsius; 6 * 7 = 42; 2 + 3 = 5.',
        stopReason: 'final_answer',
        usage: { inputTokens: 140, outputTokens: 30, totalTokens: 170 },
      });
      const [first, second] = server.requests;
      expect(first).toMatchObject({ method: 'POST', path: '/v1beta/models/gemini-test:generateContent', headers: { 'x-goog-api-key': 'test-key' } });
      // The wire tools as the client's `Tool` type and the API reference describe them; OpenAI's web search is left out.
      const tools: Tool[] = [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather in a city.',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
            expect.objectContaining({ name: mcpName }),
          ],
        },
        { codeExecution: {} },
        { googleSearch: {} },
      ];
      expect(first!.body).toMatchObject({
        contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo, 6 * 7 and 2 + 3?' }] }] satisfies Content[],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools,
      });

      // The model's turn goes back verbatim (the thought signature too), then both results in one user turn.
      const contents = second!.body['contents'] as Content[];
      expect(contents[1]).toEqual({
        role: 'model',
        parts: [
          thought,
          code,
          codeResult,
          expect.objectContaining({ functionCall: expect.objectContaining({ name: 'get_weather' }) }),
          expect.objectContaining({ functionCall: expect.objectContaining({ id: 'fc_add' }) }),
        ],
      });
      expect(contents[2]).toEqual({
        role: 'user',
        parts: [
          { functionResponse: { id: expect.any(String), name: 'get_weather', response: { output: 'Oslo: 21 celsius' } } },
          { functionResponse: { id: 'fc_add', name: mcpName, response: { output: '5' } } },
        ],
      } satisfies Content);

      const calls = result.context.events.filter((e) => e.type === 'tool_call');
      expect(calls.map((e) => e.type === 'tool_call' && e.tool)).toEqual(['gemini_code_execution', 'gemini_google_search', 'get_weather', mcpName]);
      const results = result.context.events.filter((e) => e.type === 'tool_result');
      expect(results.slice(0, 2)).toMatchObject([
        { tool: 'gemini_code_execution', result: { isError: false, content: [{ text: '42\n' }] } },
        { tool: 'gemini_google_search', result: { content: [{ text: 'Oslo events https://example.com/oslo' }] } },
      ]);
    } finally {
      await mcp.close();
      await mcpServer.close();
    }
  });

  it('streams: a function call, its result, text deltas in order, then the result; the turn goes back whole', async () => {
    /** One streamed chunk: some parts, the finish reason and usage on the last one only. */
    const part = (parts: Part[], last?: { finishReason: string; usage: Record<string, number> }): Record<string, unknown> => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last === undefined ? {} : { finishReason: last.finishReason }) }],
      ...(last === undefined ? {} : { usageMetadata: last.usage }),
      modelVersion: 'gemini-test',
      responseId: 'resp_1',
    });
    server = await startProviderServer([
      {
        body: null,
        events: [
          part([{ text: 'Let me look', thought: true }]),
          part([{ text: '.', thought: true, thoughtSignature: 'c2ln' }]),
          part([{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }], {
            finishReason: 'STOP',
            usage: { promptTokenCount: 50, candidatesTokenCount: 20, totalTokenCount: 70 },
          }),
        ],
      },
      {
        body: null,
        events: [
          part([{ text: 'Oslo is ' }]),
          part([{ text: '21 celsius.' }], { finishReason: 'STOP', usage: { promptTokenCount: 80, candidatesTokenCount: 5, totalTokenCount: 85 } }),
        ],
      },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather] }).stream('Weather in Oslo?')) seen.push(event);
    expect(seen.map((e) => (e.type === 'text_delta' ? e.text : e.type === 'tool_call_delta' ? e.delta : e.type))).toEqual([
      'tool_call_start',
      '{"city":"Oslo"}',
      'tool_result',
      'Oslo is ',
      '21 celsius.',
      'result',
    ]);
    const start = seen[0]!;
    expect(start).toMatchObject({ type: 'tool_call_start', step: 1, name: 'get_weather' });
    const callId = start.type === 'tool_call_start' ? start.callId : '';
    expect(seen[2]).toMatchObject({ type: 'tool_result', callId, result: { content: [{ text: 'Oslo: 21 celsius' }] } });
    expect(seen.at(-1)).toMatchObject({
      type: 'result',
      result: { text: 'Oslo is 21 celsius.', stopReason: 'final_answer', steps: 2, usage: { inputTokens: 130, outputTokens: 25, totalTokens: 155 } },
    });
    expect(server.requests[0]!.path).toMatch(/:streamGenerateContent\?alt=sse$/);
    const contents = server.requests[1]!.body['contents'] as Content[];
    // The thought joined into one part with its signature, then the call, then its response under the id the events used.
    expect(contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [{ text: 'Let me look.', thought: true, thoughtSignature: 'c2ln' }, { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }],
      },
      { role: 'user', parts: [{ functionResponse: { id: callId, name: 'get_weather', response: { output: 'Oslo: 21 celsius' } } }] },
    ]);
  });

  it('aborts the HTTP request when the reader stops mid-stream', async () => {
    server = await startProviderServer([
      { body: null, hangAfterEvents: true, events: [{ candidates: [{ content: { role: 'model', parts: [{ text: 'Once upon ' }] }, index: 0 }] }] },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const texts: string[] = [];
    for await (const event of new Agent({ model }).stream('A long story.')) {
      if (event.type === 'text_delta') texts.push(event.text);
      if (texts.length === 1) break;
    }
    expect(texts).toEqual(['Once upon ']);
    for (let i = 0; i < 100 && server.closedEarly === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.closedEarly).toBe(1);
  });

  it('lets the client retry a 429, then goes on', async () => {
    server = await startProviderServer([
      { status: 429, body: { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } } },
      { body: response([{ text: 'after the wait' }]) },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 1 });
    expect((await new Agent({ model }).run('hi')).text).toBe('after the wait');
    expect(server.requests).toHaveLength(2);
  });

  it('says a 401 was rejected (one request) and points at the API key', async () => {
    server = await startProviderServer([
      { status: 401, body: { error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED' } } },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'bad', baseURL: server.url, fetch, maxRetries: 3 });
    const failed = new Agent({ model }).run('hello?');
    await expect(failed).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: expect.stringMatching(/gemini gemini-test: the request was rejected with 401.*API key not valid.*GEMINI_API_KEY/s),
    });
    expect(server.requests).toHaveLength(1);
  });

  it('takes a safety stop as a stop reason, not a failure', async () => {
    server = await startProviderServer([{ body: response([], { finishReason: 'SAFETY' }) }]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const result = await new Agent({ model }).run('something bad');
    expect(result.stopReason).toBe('final_answer');
    expect(result.context.events.at(-1)).toMatchObject({ type: 'message', data: { stopReason: 'content_filter' } });
  });

  it('reports a missing API key as a coded error', () => {
    const saved = [process.env['GEMINI_API_KEY'], process.env['GOOGLE_API_KEY']];
    delete process.env['GEMINI_API_KEY'];
    delete process.env['GOOGLE_API_KEY'];
    try {
      expect(() => new GeminiModel({ model: 'gemini-test' })).toThrow(
        expect.objectContaining({ code: ErrorCode.MissingCredentials, message: expect.stringContaining('GEMINI_API_KEY') }),
      );
    } finally {
      if (saved[0] !== undefined) process.env['GEMINI_API_KEY'] = saved[0];
      if (saved[1] !== undefined) process.env['GOOGLE_API_KEY'] = saved[1];
    }
  });
});
