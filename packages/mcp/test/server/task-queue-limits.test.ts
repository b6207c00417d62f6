// The limits of tasks on a BullMQ queue (real redis-server, in this process): tasks waiting for a worker
// (maxTasksQueued), a task's result (maxTaskResultBytes), each refused or failed with a coded error naming the
// option; a cancelled queued task leaves the queue and its count at once; the options are checked when serving
// starts; a worker needs a queue.
import { AnytoolError, ErrorCode, Toolset, tool } from '@anytool/core';
import { BullmqTaskQueue, RedisStore, runTaskWorker, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import { taskClient, type Task, type TaskClient } from '../fixtures/task-client';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const big = tool(({ bytes }: { bytes: number }) => 'x'.repeat(bytes), {
  name: 'big',
  description: 'Returns `bytes` characters.',
  parameters: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
  task: true,
});

const withServices = servicesAvailable('redis-server');

(withServices ? describe : describe.skip)('limits of tasks on a BullMQ queue', () => {
  let redis: RedisServer;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await redis?.stop();
  });

  /** `storePrefix`: a store of the test's own (the tasks other tests left queued count as running in the shared one). */
  async function serve(options: {
    queueName: string;
    worker: boolean;
    storePrefix?: string;
    maxTasksQueued?: number;
    maxTaskResultBytes?: number;
    maxTasksRunning?: number;
  }): Promise<TaskClient & { taskQueue: BullmqTaskQueue }> {
    const store = new RedisStore({ url: redis.url, ...(options.storePrefix === undefined ? {} : { prefix: options.storePrefix }) });
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: options.queueName });
    const { queueName: _name, worker, storePrefix: _prefix, ...limits } = options;
    const server: McpServerHandle = await serveMcp(new Toolset(big), { transport: 'http', port: 0, store, taskQueue, taskWorker: worker, ...limits });
    const client = await taskClient(server.url!);
    closers.push(
      () => store.close(),
      () => taskQueue.close(),
      () => server.close(),
      () => client.close(),
    );
    return { ...client, taskQueue };
  }

  async function settled(client: TaskClient, taskId: string): Promise<Task> {
    for (let poll = 0; poll < 200; poll++) {
      const task = await client.get(taskId);
      if (task.status !== 'working') return task;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the task did not end');
  }

  it('refuses a task past maxTasksQueued with SERVER_BUSY, naming the option', async () => {
    // No worker anywhere: the tasks stay queued.
    const client = await serve({ queueName: 'limits-queued', worker: false, maxTasksQueued: 2 });
    for (let i = 0; i < 2; i++) expect('task' in (await client.call('big', { bytes: 1 }))).toBe(true);
    const refusal = (await client.call('big', { bytes: 1 }).catch((error: unknown) => error)) as { code: number; message: string; data: unknown };
    expect(refusal.code).toBe(-32000);
    expect(refusal.message).toMatch(/Task refused: tool "big" cannot start a task, 2 tasks already wait for a worker \(the server's maxTasksQueued, 2\)/);
    expect(refusal.data).toEqual({ code: 'SERVER_BUSY', limit: 'maxTasksQueued', max: 2 });
  });

  it('fails a task whose result is larger than maxTaskResultBytes with RESULT_TOO_LARGE, and keeps a smaller one', async () => {
    const client = await serve({ queueName: 'limits-result', worker: true, maxTaskResultBytes: 10_000 });
    const small = await client.call('big', { bytes: 5_000 });
    const large = await client.call('big', { bytes: 20_000 });
    if (!('task' in small) || !('task' in large)) throw new Error('big answered without a task');
    expect((await settled(client, small.task.taskId)).result?.content[0]?.text).toHaveLength(5_000);
    const failed = await settled(client, large.task.taskId);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toMatch(/^Tool "big" returned a result of \d+ bytes, more than the server keeps for a task \(maxTaskResultBytes, 10000\)/);
    expect((failed.error as { data?: unknown }).data).toMatchObject({ code: 'RESULT_TOO_LARGE', max: 10_000 });
  });

  it('takes a cancelled task out of the queue at once, and frees its place among the tasks running', async () => {
    // No worker anywhere: the task would wait in the queue, and count as running, until one took it.
    const client = await serve({ queueName: 'limits-cancel', worker: false, storePrefix: 'limits-cancel:', maxTasksRunning: 1 });
    const { taskQueue } = client;
    const first = await client.call('big', { bytes: 1 });
    if (!('task' in first)) throw new Error('big answered without a task');
    await expect(client.call('big', { bytes: 1 })).rejects.toMatchObject({ data: { code: 'SERVER_BUSY', limit: 'maxTasksRunning', max: 1 } });
    expect(await taskQueue.queuedCount()).toBe(1);

    await client.client.request(
      { method: 'tasks/cancel', params: { taskId: first.task.taskId } },
      { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } },
    );
    expect((await client.get(first.task.taskId)).status).toBe('cancelled');
    expect(await taskQueue.queuedCount()).toBe(0);
    const second = await client.call('big', { bytes: 1 });
    expect('task' in second).toBe(true);
  });

  it('puts a job back when the store fails before its tool starts, and runs it once the store answers', async () => {
    const client = await serve({ queueName: 'limits-store-blip', worker: false, storePrefix: 'limits-blip:' });
    // The worker's store fails its first two reads or writes of a task (Redis busy, a failover), as RedisStore reports it.
    const store = new RedisStore({ url: redis.url, prefix: 'limits-blip:' });
    let failures = 2;
    const blinking = new Proxy(store, {
      get(target, property) {
        if (property === 'get' || property === 'update')
          return async (key: string, ...rest: unknown[]) => {
            if (key.startsWith('task:') && failures-- > 0) throw new AnytoolError(ErrorCode.StoreFailed, 'RedisStore: Redis is unreachable (test)');
            return (target[property] as (key: string, ...rest: unknown[]) => Promise<unknown>)(key, ...rest);
          };
        const value = Reflect.get(target, property) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: 'limits-store-blip', backoffMs: 50 });
    const errors: string[] = [];
    const worker = await runTaskWorker(new Toolset(big), { store: blinking, taskQueue, onError: (error) => errors.push(error.message) });
    closers.push(
      () => store.close(),
      () => taskQueue.close(),
      () => worker.close(),
    );
    const started = await client.call('big', { bytes: 3 });
    if (!('task' in started)) throw new Error('big answered without a task');
    const task = await settled(client, started.task.taskId);
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]?.text).toBe('xxx');
    expect(failures).toBeLessThan(0);
    expect(errors[0]).toMatch(/The task store failed while claiming the task: RedisStore: Redis is unreachable \(test\)/);
  });

  it('checks the options when serving starts, and a worker needs a queue and a store', async () => {
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: 'limits-options' });
    closers.push(() => taskQueue.close());
    await expect(serveMcp(new Toolset(big), { transport: 'http', port: 0, taskQueue, maxTasksQueued: 0 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('maxTasksQueued must be a positive whole number'),
    });
    await expect(serveMcp(new Toolset(big), { transport: 'http', port: 0, taskQueue, taskGraceMs: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('taskGraceMs'),
    });
    expect(() => new BullmqTaskQueue({ url: 'http://localhost' })).toThrow(/BullmqTaskQueue: url must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => new BullmqTaskQueue({ url: redis.url, retries: -1 })).toThrow(/retries must be a whole number, at least 0/);
    await expect(runTaskWorker(new Toolset(big), { taskQueue } as never)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('store is required'),
    });
  });
});
