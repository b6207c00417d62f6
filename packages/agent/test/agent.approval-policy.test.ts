// The agent's approval policy: each call decided from its validated arguments ('allow', 'ask', 'deny'), and an
// answer of the approve callback remembered for the rest of the run, never for another run.
import { ErrorCode, resultText, tool, type PolicyRequest } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type ApprovalRequest } from '@anytool/agent';

function payments(paid: number[]) {
  return tool(
    ({ amount }: { amount: number; to: string }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
    {
      name: 'pay',
      description: 'Pays an amount.',
      parameters: { type: 'object', properties: { amount: { type: 'number' }, to: { type: 'string', default: 'shop' } }, required: ['amount'] },
    },
  );
}

const pay = (id: string, args: unknown) => ({ id, name: 'pay', arguments: args });
const sent = (model: ScriptedModel, turn: number): string[] => latestToolResults(model.requests[turn]!).map((m) => resultText(m.result));

describe('the approval policy of an Agent', () => {
  it('asks for amounts over 1000 and runs the rest, reading the validated arguments', async () => {
    const paid: number[] = [];
    const seen: PolicyRequest[] = [];
    const asked: unknown[] = [];
    const model = new ScriptedModel([
      { toolCalls: [pay('p1', '{"amount": 20}'), pay('p2', { amount: 5000 }), pay('p3', { amount: 1000 }), pay('p4', { amount: 1500 })] },
      { toolCalls: [pay('p5', { amount: 'lots' })] },
      { text: 'done' },
    ]);
    const agent = new Agent({
      model,
      tools: [payments(paid)],
      policy: (request) => {
        seen.push(request);
        return (request.args['amount'] as number) > 1000 ? 'ask' : 'allow';
      },
      approve: ({ args, callId }) => {
        asked.push(callId);
        return (args as { amount: number }).amount < 2000;
      },
    });
    await agent.run('pay the bills');

    expect(asked).toEqual(['p2', 'p4']);
    expect(paid.sort((a, b) => a - b)).toEqual([20, 1000, 1500]);
    expect(sent(model, 1)).toEqual(['paid 20', expect.stringMatching(/^The call to tool "pay" was not approved/), 'paid 1000', 'paid 1500']);
    // The policy saw the arguments parsed and validated, defaults filled in, and what the default rule says.
    expect(seen[0]).toMatchObject({ args: { amount: 20, to: 'shop' }, callId: 'p1', default: 'allow' });
    // Arguments that do not validate never reach the policy: the model gets the tool's own answer.
    expect(seen).toHaveLength(4);
    expect(sent(model, 2)[0]).toMatch(/^Invalid arguments for tool "pay":\n- \/amount: must be number/);
  });

  it('refuses what the policy denies without asking, and falls back to the default rule on undefined', async () => {
    const paid: number[] = [];
    const asked: string[] = [];
    const careful = tool(() => 'done', {
      name: 'careful',
      description: 'Needs approval.',
      parameters: { type: 'object', properties: {} },
      requiresApproval: true,
    });
    const model = new ScriptedModel([{ toolCalls: [pay('p1', { amount: 1_000_000 }), { id: 'c1', name: 'careful', arguments: {} }] }, { text: 'done' }]);
    const agent = new Agent({
      model,
      tools: [payments(paid), careful],
      policy: ({ tool, args }) => (tool.name === 'pay' && (args['amount'] as number) > 10_000 ? 'deny' : undefined),
      approve: ({ callId }) => (asked.push(callId), true),
    });
    const result = await agent.run('go');
    expect(paid).toEqual([]);
    expect(asked).toEqual(['c1']);
    const denied = latestToolResults(model.requests[1]!)[0]!.result;
    expect(denied.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(resultText(denied)).toMatch(/the approval policy refuses it/);
    expect(result.context.events.some((e) => e.type === 'diagnostic')).toBe(false);
  });

  it('refuses the call, with a diagnostic, when the policy throws or answers nonsense', async () => {
    const paid: number[] = [];
    const model = new ScriptedModel([{ toolCalls: [pay('p1', { amount: 1 }), pay('p2', { amount: 2 })] }, { text: 'done' }]);
    const agent = new Agent({
      model,
      tools: [payments(paid)],
      policy: ({ args }) => {
        if (args['amount'] === 1) throw new Error('rules file missing');
        return 'yes please' as never;
      },
    });
    const result = await agent.run('go');
    expect(paid).toEqual([]);
    expect(sent(model, 1)).toEqual([
      expect.stringMatching(/the approval policy threw for tool "pay": rules file missing/),
      expect.stringMatching(/returned "yes please", which is not "allow", "ask", "deny" or undefined/),
    ]);
    const codes = result.context.events.flatMap((e) => (e.type === 'diagnostic' ? [e.code] : []));
    expect(codes).toEqual([ErrorCode.ApprovalDenied, ErrorCode.ApprovalDenied]);
  });

  it('remembers an answer for the rest of the run, by tool or by arguments, and not into the next run', async () => {
    const paid: number[] = [];
    const asked: string[] = [];
    const answers: Record<string, ReturnType<typeof decide>> = {};
    function decide(request: ApprovalRequest) {
      const amount = (request.args as { amount: number }).amount;
      if (amount === 7) return { approved: false, reason: 'not seven', remember: 'arguments' as const };
      return { approved: true, remember: 'tool' as const };
    }
    const approve = (request: ApprovalRequest) => {
      asked.push(request.callId);
      return (answers[request.callId] = decide(request));
    };
    const turns = (prefix: string) => [
      // Same-turn calls wait for the first answer, and then use it.
      { toolCalls: [pay(`${prefix}1`, { amount: 7 }), pay(`${prefix}2`, { amount: 7 }), pay(`${prefix}3`, { amount: 8 })] },
      { toolCalls: [pay(`${prefix}4`, { amount: 9 }), pay(`${prefix}5`, '{"amount": 7}')] },
      { text: 'done' },
    ];
    const model = new ScriptedModel([...turns('a'), ...turns('b')]);
    const agent = new Agent({ model, tools: [payments(paid)], policy: () => 'ask', approve });

    await agent.run('first run');
    // a1 refused and remembered for amount 7; a3 approved and remembered for the tool: no other question.
    expect(asked).toEqual(['a1', 'a3']);
    expect(sent(model, 1)).toEqual([expect.stringMatching(/not seven/), expect.stringMatching(/not seven; remembered for this run/), 'paid 8']);
    // The refusal for these arguments stands (JSON text or object alike); the tool-wide approval covers the rest.
    expect(sent(model, 2)).toEqual(['paid 9', expect.stringMatching(/not seven; remembered for this run/)]);

    await agent.run('second run');
    // A new run starts with nothing remembered.
    expect(asked).toEqual(['a1', 'a3', 'b1', 'b3']);
    expect(paid).toEqual([8, 9, 8, 9]);
  });
});
