import { ErrorCode, Toolset, tool, type BaseTool, type DynamicToolSource } from '@anytool/core';

const make = (name: string): BaseTool => tool(() => name, { name, description: `tool ${name}`, parameters: { type: 'object', properties: {} } });

class Changing implements DynamicToolSource {
  private readonly listeners: Array<() => void> = [];
  constructor(public tools: BaseTool[]) {}
  set(...tools: BaseTool[]): void {
    this.tools = tools;
    for (const l of this.listeners) l();
  }
  subscribe(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);
  }
}

const deferred = (toolset: Toolset): string[] => toolset.neutralDefinitions().flatMap((d) => (d.deferLoading === true ? [d.name] : []));

describe('Toolset.defer', () => {
  it('defers tools by name or by the tool itself; the others stay loaded', () => {
    const [a, b, c] = [make('a'), make('b'), make('c')];
    const toolset = new Toolset(a, b, c).defer('a', c);
    expect(deferred(toolset)).toEqual(['a', 'c']);
    expect([toolset.isDeferred('a'), toolset.isDeferred('b'), toolset.isDeferred('nope')]).toEqual([true, false, false]);
    // The tool's own definition is untouched: the mark is the toolset's.
    expect(a.definition.deferLoading).toBeUndefined();
  });

  it('adds a source not held yet, deferred; a dynamic source stays deferred as a whole, later tools included', () => {
    const server = new Changing([make('s1')]);
    const toolset = new Toolset(make('local')).defer(server, [make('x'), make('y')]);
    expect(toolset.names).toEqual(['local', 's1', 'x', 'y']);
    expect(deferred(toolset)).toEqual(['s1', 'x', 'y']);
    server.set(make('s1'), make('s2'));
    expect(deferred(toolset)).toEqual(['s1', 's2', 'x', 'y']);
  });

  it('defers a dynamic source already held, and tells the listeners', () => {
    const server = new Changing([make('s1')]);
    const toolset = new Toolset(make('local'), server);
    let changes = 0;
    toolset.subscribe(() => changes++);
    toolset.defer(server);
    expect(deferred(toolset)).toEqual(['s1']);
    expect(changes).toBe(1);
  });

  it('keeps the deferral of a toolset held by another one', () => {
    const inner = new Toolset(make('i1'), make('i2')).defer('i2');
    const outer = new Toolset(make('o'), inner);
    expect(deferred(outer)).toEqual(['i2']);
    expect(outer.isDeferred('i2')).toBe(true);
  });

  it('throws on a name it does not hold, naming the fix', () => {
    const toolset = new Toolset(make('a'));
    expect(() => toolset.defer('b')).toThrow(
      expect.objectContaining({
        code: ErrorCode.UnknownTool,
        message: expect.stringMatching(/Toolset.defer\(\): no tool is named "b"; defer one of 1 tools held \(a\)/),
      }),
    );
  });

  it('still calls a deferred tool: deferral changes what the model sees first, not what runs', async () => {
    const toolset = new Toolset().defer(make('a'));
    expect((await toolset.invoke('a', {})).content).toEqual([{ type: 'text', text: 'a' }]);
  });
});
