// Tool search with 300 MCP tools: six services of 50 tools each, each service its own MCP server
// (two child processes over stdio, four streamable HTTP servers on 127.0.0.1, all the v2 SDK's
// McpServer), deferred as a whole. An agent talks to a local HTTP server speaking each provider's
// wire format through the official client: the first request carries at most a tenth of the tokens
// the eager definitions take; the model searches, the found tool is loaded, called, and runs on its
// server. With Anthropic and the OpenAI Responses API the deferral is the provider's own
// (`defer_loading` and its tool-search tool); with Chat Completions and Gemini it is the agent's
// portable search tool.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Toolset, lowerDefinitions, resultText, tool, type DefinitionFormat, type ToolDefinition } from '@anytool/core';
import { Agent, ScriptedModel, type Model } from '@anytool/agent';
import { AnthropicModel } from '../../packages/agent/src/models/anthropic';
import { GeminiModel } from '../../packages/agent/src/models/gemini';
import { OpenAIModel } from '../../packages/agent/src/models/openai';
import { OpenAIResponsesModel } from '../../packages/agent/src/models/openai-responses';
import { McpToolset, type McpServerConfig } from '@anytool/mcp';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming, ResponseOutputItem } from 'openai/resources/responses/responses';
// o200k_base, the main encoding of gpt-tokenizer.
import { countTokens } from 'gpt-tokenizer';
import { startProviderServer, type ProviderServer, type ReceivedRequest } from '../../packages/agent/test/helpers/provider-server';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

