// OpenAI's hosted tools (web search, file search, code interpreter, image generation, remote MCP)
// through OpenAIResponsesModel: the declarations sent, and recorded responses in the shapes of
// OpenAI's API reference run through the adapter. Every declaration and item is checked against
// the official client's types (`satisfies`) and follows the page cited beside it.
import { ErrorCode, builtin, tool, type ApprovalRequest } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import type OpenAI from 'openai';
import type { ResponseInputItem, ResponseOutputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city }: { city: string }) => `${city}: 21 celsius`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

/** A Responses API response (https://platform.openai.com/docs/api-reference/responses/object). */
function response(output: ResponseOutputItem[]): Record<string, unknown> {
  return {
    id: 'resp_builtins',
    object: 'response',
    created_at: 1_764_000_000,
    status: 'completed',
    model: 'gpt-test',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: null,
    error: null,
    usage: {
      input_tokens: 200,
      output_tokens: 60,
      total_tokens: 260,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function message(text: string, id = 'msg_1'): ResponseOutputItem {
  return { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

// https://platform.openai.com/docs/guides/tools-web-search ("Output and citations"): a web_search_call
// item whose action is the search it ran (its sources with include: ['web_search_call.action.sources']).
const webSearch = {
  type: 'web_search_call',
  id: 'ws_1',
  status: 'completed',
  action: { type: 'search', query: 'Bergen harbour festival 2026', sources: [{ type: 'url', url: 'https://example.org/bergen/festival' }] },
} satisfies ResponseOutputItem;
// https://platform.openai.com/docs/guides/tools-file-search ("File search response"): the queries, and
// the results with include: ['file_search_call.results'].
const fileSearch = {
  type: 'file_search_call',
  id: 'fs_1',
  status: 'completed',
  queries: ['trip dates Bergen'],
  results: [{ file_id: 'file_trip', filename: 'trip.md', score: 0.92, text: 'Arrive in Bergen on 12 June.' }],
} satisfies ResponseOutputItem;
// https://platform.openai.com/docs/guides/tools-code-interpreter: the code, its container and outputs
// (logs with include: ['code_interpreter_call.outputs']).
const codeInterpreter = {
  type: 'code_interpreter_call',
  id: 'ci_1',
  status: 'completed',
  container_id: 'cntr_1',
  code: 'print(14 - 12 + 1)',
  outputs: [{ type: 'logs', logs: '3\n' }],
} satisfies ResponseOutputItem;
// https://platform.openai.com/docs/guides/tools-image-generation ("Response"): the image as base64
// (here the first bytes of a PNG).
const imageGeneration = {
  type: 'image_generation_call',
  id: 'ig_1',
  status: 'completed',
  result: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB',
} satisfies ResponseOutputItem;
// https://platform.openai.com/docs/guides/tools-remote-mcp ("Step 1: listing available tools",
// "Step 2: calling tools"): the server's tools once a conversation, then each call with its output.
const listTools = {
  type: 'mcp_list_tools',
  id: 'mcpl_1',
  server_label: 'festival_docs',
  tools: [{ name: 'search_docs', description: 'Search the festival docs.', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
} satisfies ResponseOutputItem;
const mcpCall = {
  type: 'mcp_call',
  id: 'mcp_1',
  server_label: 'festival_docs',
  name: 'search_docs',
  arguments: '{"q":"opening hours"}',
  output: 'The quay stalls open at 10:00.',
  error: null,
  status: 'completed',
} satisfies ResponseOutputItem;

describe('OpenAI hosted tools through OpenAIResponsesModel', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('declares each hosted tool in the documented shape, records every call and result, and sends the items back verbatim', async () => {
    const functionCall = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_weather',
      name: 'get_weather',
      arguments: '{"city":"Bergen"}',
      status: 'completed',
    } satisfies ResponseOutputItem;
    const firstTurn = [
      webSearch,
      fileSearch,
      codeInterpreter,
      imageGeneration,
      listTools,
      mcpCall,
      message('Found it all; checking the weather.', 'msg_0'),
      functionCall,
    ];
    server = await startProviderServer([
      { body: response(firstTurn) },
      { body: response([message('12-14 June, 3 days, stalls at 10:00, 21 celsius. Here is a poster.')]) },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const tools = [
      weather,
      builtin.openai.webSearch({ search_context_size: 'low', user_location: { type: 'approximate', country: 'NO', city: 'Bergen' } }),
      builtin.openai.fileSearch({ vector_store_ids: ['vs_trips'], max_num_results: 5 }),
      builtin.openai.codeInterpreter(),
      builtin.openai.imageGeneration({ size: '1024x1024', quality: 'low' }),
      builtin.openai.mcp({ server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp', allowed_tools: ['search_docs'] }),
    ];
    const result = await new Agent({ model, tools }).run('When is the Bergen harbour festival, how long, and make a poster.');

    expect(result.text).toBe('12-14 June, 3 days, stalls at 10:00, 21 celsius. Here is a poster.');
    const [first, second] = server.requests;
    expect(first!.body['tools']).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Current weather in a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        strict: true,
      },
      // https://platform.openai.com/docs/guides/tools-web-search ("User location", "Search context size")
      { type: 'web_search', search_context_size: 'low', user_location: { type: 'approximate', country: 'NO', city: 'Bergen' } },
      // https://platform.openai.com/docs/guides/tools-file-search ("Limiting the number of results")
      { type: 'file_search', vector_store_ids: ['vs_trips'], max_num_results: 5 },
      // https://platform.openai.com/docs/guides/tools-code-interpreter ("Containers": auto mode)
      { type: 'code_interpreter', container: { type: 'auto' } },
      // https://platform.openai.com/docs/guides/tools-image-generation ("Tool options")
      { type: 'image_generation', size: '1024x1024', quality: 'low' },
      // https://platform.openai.com/docs/guides/tools-remote-mcp ("Filtering tools", "Approvals")
      { type: 'mcp', require_approval: 'never', server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp', allowed_tools: ['search_docs'] },
    ] satisfies OpenAI.Responses.Tool[]);

    // The whole first turn goes back as it came (the MCP tool list too), then the function's output.
    const input = second!.body['input'] as ResponseInputItem[];
    expect(input).toEqual([
      { role: 'user', content: 'When is the Bergen harbour festival, how long, and make a poster.' },
      ...firstTurn,
      { type: 'function_call_output', call_id: 'call_weather', output: 'Bergen: 21 celsius' },
    ]);

    const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(events.map((e) => `${e.type} ${e.callId} ${e.tool}`)).toEqual([
      'tool_call ws_1 openai_web_search',
      'tool_result ws_1 openai_web_search',
      'tool_call fs_1 openai_file_search',
      'tool_result fs_1 openai_file_search',
      'tool_call ci_1 openai_code_interpreter',
      'tool_result ci_1 openai_code_interpreter',
      'tool_call ig_1 openai_image_generation',
      'tool_result ig_1 openai_image_generation',
      'tool_call mcp_1 openai_mcp_festival_docs',
      'tool_result mcp_1 openai_mcp_festival_docs',
      'tool_call call_weather get_weather',
      'tool_result call_weather get_weather',
    ]);
    const hosted = events.filter((e) => e.type === 'tool_result' && e.callId !== 'call_weather');
    expect(hosted).toMatchObject([
      {
        ranBy: 'openai',
        result: { isError: false, content: [{ type: 'text', text: 'Searched: Bergen harbour festival 2026\nhttps://example.org/bergen/festival' }] },
      },
      { ranBy: 'openai', result: { isError: false, content: [{ type: 'text', text: 'trip.md (0.92): Arrive in Bergen on 12 June.' }] } },
      { ranBy: 'openai', result: { isError: false, content: [{ type: 'text', text: '3\n' }] } },
      { ranBy: 'openai', result: { isError: false, content: [{ type: 'image', mimeType: 'image/png', data: imageGeneration.result }] } },
      { ranBy: 'openai', result: { isError: false, content: [{ type: 'text', text: 'The quay stalls open at 10:00.' }] } },
    ]);
    for (const event of hosted) expect(event).not.toHaveProperty('durationMs');
    expect(events.filter((e) => e.type === 'tool_call').slice(0, 5)).toMatchObject([
      { args: webSearch.action },
      { args: { queries: ['trip dates Bergen'] } },
      { args: { code: 'print(14 - 12 + 1)' } },
      { args: {} },
      { args: { tool: 'search_docs', arguments: '{"q":"opening hours"}' } },
    ]);
  });

  it('asks the approve callback about each MCP call OpenAI holds for approval and answers with mcp_approval_response items', async () => {
    // https://platform.openai.com/docs/guides/tools-remote-mcp ("Approvals"): the call waits as an
    // mcp_approval_request item; the next request answers it, and the call then runs.
    const askSearch = {
      type: 'mcp_approval_request',
      id: 'mcpr_search',
      server_label: 'festival_docs',
      name: 'search_docs',
      arguments: '{"q":"tickets"}',
    } satisfies ResponseOutputItem;
    const askDelete = {
      type: 'mcp_approval_request',
      id: 'mcpr_delete',
      server_label: 'festival_docs',
      name: 'delete_page',
      arguments: '{"page":"tickets"}',
    } satisfies ResponseOutputItem;
    const ranSearch = {
      ...mcpCall,
      id: 'mcp_2',
      arguments: '{"q":"tickets"}',
      output: 'Tickets cost 200 NOK.',
      approval_request_id: 'mcpr_search',
    } satisfies ResponseOutputItem;
    server = await startProviderServer([
      { body: response([listTools, askSearch, askDelete]) },
      { body: response([ranSearch, message('Tickets cost 200 NOK; I did not delete anything.')]) },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const docs = builtin.openai.mcp({
      server_label: 'festival_docs',
      server_url: 'https://mcp.example.org/mcp',
      require_approval: { never: { tool_names: ['list_pages'] } },
    });
    const asked: ApprovalRequest[] = [];
    const approve = (request: ApprovalRequest) => {
      asked.push(request);
      return (request.args as { tool: string }).tool === 'search_docs' ? true : { approved: false, reason: 'no deleting' };
    };
    const result = await new Agent({ model, tools: [docs], approve }).run('Ticket prices? And clean up the tickets page.');

    expect(result).toMatchObject({ text: 'Tickets cost 200 NOK; I did not delete anything.', stopReason: 'final_answer', steps: 2 });
    // The approval filter goes out as the client's type and the guide describe it.
    expect((server.requests[0]!.body['tools'] as unknown[])[0]).toEqual({
      type: 'mcp',
      server_label: 'festival_docs',
      server_url: 'https://mcp.example.org/mcp',
      require_approval: { never: { tool_names: ['list_pages'] } },
    } satisfies OpenAI.Responses.Tool);
    expect(asked.map((r) => [r.tool, r.callId, r.args])).toEqual([
      [docs, 'mcpr_search', { tool: 'search_docs', arguments: '{"q":"tickets"}' }],
      [docs, 'mcpr_delete', { tool: 'delete_page', arguments: '{"page":"tickets"}' }],
    ]);
    const input = server.requests[1]!.body['input'] as ResponseInputItem[];
    expect(input.slice(1)).toEqual([
      listTools,
      askSearch,
      askDelete,
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_search', approve: true },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_delete', approve: false, reason: expect.stringContaining('no deleting') },
    ] satisfies ResponseInputItem[]);

    // One call event a request; the refused one ends at once, the approved one when OpenAI ran it.
    const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(events.map((e) => `${e.type} ${e.callId}`)).toEqual([
      'tool_call mcpr_search',
      'tool_call mcpr_delete',
      'tool_result mcpr_delete',
      'tool_result mcpr_search',
    ]);
    expect(events[2]).toMatchObject({
      tool: 'openai_mcp_festival_docs',
      durationMs: expect.any(Number),
      result: { isError: true, error: { code: ErrorCode.ApprovalDenied } },
    });
    expect(events[3]).toMatchObject({
      tool: 'openai_mcp_festival_docs',
      ranBy: 'openai',
      result: { isError: false, content: [{ text: 'Tickets cost 200 NOK.' }] },
    });
  });

  it('reports a hosted MCP server whose tools OpenAI could not list as a diagnostic', async () => {
    // https://platform.openai.com/docs/api-reference/responses/object: an mcp_list_tools item carries
    // `error` when the server could not list its tools; the model answers without them.
    const failedList = {
      type: 'mcp_list_tools',
      id: 'mcpl_2',
      server_label: 'festival_docs',
      tools: [],
      error: 'Error retrieving tool list from MCP server: 401 Unauthorized',
    } satisfies ResponseOutputItem;
    server = await startProviderServer([{ body: response([failedList, message('I cannot reach the festival docs.')]) }]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: [builtin.openai.mcp({ server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp' })] }).run(
      'Opening hours?',
    );
    expect(result.text).toBe('I cannot reach the festival docs.');
    const diagnostics = result.context.events.filter((e) => e.type === 'diagnostic');
    expect(diagnostics).toMatchObject([
      {
        code: ErrorCode.McpConnectFailed,
        source: 'openai-responses gpt-test',
        tool: 'openai_mcp_festival_docs',
        message: expect.stringMatching(/could not list the tools of the MCP server "festival_docs".*401 Unauthorized/),
      },
    ]);
    // A list that worked reports nothing.
    await server.close();
    server = await startProviderServer([{ body: response([listTools, message('Listed.')]) }]);
    const ok = await new Agent({
      model: new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 }),
      tools: [builtin.openai.mcp({ server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp' })],
    }).run('Hi');
    expect(ok.context.events.filter((e) => e.type === 'diagnostic')).toEqual([]);
  });

  it('refuses a held MCP call when the agent has no approve callback, as it refuses local tools', async () => {
    const ask = {
      type: 'mcp_approval_request',
      id: 'mcpr_1',
      server_label: 'festival_docs',
      name: 'search_docs',
      arguments: '{}',
    } satisfies ResponseOutputItem;
    server = await startProviderServer([{ body: response([ask]) }, { body: response([message('I could not look it up.')]) }]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({
      model,
      tools: [builtin.openai.mcp({ server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp', require_approval: 'always' })],
    }).run('Look it up.');
    expect(result.text).toBe('I could not look it up.');
    expect((server.requests[1]!.body['input'] as ResponseInputItem[]).at(-1)).toEqual({
      type: 'mcp_approval_response',
      approval_request_id: 'mcpr_1',
      approve: false,
      reason: expect.stringContaining('no approve callback'),
    });
  });

  it('pauses on a hosted call held for approval, and sends the answer given on resume to the provider', async () => {
    const ask = {
      type: 'mcp_approval_request',
      id: 'mcpr_2',
      server_label: 'festival_docs',
      name: 'search_docs',
      arguments: '{"q":"stages"}',
    } satisfies ResponseOutputItem;
    const provider = await startProviderServer([
      { body: response([ask]) },
      { body: response([message('Three stages.')]) },
      { body: response([message('I could not look.')]) },
    ]);
    server = provider;
    const docs = () => builtin.openai.mcp({ server_label: 'festival_docs', server_url: 'https://mcp.example.org/mcp', require_approval: 'always' });
    const model = () => new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: provider.url, maxRetries: 0 });
    const paused = await new Agent({ model: model(), tools: [docs()], approve: 'pause' }).run('How many stages?');
    expect(paused.stopReason).toBe('interrupted');
    expect(paused.interruptions).toEqual([
      expect.objectContaining({
        kind: 'approval',
        hosted: true,
        callId: 'mcpr_2',
        tool: 'openai_mcp_festival_docs',
        args: { tool: 'search_docs', arguments: '{"q":"stages"}' },
      }),
    ]);
    expect(provider.requests).toHaveLength(1);

    const state = JSON.parse(JSON.stringify(paused.state)) as typeof paused.state & object;
    const done = await new Agent({ model: model(), tools: [docs()] }).resume(state, { [state.pending[0]!.id]: { approved: false, reason: 'not now' } });
    expect(done.text).toBe('Three stages.');
    expect((provider.requests[1]!.body['input'] as ResponseInputItem[]).at(-1)).toEqual({
      type: 'mcp_approval_response',
      approval_request_id: 'mcpr_2',
      approve: false,
      reason: 'not now',
    });

    // Left unanswered, a hosted call is asked again as the resuming agent asks: here its callback approves.
    const unanswered = { ...(JSON.parse(JSON.stringify(paused.state)) as typeof state), pauseId: 'a copy resumed in another process' };
    const again = await new Agent({ model: model(), tools: [docs()], approve: () => true }).resume(unanswered, {});
    expect(again.text).toBe('I could not look.');
    expect((provider.requests[2]!.body['input'] as ResponseInputItem[]).at(-1)).toEqual({
      type: 'mcp_approval_response',
      approval_request_id: 'mcpr_2',
      approve: true,
    });
  });

  it('streams a code interpreter call: the call and its result as run events, the text deltas, the items back verbatim', async () => {
    const call = {
      type: 'function_call',
      id: 'fc_1',
      call_id: 'call_weather',
      name: 'get_weather',
      arguments: '{"city":"Bergen"}',
      status: 'completed',
    } satisfies ResponseOutputItem;
    let n = 0;
    const events = (list: Array<Partial<ResponseStreamEvent>>): Array<Record<string, unknown>> => list.map((e) => ({ ...e, sequence_number: n++ }));
    // https://platform.openai.com/docs/api-reference/responses-streaming: the item is added, its code
    // streams, it is done; the text streams; response.completed carries every item.
    server = await startProviderServer([
      {
        body: null,
        events: events([
          { type: 'response.output_item.added', output_index: 0, item: { ...codeInterpreter, status: 'in_progress', code: '', outputs: null } },
          { type: 'response.code_interpreter_call_code.delta', output_index: 0, item_id: 'ci_1', delta: 'print(14 - 12' },
          { type: 'response.code_interpreter_call_code.delta', output_index: 0, item_id: 'ci_1', delta: ' + 1)' },
          { type: 'response.code_interpreter_call.completed', output_index: 0, item_id: 'ci_1' },
          { type: 'response.output_item.done', output_index: 0, item: codeInterpreter },
          { type: 'response.output_text.delta', item_id: 'msg_0', output_index: 1, content_index: 0, delta: '3 days. ', logprobs: [] },
          { type: 'response.output_item.added', output_index: 2, item: { ...call, arguments: '', status: 'in_progress' } },
          { type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 2, delta: '{"city":"Bergen"}' },
          { type: 'response.completed', response: response([codeInterpreter, message('3 days. ', 'msg_0'), call]) as unknown as OpenAI.Responses.Response },
        ]),
      },
      {
        body: null,
        events: events([
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Bergen: 21 celsius.', logprobs: [] },
          { type: 'response.completed', response: response([message('Bergen: 21 celsius.')]) as unknown as OpenAI.Responses.Response },
        ]),
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather, builtin.openai.codeInterpreter()] }).stream('How many days, and the weather?'))
      seen.push(event);

    expect(
      seen.map((e) =>
        e.type === 'text_delta' ? e.text : e.type === 'tool_result' ? `result ${e.tool}` : e.type === 'tool_call_start' ? `start ${e.name}` : e.type,
      ),
    ).toEqual(['3 days. ', 'start get_weather', 'tool_call_delta', 'result openai_code_interpreter', 'result get_weather', 'Bergen: 21 celsius.', 'result']);
    expect(seen.find((e) => e.type === 'tool_result' && e.tool === 'openai_code_interpreter')).toMatchObject({
      callId: 'ci_1',
      result: { content: [{ text: '3\n' }] },
    });
    const input = server.requests[1]!.body['input'] as ResponseInputItem[];
    expect(input.slice(1)).toEqual([
      codeInterpreter,
      message('3 days. ', 'msg_0'),
      call,
      { type: 'function_call_output', call_id: 'call_weather', output: 'Bergen: 21 celsius' },
    ]);
  });
});
