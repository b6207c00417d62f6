// Hostile input to agent.run: every case is data in one table. Each run must settle with
// `final_answer` (well within a generous bound that only catches hangs), each call of the
// first turn with the coded result the case names, and the model must get a second turn.
import fc from 'fast-check';
import { ErrorCode, ExecutionContext, resultText, tool, type BaseTool, type JsonSchema, type ToolResultEvent } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type AgentOptions, type ScriptedToolCall } from '@anytool/agent';

const UNDESCRIBABLE = 'a thrown value that cannot be described';
const HANG_BOUND_MS = 5_000;

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}
const throwingTraps = new Proxy(
  {},
  {
    get: () => {
      throw new Error('get trap');
    },
    getPrototypeOf: () => {
      throw new Error('getPrototypeOf trap');
    },
  },
);
const cyclicNullProto = Object.create(null) as Record<string, unknown>;
cyclicNullProto['self'] = cyclicNullProto;
function throwingMessage(): Error {
  const error = new Error('hidden');
  Object.defineProperty(error, 'stack', {
    get: () => {
      throw new Error('stack getter');
    },
  });
  Object.defineProperty(error, 'message', {
    get: () => {
      throw new Error('message getter');
    },
  });
  return error;
}

const ran: string[] = [];
const empty: JsonSchema = { type: 'object', properties: {} };
const count = tool(() => void ran.push('count'), { name: 'count', description: 'Counts its calls.', parameters: empty });
const guarded = tool(() => void ran.push('guarded'), { name: 'guarded', description: 'Needs approval.', parameters: empty, requiresApproval: true });
const deep = tool(() => void ran.push('deep'), {
  name: 'deep',
  description: 'Takes anything.',
  parameters: { type: 'object', properties: { a: {}, unit: { type: 'string', default: 'c' } } },
});
const hang = tool(() => new Promise(() => undefined), { name: 'hang', description: 'Never settles.', parameters: empty });
const quick = tool(() => new Promise(() => undefined), { name: 'quick', description: 'Never settles, 30 ms limit.', parameters: empty, timeoutMs: 30 });
const throwsProxy = tool(
  () => {
    throw revokedProxy();
  },
  { name: 'throws_proxy', description: 'Throws a revoked proxy.', parameters: empty },
);
const badResult = tool(() => ({ content: [{ type: 'audio' }], isError: false }), {
  name: 'bad_result',
  description: 'Returns a broken ToolResult.',
  parameters: empty,
});
const tools: BaseTool[] = [count, guarded, deep, hang, quick, throwsProxy, badResult];

interface Case {
  name: string;
  calls: ScriptedToolCall[];
  options?: Partial<AgentOptions>;
  /** The code of each call's result, in model order; null for a success. */
  codes: Array<ErrorCode | null>;
  /** Texts the first failed result must contain. */
  says?: string[];
  /** The tools that ran, in order. */
  ran?: string[];
}

const approvalThrows = (what: string, thrown: () => unknown): Case => ({
  name: `the approval callback throws ${what}`,
  calls: [{ name: 'guarded' }, { name: 'count' }],
  options: {
    approve: () => {
      throw thrown();
    },
  },
  codes: [ErrorCode.ApprovalDenied, null],
  says: [UNDESCRIBABLE],
  ran: ['count'],
});
const approvalReturns = (decision: unknown, runs: boolean): Case => ({
  name: `the approval callback returns ${String(JSON.stringify(decision))}`,
  calls: [{ name: 'guarded' }],
  options: { approve: () => decision as boolean },
  codes: [runs ? null : ErrorCode.ApprovalDenied],
  ...(runs ? {} : { says: ['only true or { approved: true } approves'] }),
  ran: runs ? ['guarded'] : [],
});

