// `definitions(format)` and `lower(format)` lower once per format and options and keep that until the
// toolset changes: every kind of change must show in the next call, and no caller may change what the
// next caller gets.
import { type BaseTool, Toolset, tool } from '@anytool/core';
import { codeTool } from '@anytool/core/code-mode';
import { ChangingSource } from './helpers/changing-source';

const make = (name: string, description = `tool ${name}`): BaseTool =>
  tool(() => name, { name, description, parameters: { type: 'object', properties: { q: { type: 'string', description: 'what to look up' } } } });

const names = (definitions: ReadonlyArray<{ name?: string; function?: { name: string } }>): string[] =>
  definitions.map((d) => d.function?.name ?? d.name ?? '?');

describe('Toolset.definitions() kept until the toolset changes', () => {
  it('gives the same lowered tools again, in an array the caller owns, and nobody can change them', () => {
    const toolset = new Toolset(make('a'), make('b'));
    const first = toolset.definitions('openai');
    const second = toolset.definitions('openai');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    // Shared, frozen: the same objects, which no caller can change for the next one.
    expect(second[0]).toBe(first[0]);
    expect(Object.isFrozen(first[0]!.function.parameters)).toBe(true);
    expect(() => {
      (first[0]!.function as { description: string }).description = 'changed';
    }).toThrow(TypeError);
    // The array is the caller's: changing it changes nothing for the next call.
    first.pop();
    first.push({ type: 'function', function: { name: 'extra', description: 'x', parameters: {} } } as never);
    expect(names(toolset.definitions('openai'))).toEqual(['a', 'b']);
    expect(toolset.definitions('openai')[0]!.function.description).toBe('tool a');
    // A tool's own definition was never frozen or shared.
    expect(Object.isFrozen(toolset.get('a')!.definition.parameters)).toBe(false);
  });

  it('keeps each format and each set of options apart', () => {
    const toolset = new Toolset(make('a'));
    const strict = toolset.definitions('openai');
    const loose = toolset.definitions('openai', { strict: false });
    expect(strict[0]!.function.strict).toBe(true);
    expect(loose[0]!.function.strict).toBe(false);
    expect(toolset.definitions('openai')[0]!.function.strict).toBe(true);
    expect(toolset.definitions('openai', { strict: false })[0]!.function.strict).toBe(false);
    expect(toolset.definitions('anthropic')[0]).toMatchObject({ name: 'a', input_schema: { type: 'object' } });
    expect(toolset.lower('gemini').tools[0]).toMatchObject({ name: 'a' });
  });

  it('shows tools added and removed', () => {
    const toolset = new Toolset(make('a'));
    expect(names(toolset.definitions('openai'))).toEqual(['a']);
    toolset.add(make('b'));
    expect(names(toolset.definitions('openai'))).toEqual(['a', 'b']);
    toolset.remove('a');
    expect(names(toolset.definitions('openai'))).toEqual(['b']);
    expect(toolset.tools.map((t) => t.name)).toEqual(['b']);
  });

  it('follows a dynamic source (an MCP server listing other tools), directly and through a held toolset', () => {
    const source = new ChangingSource(make('a'));
    const inner = new Toolset(source);
    const outer = new Toolset(inner, make('local'));
    expect(names(inner.definitions('openai'))).toEqual(['a']);
    expect(names(outer.definitions('openai'))).toEqual(['a', 'local']);
    source.set(make('a', 'changed a'), make('b'));
    expect(names(inner.definitions('openai'))).toEqual(['a', 'b']);
    expect(outer.definitions('openai')[0]!.function.description).toBe('changed a');
    expect(names(outer.definitions('openai'))).toEqual(['a', 'b', 'local']);
    // A tool whose definition breaks after a refresh is left out, and back when it is fixed.
    const broken = tool(() => 1, { name: 'broken', description: 'broken', parameters: { type: 'object', properties: { x: { type: 'nope' } } } });
    source.set(make('a'), broken);
    expect(names(outer.definitions('openai'))).toEqual(['a', 'local']);
    source.set(make('a'), make('broken'));
    expect(names(outer.definitions('openai'))).toEqual(['a', 'broken', 'local']);
  });

  it('shows tools deferred by name and by source, here and in a held toolset', () => {
    const inner = new Toolset(make('x'), make('y'));
    const outer = new Toolset(make('a'), inner);
    expect(outer.definitions('anthropic')).toHaveLength(3);
    outer.defer('a');
    expect(outer.definitions('anthropic').map((d) => ('defer_loading' in d ? d.defer_loading : false))).toEqual([false, true, false, false]);
    // Deferred inside the held toolset: the outer one hears of it.
    inner.defer('y');
    const lowered = outer.definitions('anthropic');
    expect(lowered.map((d) => d.name)).toEqual(['tool_search_tool_bm25', 'a', 'x', 'y']);
    expect(lowered.map((d) => ('defer_loading' in d ? d.defer_loading : false))).toEqual([false, true, false, true]);
    // The options choose the search tool: each set is lowered on its own.
    expect(outer.definitions('anthropic', { toolSearch: 'regex' })[0]!.name).toBe('tool_search_tool_regex');
    expect(
      outer
        .lower('openai')
        .notes.filter((n) => /deferred/.test(n.detail))
        .map((n) => n.tool),
    ).toEqual(['a', 'y']);
  });

  it('shows a tool whose definition is a new object now, which tells no toolset (a code-mode tool whose tools changed)', () => {
    const inner = new Toolset(make('lookup'));
    const code = codeTool(inner);
    const toolset = new Toolset(code);
    const before = toolset.definitions('openai')[0]!.function.description;
    expect(before).toMatch(/lookup/);
    expect(before).not.toMatch(/translate/);
    inner.add(make('translate'));
    expect(toolset.definitions('openai')[0]!.function.description).toMatch(/translate/);
  });

  it('lowers again after middleware or a listener change without mixing up results', () => {
    const toolset = new Toolset(make('a'));
    const before = toolset.definitions('mcp');
    toolset.use({ name: 'noop', before: () => undefined });
    expect(toolset.definitions('mcp')).toEqual(before);
    expect(toolset.lower('mcp').notes).toEqual([]);
  });
});
