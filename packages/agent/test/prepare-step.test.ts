import { AnytoolError, ErrorCode, ExecutionContext, resultText, tool } from '@anytool/core';
import { Agent, ScriptedModel, type PrepareStepOptions, type StepSettings } from '@anytool/agent';

const echo = (name: string) =>
  tool(({ q }: { q: string }) => `${name} ${q}`, {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  });
const tools = [echo('search'), echo('fetch'), echo('answer')];
const call = (name: string, q = 'x') => ({ toolCalls: [{ name, arguments: { q } }] });
const names = (model: ScriptedModel, turn: number) => model.requests[turn]!.tools.map((d) => d.name);

describe('prepareStep', () => {
  it('is called before each turn with its number, the turns so far, the messages and the tools', async () => {
    const seen: Array<{ step: number; steps: string[]; messages: number; tools: string[] }> = [];
    const model = new ScriptedModel([call('search'), { text: 'done' }]);
    const agent = new Agent({
      model,
      tools,
      prepareStep: ({ step, steps, messages, tools: offered }: PrepareStepOptions) => {
        seen.push({
          step,
          steps: steps.flatMap((s) => s.toolResults.map((r) => resultText(r.result))),
          messages: messages.length,
          tools: offered.map((d) => d.name),
        });
        return undefined;
      },
    });
    const result = await agent.run('go');
    expect(result.stopReason).toBe('final_answer');
    expect(seen).toEqual([
      { step: 1, steps: [], messages: 1, tools: ['search', 'fetch', 'answer'] },
      { step: 2, steps: ['search x'], messages: 3, tools: ['search', 'fetch', 'answer'] },
    ]);
  });

  it('offers only the active tools and sends the tool choice, for that turn only', async () => {
    const model = new ScriptedModel([call('search'), call('answer'), { text: 'done' }]);
    const agent = new Agent({
      model,
      tools,
      prepareStep: ({ step }): StepSettings | undefined =>
        step === 1
          ? { activeTools: ['search'], toolChoice: 'required' }
          : step === 2
            ? { activeTools: ['answer', 'fetch'], toolChoice: { name: 'answer' } }
            : undefined,
    });
    await agent.run('go');
    expect(names(model, 0)).toEqual(['search']);
    expect(model.requests[0]!.toolChoice).toBe('required');
    // The toolset's order, whatever the order of activeTools.
    expect(names(model, 1)).toEqual(['fetch', 'answer']);
    expect(model.requests[1]!.toolChoice).toEqual({ name: 'answer' });
    // Back to the agent's settings: every tool, no tool choice.
    expect(names(model, 2)).toEqual(['search', 'fetch', 'answer']);
    expect(model.requests[2]).not.toHaveProperty('toolChoice');
  });

  it("sends other messages for a turn without changing the run's conversation", async () => {
    const model = new ScriptedModel([call('search'), { text: 'done' }]);
    const agent = new Agent({
      model,
      tools,
      // The second turn sees only the latest tool result, with a short reminder first.
      prepareStep: ({ step, messages }) => (step === 2 ? { messages: [{ role: 'user', content: 'Answer from this:' }, ...messages.slice(-1)] } : undefined),
    });
    const result = await agent.run('go');
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'tool']);
    expect(model.requests[1]!.messages[0]).toEqual({ role: 'user', content: 'Answer from this:' });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.messages[0]).toEqual({ role: 'user', content: 'go' });
  });

  it('may be async and sees the run context', async () => {
    const context = new ExecutionContext();
    context.state.set('phase', 'research');
    const model = new ScriptedModel([{ text: 'done' }]);
    const agent = new Agent({
      model,
      tools,
      prepareStep: async ({ context: runContext }) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return runContext.state.get('phase') === 'research' ? { activeTools: ['search', 'fetch'] } : undefined;
      },
    });
    await agent.run('go', { context });
    expect(names(model, 0)).toEqual(['search', 'fetch']);
  });

  it('rejects what it returns wrong with INVALID_OPTIONS before the model is asked', async () => {
    const run = async (settings: unknown): Promise<AnytoolError> => {
      const model = new ScriptedModel([{ text: 'unused' }]);
      const error = (await new Agent({ model, tools, prepareStep: () => settings as StepSettings }).run('go').catch((e: unknown) => e)) as AnytoolError;
      expect(model.turns).toBe(0);
      expect(error).toBeInstanceOf(AnytoolError);
      return error;
    };
    expect(await run({ activeTools: ['search', 'delete_all'] })).toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringMatching(/`activeTools` names "delete_all", which this turn does not offer; it offers search, fetch, answer/),
    });
    expect(await run({ activeTools: 'search' })).toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('array of tool names') });
    expect(await run({ toolChoice: 'maybe' })).toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining("'auto', 'required', 'none' or { name }"),
    });
    expect(await run({ activeTools: ['search'], toolChoice: { name: 'answer' } })).toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('`toolChoice` names the tool "answer", which this turn does not offer'),
    });
    expect(await run({ activeTools: [], toolChoice: 'required' })).toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('offers none'),
    });
    expect(await run({ messages: 'hi' })).toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('`messages` must be an array') });
    expect(await run(7)).toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('must return an object') });
  });

  it('ends the run with MIDDLEWARE_FAILED when it throws, and rejects a non-function at construction', async () => {
    const model = new ScriptedModel([call('search'), { text: 'unused' }]);
    const context = new ExecutionContext();
    const agent = new Agent({
      model,
      tools,
      prepareStep: ({ step }) => {
        if (step === 2) throw new Error('hook broke');
        return undefined;
      },
    });
    const error = (await agent.run('go', { context }).catch((e: unknown) => e)) as AnytoolError;
    expect(error).toMatchObject({ code: ErrorCode.MiddlewareFailed, message: expect.stringContaining('`prepareStep` threw before turn 2: hook broke') });
    expect(model.turns).toBe(1);
    expect(context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.MiddlewareFailed });
    expect(() => new Agent({ model, prepareStep: {} as never })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });
});