const cases: Case[] = [
  // 2: thrown values that cannot be read, from the approval callback.
  approvalThrows('a revoked proxy', revokedProxy),
  approvalThrows('a proxy whose traps throw', () => throwingTraps),
  approvalThrows('a cyclic null-prototype object', () => cyclicNullProto),
  approvalThrows('an Error whose message getter throws', throwingMessage),
  {
    name: 'the approval callback resolves to a revoked proxy',
    calls: [{ name: 'guarded' }],
    options: { approve: () => Promise.resolve(revokedProxy() as unknown as boolean) },
    codes: [ErrorCode.ApprovalDenied],
    ran: [],
  },
  // 4: only true approves.
  approvalReturns({ approved: 'false' }, false),
  approvalReturns({ approved: 1 }, false),
  approvalReturns('yes', false),
  approvalReturns(1, false),
  approvalReturns(undefined, false),
  approvalReturns(null, false),
  approvalReturns({ approved: true }, true),
  approvalReturns(true, true),
  // 5: call ids.
  {
    name: 'a call id repeated in one turn',
    calls: [
      { id: 'call_1', name: 'count' },
      { id: 'call_1', name: 'count' },
    ],
    codes: [null, ErrorCode.DuplicateCallId],
    says: ['"call_1"', 'did not run'],
    ran: ['count'],
  },
  {
    name: 'model ids equal to the ids made up for calls without one',
    calls: [
      { id: '', name: 'count' },
      { id: 'call_0', name: 'count' },
      { id: 'call_1', name: 'count' },
    ],
    codes: [null, null, null],
    ran: ['count', 'count', 'count'],
  },
  // 7: tools that never settle.
  {
    name: 'a tool that never settles, agent toolTimeoutMs 50',
    calls: [{ name: 'hang' }, { name: 'count' }],
    options: { toolTimeoutMs: 50 },
    codes: [ErrorCode.Timeout, null],
    says: ['timed out after 50 ms'],
    ran: ['count'],
  },
  {
    name: 'a tool with its own timeoutMs, under the default agent limit',
    calls: [{ name: 'quick' }],
    codes: [ErrorCode.Timeout],
    says: ['timed out after 30 ms'],
    ran: [],
  },
  // 1, 2, 3: through the run.
  {
    name: 'arguments 5,000 deep as JSON text',
    calls: [{ name: 'deep', arguments: `${'{"a":'.repeat(5_000)}{}${'}'.repeat(5_000)}` }],
    codes: [ErrorCode.InvalidArguments],
    says: ['limit of 64'],
    ran: [],
  },
  { name: 'a tool that throws a revoked proxy', calls: [{ name: 'throws_proxy' }], codes: [ErrorCode.ToolFailed], says: [UNDESCRIBABLE], ran: [] },
  {
    name: 'a tool that returns a broken ToolResult',
    calls: [{ name: 'bad_result' }],
    codes: [ErrorCode.InvalidResult],
    says: ['content[0] (type "audio")'],
    ran: [],
  },
];

describe('hostile input: agent.run settles with coded results', () => {
  it.each(cases)('$name', async ({ calls, options, codes, says, ran: expectedRan }) => {
    ran.length = 0;
    const model = new ScriptedModel([{ toolCalls: calls }, { text: 'done' }]);
    const started = Date.now();
    const result = await new Agent({ model, tools, ...options }).run('go');
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(result.stopReason).toBe('final_answer');
    const sent = latestToolResults(model.requests[1]!);
    expect(sent.map((m) => m.result.error?.code ?? null)).toEqual(codes);
    // Every call of the turn has its own id, in the assistant message and in the results sent back.
    const ids = sent.map((m) => m.callId);
    expect(new Set(ids).size).toBe(ids.length);
    const failed = sent.find((m) => m.result.isError);
    for (const text of says ?? []) expect(resultText(failed!.result)).toContain(text);
    if (expectedRan !== undefined) expect(ran).toEqual(expectedRan);
    const events = result.context.events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
    expect(events.map((e) => e.callId).sort()).toEqual([...ids].sort());
  });
});

describe('Agent toolTimeoutMs', () => {
  const model = (): ScriptedModel => new ScriptedModel([{ text: 'done' }]);

  it('is 60 s by default, and can be set or turned off', () => {
    expect(new Agent({ model: model() }).toolTimeoutMs).toBe(60_000);
    expect(new Agent({ model: model(), toolTimeoutMs: 5 }).toolTimeoutMs).toBe(5);
    expect(new Agent({ model: model(), toolTimeoutMs: false }).toolTimeoutMs).toBe(false);
  });

  it('refuses a limit that is not a whole number of milliseconds', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => new Agent({ model: model(), toolTimeoutMs: bad })).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('toolTimeoutMs') }),
      );
    }
  });

  it('is not a default of invoke itself', async () => {
    const slow = tool(() => new Promise((resolve) => setTimeout(() => resolve('late'), 60)), { name: 'slow', description: 'Takes 60 ms.', parameters: empty });
    const result = await slow.invoke(new ExecutionContext(), {});
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'late' }] });
    const limited = await slow.invoke(new ExecutionContext(), {}, { defaultTimeoutMs: 20 });
    expect(limited.error?.code).toBe(ErrorCode.Timeout);
  });
});

