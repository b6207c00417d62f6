// The agent's tool list under tool search: the portable search tool for models without their own, loaded
// tools appended in load order and kept for the run, the array's earlier part byte-identical on every
// turn in every format; a model with native tool search gets every definition, deferred ones marked.
import { ErrorCode, Toolset, lowerDefinitions, resultText, tool, type BaseTool, type DefinitionFormat, type ToolDefinition } from '@anytool/core';
import { Agent, ScriptedModel, type Model, type ModelRequest } from '@anytool/agent';
import { AnthropicModel } from '../src/models/anthropic.js';
import { OpenAIResponsesModel } from '../src/models/openai-responses.js';
import { startProviderServer, type ProviderServer } from './helpers/provider-server.js';

const make = (name: string, description: string): BaseTool =>
  tool(({ q }: { q?: string }) => `${name}(${q ?? ''})`, {
    name,
    description,
    parameters: { type: 'object', properties: { q: { type: 'string', description: 'What to work on.' } } },
  });

function toolset(): Toolset {
  return new Toolset(make('notes_read', 'Read the notes.'), make('notes_write', 'Write a note.')).defer([
    make('github_create_issue', 'Create a GitHub issue.'),
    make('jira_create_ticket', 'Create a Jira ticket.'),
    make('slack_post_message', 'Post a Slack message.'),
    make('calendar_create_event', 'Create a calendar event.'),
  ]);
}

