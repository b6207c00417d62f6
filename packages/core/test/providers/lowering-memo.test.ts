import { lowerDefinitions, tool, Toolset, type ToolDefinition } from '@anytool/core';
import { LoweringMemo } from '@anytool/core/internal';

const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
const definitionsOf = (...names: string[]): ToolDefinition[] =>
  new Toolset(names.map((name) => tool(() => name, { name, description: `Tool ${name}.`, parameters }))).neutralDefinitions();

describe('LoweringMemo', () => {
  it('keeps the last lowering while the list holds the same definitions: frozen tools shared, arrays new', () => {
    const memo = new LoweringMemo();
    const definitions = definitionsOf('a', 'b');
    const first = memo.tools('openai', definitions, { strict: true });
    // A new array of the same definition objects, as an agent's next turn makes it.
    const second = memo.tools('openai', [...definitions], { strict: true });
    expect(second).toEqual(lowerDefinitions('openai', definitions, { strict: true }).tools);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(Object.isFrozen(second[0]!.function.parameters)).toBe(true);
    expect(() => {
      (second[0] as unknown as { cache: unknown }).cache = 1;
    }).toThrow(TypeError);
    // The caller's own array may change.
    second.pop();
    expect(memo.tools('openai', definitions, { strict: true })).toHaveLength(2);
  });

  it('lowers again for another definition object, order, length, format or options', () => {
    const memo = new LoweringMemo();
    const [a, b] = definitionsOf('a', 'b');
    const kept = memo.tools('openai', [a!, b!])[0];
    const changed = { ...a!, description: 'Changed.' };
    expect(memo.tools('openai', [changed, b!])[0]!.function.description).toBe('Changed.');
    expect(memo.tools('openai', [b!, changed]).map((t) => t.function.name)).toEqual(['b', 'a']);
    expect(memo.tools('openai', [b!])).toHaveLength(1);
    expect(memo.tools('anthropic', [b!])[0]).toMatchObject({ name: 'b', input_schema: expect.any(Object) });
    const strict = memo.tools('openai', [a!, b!], { strict: true })[0]!;
    expect(strict).not.toBe(kept);
    expect(memo.tools('openai', [a!, b!], { strict: false })[0]).not.toBe(strict);
  });

  it('keeps no notes: a strict lowering that notes every dropped keyword gives the same tools as lowering anew', () => {
    const memo = new LoweringMemo();
    const city = { type: 'string', minLength: 1, maxLength: 80 };
    const definitions = new Toolset(
      ['a', 'b'].map((name) => tool(() => name, { name, description: `Tool ${name}.`, parameters: { ...parameters, properties: { city } } })),
    ).neutralDefinitions();
    const lowered = lowerDefinitions('openai', definitions, { strict: true });
    expect(lowered.notes.length).toBeGreaterThan(0);
    expect(memo.tools('openai', definitions, { strict: true })).toEqual(lowered.tools);
    expect(memo.tools('openai', [...definitions], { strict: true })).toEqual(lowered.tools);
  });
});
