import { AnytoolError, ErrorCode } from '@anytool/core';
import type { McpStore } from '@anytool/mcp';
import { MemoryStore } from '../../src/store/memory-store';
import { TaskManager } from '../../src/server/tasks/task-manager';
import { taskKey, type TaskRecord } from '../../src/server/tasks/record';
import type { InputRound } from '../../src/server/input-rounds';
import type { ServerContext } from '@modelcontextprotocol/server';
import { scaled } from '../../../core/test/helpers/time-scale';

// Two server processes on one store, as the task managers of two instances: a task whose instance stops
// (its heartbeats no longer reach the store) is marked failed, with the reason, by whichever instance reads
// it next; a live task's lease keeps it working however long it runs.

/** A store as one process sees the shared one; `cut()` is the process dying: nothing it writes lands any more. */
function processView(shared: McpStore): McpStore & { cut(): void } {
  let alive = true;
  return {
    get: (key) => shared.get(key),
    set: async (key, value, ttlMs) => (alive ? shared.set(key, value, ttlMs) : undefined),
    update: async (key, change, ttlMs, known) => (alive ? shared.update(key, change, ttlMs, known) : shared.get(key)),
    delete: (key) => shared.delete(key),
    append: (key, value, ttlMs, max) => shared.append(key, value, ttlMs, max),
    entriesAfter: (key, after) => shared.entriesAfter(key, after),
    claim: async (sets, member) => (alive ? shared.claim(sets, member) : -1),
    renew: async (entries) => (alive ? shared.renew(entries) : undefined),
    release: async (keys, member) => (alive ? shared.release(keys, member) : undefined),
    publish: async (channel, message) => (alive ? shared.publish(channel, message) : undefined),
    subscribe: (channel, listener) => shared.subscribe(channel, (message) => alive && listener(message)),
    close: async () => undefined,
    cut: () => (alive = false),
  };
}