interface Catalog {
  SERVICE_NAMES: string[];
  catalog(service: string): Array<{ name: string }>;
  catalogServer(service: string): Parameters<typeof createMcpHandler>[0] extends (...args: never[]) => infer S ? Awaited<S> : never;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS fixture shared with the stdio server and the bench
const { SERVICE_NAMES, catalogServer } = require('./fixtures/tool-catalog.cjs') as Catalog;
const STDIO = new Set(['github', 'jira']);

const clock = tool(() => '2026-12-01T21:00:00Z', {
  name: 'current_time',
  description: 'The current date and time (UTC).',
  parameters: { type: 'object', properties: {} },
});

let mcp: McpToolset;
const http: Array<{ server: Server; handler: ReturnType<typeof createMcpHandler> }> = [];
beforeAll(async () => {
  const servers: Record<string, McpServerConfig> = {};
  for (const service of SERVICE_NAMES) {
    if (STDIO.has(service)) {
      servers[service] = { command: process.execPath, args: [path.join(__dirname, 'fixtures', 'catalog-server.mjs'), service] };
      continue;
    }
    const handler = createMcpHandler(() => catalogServer(service));
    const node = toNodeHandler(handler);
    const server = createServer((req, res) => void node(req as Parameters<typeof node>[0], res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    http.push({ server, handler });
    servers[service] = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
  }
  // Our own fixture servers: trusted, so their tools run without an approval question.
  mcp = await McpToolset.connect({ mcpServers: servers }, { trusted: true });
});
afterAll(async () => {
  await mcp?.close();
  for (const { server, handler } of http) {
    await handler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Tokens of a tools array as sent (o200k_base, the tokenizer of OpenAI's current models; an estimate for the others). */
const tokens = (tools: unknown): number => countTokens(JSON.stringify(tools));
/** The tools a provider loads into the model's context: a native deferred tool is not among them until found. */
const inContext = (tools: unknown[]): unknown[] => tools.filter((t) => (t as { defer_loading?: unknown }).defer_loading !== true);

function deferredToolset(): Toolset {
  return new Toolset(clock).defer(mcp);
}

/** What the eager toolset sends in `format`: every definition in full. */
function eagerTools(format: DefinitionFormat): unknown[] {
  const toolset = new Toolset(clock, mcp);
  return lowerDefinitions(format, toolset.neutralDefinitions()).tools;
}

const WANTED = 'jira_create_ticket';
const ARGS = { project_key: 'OPS', summary: 'Rotate the staging TLS certificate', issue_type: 'Task' };

function expectRanOnItsServer(text: string): void {
  // The jira server is a child process: the call ran there, with the model's arguments.
  expect(text).toMatch(new RegExp(`^${WANTED} ran in (\\d+) with `));
  expect(Number(/ran in (\d+)/.exec(text)![1])).not.toBe(process.pid);
  expect(JSON.parse(text.slice(text.indexOf(' with ') + 6))).toEqual(ARGS);
}

let provider: ProviderServer | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe('300 MCP tools from 6 servers, deferred', () => {
  it('holds 300 tools from the six servers, every one deferred', () => {
    const toolset = deferredToolset();
    expect(mcp.tools).toHaveLength(300);
    expect(toolset.neutralDefinitions().filter((d) => d.deferLoading === true)).toHaveLength(300);
    expect(toolset.isDeferred('current_time')).toBe(false);
  });

  it('Anthropic: lowered to defer_loading and the BM25 tool search; the model searches, loads and calls an MCP tool', async () => {
    const searchCall = {
      type: 'server_tool_use',
      id: 'srvtoolu_1',
      name: 'tool_search_tool_bm25',
      input: { query: 'create a jira ticket' },
      caller: { type: 'direct' },
    } satisfies Anthropic.ServerToolUseBlock;
    const searchResult = {
      type: 'tool_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: WANTED }] },
    } satisfies Anthropic.ToolSearchToolResultBlock;
    const call = { type: 'tool_use', id: 'toolu_1', name: WANTED, input: ARGS, caller: { type: 'direct' } } satisfies Anthropic.ToolUseBlock;
    const message = (content: Anthropic.ContentBlock[], stop: Anthropic.StopReason): Record<string, unknown> => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    provider = await startProviderServer([
      { body: message([searchCall, searchResult, call], 'tool_use') },
      { body: message([{ type: 'text', text: 'Created OPS ticket.', citations: null }], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: provider.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: deferredToolset() }).run('File a ticket to rotate the staging certificate.');
    expect(result.text).toBe('Created OPS ticket.');

    const [first, second] = provider.requests as [ReceivedRequest, ReceivedRequest];
    const sent = first.body['tools'] as Anthropic.ToolUnion[];
    // The request type of the official client: the lowering is one of its tool shapes.
    const params: Anthropic.MessageCreateParamsNonStreaming = { model: 'claude-test', max_tokens: 10, messages: [], tools: sent };
    expect(params.tools![1]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    expect(sent[0]).toMatchObject({ name: 'current_time' });
    expect(sent.slice(2)).toHaveLength(300);
    expect(sent.slice(2).every((t) => (t as Anthropic.Tool).defer_loading === true)).toBe(true);
    expect(tokens(inContext(sent))).toBeLessThanOrEqual(tokens(eagerTools('anthropic')) / 10);
    // The same array on every turn; the search and its result go back as the provider sent them.
    expect(JSON.stringify(second.body['tools'])).toBe(JSON.stringify(sent));
    const replayed = (second.body['messages'] as Anthropic.MessageParam[])[1]!.content as Anthropic.ContentBlockParam[];
    expect(replayed.map((b) => b.type)).toEqual(['server_tool_use', 'tool_search_tool_result', 'tool_use']);
    const toolResult = ((second.body['messages'] as Anthropic.MessageParam[])[2]!.content as Anthropic.ToolResultBlockParam[])[0]!;
    expectRanOnItsServer((toolResult.content as Anthropic.TextBlockParam[])[0]!.text);
    const searched = result.context.events.find((e) => e.type === 'tool_result' && e.tool === 'tool_search_tool_bm25');
    expect(searched?.type === 'tool_result' && resultText(searched.result)).toBe(`Loaded: ${WANTED}`);
  });

  it('OpenAI Responses: lowered to defer_loading and tool_search; the model searches, loads and calls an MCP tool', async () => {
    const output = (items: unknown[]): Record<string, unknown> => ({
      id: 'resp_1',
      object: 'response',
      created_at: 1_760_000_000,
      status: 'completed',
      model: 'gpt-test',
      output: items,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      incomplete_details: null,
      error: null,
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        total_tokens: 120,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    });
    const found = eagerTools('openai-responses').find((t) => (t as { name?: string }).name === WANTED);
    const items = [
      { type: 'tool_search_call', id: 'ts_1', call_id: 'call_ts_1', execution: 'server', status: 'completed', arguments: { query: 'jira ticket' } },
      { type: 'tool_search_output', id: 'tso_1', call_id: 'call_ts_1', execution: 'server', status: 'completed', tools: [found] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: WANTED, arguments: JSON.stringify(ARGS), status: 'completed' },
    ] as ResponseOutputItem[];
    provider = await startProviderServer([
      { body: output(items) },
      {
        body: output([
          { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Created.', annotations: [] }] },
        ]),
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k', baseURL: provider.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: deferredToolset() }).run('File a ticket to rotate the staging certificate.');
    expect(result.text).toBe('Created.');

    const [first, second] = provider.requests as [ReceivedRequest, ReceivedRequest];
    const sent = first.body['tools'] as NonNullable<ResponseCreateParamsNonStreaming['tools']>;
    const params: ResponseCreateParamsNonStreaming = { model: 'gpt-test', input: [], tools: sent };
    expect(params.tools![1]).toEqual({ type: 'tool_search' });
    expect(sent.slice(2)).toHaveLength(300);
    expect(sent.slice(2).every((t) => t.type === 'function' && t.defer_loading === true)).toBe(true);
    expect(tokens(inContext(sent))).toBeLessThanOrEqual(tokens(eagerTools('openai-responses')) / 10);
    expect(JSON.stringify(second.body['tools'])).toBe(JSON.stringify(sent));
    const input = second.body['input'] as Array<{ type?: string; output?: string }>;
    expect(input.map((i) => i.type)).toEqual([undefined, 'tool_search_call', 'tool_search_output', 'function_call', 'function_call_output']);
    expectRanOnItsServer(input[4]!.output!);
    const searched = result.context.events.find((e) => e.type === 'tool_result' && e.tool === 'tool_search');
    expect(searched?.type === 'tool_result' && resultText(searched.result)).toBe(`Loaded: ${WANTED}`);
  });

  it('Chat Completions: the portable search tool finds the tool, the next request appends it, the call runs', async () => {
    const completion = (message: Record<string, unknown>, finish: string): ChatCompletion =>
      ({
        id: 'chatcmpl_1',
        object: 'chat.completion',
        created: 1_760_000_000,
        model: 'gpt-test',
        choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finish, logprobs: null }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }) as ChatCompletion;
    const toolCall = (id: string, name: string, args: unknown): Record<string, unknown> => ({
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    provider = await startProviderServer([
      { body: completion(toolCall('call_search', 'search_tools', { query: 'create jira ticket' }), 'tool_calls') },
      { body: completion(toolCall('call_1', WANTED, ARGS), 'tool_calls') },
      { body: completion({ content: 'Created.' }, 'stop') },
    ]);
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: provider.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: deferredToolset() }).run('File a ticket to rotate the staging certificate.');
    expect(result.text).toBe('Created.');

    const [first, second, third] = provider.requests.map((r) => r.body['tools'] as Array<{ function: { name: string } }>);
    expect(first!.map((t) => t.function.name)).toEqual(['current_time', 'search_tools']);
    expect(tokens(first)).toBeLessThanOrEqual(tokens(eagerTools('openai')) / 10);
    // Loaded tools are appended: the earlier array is a byte-identical prefix of the next.
    expect(second!.map((t) => t.function.name).slice(0, 2)).toEqual(['current_time', 'search_tools']);
    expect(second!.slice(2).map((t) => t.function.name)).toContain(WANTED);
    expect(JSON.stringify(second).startsWith(JSON.stringify(first).slice(0, -1))).toBe(true);
    expect(JSON.stringify(third)).toBe(JSON.stringify(second));
    const toolMessage = (provider.requests[2]!.body['messages'] as Array<{ role: string; tool_call_id?: string; content?: string }>).find(
      (m) => m.tool_call_id === 'call_1',
    );
    expectRanOnItsServer(toolMessage!.content!);
  });

  it('Gemini: the portable search tool finds the tool, the next request appends it, the call runs', async () => {
    const answer = (parts: unknown[]): Record<string, unknown> => ({
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
    });
    provider = await startProviderServer([
      { body: answer([{ functionCall: { id: 'g1', name: 'search_tools', args: { query: 'create jira ticket' } } }]) },
      { body: answer([{ functionCall: { id: 'g2', name: WANTED, args: ARGS } }]) },
      { body: answer([{ text: 'Created.' }]) },
    ]);
    const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => globalThis.fetch(input, init);
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k', baseURL: provider.url, fetch, maxRetries: 0 });
    const result = await new Agent({ model, tools: deferredToolset() }).run('File a ticket to rotate the staging certificate.');
    expect(result.text).toBe('Created.');

    const declarations = (request: ReceivedRequest): Array<{ name: string }> =>
      ((request.body['tools'] as Array<{ functionDeclarations?: Array<{ name: string }> }>)[0]?.functionDeclarations ?? []) as Array<{ name: string }>;
    const [first, second] = provider.requests.map(declarations);
    expect(first!.map((d) => d.name)).toEqual(['current_time', 'search_tools']);
    expect(tokens(first)).toBeLessThanOrEqual(tokens(eagerTools('gemini')) / 10);
    expect(second!.slice(2).map((d) => d.name)).toContain(WANTED);
    expect(JSON.stringify(second).startsWith(JSON.stringify(first).slice(0, -1))).toBe(true);
    const response = JSON.stringify(provider.requests[2]!.body['contents']);
    expect(response).toContain(`${WANTED} ran in`);
    const toolResult = result.context.events.find((e) => e.type === 'tool_result' && e.tool === WANTED);
    expectRanOnItsServer(toolResult?.type === 'tool_result' ? resultText(toolResult.result) : '');
  });

  it('MCP format: a scripted model gets the small list first, then the loaded tool appended', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 's1', name: 'search_tools', arguments: { query: 'create jira ticket' } }] },
      { toolCalls: [{ id: 'c1', name: WANTED, arguments: ARGS }] },
      { text: 'Created.' },
    ]);
    const result = await new Agent({ model: model as Model, tools: deferredToolset() }).run('File a ticket.');
    expect(result.text).toBe('Created.');
    const lowered = model.requests.map((r) => lowerDefinitions('mcp', r.tools as ToolDefinition[]).tools);
    expect(tokens(lowered[0])).toBeLessThanOrEqual(tokens(eagerTools('mcp')) / 10);
    expect(JSON.stringify(lowered[1]).startsWith(JSON.stringify(lowered[0]).slice(0, -1))).toBe(true);
    const ran = result.context.events.find((e) => e.type === 'tool_result' && e.tool === WANTED);
    expectRanOnItsServer(ran?.type === 'tool_result' ? resultText(ran.result) : '');
  });
});
