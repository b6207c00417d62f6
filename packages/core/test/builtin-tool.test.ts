import type Anthropic from '@anthropic-ai/sdk';
import type { Tool as GeminiTool } from '@google/genai';
import type OpenAI from 'openai';
import { BuiltinTool, ClientTool, ErrorCode, ExecutionContext, Toolset, builtin, isProviderTool, toGeminiToolList, tool } from '@anytool/core';

const weather = tool(({ city }: { city: string }) => `${city}: 21 C`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
});

function mixed(): { toolset: Toolset; commands: string[] } {
  const commands: string[] = [];
  const bash = builtin.anthropic.bash(({ command }) => {
    commands.push(command ?? '(restart)');
    return `ran ${command}`;
  });
  const toolset = new Toolset(weather, builtin.openai.webSearch(), builtin.anthropic.webFetch({ max_uses: 2 }), builtin.gemini.googleSearch(), bash);
  return { toolset, commands };
}

// The declarations as each provider's API reference and official client type them.
const openaiWebSearch = { type: 'web_search' } satisfies OpenAI.Responses.WebSearchTool;
const anthropicWebFetch = { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 } satisfies Anthropic.WebFetchTool20250910;
const anthropicBash = { type: 'bash_20250124', name: 'bash' } satisfies Anthropic.ToolBash20250124;
const geminiSearch = { googleSearch: {} } satisfies GeminiTool;

