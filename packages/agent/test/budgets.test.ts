import { ErrorCode, tool } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';

const ping = tool(() => 'pong', { name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } });
const calls = (n: number) => ({ toolCalls: Array.from({ length: n }, () => ({ name: 'ping' })) });

describe('run budgets', () => {
  it.each([
    ['maxInputTokens', { maxInputTokens: 25 }, 'max_input_tokens', 3],
    ['maxOutputTokens', { maxOutputTokens: 10 }, 'max_output_tokens', 2],
    ['maxTotalTokens', { maxTotalTokens: 30 }, 'max_total_tokens', 2],
  ] as const)('%s stops the run after the turn that reached it', async (_name, budget, stopReason, steps) => {
    // Each turn: 10 tokens in, 5 out.
    const model = new ScriptedModel([calls(1), calls(1), calls(1), calls(1), { text: 'done' }]);
    const result = await new Agent({ model, tools: [ping], budget }).run('go');
    expect(result).toMatchObject({ stopReason, steps });
    expect(result.context.events.filter((e) => e.type === 'error')).toMatchObject([{ code: ErrorCode.BudgetExceeded }]);
  });

  it('a final answer that reaches a budget is still the answer', async () => {
    const result = await new Agent({ model: new ScriptedModel([{ text: 'done' }]), budget: { maxTotalTokens: 1 } }).run('go');
    expect(result.stopReason).toBe('final_answer');
  });

  it('calls past maxToolCalls in one turn do not run: BUDGET_EXCEEDED results, then the run stops', async () => {
    let ran = 0;
    const counted = tool(() => ++ran, { name: 'ping', description: 'Ping.', parameters: { type: 'object', properties: {} } });
    const result = await new Agent({ model: new ScriptedModel([calls(3), { text: 'never' }]), tools: [counted], budget: { maxToolCalls: 2 } }).run('go');
    expect(ran).toBe(2);
    expect(result.stopReason).toBe('max_tool_calls');
    const results = result.messages.filter((m) => m.role === 'tool').map((m) => (m.role === 'tool' ? m.result.error?.code : undefined));
    expect(results).toEqual([undefined, undefined, ErrorCode.BudgetExceeded]);
  });

  it("a run's budget overrides the agent's, limit by limit", async () => {
    const agent = new Agent({ model: new ScriptedModel([calls(1), calls(1), calls(1), { text: 'done' }]), tools: [ping], budget: { maxToolCalls: 1 } });
    const result = await agent.run('go', { budget: { maxToolCalls: 2, maxTotalTokens: 1000 } });
    expect(result).toMatchObject({ stopReason: 'max_tool_calls', steps: 2 });
  });

  it('refuses a budget that is not one, naming the option', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, budget: { maxTokens: 5 } as never })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('`budget.maxTokens`') }),
    );
    expect(() => new Agent({ model, budget: { maxToolCalls: 0 } })).toThrow(
      expect.objectContaining({ message: expect.stringContaining('positive whole number') }),
    );
  });

  it('reports usage by model and by turn', async () => {
    const model = new ScriptedModel([calls(1), { text: 'done', usage: { inputTokens: 30, outputTokens: 7 } }], { name: 'small' });
    const result = await new Agent({ model, tools: [ping] }).run('go');
    expect(result.usageByModel).toEqual({ small: { inputTokens: 40, outputTokens: 12, totalTokens: 52 } });
    expect(result.turns.map((t) => [t.step, t.usage.totalTokens])).toEqual([
      [1, 15],
      [2, 37],
    ]);
  });
});

describe("the run's tool choice", () => {
  it('refuses a malformed choice when the agent is made, and a named tool the turn does not offer when the run starts', async () => {
    const model = new ScriptedModel([{ text: 'hi' }]);
    expect(() => new Agent({ model, toolChoice: 'always' as never })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    await expect(new Agent({ model, tools: [ping], toolChoice: { name: 'pong' } }).run('go')).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('"pong"'),
    });
    expect(model.turns).toBe(0);
  });

  it("prepareStep's choice wins over the run's", async () => {
    const model = new ScriptedModel([{ text: 'hi' }]);
    await new Agent({ model, tools: [ping], toolChoice: 'required', prepareStep: () => ({ toolChoice: 'none' }) }).run('go');
    expect(model.requests[0]!.toolChoice).toBe('none');
  });
});

describe('tool choice and budgets across a pause', () => {
  it('a resumed run sends no forcing choice (it was met), and counts the calls before the pause against maxToolCalls', async () => {
    const pay = tool(() => 'paid', {
      name: 'pay',
      description: 'Pay.',
      parameters: { type: 'object', properties: {} },
      requiresApproval: true,
    });
    const first = new ScriptedModel([{ toolCalls: [{ name: 'ping' }, { name: 'pay' }] }]);
    const options = { tools: [ping, pay], approve: 'pause' as const, toolChoice: 'required' as const, budget: { maxToolCalls: 3 } };
    const paused = await new Agent({ model: first, ...options }).run('go');
    expect(paused.stopReason).toBe('interrupted');
    expect(first.requests[0]!.toolChoice).toBe('required');
    const second = new ScriptedModel([calls(2), { text: 'never' }]);
    const resumed = await new Agent({ model: second, ...options }).resume(paused.state!, { [paused.interruptions![0]!.id]: { approved: true } });
    expect(second.requests[0]!.toolChoice).toBeUndefined();
    // ping (before the pause) and pay (resumed) ran: one of the next turn's two pings runs, the other is refused.
    expect(resumed.stopReason).toBe('max_tool_calls');
    const codes = resumed.messages.flatMap((m) => (m.role === 'tool' ? [m.result.error?.code ?? 'ok'] : []));
    expect(codes).toEqual(['ok', 'ok', 'ok', ErrorCode.BudgetExceeded]);
  });
});
