// Anthropic's server tools (web search, web fetch, code execution) and client tools (bash, text
// editor, memory) through AnthropicModel: the declarations sent, and recorded responses in the
// shapes of Anthropic's API reference run through the adapter. Every declaration and block is
// checked against the official client's types (`satisfies`) and follows the page cited beside it.
import { builtin, tool, type ExecutionContext } from '@anytool/core';
import { Agent, type AgentStreamEvent } from '@anytool/agent';
import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city }: { city: string }) => `${city}: 21 celsius`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

/** A Messages API response (https://platform.claude.com/docs/en/api/messages/create), server tool usage included. */
function message(
  content: Anthropic.ContentBlock[],
  stopReason: Anthropic.StopReason,
  serverToolUse = { web_search_requests: 0, web_fetch_requests: 0 },
): Record<string, unknown> {
  return {
    id: 'msg_builtins',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: serverToolUse },
  };
}

const direct = { type: 'direct' } as const;
const text = (value: string): Anthropic.TextBlock => ({ type: 'text', text: value, citations: null });

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool ("Response"): the call,
// then its result block of web_search_result entries (the page content encrypted, for the next turn).
const search = {
  type: 'server_tool_use',
  id: 'srvtoolu_search',
  name: 'web_search',
  input: { query: 'Bergen harbour festival dates' },
  caller: direct,
} satisfies Anthropic.ServerToolUseBlock;
const searchResult = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_search',
  caller: direct,
  content: [
    {
      type: 'web_search_result',
      url: 'https://example.org/bergen/festival',
      title: 'Harbour festival 2026',
      encrypted_content: 'EqgfCioIARgB',
      page_age: '2 days ago',
    },
    { type: 'web_search_result', url: 'https://example.net/events', title: 'Events in Bergen', encrypted_content: 'Eo8BCioIARgC', page_age: null },
  ],
} satisfies Anthropic.WebSearchToolResultBlock;

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-fetch-tool ("Response"): a
// web_fetch_result holding the page as a plain-text document.
const fetchCall = {
  type: 'server_tool_use',
  id: 'srvtoolu_fetch',
  name: 'web_fetch',
  input: { url: 'https://example.org/bergen/festival' },
  caller: direct,
} satisfies Anthropic.ServerToolUseBlock;
const fetchResult = {
  type: 'web_fetch_tool_result',
  tool_use_id: 'srvtoolu_fetch',
  caller: direct,
  content: {
    type: 'web_fetch_result',
    url: 'https://example.org/bergen/festival',
    retrieved_at: '2026-11-30T09:15:00Z',
    content: {
      type: 'document',
      title: 'Harbour festival 2026',
      citations: null,
      source: { type: 'text', media_type: 'text/plain', data: 'The festival runs 12-14 June on the quay.' },
    },
  },
} satisfies Anthropic.WebFetchToolResultBlock;

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/code-execution-tool ("Response format"):
// code_execution_20250825 calls its halves bash_code_execution and text_editor_code_execution.
const writeFile = {
  type: 'server_tool_use',
  id: 'srvtoolu_write',
  name: 'text_editor_code_execution',
  input: { command: 'create', path: 'days.py', file_text: 'print(14 - 12 + 1)\n' },
  caller: direct,
} satisfies Anthropic.ServerToolUseBlock;
const written = {
  type: 'text_editor_code_execution_tool_result',
  tool_use_id: 'srvtoolu_write',
  content: { type: 'text_editor_code_execution_create_result', is_file_update: false },
} satisfies Anthropic.TextEditorCodeExecutionToolResultBlock;
const runFile = {
  type: 'server_tool_use',
  id: 'srvtoolu_bash',
  name: 'bash_code_execution',
  input: { command: 'python days.py' },
  caller: direct,
} satisfies Anthropic.ServerToolUseBlock;
const ran = {
  type: 'bash_code_execution_tool_result',
  tool_use_id: 'srvtoolu_bash',
  content: { type: 'bash_code_execution_result', stdout: '3\n', stderr: '', return_code: 0, content: [] },
} satisfies Anthropic.BashCodeExecutionToolResultBlock;

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/bash-tool, .../text-editor-tool and
// .../memory-tool: the model calls client tools with tool_use blocks in the tools' fixed input shapes.
const bashCall = { type: 'tool_use', id: 'toolu_bash', name: 'bash', input: { command: 'ls ~/trips' }, caller: direct } satisfies Anthropic.ToolUseBlock;
const editorCall = {
  type: 'tool_use',
  id: 'toolu_edit',
  name: 'str_replace_based_edit_tool',
  input: { command: 'view', path: 'trips/bergen.md' },
  caller: direct,
} satisfies Anthropic.ToolUseBlock;
const memoryCall = {
  type: 'tool_use',
  id: 'toolu_memory',
  name: 'memory',
  input: { command: 'view', path: '/memories' },
  caller: direct,
} satisfies Anthropic.ToolUseBlock;

