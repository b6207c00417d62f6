// Gemini's built-in tools (Google Search grounding, code execution, URL context) through GeminiModel:
// the declarations sent, and recorded responses in the shapes of the Gemini API reference run through
// the adapter. Every declaration, part and metadata block is checked against @google/genai's types
// (`satisfies`) and follows the page cited beside it.
import { ErrorCode, builtin, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import {
  FinishReason,
  Language,
  Outcome,
  ToolType,
  UrlRetrievalStatus,
  type Candidate,
  type Content,
  type GenerateContentResponse,
  type GroundingMetadata,
  type Part,
  type Tool,
  type UrlContextMetadata,
} from '@google/genai';
import { GeminiModel } from '../../src/models/gemini.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city }: { city: string }) => `${city}: 21 celsius`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

// Under jest, the client's own reference to the global fetch fails to connect; the test file's fetch is the same API.
const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);

/** A generateContent response (https://ai.google.dev/api/generate-content#generatecontentresponse), REST camelCase. */
function response(parts: Part[], candidate: Partial<Candidate> = {}): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: FinishReason.STOP, index: 0, ...candidate }],
    usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 40, totalTokenCount: 160 },
    modelVersion: 'gemini-test',
    responseId: 'resp_builtins',
  } satisfies Partial<GenerateContentResponse>;
}

// https://ai.google.dev/gemini-api/docs/code-execution ("Understanding the response"): the code the model
// wrote (executableCode) and what running it printed (codeExecutionResult), between text parts.
const code = { executableCode: { language: Language.PYTHON, code: 'print(14 - 12 + 1)' } } satisfies Part;
const codeResult = { codeExecutionResult: { outcome: Outcome.OUTCOME_OK, output: '3\n' } } satisfies Part;
// https://ai.google.dev/gemini-api/docs/google-search ("Understanding the grounding response"): the queries
// run, the sources (groundingChunks), which text each supports, and the search suggestions to show.
const grounding = {
  webSearchQueries: ['Bergen harbour festival 2026 dates'],
  searchEntryPoint: { renderedContent: '<div class="search-suggestions">Bergen harbour festival</div>' },
  groundingChunks: [
    { web: { uri: 'https://example.org/bergen/festival', title: 'example.org' } },
    { web: { uri: 'https://example.net/events', title: 'example.net' } },
  ],
  groundingSupports: [{ segment: { startIndex: 0, endIndex: 25, text: 'The festival is 12-14 June' }, groundingChunkIndices: [0, 1] }],
} satisfies GroundingMetadata;
// https://ai.google.dev/gemini-api/docs/url-context ("Understanding the response"): each URL read and
// whether it could be.
const urlContext = {
  urlMetadata: [
    { retrievedUrl: 'https://example.org/bergen/programme', urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_SUCCESS },
    { retrievedUrl: 'https://example.org/bergen/gone', urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_ERROR },
  ],
} satisfies UrlContextMetadata;