const search = (id: string, query: string) => ({ id, name: 'search_tools', arguments: { query, limit: 1 } });
const FORMATS: DefinitionFormat[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

describe('the tool list of a run under tool search', () => {
  it('sends the loaded tools, the search tool, then what each search loaded, appended; the prefix is byte-identical in every format', async () => {
    const model = new ScriptedModel([
      { toolCalls: [search('s1', 'slack message')] },
      { toolCalls: [{ id: 'c1', name: 'slack_post_message', arguments: { q: 'standup' } }, search('s2', 'jira ticket')] },
      { toolCalls: [{ id: 'c2', name: 'jira_create_ticket', arguments: { q: 'bug' } }, search('s3', 'slack message')] },
      { text: 'done' },
    ]);
    const result = await new Agent({ model, tools: toolset() }).run('go');
    expect(result.text).toBe('done');
    const names = model.requests.map((r) => r.tools.map((d) => d.name));
    const first = ['notes_read', 'notes_write', 'search_tools'];
    expect(names).toEqual([
      first,
      [...first, 'slack_post_message'],
      [...first, 'slack_post_message', 'jira_create_ticket'],
      [...first, 'slack_post_message', 'jira_create_ticket'],
    ]);
    // A loaded tool goes out as a plain tool: its deferral is the agent's business, not the provider's.
    expect(model.requests[1]!.tools.some((d) => d.deferLoading !== undefined)).toBe(false);
    for (const format of FORMATS) {
      const sent = model.requests.map((r) => lowerDefinitions(format, r.tools as ToolDefinition[]).tools.map((t) => JSON.stringify(t)));
      for (let turn = 1; turn < sent.length; turn++) expect(sent[turn]!.slice(0, sent[turn - 1]!.length)).toEqual(sent[turn - 1]);
    }
    const ran = result.context.events.flatMap((e) => (e.type === 'tool_result' ? [[e.tool, resultText(e.result)]] : []));
    expect(ran).toContainEqual(['slack_post_message', 'slack_post_message(standup)']);
    expect(ran).toContainEqual(['jira_create_ticket', 'jira_create_ticket(bug)']);
  });

  it('a continued conversation starts with the tools its earlier runs loaded, in the order they came', async () => {
    const tools = toolset();
    const first = new ScriptedModel([
      { toolCalls: [search('s1', 'jira ticket')] },
      { toolCalls: [{ id: 'c1', name: 'jira_create_ticket', arguments: { q: 'bug' } }, search('s2', 'slack message')] },
      { text: 'filed' },
    ]);
    const earlier = await new Agent({ model: first, tools }).run('file it');
    const eager = ['notes_read', 'notes_write', 'search_tools'];
    expect(first.requests[2]!.tools.map((d) => d.name)).toEqual([...eager, 'jira_create_ticket', 'slack_post_message']);

    const next = new ScriptedModel([{ toolCalls: [{ id: 'c2', name: 'slack_post_message', arguments: { q: 'filed' } }] }, { text: 'posted' }]);
    const later = await new Agent({ model: next, tools }).run([...earlier.messages, { role: 'user', content: 'and tell the team' }]);
    expect(later.text).toBe('posted');
    // The first turn already has what the conversation loaded, as the last turn before it had.
    expect(next.requests[0]!.tools.map((d) => d.name)).toEqual([...eager, 'jira_create_ticket', 'slack_post_message']);

    // A deferred tool the conversation called without a search (a model that knew its name) was never loaded, as in the run itself.
    const direct = new ScriptedModel([{ text: 'ok' }]);
    await new Agent({ model: direct, tools }).run([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'd1', name: 'calendar_create_event', arguments: {} }] },
      { role: 'tool', callId: 'd1', name: 'calendar_create_event', result: { content: [{ type: 'text', text: 'ok' }], isError: false } },
      { role: 'user', content: 'thanks' },
    ]);
    expect(direct.requests[0]!.tools.map((d) => d.name)).toEqual(eager);
  });

  it("appends read_tool_output and loaded tools in the order they came; a loaded tool's large result is cut and paged back", async () => {
    const big = 'x'.repeat(9_000);
    const tools = new Toolset(make('notes_read', 'Read the notes.')).defer([
      tool(() => big, { name: 'logs_dump', description: 'Dump the logs.', parameters: { type: 'object', properties: {} } }),
      make('jira_create_ticket', 'Create a Jira ticket.'),
    ]);
    const model = new ScriptedModel([
      { toolCalls: [{ id: 's1', name: 'search_tools', arguments: { query: 'logs dump', limit: 1 } }] },
      { toolCalls: [{ id: 'c1', name: 'logs_dump', arguments: {} }] },
      { toolCalls: [{ id: 's2', name: 'search_tools', arguments: { query: 'jira ticket', limit: 1 } }] },
      { text: 'done' },
    ]);
    const result = await new Agent({ model, tools, outputBudget: { maxChars: 2_000 } }).run('go');
    expect(result.text).toBe('done');
    const first = ['notes_read', 'search_tools'];
    expect(model.requests.map((r) => r.tools.map((d) => d.name))).toEqual([
      first,
      [...first, 'logs_dump'],
      [...first, 'logs_dump', 'read_tool_output'],
      [...first, 'logs_dump', 'read_tool_output', 'jira_create_ticket'],
    ]);
    for (const format of FORMATS) {
      const sent = model.requests.map((r) => lowerDefinitions(format, r.tools as ToolDefinition[]).tools.map((t) => JSON.stringify(t)));
      for (let turn = 1; turn < sent.length; turn++) expect(sent[turn]!.slice(0, sent[turn - 1]!.length)).toEqual(sent[turn - 1]);
    }
    const dumped = result.context.events.find((e) => e.type === 'tool_result' && e.tool === 'logs_dump');
    expect(dumped?.type === 'tool_result' && resultText(dumped.result).length).toBeLessThan(2_600);
    expect(dumped?.type === 'tool_result' && resultText(dumped.result)).toMatch(/read_tool_output/);
  });

  it("ranks with the agent's own ranker and search tool name", async () => {
    const queries: string[] = [];
    const model = new ScriptedModel([{ toolCalls: [{ id: 's1', name: 'find_tools', arguments: { query: 'anything' } }] }, { text: 'done' }]);
    const agent = new Agent({
      model,
      tools: toolset(),
      toolSearch: { name: 'find_tools', ranker: (query, tools) => (queries.push(query), [tools[tools.length - 1]!.name]) },
    });
    await agent.run('go');
    expect(queries).toEqual(['anything']);
    expect(model.requests[1]!.tools.map((d) => d.name)).toEqual(['notes_read', 'notes_write', 'find_tools', 'calendar_create_event']);
  });

  it('refuses bad tool search options when the agent is made', () => {
    expect(() => new Agent({ model: new ScriptedModel([]), toolSearch: { maxResults: 0 } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringMatching(/`maxResults` must be a positive integer/) }),
    );
  });

  it('sends no search tool when nothing is deferred', async () => {
    const model = new ScriptedModel([{ text: 'done' }]);
    await new Agent({ model, tools: [make('a', 'A.')] }).run('go');
    expect(model.requests[0]!.tools.map((d) => d.name)).toEqual(['a']);
  });

  it('refuses a toolset with a tool named like the search tool, naming the fix', async () => {
    const tools = toolset().add(make('search_tools', 'Mine.'));
    const run = new Agent({ model: new ScriptedModel([{ text: 'done' }]), tools }).run('go');
    await expect(run).rejects.toMatchObject({
      code: ErrorCode.DuplicateTool,
      message: expect.stringMatching(/name the search tool with \{ toolSearch: \{ name \} \}/),
    });
  });

  it('gives a model with native tool search every definition, the deferred ones marked, and no portable search tool', async () => {
    const scripted = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'jira_create_ticket', arguments: { q: 'x' } }] }, { text: 'done' }]);
    const native: Model = { name: 'native', nativeToolSearch: true, generate: (request: ModelRequest) => scripted.generate(request) };
    const result = await new Agent({ model: native, tools: toolset() }).run('go');
    expect(result.text).toBe('done');
    const [first, second] = scripted.requests;
    expect(first!.tools.map((d) => [d.name, d.deferLoading === true])).toEqual([
      ['notes_read', false],
      ['notes_write', false],
      ['github_create_issue', true],
      ['jira_create_ticket', true],
      ['slack_post_message', true],
      ['calendar_create_event', true],
    ]);
    expect(second!.tools).toEqual(first!.tools);
  });
});

