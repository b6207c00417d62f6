// Deferred tools in each provider format: Anthropic and the OpenAI Responses API get their own deferred
// loading (checked against the official clients' request types); the other formats send every tool with a note.
import { Toolset, builtin, lowerDefinitions, tool, type BaseTool } from '@anytool/core';
import type Anthropic from '@anthropic-ai/sdk';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';

const make = (name: string): BaseTool =>
  tool(() => name, { name, description: `Tool ${name}.`, parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });

function toolset(): Toolset {
  return new Toolset(make('eager_one'), make('lazy_one'), make('eager_two'), builtin.anthropic.webSearch(), builtin.openai.webSearch()).defer(
    'lazy_one',
    make('lazy_two'),
  );
}

describe('lowering deferred tools', () => {
  it("Anthropic: the loaded tools, the BM25 tool search, then the deferred tools with defer_loading, as the client's types take them", () => {
    const tools: Anthropic.ToolUnion[] = toolset().definitions('anthropic');
    const params: Anthropic.MessageCreateParamsNonStreaming = { model: 'm', max_tokens: 1, messages: [], tools };
    expect(
      params.tools!.map((t) => ['name' in t ? t.name : undefined, 'type' in t ? t.type : undefined, 'defer_loading' in t ? t.defer_loading : undefined]),
    ).toEqual([
      ['eager_one', undefined, undefined],
      ['eager_two', undefined, undefined],
      ['web_search', 'web_search_20250305', undefined],
      ['tool_search_tool_bm25', 'tool_search_tool_bm25_20251119', undefined],
      ['lazy_one', undefined, true],
      ['lazy_two', undefined, true],
    ]);
    expect(toolset().definitions('anthropic', { toolSearch: 'regex' })[3]).toEqual({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' });
  });

  it("OpenAI Responses: the loaded tools, tool_search, then the deferred functions with defer_loading, as the client's types take them", () => {
    const tools: NonNullable<ResponseCreateParamsNonStreaming['tools']> = toolset().definitions('openai-responses');
    const params: ResponseCreateParamsNonStreaming = { model: 'm', input: [], tools };
    expect(params.tools!.map((t) => [t.type, 'name' in t ? t.name : undefined, 'defer_loading' in t ? t.defer_loading : undefined])).toEqual([
      ['function', 'eager_one', undefined],
      ['function', 'eager_two', undefined],
      ['web_search', undefined, undefined],
      ['tool_search', undefined, undefined],
      ['function', 'lazy_one', true],
      ['function', 'lazy_two', true],
    ]);
  });

  it('Chat Completions, Gemini and MCP cannot defer: every tool in its place, and a note for each deferred one', () => {
    const chat = toolset().lower('openai');
    const tools: ChatCompletionCreateParamsNonStreaming['tools'] = chat.tools;
    expect(tools!.map((t) => (t.type === 'function' ? t.function.name : t.type))).toEqual(['eager_one', 'lazy_one', 'eager_two', 'lazy_two']);
    for (const format of ['openai', 'gemini', 'mcp'] as const) {
      const notes = toolset()
        .lower(format)
        .notes.filter((n) => n.detail.startsWith('deferred'));
      expect(notes.map((n) => n.tool)).toEqual(['lazy_one', 'lazy_two']);
      expect(notes[0]!.detail).toBe(
        `deferred, but the ${format} format has no deferred loading: sent in full (an Agent sends only the deferred tools the model loaded with its search tool)`,
      );
    }
  });

  it('leaves a list without deferred tools exactly as before', () => {
    const plain = new Toolset(make('a'), make('b'));
    expect(plain.definitions('anthropic')).toEqual(lowerDefinitions('anthropic', [make('a').definition, make('b').definition]).tools);
    expect(JSON.stringify(plain.definitions('openai-responses'))).not.toContain('tool_search');
  });
});
