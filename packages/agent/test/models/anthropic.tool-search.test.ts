// Deferred tools through AnthropicModel: `defer_loading` and Anthropic's tool-search tool in the request,
// typed as the official client's request params (in each client major this project runs), and a turn
// in which Anthropic searched, loaded a tool and called it: the call runs, the search is recorded, and
// the turn goes back verbatim.
import { Toolset, resultText, tool } from '@anytool/core';
import { Agent } from '@anytool/agent';
import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const make = (name: string, description: string) =>
  tool(({ q }: { q: string }) => `${name}(${q})`, {
    name,
    description,
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  });

function toolset(): Toolset {
  return new Toolset(make('read_notes', 'Read my notes.')).defer([make('jira_create_ticket', 'Create a Jira ticket.'), make('slack_post', 'Post to Slack.')]);
}

function message(content: Anthropic.ContentBlock[], stop: Anthropic.StopReason): Record<string, unknown> {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool: the search is a server
// tool call whose result holds tool_reference blocks; the model then calls the loaded tool.
const direct = { type: 'direct' } as const;
const searchCall = {
  type: 'server_tool_use',
  id: 'srvtoolu_1',
  name: 'tool_search_tool_regex',
  input: { query: 'jira' },
  caller: direct,
} satisfies Anthropic.ServerToolUseBlock;
const searchResult = {
  type: 'tool_search_tool_result',
  tool_use_id: 'srvtoolu_1',
  content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'jira_create_ticket' }] },
} satisfies Anthropic.ToolSearchToolResultBlock;
const call = { type: 'tool_use', id: 'toolu_1', name: 'jira_create_ticket', input: { q: 'rotate cert' }, caller: direct } satisfies Anthropic.ToolUseBlock;

describe('AnthropicModel with deferred tools', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends defer_loading and the regex tool search, runs the tool the search loaded and sends the turn back', async () => {
    server = await startProviderServer([
      { body: message([searchCall, searchResult, call], 'tool_use') },
      { body: message([{ type: 'text', text: 'Filed.', citations: null }], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0, toolSearch: 'regex' });
    expect(model.nativeToolSearch).toBe(true);
    const result = await new Agent({ model, tools: toolset() }).run('File a ticket.');
    expect(result.text).toBe('Filed.');

    const [first, second] = server.requests;
    const params = first!.body as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const expected: Anthropic.ToolUnion[] = [
      { name: 'read_notes', description: 'Read my notes.', input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
      { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
      {
        name: 'jira_create_ticket',
        description: 'Create a Jira ticket.',
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        defer_loading: true,
      },
      {
        name: 'slack_post',
        description: 'Post to Slack.',
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        defer_loading: true,
      },
    ];
    expect(params.tools).toEqual(expected);
    expect(second!.body['tools']).toEqual(expected);
    const messages = second!.body['messages'] as Anthropic.MessageParam[];
    expect(messages[1]).toEqual({ role: 'assistant', content: [searchCall, searchResult, call] });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'jira_create_ticket(rotate cert)' }] }],
    });
    const recorded = result.context.events.flatMap((e) => (e.type === 'tool_result' ? [[e.tool, resultText(e.result)]] : []));
    expect(recorded).toEqual([
      ['tool_search_tool_regex', 'Loaded: jira_create_ticket'],
      ['jira_create_ticket', 'jira_create_ticket(rotate cert)'],
    ]);
  });
});
