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
  it("Anthropic: the BM25 tool search before the first deferred tool, every tool in its place, deferred ones with defer_loading, as the client's types take them", () => {
    const tools: Anthropic.ToolUnion[] = toolset().definitions('anthropic');
    const params: Anthropic.MessageCreateParamsNonStreaming = { model: 'm', max_tokens: 1, messages: [], tools };
    expect(
      params.tools!.map((t) => ['name' in t ? t.name : undefined, 'type' in t ? t.type : undefined, 'defer_loading' in t ? t.defer_loading : undefined]),
    ).toEqual([
      ['eager_one', undefined, undefined],
      ['tool_search_tool_bm25', 'tool_search_tool_bm25_20251119', undefined],
      ['lazy_one', undefined, true],
      ['eager_two', undefined, undefined],
      ['web_search', 'web_search_20250305', undefined],
      ['lazy_two', undefined, true],
    ]);
    expect(toolset().definitions('anthropic', { toolSearch: 'regex' })[1]).toEqual({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' });
  });

  it("OpenAI Responses: tool_search before the first deferred function, every tool in its place, deferred ones with defer_loading, as the client's types take them", () => {
    const tools: NonNullable<ResponseCreateParamsNonStreaming['tools']> = toolset().definitions('openai-responses');
    const params: ResponseCreateParamsNonStreaming = { model: 'm', input: [], tools };
    expect(params.tools!.map((t) => [t.type, 'name' in t ? t.name : undefined, 'defer_loading' in t ? t.defer_loading : undefined])).toEqual([
      ['function', 'eager_one', undefined],
      ['tool_search', undefined, undefined],
      ['function', 'lazy_one', true],
      ['function', 'eager_two', undefined],
      ['web_search', undefined, undefined],
      ['function', 'lazy_two', true],
    ]);
  });

  it('a tool appended to the definitions is appended to the lowered array: what was sent before stays byte-identical', () => {
    for (const format of ['anthropic', 'openai-responses'] as const) {
      const before = toolset().neutralDefinitions();
      const after = [...before, make('read_tool_output').definition];
      const sent = lowerDefinitions(format, before).tools.map((t) => JSON.stringify(t));
      const next = lowerDefinitions(format, after).tools.map((t) => JSON.stringify(t));
      expect(next.slice(0, sent.length)).toEqual(sent);
      expect(next).toHaveLength(sent.length + 1);
      expect(next[sent.length]).toContain('read_tool_output');
    }
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
