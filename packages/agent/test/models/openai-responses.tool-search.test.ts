// Deferred tools through OpenAIResponsesModel: `defer_loading` functions and `{ type: 'tool_search' }` in
// the request, typed as the official client's request params (in each client major this project runs),
// and a turn in which OpenAI searched, loaded a function and called it: the call runs, the search is
// recorded, and the turn's items go back verbatim.
import { Toolset, resultText, tool } from '@anytool/core';
import { Agent } from '@anytool/agent';
import type { ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const make = (name: string, description: string) =>
  tool(({ q }: { q: string }) => `${name}(${q})`, {
    name,
    description,
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  });

function response(output: ResponseOutputItem[]): Record<string, unknown> {
  return {
    id: 'resp_1',
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
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  };
}

const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false };
const jira = { type: 'function', name: 'jira_create_ticket', description: 'Create a Jira ticket.', parameters: schema, strict: true } as const;

// https://developers.openai.com/api/docs/guides/tools-tool-search: a server-executed search is a
// tool_search_call and a tool_search_output carrying the loaded definitions; the model then calls one.
const items = [
  { type: 'tool_search_call', id: 'ts_1', call_id: 'call_ts', execution: 'server', status: 'completed', arguments: { query: 'jira' } },
  { type: 'tool_search_output', id: 'tso_1', call_id: 'call_ts', execution: 'server', status: 'completed', tools: [jira] },
  { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'jira_create_ticket', arguments: '{"q":"rotate cert"}', status: 'completed' },
] as ResponseOutputItem[];

describe('OpenAIResponsesModel with deferred tools', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends defer_loading functions and tool_search, runs the function the search loaded and sends the items back', async () => {
    server = await startProviderServer([
      { body: response(items) },
      {
        body: response([
          { type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Filed.', annotations: [] }] },
        ]),
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    expect(model.nativeToolSearch).toBe(true);
    const tools = new Toolset(make('read_notes', 'Read my notes.')).defer([make('jira_create_ticket', 'Create a Jira ticket.')]);
    const result = await new Agent({ model, tools }).run('File a ticket.');
    expect(result.text).toBe('Filed.');

    const [first, second] = server.requests;
    const expected: NonNullable<ResponseCreateParamsNonStreaming['tools']> = [
      { type: 'function', name: 'read_notes', description: 'Read my notes.', parameters: schema, strict: true },
      { type: 'tool_search' },
      { ...jira, defer_loading: true },
    ];
    expect((first!.body as unknown as ResponseCreateParamsNonStreaming).tools).toEqual(expected);
    expect(second!.body['tools']).toEqual(expected);
    const input = second!.body['input'] as ResponseInputItem[];
    expect(input.slice(1, 4)).toEqual(items);
    expect(input[4]).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'jira_create_ticket(rotate cert)' });
    const recorded = result.context.events.flatMap((e) => (e.type === 'tool_result' ? [[e.tool, resultText(e.result)]] : []));
    expect(recorded).toEqual([
      ['tool_search', 'Loaded: jira_create_ticket'],
      ['jira_create_ticket', 'jira_create_ticket(rotate cert)'],
    ]);
    const call = result.context.events.find((e) => e.type === 'tool_call' && e.tool === 'tool_search');
    expect(call?.type === 'tool_call' && call.args).toEqual({ query: 'jira' });
  });
});
