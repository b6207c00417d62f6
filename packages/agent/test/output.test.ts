import { ErrorCode, ExecutionContext } from '@anytool/core';
import { Agent, ScriptedModel, schemaOf } from '@anytool/agent';

const answer = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false } as const;

describe('Agent output (structured final answer)', () => {
  it('sends the schema with every turn, named by its title or final_answer', async () => {
    const model = new ScriptedModel([{ text: '{"total":3}' }]);
    const result = await new Agent({ model, output: answer }).run('1 + 2?');
    expect(result.output).toEqual({ total: 3 });
    expect(model.requests[0]!.output).toEqual({ name: 'final_answer', schema: answer });
    const titled = new ScriptedModel([{ text: '{"total":3}' }]);
    await new Agent({ model: titled, output: { ...answer, title: 'Sum result!', description: 'The sum.' } }).run('1 + 2?');
    expect(titled.requests[0]!.output).toMatchObject({ name: 'Sum_result_', description: 'The sum.' });
  });

  it('takes the JSON inside a Markdown fence, from a model without native structured output', async () => {
    const model = new ScriptedModel([{ text: '```json\n{"total":3}\n```' }]);
    expect((await new Agent({ model, output: answer }).run('1 + 2?')).output).toEqual({ total: 3 });
  });

  it('the repair turn is a user message with the problems, and counts as a turn: with no turn left the run fails', async () => {
    const model = new ScriptedModel([{ text: '{"total":"three"}' }, { text: '{"total":3}' }]);
    const result = await new Agent({ model, output: answer }).run('1 + 2?');
    expect(result).toMatchObject({ output: { total: 3 }, steps: 2 });
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Your answer does not match the required JSON Schema:\n- /total: must be number\nAnswer again with only a JSON object that matches the schema.',
    });
    const context = new ExecutionContext();
    const once = new ScriptedModel([{ text: '{"total":"three"}' }]);
    await expect(new Agent({ model: once, output: answer, maxSteps: 1 }).run('1 + 2?', { context })).rejects.toMatchObject({
      code: ErrorCode.OutputInvalid,
      detail: `the model's last text: {"total":"three"}`,
    });
    expect(once.turns).toBe(1);
  });

  it('a text answer without output has no output field', async () => {
    const result = await new Agent({ model: new ScriptedModel([{ text: '3' }]) }).run('1 + 2?');
    expect(result).not.toHaveProperty('output');
  });

  it('refuses an output that is not an object schema, not a schema, or an invalid one, when the agent is made', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, output: { type: 'string' } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidSchema, message: expect.stringContaining("type: 'object'") }),
    );
    expect(() => new Agent({ model, output: 'json' as never })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => new Agent({ model, output: { type: 'object', properties: { a: { type: 'nope' } } } as never })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidSchema }),
    );
  });

  it('schemaOf<T>() without the build step throws MISSING_SCHEMA naming the fix; with a schema it is that schema', () => {
    expect(() => schemaOf<{ total: number }>()).toThrow(
      expect.objectContaining({ code: ErrorCode.MissingSchema, message: expect.stringContaining('build step') }),
    );
    expect(schemaOf<{ total: number }>(answer)).toBe(answer);
  });
});
