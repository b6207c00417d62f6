import { AnytoolError, ErrorCode } from '@anytool/core';
import type { McpStore } from '@anytool/mcp';
import { MemoryStore } from '../../src/store/memory-store';
import { TaskManager } from '../../src/server/tasks/task-manager';
import { taskKey, type TaskRecord } from '../../src/server/tasks/record';
import type { InputRound } from '../../src/server/input-rounds';
import type { ServerContext } from '@modelcontextprotocol/server';

// Two server processes on one store, as the task managers of two instances: a task whose instance stops
// (its heartbeats no longer reach the store) is marked failed, with the reason, by whichever instance reads
// it next; a live task's lease keeps it working however long it runs.

/** A store as one process sees the shared one; `cut()` is the process dying: nothing it writes lands any more. */
function processView(shared: McpStore): McpStore & { cut(): void } {
  let alive = true;
  return {
    get: (key) => shared.get(key),
    set: async (key, value, ttlMs) => (alive ? shared.set(key, value, ttlMs) : undefined),
    update: async (key, change, ttlMs) => (alive ? shared.update(key, change, ttlMs) : shared.get(key)),
    delete: (key) => shared.delete(key),
    append: (key, value, ttlMs, max) => shared.append(key, value, ttlMs, max),
    entriesAfter: (key, after) => shared.entriesAfter(key, after),
    publish: async (channel, message) => (alive ? shared.publish(channel, message) : undefined),
    subscribe: (channel, listener) => shared.subscribe(channel, (message) => alive && listener(message)),
    close: async () => undefined,
    cut: () => (alive = false),
  };
}

const ctx = {} as ServerContext;
const call = { tool: 'work', owner: 'ada', ctx, canAsk: () => undefined };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that runs until its signal aborts. */
function forever(_round: InputRound, signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new AnytoolError(ErrorCode.Aborted, 'aborted')), { once: true }));
}

describe('task leases across instances', () => {
  const shared = new MemoryStore();
  afterAll(() => shared.close());

  it('marks failed, with the reason, a task whose instance stopped', async () => {
    const first = processView(shared);
    const running = new TaskManager(first, { leaseMs: 150 });
    const other = new TaskManager(processView(shared), { leaseMs: 150 });
    try {
      const record = await running.start(call, forever);
      // Alive: heartbeats renew the lease well past its first term.
      await sleep(400);
      expect((await other.get(record.taskId, 'ada'))?.status).toBe('working');
      first.cut();
      await sleep(400);
      const failed = await other.get(record.taskId, 'ada');
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
        const answer = (await round.ask('name', { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } })) as { content: { name: string } };
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

  it('marks the tasks of a server that closes failed, saying so', async () => {
    const running = new TaskManager(processView(shared));
    const record = await running.start(call, forever);
    await running.close();
    const other = new TaskManager(processView(shared));
    expect(await other.get(record.taskId, 'ada')).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('server stopped') });
    await other.close();
  });
});
