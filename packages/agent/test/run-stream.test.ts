import { ErrorCode, ExecutionContext, tool } from '@anytool/core';
import { Agent, ScriptedModel, type AgentStreamEvent, type Model, type ModelResponse, type ModelStreamEvent } from '@anytool/agent';

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});

describe('agent.stream', () => {
  it('gives a model without streaming its turns at once, in the order run records them', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'It is 5.' }]);
    const seen: AgentStreamEvent[] = [];
    for await (const event of new Agent({ model, tools: [add] }).stream('2 + 3?')) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(['tool_call_start', 'tool_result', 'text_delta', 'result']);
    expect(seen[1]).toMatchObject({ callId: 'c1', tool: 'add', result: { content: [{ text: '5' }] } });
    expect(seen[3]).toMatchObject({ result: { text: 'It is 5.', stopReason: 'final_answer', steps: 2 } });
  });

  it('records the deltas it yields in context.events, in the same order; run records none', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] }, { text: 'It is 5.' }]);
    const agent = new Agent({ model, tools: [add] });
    const seen: AgentStreamEvent[] = [];
    for await (const event of agent.stream('2 + 3?')) seen.push(event);
    const result = seen.at(-1)!.type === 'result' ? (seen.at(-1) as Extract<AgentStreamEvent, { type: 'result' }>).result : undefined;
    const recorded = result!.context.events.filter(
      (e) => e.type === 'text_delta' || e.type === 'tool_call_start' || e.type === 'tool_call_delta' || e.type === 'tool_result',
    );
    expect(recorded).toMatchObject([
      { type: 'tool_call_start', step: 1, callId: 'c1', tool: 'add' },
      { type: 'tool_result', callId: 'c1', tool: 'add' },
      { type: 'text_delta', step: 2, text: 'It is 5.' },
    ]);
    expect(recorded.map((e) => e.type)).toEqual(seen.slice(0, -1).map((e) => e.type));
    // The order among the run's other events: the deltas of a turn come before its assistant message.
    expect(result!.context.events.map((e) => e.type)).toEqual(['message', 'tool_call_start', 'message', 'tool_call', 'tool_result', 'text_delta', 'message']);

    const run = await new Agent({ model: new ScriptedModel([{ text: 'It is 5.' }]) }).run('2 + 3?');
    expect(run.context.events.map((e) => e.type)).toEqual(['message', 'message']);
  });

  it('throws MODEL_FAILED from the iteration when the model fails, as run rejects', async () => {
    const model = new ScriptedModel([]);
    const reading = (async () => {
      for await (const _event of new Agent({ model }).stream('hi')) void _event;
    })();
    await expect(reading).rejects.toMatchObject({ code: ErrorCode.ModelFailed });
  });

  describe('a model with its own stream (an async generator)', () => {
    const answer = (text: string): ModelResponse => ({ text, toolCalls: [], usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, stopReason: 'end' });
    /** A model streaming `events` each turn; `closed` counts the streams ended early (the generator's finally). */
    function streaming(turns: ModelStreamEvent[][]): Model & { closed: number } {
      let turn = 0;
      const model = {
        name: 'generator',
        closed: 0,
        generate: () => Promise.reject(new Error('not used')),
        async *stream(): AsyncGenerator<ModelStreamEvent> {
          let done = false;
          try {
            for (const event of turns[turn++] ?? []) yield event;
            done = true;
          } finally {
            if (!done) model.closed++;
          }
        },
      };
      return model;
    }

    it('yields each event as it is recorded, the same object, and goes on to the tools and the next turn', async () => {
      const call = { id: 'c1', name: 'add', arguments: '{"a":2,"b":3}' };
      const model = streaming([
        [
          { type: 'tool_call_start', id: 'c1', name: 'add' },
          { type: 'tool_call_delta', id: 'c1', delta: call.arguments },
          { type: 'response', response: { ...answer(''), toolCalls: [call], stopReason: 'tool_calls' } },
        ],
        [
          { type: 'text_delta', text: 'It is ' },
          { type: 'text_delta', text: '5.' },
          { type: 'response', response: answer('It is 5.') },
        ],
      ]);
      const seen: AgentStreamEvent[] = [];
      for await (const event of new Agent({ model, tools: [add] }).stream('2 + 3?')) seen.push(event);
      expect(seen.map((e) => e.type)).toEqual(['tool_call_start', 'tool_call_delta', 'tool_result', 'text_delta', 'text_delta', 'result']);
      const result = (seen.at(-1) as Extract<AgentStreamEvent, { type: 'result' }>).result;
      expect(result).toMatchObject({ text: 'It is 5.', steps: 2, stopReason: 'final_answer' });
      const deltas = result.context.events.filter((e) => e.type === 'text_delta' || e.type === 'tool_call_delta');
      expect(deltas).toEqual(seen.filter((e) => e.type === 'text_delta' || e.type === 'tool_call_delta'));
      expect(deltas[1]).toBe(seen[3]);
    });

    it("ends the model's stream when the reader leaves mid-turn, and the run stops", async () => {
      const model = streaming([
        [
          { type: 'text_delta', text: 'Once ' },
          { type: 'text_delta', text: 'upon ' },
          { type: 'response', response: answer('Once upon ') },
        ],
      ]);
      const context = new ExecutionContext();
      for await (const event of new Agent({ model }).stream('A story.', { context })) if (event.type === 'text_delta') break;
      expect(model.closed).toBe(1);
      expect(context.events.filter((e) => e.type === 'text_delta')).toHaveLength(1);
      expect(context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.Aborted });
    });

    it("throws MODEL_FAILED from the iteration when the stream ends without the turn's response", async () => {
      const model = streaming([[{ type: 'text_delta', text: 'Cut ' }]]);
      const seen: string[] = [];
      const reading = (async () => {
        for await (const event of new Agent({ model }).stream('hi')) seen.push(event.type);
      })();
      await expect(reading).rejects.toMatchObject({
        code: ErrorCode.ModelFailed,
        message: expect.stringContaining("generator: the stream ended without the turn's response"),
      });
      expect(seen).toEqual(['text_delta']);
    });
  });
});
