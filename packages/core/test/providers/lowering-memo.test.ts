import { lowerDefinitions, tool, Toolset, type ToolDefinition } from '@anytool/core';
import { LoweringMemo } from '@anytool/core/internal';

const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
const definitionsOf = (...names: string[]): ToolDefinition[] =>
  new Toolset(names.map((name) => tool(() => name, { name, description: `Tool ${name}.`, parameters }))).neutralDefinitions();

describe('LoweringMemo', () => {
  it('keeps the last lowering while the list holds the same definitions: frozen tools shared, arrays new', () => {
    const memo = new LoweringMemo();
    const definitions = definitionsOf('a', 'b');
    const first = memo.lower('openai', definitions, { strict: true });
    // A new array of the same definition objects, as an agent's next turn makes it.
    const second = memo.lower('openai', [...definitions], { strict: true });
    expect(second.tools).toEqual(lowerDefinitions('openai', definitions, { strict: true }).tools);
    expect(second.tools).not.toBe(first.tools);
    expect(second.tools[0]).toBe(first.tools[0]);
    expect(Object.isFrozen(second.tools[0]!.function.parameters)).toBe(true);
    expect(() => {
      (second.tools[0] as unknown as { cache: unknown }).cache = 1;
    }).toThrow(TypeError);
    // The caller's own array may change.
    second.tools.pop();
    expect(memo.lower('openai', definitions, { strict: true }).tools).toHaveLength(2);
  });

  it('lowers again for another definition object, order, length, format or options', () => {
    const memo = new LoweringMemo();
    const [a, b] = definitionsOf('a', 'b');
    const kept = memo.lower('openai', [a!, b!]).tools[0];
    const changed = { ...a!, description: 'Changed.' };
    expect(memo.lower('openai', [changed, b!]).tools[0]!.function.description).toBe('Changed.');
    expect(memo.lower('openai', [b!, changed]).tools.map((t) => t.function.name)).toEqual(['b', 'a']);
    expect(memo.lower('openai', [b!]).tools).toHaveLength(1);
    expect(memo.lower('anthropic', [b!]).tools[0]).toMatchObject({ name: 'b', input_schema: expect.any(Object) });
    const strict = memo.lower('openai', [a!, b!], { strict: true }).tools[0]!;
    expect(strict).not.toBe(kept);
    expect(memo.lower('openai', [a!, b!], { strict: false }).tools[0]).not.toBe(strict);
  });

  it('tools() gives the kept tools alone, in an array of its own, from the same lowering as lower()', () => {
    const memo = new LoweringMemo();
    // A strict format notes each keyword it drops (the lengths here).
    const city = { type: 'string', minLength: 1, maxLength: 80 };
    const definitions = new Toolset(
      ['a', 'b'].map((name) => tool(() => name, { name, description: `Tool ${name}.`, parameters: { ...parameters, properties: { city } } })),
    ).neutralDefinitions();
    const lowered = memo.lower('openai', definitions, { strict: true });
    expect(lowered.notes.length).toBeGreaterThan(0);
    const tools = memo.tools('openai', [...definitions], { strict: true });
    expect(tools).toEqual(lowered.tools);
    expect(tools).not.toBe(lowered.tools);
    expect(tools[1]).toBe(lowered.tools[1]);
    tools.length = 0;
    expect(memo.tools('openai', definitions, { strict: true })).toHaveLength(2);
  });
});