describe('provider built-in tools in a toolset', () => {
  it("lower to the provider's own declaration in its format, beside local tools", () => {
    const { toolset } = mixed();
    const responses = toolset.lower('openai-responses');
    expect(responses.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'get_weather' }),
      openaiWebSearch,
      // A client tool goes out with its local schema where its provider's declaration does not apply.
      expect.objectContaining({
        type: 'function',
        name: 'bash',
        parameters: expect.objectContaining({ properties: expect.objectContaining({ command: expect.anything() }) }),
      }),
    ]);
    expect(responses.notes.filter((n) => n.path === '')).toEqual([
      {
        tool: 'anthropic_web_fetch',
        path: '',
        action: 'dropped',
        detail: expect.stringMatching(/Anthropic format; the openai-responses format cannot carry it/),
      },
      {
        tool: 'gemini_google_search',
        path: '',
        action: 'dropped',
        detail: expect.stringMatching(/Gemini format; the openai-responses format cannot carry it/),
      },
    ]);

    const anthropic = toolset.definitions('anthropic');
    expect(anthropic).toEqual([expect.objectContaining({ name: 'get_weather', input_schema: expect.anything() }), anthropicWebFetch, anthropicBash]);
    // The whole list is what the official client's `tools` takes.
    const typed: Anthropic.ToolUnion[] = [{ name: 'get_weather', input_schema: { type: 'object' } }, anthropicWebFetch, anthropicBash];
    expect(typed).toHaveLength(anthropic.length);

    const gemini = toolset.definitions('gemini');
    expect(gemini).toEqual([expect.objectContaining({ name: 'get_weather' }), geminiSearch, expect.objectContaining({ name: 'bash' })]);
    const list: GeminiTool[] = toGeminiToolList(gemini);
    expect(list).toEqual([
      { functionDeclarations: [expect.objectContaining({ name: 'get_weather' }), expect.objectContaining({ name: 'bash' })] },
      geminiSearch,
    ]);
  });

  it('are left out with a note in a format that cannot carry them (Chat Completions, MCP)', () => {
    const { toolset } = mixed();
    for (const format of ['openai', 'mcp'] as const) {
      const { tools, notes } = toolset.lower(format);
      expect(tools).toHaveLength(2);
      expect(notes.filter((n) => n.action === 'dropped' && n.path === '').map((n) => n.tool)).toEqual([
        'openai_web_search',
        'anthropic_web_fetch',
        'gemini_google_search',
      ]);
    }
    // With no built-in in a toolset, lowering is as before.
    expect(new Toolset(weather).lower('openai').notes).toEqual([]);
  });

  it('cannot be invoked locally: a coded error result saying who runs it, recorded like any call', async () => {
    const { toolset } = mixed();
    const context = new ExecutionContext();
    const result = await toolset.invoke('openai_web_search', { query: 'news' }, context);
    expect(result).toMatchObject({ isError: true, error: { code: ErrorCode.ProviderTool } });
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/built-in tool of OpenAI.*cannot be called locally/) });
    expect(context.events.map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
    expect(toolset.get('openai_web_search')).toBeInstanceOf(BuiltinTool);
    expect(isProviderTool(toolset.get('openai_web_search')!.definition)).toBe(true);
    expect(isProviderTool(weather.definition)).toBe(false);
  });

  it('runs a client tool (Anthropic bash) with your implementation, checked against its local schema', async () => {
    const { toolset, commands } = mixed();
    expect(toolset.get('bash')).toBeInstanceOf(ClientTool);
    expect(isProviderTool(toolset.get('bash')!.definition)).toBe(false);
    const ok = await toolset.invoke('bash', { command: 'ls' });
    expect(ok).toMatchObject({ isError: false, content: [{ type: 'text', text: 'ran ls' }] });
    const bad = await toolset.invoke('bash', { command: 42 });
    expect(bad).toMatchObject({ isError: true, error: { code: ErrorCode.InvalidArguments } });
    expect(commands).toEqual(['ls']);
  });

  it('declares the text editor and memory tools under the names the model calls them by', () => {
    const editor = builtin.anthropic.textEditor(() => 'ok');
    const memory = builtin.anthropic.memory(() => 'ok');
    const toolset = new Toolset(editor, memory);
    expect(toolset.definitions('anthropic')).toEqual([
      { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' } satisfies Anthropic.ToolTextEditor20250728,
      { type: 'memory_20250818', name: 'memory' } satisfies Anthropic.MemoryTool20250818,
    ]);
    expect(toolset.definitions('openai')[1]).toMatchObject({
      function: { name: 'memory', parameters: { properties: { command: { enum: expect.arrayContaining(['rename', 'delete']) } } } },
    });
    expect(() => builtin.anthropic.bash(undefined as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidToolDefinition, message: expect.stringMatching(/bash.*implementation/) }),
    );
  });

  it("takes the provider's own settings and a name of your choosing", () => {
    const tools = [
      builtin.openai.fileSearch({ vector_store_ids: ['vs_1'], max_num_results: 5 }),
      builtin.openai.codeInterpreter(),
      builtin.openai.imageGeneration({ size: '1024x1024' }),
      builtin.openai.mcp({ server_label: 'deep wiki', server_url: 'https://mcp.example.com/mcp' }),
      builtin.openai.webSearch({ name: 'search', search_context_size: 'low' }),
    ];
    expect(new Toolset(tools).definitions('openai-responses')).toEqual([
      { type: 'file_search', vector_store_ids: ['vs_1'], max_num_results: 5 } satisfies OpenAI.Responses.FileSearchTool,
      { type: 'code_interpreter', container: { type: 'auto' } } satisfies OpenAI.Responses.Tool.CodeInterpreter,
      { type: 'image_generation', size: '1024x1024' } satisfies OpenAI.Responses.Tool.ImageGeneration,
      { type: 'mcp', require_approval: 'never', server_label: 'deep wiki', server_url: 'https://mcp.example.com/mcp' } satisfies OpenAI.Responses.Tool.Mcp,
      { type: 'web_search', search_context_size: 'low' } satisfies OpenAI.Responses.WebSearchTool,
    ]);
    expect(tools.map((t) => t.name)).toEqual(['openai_file_search', 'openai_code_interpreter', 'openai_image_generation', 'openai_mcp_deep_wiki', 'search']);
    expect(new Toolset(builtin.anthropic.webSearch(), builtin.anthropic.codeExecution()).definitions('anthropic')).toEqual([
      { type: 'web_search_20250305', name: 'web_search' } satisfies Anthropic.WebSearchTool20250305,
      { type: 'code_execution_20250825', name: 'code_execution' } satisfies Anthropic.CodeExecutionTool20250825,
    ]);
    expect(new Toolset(builtin.gemini.codeExecution(), builtin.gemini.urlContext()).definitions('gemini')).toEqual([
      { codeExecution: {} } satisfies GeminiTool,
      { urlContext: {} } satisfies GeminiTool,
    ]);
    expect(() => builtin.openai.fileSearch({} as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidToolDefinition, message: expect.stringMatching(/vector_store_ids/) }),
    );
    expect(() => builtin.openai.mcp({} as never)).toThrow(/server_label/);
  });

  it('never lets a caller change a tool through an emitted declaration', () => {
    const search = builtin.openai.webSearch();
    const toolset = new Toolset(search);
    // The emitted declarations are frozen (shared by every caller until the toolset changes).
    expect(() => {
      (toolset.definitions('openai-responses')[0] as Record<string, unknown>)['type'] = 'changed';
    }).toThrow(TypeError);
    expect(toolset.definitions('openai-responses')).toEqual([openaiWebSearch]);
    expect(search.definition.builtin?.declarations['openai-responses']).toEqual(openaiWebSearch);
  });
});