describe('Agent timeoutMs (the run)', () => {
  const model = (): ScriptedModel => new ScriptedModel([{ text: 'done' }]);

  it('is an hour by default, and can be set or turned off', () => {
    expect(new Agent({ model: model() }).timeoutMs).toBe(3_600_000);
    expect(new Agent({ model: model(), timeoutMs: 5 }).timeoutMs).toBe(5);
    expect(new Agent({ model: model(), timeoutMs: false }).timeoutMs).toBe(false);
  });

  it('refuses a limit that is not a number of milliseconds a timer can wait', async () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '100', true]) {
      const expected = expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('timeoutMs') });
      expect(() => new Agent({ model: model(), timeoutMs: bad as number })).toThrow(expected);
      await expect(new Agent({ model: model() }).run('go', { timeoutMs: bad as number })).rejects.toThrow(expected);
    }
  });

  it('stops a run whose tools never end (toolTimeoutMs off) at the run timeout, 200 ms (bound 200 ms + 5 s), with stopReason timeout', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'hang' }, { name: 'hang' }] }, { text: 'never reached' }]);
    const started = Date.now();
    const result = await new Agent({ model, tools, toolTimeoutMs: false, timeoutMs: 200 }).run('go');
    const ms = Date.now() - started;
    expect(ms).toBeGreaterThanOrEqual(195);
    expect(ms).toBeLessThan(200 + HANG_BOUND_MS);
    expect(result.stopReason).toBe('timeout');
    expect(result.steps).toBe(1);
    expect(model.requests).toHaveLength(1);
    const error = result.context.events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ code: ErrorCode.Timeout, message: expect.stringContaining("the run's time limit of 200 ms ran out") });
    // Every call has its result: the running tools end with ABORTED.
    const results = result.context.events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
    expect(results.map((e) => e.result.error?.code)).toEqual([ErrorCode.Aborted, ErrorCode.Aborted]);
  });
});

describe('hostile input: agent.run properties', () => {
  // Each hostile value is made inside the property: fast-check itself would trip over a proxy's traps.
  const hostileValue: fc.Arbitrary<() => unknown> = fc.oneof(
    fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withBoxedValues: true }).map((value) => () => value),
    fc.constantFrom<() => unknown>(
      revokedProxy,
      () => throwingTraps,
      () => cyclicNullProto,
      throwingMessage,
    ),
    fc.record({ approved: fc.anything(), reason: fc.anything() }).map((value) => () => value),
  );
  const turnCalls: fc.Arbitrary<ScriptedToolCall[]> = fc.array(
    fc.record({
      id: fc.constantFrom('', 'call_0', 'call_1', 'x'),
      name: fc.constantFrom('count', 'guarded', 'deep', 'throws_proxy', 'bad_result', 'missing'),
      arguments: fc.oneof(fc.json(), fc.string(), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Record<string, unknown>>),
    }),
    { maxLength: 4 },
  );

  it('settles with final_answer and a coded result per call, whatever the calls and the approval callback do', async () => {
    await fc.assert(
      fc.asyncProperty(turnCalls, hostileValue, fc.constantFrom('returns', 'throws', 'rejects'), async (calls, make, how) => {
        const model = new ScriptedModel([{ toolCalls: calls }, { text: 'done' }]);
        const approve = (): boolean => {
          const value = make();
          if (how === 'throws') throw value;
          return (how === 'rejects' ? Promise.reject(value) : value) as boolean;
        };
        const started = Date.now();
        const result = await new Agent({ model, tools, approve, toolTimeoutMs: 1_000 }).run('go');
        expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
        expect(result.stopReason).toBe('final_answer');
        if (calls.length === 0) return;
        const sent = latestToolResults(model.requests[1]!);
        expect(sent).toHaveLength(calls.length);
        for (const { result: r } of sent) if (r.isError) expect(typeof r.error?.code).toBe('string');
        expect(new Set(sent.map((m) => m.callId)).size).toBe(calls.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Agent budget and output (the run)', () => {
  it('stops a model that asks for 50 calls every turn at maxToolCalls (bound 7): 7 run, the rest end BUDGET_EXCEEDED, one turn', async () => {
    let ran = 0;
    const counted = tool(() => ++ran, { name: 'count', description: 'Count.', parameters: { type: 'object', properties: {} } });
    const forever = () => ({ toolCalls: Array.from({ length: 50 }, () => ({ name: 'count' })) });
    const model = new ScriptedModel(Array.from({ length: 100 }, () => forever));
    const result = await new Agent({ model, tools: [counted], maxSteps: 100, budget: { maxToolCalls: 7 } }).run('go');
    expect({ ran, turns: model.turns, stopReason: result.stopReason }).toEqual({ ran: 7, turns: 1, stopReason: 'max_tool_calls' });
    const codes = result.messages.flatMap((m) => (m.role === 'tool' ? [m.result.error?.code ?? 'ok'] : []));
    expect(codes).toEqual([...Array<string>(7).fill('ok'), ...Array<string>(43).fill(ErrorCode.BudgetExceeded)]);
  });

  it.each([
    ['not JSON', 'Sure! Here it is: {total: 3}'],
    ['JSON nested 100,000 levels', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
    ['an object nested 5,000 levels', `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`],
    ['10 MB of text', 'x'.repeat(10_000_000)],
  ])('a structured answer that is %s gets one repair turn, then OUTPUT_INVALID', async (_name, text) => {
    const output = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false };
    const model = new ScriptedModel([{ text }, { text }]);
    await expect(new Agent({ model, output }).run('go')).rejects.toMatchObject({ code: ErrorCode.OutputInvalid });
    expect(model.turns).toBe(2);
  });
});
