// An agent with a run store: a paused run is saved under its run id, resumed by id from any agent that
// shares the store, and two resumes racing for one pause (two clicks, two servers) run the tool once.
import { ErrorCode, tool } from '@anytool/core';
import { Agent, MemoryRunStore, ScriptedModel, type RunStore } from '@anytool/agent';
import { RedisRunStore } from '../src/redis-run-store';
import { servicesAvailable, startRedis, type RedisServer } from '../../mcp/test/fixtures/services';
import { scaled } from '../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

function payments(paid: number[]) {
  return tool(
    async ({ amount }: { amount: number }) => {
      // Slow enough that a second resume arrives while the first one still runs the call.
      await new Promise((resolve) => setTimeout(resolve, 20));
      paid.push(amount);
      return `paid ${amount}`;
    },
    {
      name: 'pay',
      description: 'Pays an amount.',
      parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      requiresApproval: true,
    },
  );
}

async function pauseInto(store: RunStore, paid: number[]) {
  const model = new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 12 } }] }]);
  return new Agent({ model, tools: [payments(paid)], approve: 'pause', store }).run('pay');
}

/** Two agents (as two servers would hold) resuming the same run at once: one runs it, the other is refused. */
async function race(stores: [RunStore, RunStore], runId: string, itemId: string, paid: number[]) {
  const agents = stores.map((store) => new Agent({ model: new ScriptedModel([{ text: 'done' }]), tools: [payments(paid)], store }));
  return Promise.allSettled(agents.map((agent) => agent.resume(runId, { [itemId]: { approved: true } })));
}

describe('an agent with a MemoryRunStore', () => {
  it('saves the paused run under its id and resumes it by id, once', async () => {
    const store = new MemoryRunStore();
    const paid: number[] = [];
    const paused = await pauseInto(store, paid);
    expect(await store.load(paused.context.runId)).toEqual(paused.state);
    const outcomes = await race([store, store], paused.context.runId, paused.interruptions![0]!.id, paid);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: ErrorCode.RunAlreadyResumed });
    expect(paid).toEqual([12]);
    expect(await store.load(paused.context.runId)).toBeUndefined();
  });

  it('leaves the run paused in the store when an answer is refused', async () => {
    const store = new MemoryRunStore();
    const paid: number[] = [];
    const paused = await pauseInto(store, paid);
    const agent = new Agent({ model: new ScriptedModel([{ text: 'done' }]), tools: [payments(paid)], store });
    await expect(agent.resume(paused.context.runId, { [paused.interruptions![0]!.id]: { input: 'x' } })).rejects.toMatchObject({
      code: ErrorCode.ResumeAnswerInvalid,
    });
    expect(await store.load(paused.context.runId)).toEqual(paused.state);
    await agent.resume(paused.context.runId, { [paused.interruptions![0]!.id]: { approved: true } });
    expect(paid).toEqual([12]);
  });

  it('says why a run id cannot be resumed: none in the store, or no store at all', async () => {
    const store = new MemoryRunStore();
    await expect(new Agent({ model: new ScriptedModel([]), store }).resume('run_nothing', {})).rejects.toMatchObject({ code: ErrorCode.RunAlreadyResumed });
    await expect(new Agent({ model: new ScriptedModel([]) }).resume('run_nothing', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringMatching(/needs the agent's `store`/),
    });
  });
});

const withRedis = servicesAvailable('redis-server') ? describe : describe.skip;

withRedis('agents sharing a RedisRunStore', () => {
  let redis: RedisServer;
  const stores: RedisRunStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis.stop();
  });

  it('resume a run paused by another agent, and of two racing resumes one runs the tool', async () => {
    // Each agent has its own client, as each server process would.
    const [a, b, c] = [0, 1, 2].map(() => new RedisRunStore({ url: redis.url }));
    stores.push(a!, b!, c!);
    const paid: number[] = [];
    const paused = await pauseInto(a!, paid);
    const outcomes = await race([b!, c!], paused.context.runId, paused.interruptions![0]!.id, paid);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(paid).toEqual([12]);
  });
});
