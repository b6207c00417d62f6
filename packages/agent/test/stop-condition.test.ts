import { AnytoolError, ErrorCode, ExecutionContext, resultText, tool, type RunEvent } from '@anytool/core';
import { Agent, ScriptedModel, hasToolCall, stepCountIs, type ScriptedTurn, type StopCondition } from '@anytool/agent';

const lookup = tool(({ q }: { q: string }) => `found ${q}`, {
  name: 'lookup',
  description: 'Look something up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
});
const answer = tool(({ text }: { text: string }) => text, {
  name: 'answer',
  description: 'Give the final answer.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});

const lookupTurn = (q: string): ScriptedTurn => ({ toolCalls: [{ name: 'lookup', arguments: { q } }] });
const toolResults = (events: readonly RunEvent[]) => events.filter((e) => e.type === 'tool_result');

describe('stopWhen', () => {
  it('stepCountIs(n) stops after the n-th turn, its tool calls run, and says stop_condition', async () => {
    const model = new ScriptedModel([lookupTurn('a'), lookupTurn('b'), lookupTurn('c'), { text: 'never asked' }]);
    const result = await new Agent({ model, tools: [lookup], stopWhen: stepCountIs(2) }).run('go');
    expect(result.stopReason).toBe('stop_condition');
    expect(result.steps).toBe(2);
    expect(model.turns).toBe(2);
    // The second turn's call ran before the run stopped: every tool_call has its tool_result.
    expect(toolResults(result.context.events).map((e) => resultText(e.result))).toEqual(['found a', 'found b']);
    expect(result.messages.at(-1)).toMatchObject({ role: 'tool', name: 'lookup' });
  });

  it('hasToolCall(name) stops after the turn that called the tool, which ran', async () => {
    const model = new ScriptedModel([lookupTurn('a'), { toolCalls: [{ name: 'answer', arguments: { text: '42' } }] }, { text: 'never asked' }]);
    const result = await new Agent({ model, tools: [lookup, answer], stopWhen: hasToolCall('answer') }).run('go');
    expect(result).toMatchObject({ stopReason: 'stop_condition', steps: 2 });
    expect(model.turns).toBe(2);
    expect(toolResults(result.context.events).map((e) => resultText(e.result))).toEqual(['found a', '42']);
  });

  it('takes a list and your own predicate, async too, which sees every turn with its calls and results', async () => {
    const seen: string[][] = [];
    const foundB: StopCondition = async ({ steps }) => {
      seen.push(steps.map((s) => `${s.step}:${s.toolResults.map((r) => resultText(r.result)).join(',')}`));
      await new Promise((resolve) => setTimeout(resolve, 1));
      return steps.at(-1)?.toolResults.some((r) => resultText(r.result) === 'found b') === true;
    };
    const model = new ScriptedModel([lookupTurn('a'), lookupTurn('b'), lookupTurn('c')]);
    const result = await new Agent({ model, tools: [lookup], stopWhen: [hasToolCall('answer'), foundB] }).run('go');
    expect(result).toMatchObject({ stopReason: 'stop_condition', steps: 2 });
    expect(seen).toEqual([['1:found a'], ['1:found a', '2:found b']]);
  });

  it('keeps maxSteps as the limit underneath: it says max_steps, also when a condition holds on the same turn', async () => {
    const never: StopCondition = () => false;
    const first = await new Agent({
      model: new ScriptedModel([lookupTurn('a'), lookupTurn('b'), lookupTurn('c')]),
      tools: [lookup],
      maxSteps: 2,
      stopWhen: never,
    }).run('go');
    expect(first).toMatchObject({ stopReason: 'max_steps', steps: 2 });
    const both = await new Agent({ model: new ScriptedModel([lookupTurn('a'), lookupTurn('b')]), tools: [lookup], maxSteps: 2, stopWhen: stepCountIs(2) }).run(
      'go',
    );
    expect(both).toMatchObject({ stopReason: 'max_steps', steps: 2 });
    // Per run, too.
    const perRun = await new Agent({ model: new ScriptedModel([lookupTurn('a'), lookupTurn('b')]), tools: [lookup], stopWhen: stepCountIs(5) }).run('go', {
      maxSteps: 1,
    });
    expect(perRun).toMatchObject({ stopReason: 'max_steps', steps: 1 });
  });

  it('is not asked about a final answer: a turn without tool calls ends the run', async () => {
    let asked = 0;
    const model = new ScriptedModel([lookupTurn('a'), { text: 'done' }]);
    const result = await new Agent({ model, tools: [lookup], stopWhen: () => (asked++, false) }).run('go');
    expect(result).toMatchObject({ stopReason: 'final_answer', steps: 2, text: 'done' });
    expect(asked).toBe(1);
  });

  it('rejects what is not a stop condition with INVALID_OPTIONS, naming the option', () => {
    const model = new ScriptedModel([]);
    const thrown = (fn: () => unknown): AnytoolError => {
      try {
        fn();
      } catch (error) {
        return error as AnytoolError;
      }
      throw new Error('did not throw');
    };
    expect(thrown(() => new Agent({ model, stopWhen: 3 as never }))).toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('`stopWhen` must be a stop condition'),
    });
    expect(thrown(() => new Agent({ model, stopWhen: [stepCountIs(1), 'x' as never] }))).toMatchObject({ message: expect.stringContaining('`stopWhen`[1]') });
    expect(thrown(() => stepCountIs(0))).toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('stepCountIs(count)') });
    expect(thrown(() => stepCountIs(1.5))).toMatchObject({ code: ErrorCode.InvalidOptions });
    expect(thrown(() => hasToolCall(''))).toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('hasToolCall(name)') });
  });

  it('ends the run with MIDDLEWARE_FAILED when a condition throws, recorded as an error event', async () => {
    const model = new ScriptedModel([lookupTurn('a'), lookupTurn('b')]);
    const agent = new Agent({
      model,
      tools: [lookup],
      stopWhen: () => {
        throw new Error('condition broke');
      },
    });
    const context = new ExecutionContext();
    const error = (await agent.run('go', { context }).catch((e: unknown) => e)) as AnytoolError;
    expect(error).toBeInstanceOf(AnytoolError);
    expect(error.code).toBe(ErrorCode.MiddlewareFailed);
    expect(error.message).toMatch(/stop condition `stopWhen` threw after turn 1: condition broke/);
    expect(model.turns).toBe(1);
    expect(context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.MiddlewareFailed, message: error.message });
  });
});
