import { type BaseTool, ErrorCode, Toolset, tool } from '@anytool/core';
import { ChangingSource } from './helpers/changing-source';

const make = (name: string): BaseTool => tool(() => name, { name, description: `tool ${name}`, parameters: { type: 'object', properties: {} } });

describe('Toolset', () => {
  it('follows a dynamic source and tells its own listeners', async () => {
    const source = new ChangingSource(make('a'));
    const toolset = new Toolset(source, make('local'));
    let changes = 0;
    toolset.subscribe(() => changes++);
    source.set(make('a'), make('b'));
    expect(toolset.names.sort()).toEqual(['a', 'b', 'local']);
    expect(changes).toBe(1);
    expect((await toolset.invoke('b', {})).content).toEqual([{ type: 'text', text: 'b' }]);
  });

  it('a dynamic source that changes into a collision: the held tool keeps its name, the newcomer is left out and reported', () => {
    const source = new ChangingSource(make('a'));
    const toolset = new Toolset(make('x'), source);
    source.set(make('a'), make('x'));
    expect(toolset.names.sort()).toEqual(['a', 'x']);
    expect(toolset.get('x')!.source).toBe('function (anonymous)');
    expect(toolset.warnings.join('\n')).toMatch(/two tools are named "x".*left out/);
    // An unrelated add is not blamed for the old collision.
    toolset.add(make('y'));
    expect(toolset.has('y')).toBe(true);
  });

  it('refuses to hold itself, directly or through another toolset', () => {
    const a = new Toolset(make('a'));
    const b = new Toolset(a);
    expect(() => a.add(a)).toThrow(/cannot hold itself/);
    expect(() => a.add(b)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidToolDefinition }));
    expect(a.names).toEqual(['a']);
  });

  it('nested toolsets and removal', () => {
    const inner = new Toolset(make('a'), make('b'));
    const outer = new Toolset(inner, make('c'));
    expect(outer.names).toEqual(['a', 'b', 'c']);
    outer.remove('c');
    expect(outer.names).toEqual(['a', 'b']);
    inner.add(make('d'));
    expect(outer.names).toEqual(['a', 'b', 'd']);
  });
});
