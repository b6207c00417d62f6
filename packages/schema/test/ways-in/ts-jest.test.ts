import { ExecutionContext, Toolset, resultText, toolsFrom } from '@anytool/core';
import { Calculator, Clock, Notes, add, search } from '../fixtures/corpus/shapes';
import { Dates } from '../fixtures/corpus/dates';

// These fixtures are compiled by the ts-jest transformer: the build information is in the code.
describe('tools compiled with the build step, at run time', () => {
  const toolset = new Toolset(search, add, new Notes(), new Clock(), new Calculator());

  it('a single destructured parameter receives the whole arguments object, with defaults filled', async () => {
    expect(await toolset.invoke('searchWeb', { query: 'ts' })).toMatchObject({ isError: false, structured: ['ts 0', 'ts 1', 'ts 2'] });
    const bad = await toolset.invoke('searchWeb', { query: 'ts', maxResults: 50 });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/\/maxResults: must be <= 10/);
  });

  it('named parameters receive their properties; the context goes where it was declared', async () => {
    expect((await toolset.invoke('add', { a: 2, b: 3 })).structured).toBe(5);
    const context = new ExecutionContext({ runId: 'run-7' });
    expect(resultText(await toolset.invoke('save', { text: 'hi', tags: ['a', 'b'] }, context))).toBe('hi a,b run-7');
    expect(resultText(await toolset.invoke('save', { text: 'hi' }, context))).toBe('hi  run-7');
  });

  it('a BaseTool<Args> subclass and a defineTool() method get their definitions from the build step', async () => {
    expect(new Clock().definition).toMatchObject({
      name: 'Clock',
      description: 'The current time in a time zone.',
      outputSchema: { required: ['time', 'timeZone'] },
    });
    expect((await toolset.invoke('Clock', {})).structured).toEqual({ time: '1970-01-01T00:00:00.000Z', timeZone: 'UTC' });
    expect(toolsFrom(new Calculator())[0]!.definition.description).toBe('Multiply two numbers.');
    expect((await toolset.invoke('multiply', { a: 6, b: 7 })).structured).toBe(42);
  });

  it('Date arguments arrive as Dates, nested ones and array items included', async () => {
    const dates = new Toolset(new Dates());
    const result = await dates.invoke('schedule', {
      meeting: { title: 'standup', at: '2026-01-02T09:00:00.000Z', reminders: ['2026-01-02T08:50:00.000Z'] },
      until: '2027-01-01T00:00:00.000Z',
    });
    expect(result).toMatchObject({ isError: false, structured: { id: 'standup', start: '2026-01-02T09:00:00.000Z', confirmed: true } });
  });

  it('Dates are revived inside recursive types, in a second parameter of the same type, in tuples, in Date | string, and only in the union variant typed Date', async () => {
    const dates = new Toolset(new Dates());
    const at = '2026-01-02T09:00:00Z';
    const args = {
      event: { at, sub: [{ at, sub: [] }] },
      other: { at, sub: [{ at, sub: [{ at, sub: [] }] }] },
      slot: [at, at],
      either: 'hello',
      change: { kind: 'renamed', at },
    };
    const seen = await dates.invoke('inspect', args);
    expect(seen).toMatchObject({ isError: false });
    expect(seen.structured).toEqual({
      event: 'Date',
      eventSub: 'Date',
      other: 'Date',
      otherSub: 'Date',
      slot0: 'Date',
      slot1: 'string',
      either: 'string',
      change: 'string',
    });
    const dated = await dates.invoke('inspect', { ...args, either: at, change: { kind: 'moved', at } });
    expect(dated.structured).toMatchObject({ either: 'Date', change: 'Date' });
    expect(args.event.at).toBe(at);
  });
});

describe('generated schemas and the provider formats', () => {
  it('every corpus tool lowers to every provider format', async () => {
    const corpus = await Promise.all(
      ['primitives', 'literals', 'arrays', 'objects', 'jsdoc-tags', 'unions', 'recursive', 'dates', 'generics'].map(
        (name) => import(`../fixtures/corpus/${name}`),
      ),
    );
    const instances = corpus.flatMap((module: Record<string, unknown>) =>
      Object.values(module)
        .filter((v): v is new () => object => typeof v === 'function' && /^class /.test(String(v)))
        .map((C) => new C()),
    );
    const toolset = new Toolset(...instances.filter((i) => toolsFrom(i).length > 0));
    expect(toolset.size).toBe(13);
    for (const format of ['openai', 'anthropic', 'gemini', 'mcp'] as const) {
      const tools = toolset.definitions(format);
      expect(tools).toHaveLength(13);
    }
  });
});