describe('Gemini built-in tools through GeminiModel', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('declares each built-in in the documented shape, records the code run, the searches and the pages read, and sends the parts back verbatim', async () => {
    // Gemini 3 signs its function calls (https://ai.google.dev/gemini-api/docs/thought-signatures): the signature must come back.
    const call = { functionCall: { id: 'fc_w', name: 'get_weather', args: { city: 'Bergen' } }, thoughtSignature: 'c2lnbmVkLWNhbGw=' } satisfies Part;
    const firstTurn: Part[] = [{ text: 'Counting the days.' }, code, codeResult, { text: 'The festival is 12-14 June, 3 days.' }, call];
    server = await startProviderServer([
      { body: response(firstTurn, { groundingMetadata: grounding, urlContextMetadata: urlContext }) },
      { body: response([{ text: '12-14 June; Bergen: 21 celsius.' }]) },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const tools = [weather, builtin.gemini.googleSearch(), builtin.gemini.codeExecution(), builtin.gemini.urlContext()];
    const result = await new Agent({ model, tools }).run('When is the festival (see https://example.org/bergen/programme), and the weather?');

    expect(result.text).toBe('12-14 June; Bergen: 21 celsius.');
    const [first, second] = server.requests;
    // The REST examples write google_search / code_execution / url_context; the client sends the same
    // fields in proto JSON's camelCase, which the API takes alike.
    expect(first!.body['tools']).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather in a city.',
            parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
      },
      // https://ai.google.dev/gemini-api/docs/google-search ("Configure search tool")
      { googleSearch: {} },
      // https://ai.google.dev/gemini-api/docs/code-execution ("Enable code execution")
      { codeExecution: {} },
      // https://ai.google.dev/gemini-api/docs/url-context ("Implement URL context")
      { urlContext: {} },
    ] satisfies Tool[]);

    // The model's turn goes back part for part (the call's signature too), then the function's response.
    const contents = second!.body['contents'] as Content[];
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: firstTurn },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_w', name: 'get_weather', response: { output: 'Bergen: 21 celsius' } } }] },
    ] satisfies Content[]);

    const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(events.map((e) => `${e.type} ${e.tool}`)).toEqual([
      'tool_call gemini_code_execution',
      'tool_result gemini_code_execution',
      'tool_call gemini_google_search',
      'tool_result gemini_google_search',
      'tool_call gemini_url_context',
      'tool_result gemini_url_context',
      'tool_call get_weather',
      'tool_result get_weather',
    ]);
    expect(events.slice(0, 6)).toMatchObject([
      { args: { code: 'print(14 - 12 + 1)' } },
      { ranBy: 'gcp.gemini', result: { isError: false, content: [{ text: '3\n' }] } },
      { args: { queries: ['Bergen harbour festival 2026 dates'] } },
      {
        ranBy: 'gcp.gemini',
        result: { isError: false, content: [{ text: 'example.org https://example.org/bergen/festival\nexample.net https://example.net/events' }] },
      },
      { args: { urls: ['https://example.org/bergen/programme', 'https://example.org/bergen/gone'] } },
      {
        ranBy: 'gcp.gemini',
        result: {
          isError: false,
          content: [
            { text: 'https://example.org/bergen/programme: URL_RETRIEVAL_STATUS_SUCCESS\nhttps://example.org/bergen/gone: URL_RETRIEVAL_STATUS_ERROR' },
          ],
        },
      },
    ]);
    for (const event of events.slice(0, 6)) if (event.type === 'tool_result') expect(event).not.toHaveProperty('durationMs');
  });

  it("asks for the built-ins' server-side invocations and records each once, from its toolCall and toolResponse parts", async () => {
    // GenerateContentConfig.toolConfig.includeServerSideToolInvocations (Gemini API): the response then
    // carries each built-in's call (toolCall) and its response (toolResponse) as parts, echoed back as they came.
    const searchCall = {
      toolCall: { id: 'tc_search', toolType: ToolType.GOOGLE_SEARCH_WEB, args: { queries: ['Bergen harbour festival 2026 dates'] } },
    } satisfies Part;
    const searchAnswer = {
      toolResponse: {
        id: 'tc_search',
        toolType: ToolType.GOOGLE_SEARCH_WEB,
        response: { results: [{ uri: 'https://example.org/bergen/festival', title: 'example.org' }] },
      },
    } satisfies Part;
    const pageCall = { toolCall: { id: 'tc_page', toolType: ToolType.URL_CONTEXT, args: { urls: ['https://example.org/bergen/gone'] } } } satisfies Part;
    const pageAnswer = { toolResponse: { id: 'tc_page', toolType: ToolType.URL_CONTEXT, response: { error: 'URL_RETRIEVAL_STATUS_ERROR' } } } satisfies Part;
    server = await startProviderServer([
      {
        body: response([searchCall, searchAnswer, pageCall, pageAnswer, { text: '12-14 June.' }], {
          groundingMetadata: grounding,
          urlContextMetadata: urlContext,
        }),
      },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const result = await new Agent({ model, tools: [builtin.gemini.googleSearch(), builtin.gemini.urlContext()] }).run('When is the festival?');

    expect(server.requests[0]!.body['toolConfig']).toEqual({ includeServerSideToolInvocations: true });
    const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    // Once each: the grounding and URL metadata of the same turn are not recorded again.
    expect(events).toMatchObject([
      { type: 'tool_call', callId: 'tc_search', tool: 'gemini_google_search', args: { queries: ['Bergen harbour festival 2026 dates'] } },
      {
        type: 'tool_result',
        callId: 'tc_search',
        ranBy: 'gcp.gemini',
        result: { isError: false, content: [{ text: expect.stringContaining('https://example.org/bergen/festival') }] },
      },
      { type: 'tool_call', callId: 'tc_page', tool: 'gemini_url_context', args: { urls: ['https://example.org/bergen/gone'] } },
      { type: 'tool_result', callId: 'tc_page', result: { isError: true, content: [{ text: expect.stringContaining('URL_RETRIEVAL_STATUS_ERROR') }] } },
    ]);
    expect(events).toHaveLength(4);
    // Only with a built-in in the toolset, and not over the caller's own setting.
    expect(model.toParams({ messages: [{ role: 'user', content: 'x' }], tools: [weather.definition] }).config?.toolConfig).toBeUndefined();
    const mine = new GeminiModel({ model: 'gemini-test', apiKey: 'k', config: { toolConfig: { includeServerSideToolInvocations: false } } });
    expect(mine.toParams({ messages: [{ role: 'user', content: 'x' }], tools: [builtin.gemini.googleSearch().definition] }).config?.toolConfig).toEqual({
      includeServerSideToolInvocations: false,
    });
  });

  it('reports failed code and unreadable pages as error results', async () => {
    server = await startProviderServer([
      {
        body: response(
          [code, { codeExecutionResult: { outcome: Outcome.OUTCOME_FAILED, output: 'ZeroDivisionError: division by zero' } }, { text: 'That failed.' }],
          {
            urlContextMetadata: {
              urlMetadata: [{ retrievedUrl: 'https://example.org/private', urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_ERROR }],
            },
          },
        ),
      },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const result = await new Agent({ model, tools: [builtin.gemini.codeExecution(), builtin.gemini.urlContext()] }).run(
      'Divide, and read https://example.org/private.',
    );
    expect(result.context.events.filter((e) => e.type === 'tool_result')).toMatchObject([
      {
        tool: 'gemini_code_execution',
        result: { isError: true, error: { code: ErrorCode.ToolFailed }, content: [{ text: 'ZeroDivisionError: division by zero' }] },
      },
      { tool: 'gemini_url_context', result: { isError: true, content: [{ text: expect.stringContaining('No page could be read') }] } },
    ]);
  });

  it('streams code execution and grounding: run events for both, the text deltas, the joined turn back verbatim', async () => {
    /** One streamed chunk; the finish reason, usage and grounding come on the last one. */
    const chunk = (parts: Part[], last?: Partial<Candidate>): Record<string, unknown> => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...last }],
      ...(last === undefined ? {} : { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 30, totalTokenCount: 130 } }),
      modelVersion: 'gemini-test',
      responseId: 'resp_stream',
    });
    server = await startProviderServer([
      {
        body: null,
        events: [
          chunk([code]),
          chunk([codeResult]),
          chunk([{ text: '12-14 June, ' }]),
          chunk([{ text: '3 days.' }]),
          chunk([{ functionCall: { id: 'fc_w', name: 'get_weather', args: { city: 'Bergen' } }, thoughtSignature: 'c2ln' }], {
            finishReason: FinishReason.STOP,
            groundingMetadata: grounding,
          }),
        ],
      },
      { body: null, events: [chunk([{ text: 'Bergen: 21 celsius.' }], { finishReason: FinishReason.STOP })] },
    ]);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: server.url, fetch, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather, builtin.gemini.codeExecution(), builtin.gemini.googleSearch()] }).stream(
      'Festival days and weather?',
    ))
      seen.push(event);

    expect(
      seen.map((e) =>
        e.type === 'text_delta' ? e.text : e.type === 'tool_result' ? `result ${e.tool}` : e.type === 'tool_call_start' ? `start ${e.name}` : e.type,
      ),
    ).toEqual([
      '12-14 June, ',
      '3 days.',
      'start get_weather',
      'tool_call_delta',
      'result gemini_code_execution',
      'result gemini_google_search',
      'result get_weather',
      'Bergen: 21 celsius.',
      'result',
    ]);
    const contents = server.requests[1]!.body['contents'] as Content[];
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [
        code,
        codeResult,
        { text: '12-14 June, 3 days.' },
        { functionCall: { id: 'fc_w', name: 'get_weather', args: { city: 'Bergen' } }, thoughtSignature: 'c2ln' },
      ],
    } satisfies Content);
  });
});
