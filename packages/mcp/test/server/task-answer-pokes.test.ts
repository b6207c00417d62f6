// What a call waiting for its task's end (`answerWithinMs`) makes of what comes on its instance's channel: a
// published ended record answers it; a record that does not parse, is another task's or has not ended is not taken
// (the store is read instead, and only an ended record there answers it), and nothing of it throws in the listener.
import type { ServerContext } from '@modelcontextprotocol/server';
import { MemoryStore } from '../../src/store/memory-store';
import { TaskManager } from '../../src/server/tasks/task-manager';
import { instanceChannel, taskKey } from '../../src/server/tasks/record';
import { scaled } from '../../../core/test/helpers/time-scale';

const call = { tool: 'work', owner: 'ada', ctx: {} as ServerContext, canAsk: () => undefined, answering: true };
/** A tool that ends only when the test lets it (never, here): the call's answer can come only from the channel. */
const forever = () => new Promise<never>(() => undefined);

describe('pokes on the channel of an instance whose call waits for its task', () => {
  let store: MemoryStore;
  let manager: TaskManager;
  beforeEach(() => {
    store = new MemoryStore();
    manager = new TaskManager(store, { answerWithinMs: scaled(1_500) });
  });
  afterEach(async () => {
    await manager.close();
    await store.close();
  });

  async function waitingCall() {
    const record = await manager.start(call, forever);
    const started = Date.now();
    return { record, answer: manager.answerWithin(record).then((result) => ({ result, ms: Date.now() - started })) };
  }

  it('takes a published ended record of its task as the answer', async () => {
    const { record, answer } = await waitingCall();
    const ended = { ...record, status: 'completed', result: { content: [{ type: 'text', text: 'from elsewhere' }] } };
    await store.publish(instanceChannel(manager.instanceId), JSON.stringify({ taskId: record.taskId, reason: 'ended', record: JSON.stringify(ended) }));
    const { result, ms } = await answer;
    expect(result).toEqual({ content: [{ type: 'text', text: 'from elsewhere' }] });
    expect(ms).toBeLessThan(scaled(1_000));
  });

  it("ignores a record that does not parse, is another task's or has not ended, and waits out its window", async () => {
    const { record, answer } = await waitingCall();
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown): number => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const channel = instanceChannel(manager.instanceId);
      const poke = (extra: object): Promise<void> => store.publish(channel, JSON.stringify({ taskId: record.taskId, reason: 'ended', ...extra }));
      await poke({ record: '{not json' });
      await poke({ record: JSON.stringify({ ...record, taskId: 'another', status: 'completed', result: { content: [] } }) });
      await poke({ record: JSON.stringify({ ...record, status: 'working' }) });
      // No record with it: the store is read, where the task still works.
      await poke({});
      await store.publish(channel, 'not json at all');
      const { result, ms } = await answer;
      expect(result).toBeUndefined();
      expect(ms).toBeGreaterThanOrEqual(scaled(1_500) - 20);
      expect(JSON.parse((await store.get(taskKey(record.taskId)))!)).toMatchObject({ status: 'working' });
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
