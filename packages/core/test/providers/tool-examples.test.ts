import { ErrorCode, Toolset, tool } from '@anytool/core';

const parameters = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] } as const;

describe("a tool's examples of arguments", () => {
  it('are checked against its parameters when the tool joins a toolset: one that does not fit names the tool and the example', () => {
    const bad = tool(() => 'ok', { name: 'forecast', description: 'Forecast.', parameters, examples: [{ city: 'Oslo' }, { city: 'Lima', days: 0 }] });
    expect(() => new Toolset(bad)).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidToolDefinition,
        message: expect.stringMatching(/^tool "forecast" \(function .*\): example 2 does not match its parameters:\n- \/days: must be >= 1\. Fix the example/),
      }),
    );
    const notObject = tool(() => 'ok', { name: 'forecast', description: 'Forecast.', parameters, examples: ['Oslo' as never] });
    expect(() => notObject.definition).toThrow(expect.objectContaining({ message: expect.stringContaining('example 1 is Oslo, not an arguments object') }));
  });

  it("go as Anthropic's input_examples, as written (defaults not filled in); the other formats drop them with a note", () => {
    const forecast = tool(() => 'ok', {
      name: 'forecast',
      description: 'Forecast.',
      parameters: { ...parameters, properties: { ...parameters.properties, unit: { type: 'string', default: 'celsius' } } },
      examples: [{ city: 'Oslo', days: 3 }],
    });
    const plain = tool(() => 'ok', { name: 'plain', description: 'Plain.', parameters: { type: 'object', properties: {} } });
    const toolset = new Toolset(forecast, plain);
    expect(toolset.lower('anthropic')).toMatchObject({
      tools: [{ name: 'forecast', input_examples: [{ city: 'Oslo', days: 3 }] }, { name: 'plain' }],
      notes: [],
    });
    expect(toolset.lower('anthropic').tools[1]).not.toHaveProperty('input_examples');
    for (const format of ['openai', 'openai-responses', 'gemini', 'mcp'] as const) {
      const { tools, notes } = toolset.lower(format);
      expect(JSON.stringify(tools)).not.toContain('"days":3');
      expect(notes.filter((note) => note.path === '')).toEqual([
        {
          tool: 'forecast',
          path: '',
          action: 'dropped',
          detail: `its 1 example(s) of arguments: the ${format} format has no field for them (Anthropic's input_examples has)`,
        },
      ]);
    }
  });
});