const ctx = {} as ServerContext;
const call = { tool: 'work', owner: 'ada', ctx, canAsk: () => undefined };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` holds (up to 10 s), then returns what was read last. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 10_000;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await sleep(100);
    value = await read();
  }
  return value;
}

/** Work that runs until its signal aborts. */
function forever(_round: InputRound, signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new AnytoolError(ErrorCode.Aborted, 'aborted')), { once: true }));
}

jest.setTimeout(scaled(30_000));

describe('task leases across instances', () => {
  const shared = new MemoryStore();
  const stored = async (taskId: string): Promise<TaskRecord> => JSON.parse((await shared.get(taskKey(taskId)))!) as TaskRecord;
  afterAll(() => shared.close());

  it('marks failed, with the reason, a task whose instance stopped', async () => {
    const first = processView(shared);
    const running = new TaskManager(first, { leaseMs: 2_000 });
    const other = new TaskManager(processView(shared), { leaseMs: 2_000 });
    try {
      const record = await running.start(call, forever);
      // Alive: a heartbeat renews the lease.
      const renewed = await poll(
        async () => stored(record.taskId),
        (current) => current.leaseUntil > record.leaseUntil,
      );
      expect(renewed.status).toBe('working');
      expect((await other.get(record.taskId, 'ada'))?.status).toBe('working');
      first.cut();
      const failed = await poll(
        async () => (await other.get(record.taskId, 'ada'))!,
        (current) => current.status !== 'working',
      );
      expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('stopped before it finished') } });
      expect(failed!.statusMessage).toBe(failed!.error!.message);
      // The verdict is in the store: every instance sees the same.
      expect((JSON.parse((await shared.get(taskKey(record.taskId)))!) as TaskRecord).status).toBe('failed');
    } finally {
      await running.close();
      await other.close();
    }
  });

  it('reaches the running instance with a cancel and an answer given through another', async () => {
    const running = new TaskManager(processView(shared), { leaseMs: 5_000 });
    const other = new TaskManager(processView(shared), { leaseMs: 5_000 });
    try {
      let aborted = false;
      const cancelled = await running.start(call, (round, signal) => {
        signal.addEventListener('abort', () => (aborted = true), { once: true });
        return forever(round, signal);
      });
      await other.cancel(cancelled.taskId, 'ada');
      await sleep(50);
      expect(aborted).toBe(true);
      expect((await running.get(cancelled.taskId, 'ada'))?.status).toBe('cancelled');

      const asking = await running.start(call, async (round) => {
        const answer = (await round.ask('name', {
          method: 'elicitation/create',
          params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        })) as { content: { name: string } };
        return { content: [{ type: 'text', text: `hi ${answer.content.name}` }] };
      });
      await sleep(20);
      expect((await other.get(asking.taskId, 'ada'))?.status).toBe('input_required');
      // Someone else's answer is ignored; the owner's goes through.
      await other.answer(asking.taskId, 'bob', { name: { action: 'accept', content: { name: 'Mallory' } } });
      await other.answer(asking.taskId, 'ada', { name: { action: 'accept', content: { name: 'Ada' } } });
      await sleep(50);
      expect(await other.get(asking.taskId, 'ada')).toMatchObject({ status: 'completed', result: { content: [{ text: 'hi Ada' }] } });
      expect(await other.get(asking.taskId, 'bob')).toBeUndefined();
    } finally {
      await running.close();
      await other.close();
    }
  });

  it('gives a lease that ran out as long again before failing the task (clock skew, a blocked event loop)', async () => {
    const reader = new TaskManager(processView(shared), { leaseMs: 2_000 });
    const now = new Date().toISOString();
    const record = (taskId: string, leaseUntil: number): TaskRecord => ({
      taskId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 500,
      tool: 'work',
      owner: 'ada',
      instance: 'elsewhere',
      leaseUntil,
    });
    try {
      await shared.set(taskKey('late'), JSON.stringify(record('late', Date.now() - 1_000)), 60_000);
      await shared.set(taskKey('gone'), JSON.stringify(record('gone', Date.now() - 2_100)), 60_000);
      expect((await reader.get('late', 'ada'))?.status).toBe('working');
      expect((await reader.get('gone', 'ada'))?.status).toBe('failed');
    } finally {
      await reader.close();
    }
  });

  it('does not keep a failed subscribe: the next task subscribes again, and close still works', async () => {
    let refuse = true;
    const view = processView(shared);
    const store: McpStore = {
      ...view,
      subscribe: (channel, listener) => (refuse ? Promise.reject(new Error('store unreachable')) : view.subscribe(channel, listener)),
    };
    const running = new TaskManager(store, { leaseMs: 5_000 });
    try {
      await expect(running.start(call, forever)).rejects.toThrow('store unreachable');
      refuse = false;
      const record = await running.start(call, forever);
      expect((await running.get(record.taskId, 'ada'))?.status).toBe('working');
    } finally {
      await running.close();
    }
    const closing = new TaskManager({ ...view, subscribe: () => Promise.reject(new Error('store unreachable')) });
    await expect(closing.start(call, forever)).rejects.toThrow('store unreachable');
    await expect(closing.close()).resolves.toBeUndefined();
  });

  it('tries the final write again while the task keeps running, so its result is not lost to a store hiccup', async () => {
    let down = false;
    let refused = 0;
    const view = processView(shared);
    const update: McpStore['update'] = (key, change, ttlMs, known) =>
      down ? Promise.reject(new Error(`connection lost (${++refused})`)) : view.update(key, change, ttlMs, known);
    const running = new TaskManager({ ...view, update }, { leaseMs: 2_000 }, () => undefined);
    const other = new TaskManager(processView(shared), { leaseMs: 2_000 });
    try {
      let finish!: () => void;
      const record = await running.start(call, async () => {
        await new Promise<void>((resolve) => (finish = resolve));
        return { content: [{ type: 'text', text: 'done once' }] };
      });
      down = true;
      finish();
      // The first tries of the final write fail; the task stays this instance's, not settled and forgotten.
      await poll(
        async () => refused,
        (count) => count >= 3,
      );
      expect(running.size).toBe(1);
      expect((await other.get(record.taskId, 'ada'))?.status).toBe('working');
      down = false;
      const completed = await poll(
        async () => (await other.get(record.taskId, 'ada'))!,
        (current) => current.status !== 'working',
      );
      expect(completed).toMatchObject({ status: 'completed', result: { content: [{ text: 'done once' }] } });
      expect(running.size).toBe(0);
    } finally {
      await running.close();
      await other.close();
    }
  });

  it('marks the tasks of a server that closes failed, saying so', async () => {
    const running = new TaskManager(processView(shared));
    const record = await running.start(call, forever);
    await running.close();
    const other = new TaskManager(processView(shared));
    expect(await other.get(record.taskId, 'ada')).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('server stopped') });
    await other.close();
  });
});