describe('Anthropic built-in tools through AnthropicModel', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("declares each tool in the documented shape, records the server tools' calls and results, runs the client tools and sends the turn back verbatim", async () => {
    const handled: Array<[string, unknown]> = [];
    const handler =
      (name: string) =>
      (args: object, context: ExecutionContext): string => {
        expect(context.runId).toEqual(expect.any(String));
        handled.push([name, args]);
        return `${name} done`;
      };
    const firstTurn = [
      search,
      searchResult,
      fetchCall,
      fetchResult,
      writeFile,
      written,
      runFile,
      ran,
      text('The festival lasts 3 days. Checking your notes.'),
      bashCall,
      editorCall,
      memoryCall,
    ];
    server = await startProviderServer([
      { body: message(firstTurn, 'tool_use', { web_search_requests: 1, web_fetch_requests: 1 }) },
      { body: message([text('It runs 12-14 June; your notes say you arrive on the 12th.')], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const tools = [
      weather,
      builtin.anthropic.webSearch({
        max_uses: 2,
        allowed_domains: ['example.org', 'example.net'],
        user_location: { type: 'approximate', city: 'Bergen', country: 'NO', timezone: 'Europe/Oslo' },
      }),
      builtin.anthropic.webFetch({ max_uses: 1, citations: { enabled: true }, max_content_tokens: 20_000 }),
      builtin.anthropic.codeExecution(),
      builtin.anthropic.bash(handler('bash')),
      builtin.anthropic.textEditor(handler('editor')),
      builtin.anthropic.memory(handler('memory')),
    ];
    // The client tools are marked destructive: each call is approved first, as any local tool's.
    const asked: string[] = [];
    const approve = ({ tool: asking }: { tool: { name: string } }): boolean => (asked.push(asking.name), true);
    const result = await new Agent({ model, tools, approve }).run('How long is the Bergen harbour festival, and does it fit my trip?');
    expect(asked).toEqual(['bash', 'str_replace_based_edit_tool', 'memory']);

    expect(result.text).toBe('It runs 12-14 June; your notes say you arrive on the 12th.');
    const [first, second] = server.requests;
    expect(first!.body['tools']).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather in a city.',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool ("Tool definition")
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 2,
        allowed_domains: ['example.org', 'example.net'],
        user_location: { type: 'approximate', city: 'Bergen', country: 'NO', timezone: 'Europe/Oslo' },
      },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-fetch-tool ("Tool definition")
      { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 1, citations: { enabled: true }, max_content_tokens: 20_000 },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/code-execution-tool
      { type: 'code_execution_20250825', name: 'code_execution' },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/bash-tool
      { type: 'bash_20250124', name: 'bash' },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/text-editor-tool
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
      // https://platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool
      { type: 'memory_20250818', name: 'memory' },
    ] satisfies Anthropic.ToolUnion[]);

    // The server tools' blocks go back as they came, then the client tools' results in one user message.
    const messages = second!.body['messages'] as Anthropic.MessageParam[];
    expect(messages[1]).toEqual({ role: 'assistant', content: firstTurn });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_bash', content: [{ type: 'text', text: 'bash done' }] },
        { type: 'tool_result', tool_use_id: 'toolu_edit', content: [{ type: 'text', text: 'editor done' }] },
        { type: 'tool_result', tool_use_id: 'toolu_memory', content: [{ type: 'text', text: 'memory done' }] },
      ],
    } satisfies Anthropic.MessageParam);
    expect(handled).toEqual([
      ['bash', { command: 'ls ~/trips' }],
      ['editor', { command: 'view', path: 'trips/bergen.md' }],
      ['memory', { command: 'view', path: '/memories' }],
    ]);

    const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
    expect(events.map((e) => `${e.type} ${e.callId} ${e.tool}`)).toEqual([
      'tool_call srvtoolu_search anthropic_web_search',
      'tool_result srvtoolu_search anthropic_web_search',
      'tool_call srvtoolu_fetch anthropic_web_fetch',
      'tool_result srvtoolu_fetch anthropic_web_fetch',
      'tool_call srvtoolu_write anthropic_code_execution',
      'tool_result srvtoolu_write anthropic_code_execution',
      'tool_call srvtoolu_bash anthropic_code_execution',
      'tool_result srvtoolu_bash anthropic_code_execution',
      // Destructive tools run one at a time, in the model's order.
      'tool_call toolu_bash bash',
      'tool_result toolu_bash bash',
      'tool_call toolu_edit str_replace_based_edit_tool',
      'tool_result toolu_edit str_replace_based_edit_tool',
      'tool_call toolu_memory memory',
      'tool_result toolu_memory memory',
    ]);
    const builtinResults = events.filter((e) => e.type === 'tool_result' && e.callId.startsWith('srvtoolu_'));
    expect(builtinResults).toMatchObject([
      {
        ranBy: 'anthropic',
        result: {
          isError: false,
          content: [{ text: 'Harbour festival 2026 https://example.org/bergen/festival\nEvents in Bergen https://example.net/events' }],
        },
      },
      {
        ranBy: 'anthropic',
        result: { isError: false, content: [{ text: 'https://example.org/bergen/festival Harbour festival 2026\nThe festival runs 12-14 June on the quay.' }] },
      },
      { ranBy: 'anthropic', result: { isError: false } },
      { ranBy: 'anthropic', result: { isError: false, content: [{ text: '3\n' }] } },
    ]);
    // Nobody knows how long the provider's tools took: no duration is made up.
    for (const event of builtinResults) expect(event).not.toHaveProperty('durationMs');
    expect(events.find((e) => e.type === 'tool_call' && e.callId === 'srvtoolu_bash')).toMatchObject({ args: { command: 'python days.py' } });
    // Local calls keep their measured duration.
    expect(events.find((e) => e.type === 'tool_result' && e.callId === 'toolu_bash')).toMatchObject({ durationMs: expect.any(Number) });
  });

  it('reports the documented error blocks and a failed command as error results', async () => {
    server = await startProviderServer([
      {
        body: message(
          [
            { ...search, id: 'srvtoolu_s2' },
            // web-search-tool page, "Errors": the result block's content is an error object, the request still succeeds.
            {
              type: 'web_search_tool_result',
              tool_use_id: 'srvtoolu_s2',
              caller: direct,
              content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' },
            } satisfies Anthropic.WebSearchToolResultBlock,
            { ...fetchCall, id: 'srvtoolu_f2' },
            // web-fetch-tool page, "Errors"
            {
              type: 'web_fetch_tool_result',
              tool_use_id: 'srvtoolu_f2',
              caller: direct,
              content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' },
            } satisfies Anthropic.WebFetchToolResultBlock,
            { ...runFile, id: 'srvtoolu_b2', input: { command: 'python missing.py' } },
            // code-execution-tool page: a command that fails still has a result, with its exit code.
            {
              type: 'bash_code_execution_tool_result',
              tool_use_id: 'srvtoolu_b2',
              content: { type: 'bash_code_execution_result', stdout: '', stderr: "python: can't open file 'missing.py'", return_code: 2, content: [] },
            } satisfies Anthropic.BashCodeExecutionToolResultBlock,
            text('None of that worked.'),
          ],
          'end_turn',
        ),
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: [builtin.anthropic.webSearch(), builtin.anthropic.webFetch(), builtin.anthropic.codeExecution()] }).run(
      'Try everything.',
    );
    expect(result.text).toBe('None of that worked.');
    const results = result.context.events.filter((e) => e.type === 'tool_result');
    expect(results).toMatchObject([
      { tool: 'anthropic_web_search', result: { isError: true, content: [{ text: expect.stringContaining('max_uses_exceeded') }] } },
      { tool: 'anthropic_web_fetch', result: { isError: true, content: [{ text: expect.stringContaining('url_not_accessible') }] } },
      { tool: 'anthropic_code_execution', result: { isError: true, content: [{ text: "Exit code 2: python: can't open file 'missing.py'" }] } },
    ]);
  });

  it('streams a web search: the call and result as run events, the text deltas, and the whole turn back on the next request', async () => {
    const start = { type: 'message_start', message: { ...message([], 'end_turn'), stop_reason: null } };
    // https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool ("Streaming"): the call's
    // input streams as input_json_delta; its result block arrives whole in content_block_start.
    const events: Anthropic.RawMessageStreamEvent[] = [
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_search', name: 'web_search', input: {}, caller: direct },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query": "Bergen harbour ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: 'festival dates"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: searchResult },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: text('') },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: '12-14 June. ' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'The weather:' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: {}, caller: direct } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"city":"Bergen"}' } },
      { type: 'content_block_stop', index: 3 },
    ];
    server = await startProviderServer([
      {
        body: null,
        events: [
          start,
          ...events,
          { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } },
          { type: 'message_stop' },
        ] as Array<Record<string, unknown>>,
      },
      {
        body: null,
        events: [
          start,
          { type: 'content_block_start', index: 0, content_block: text('') },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Bergen: 21 celsius.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
          { type: 'message_stop' },
        ],
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [weather, builtin.anthropic.webSearch()] }).stream('Festival dates and weather?')) seen.push(event);

    expect(
      seen.map((e) =>
        e.type === 'text_delta' ? e.text : e.type === 'tool_result' ? `result ${e.tool}` : e.type === 'tool_call_start' ? `start ${e.name}` : e.type,
      ),
    ).toEqual([
      '12-14 June. ',
      'The weather:',
      'start get_weather',
      'tool_call_delta',
      'result anthropic_web_search',
      'result get_weather',
      'Bergen: 21 celsius.',
      'result',
    ]);
    const last = seen.at(-1)!;
    expect(last.type === 'result' && last.result.text).toBe('Bergen: 21 celsius.');
    expect(seen.find((e) => e.type === 'tool_result' && e.tool === 'anthropic_web_search')).toMatchObject({
      callId: 'srvtoolu_search',
      result: { content: [{ text: expect.stringContaining('https://example.org/bergen/festival') }] },
    });
    const sent = (server.requests[1]!.body['messages'] as Anthropic.MessageParam[])[1]!;
    expect(sent).toEqual({
      role: 'assistant',
      content: [
        { ...search },
        searchResult,
        text('12-14 June. The weather:'),
        { type: 'tool_use', id: 'toolu_w', name: 'get_weather', input: { city: 'Bergen' }, caller: direct },
      ],
    });
  });

  it('continues a paused turn and keeps the code execution container across turns', async () => {
    // https://platform.claude.com/docs/en/api/handling-stop-reasons ("pause_turn"): a long server tool turn
    // pauses; sent back as it is, Claude goes on with it. Code execution (.../code-execution-tool, "Containers"):
    // the response names its container, and a request that passes its id as `container` reuses its files.
    const container = { id: 'container_011CZ', expires_at: '2026-12-01T17:00:00Z', skills: null } satisfies Anthropic.Container;
    const paused = { ...message([writeFile, written], 'pause_turn'), container };
    server = await startProviderServer([
      { body: paused },
      { body: { ...message([runFile, ran, text('It lasts 3 days.')], 'end_turn'), container } },
      { body: message([text('Still 3.')], 'end_turn') },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ model, tools: [builtin.anthropic.codeExecution()] });
    const result = await agent.run('How many days is the festival?');
    expect(result).toMatchObject({ text: 'It lasts 3 days.', stopReason: 'final_answer', steps: 2 });
    expect(server.requests[0]!.body['container']).toBeUndefined();
    // The paused turn went back verbatim as the last message, with its container.
    const continued = server.requests[1]!.body;
    expect((continued['messages'] as Anthropic.MessageParam[]).at(-1)).toEqual({ role: 'assistant', content: [writeFile, written] });
    expect(continued['container']).toBe(container.id);
    const recorded = result.context.events.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && [e.callId, e.tool]);
    expect(recorded).toEqual([
      ['srvtoolu_write', 'anthropic_code_execution'],
      ['srvtoolu_bash', 'anthropic_code_execution'],
    ]);

    // The next question of the conversation runs in the same container.
    await agent.run([...result.messages, { role: 'user', content: 'Check again?' }]);
    expect(server.requests[2]!.body['container']).toBe(container.id);
    expect(
      new AnthropicModel({ model: 'claude-test', apiKey: 'k', params: { container: 'mine' } }).toParams({ messages: result.messages, tools: [] }).container,
    ).toBe('mine');
  });

  it('sends the newer tool versions the client knows when asked for by `type`', () => {
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k' });
    const params = model.toParams({
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        builtin.anthropic.webSearch({ type: 'web_search_20260209' }),
        builtin.anthropic.webFetch({ type: 'web_fetch_20260209' }),
        builtin.anthropic.codeExecution({ type: 'code_execution_20260120' }),
      ].map((t) => t.definition),
    });
    // Tool reference (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference): both
    // versions of each are current; the 2026 ones filter results with code and are not ZDR-eligible.
    expect(params.tools).toEqual([
      { type: 'web_search_20260209', name: 'web_search' },
      { type: 'web_fetch_20260209', name: 'web_fetch' },
      { type: 'code_execution_20260120', name: 'code_execution' },
    ] satisfies Anthropic.ToolUnion[]);
  });
});