describe("native adapters with toolSearch: 'portable'", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('Anthropic: no defer_loading, the portable search tool, the loaded tool appended', async () => {
    const message = (content: unknown[], stop: string): Record<string, unknown> => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    server = await startProviderServer([
      { body: message([{ type: 'tool_use', id: 'toolu_1', name: 'search_tools', input: { query: 'jira ticket', limit: 1 } }], 'tool_use') },
      { body: message([{ type: 'text', text: 'done', citations: null }], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0, toolSearch: 'portable' });
    expect(model.nativeToolSearch).toBe(false);
    await new Agent({ model, tools: toolset() }).run('go');
    const [first, second] = server.requests.map((r) => r.body['tools'] as Array<{ name: string }>);
    expect(first!.map((t) => t.name)).toEqual(['notes_read', 'notes_write', 'search_tools']);
    expect(second!.map((t) => t.name)).toEqual(['notes_read', 'notes_write', 'search_tools', 'jira_create_ticket']);
    expect(JSON.stringify(second).startsWith(JSON.stringify(first).slice(0, -1))).toBe(true);
    expect(JSON.stringify(server.requests.map((r) => r.body['tools']))).not.toContain('defer_loading');
  });

  it('OpenAI Responses: no tool_search tool, the portable search tool instead', async () => {
    server = await startProviderServer([
      {
        body: {
          id: 'resp_1',
          object: 'response',
          created_at: 1,
          status: 'completed',
          model: 'gpt-test',
          output: [{ type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }],
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
        },
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: server.url, maxRetries: 0, toolSearch: 'portable' });
    await new Agent({ model, tools: toolset() }).run('go');
    expect((server.requests[0]!.body['tools'] as Array<{ name?: string; type: string }>).map((t) => t.name ?? t.type)).toEqual([
      'notes_read',
      'notes_write',
      'search_tools',
    ]);
  });

  it('refuses an unknown toolSearch option', () => {
    expect(() => new AnthropicModel({ model: 'm', apiKey: 'k', toolSearch: 'fuzzy' as never })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidOptions }),
    );
    expect(() => new OpenAIResponsesModel({ model: 'm', apiKey: 'k', toolSearch: 'bm25' as never })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidOptions }),
    );
  });
});
