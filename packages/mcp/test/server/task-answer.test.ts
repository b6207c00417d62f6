// `taskAnswerWithinMs`: a call that starts a task waits that long for the task's end, and a task that completed
// by then is answered with its result (the Tasks extension's immediate-result path) and not kept; any other call
// is answered with its task. Served by serveMcp over real HTTP to the official v2 client; in one process (memory
// store), and on a BullMQ queue in a real redis-server, with the job run by this process's worker or by a
// worker-only one (the end then comes over Redis).
import { spawnSync } from 'node:child_process';
import { Toolset, tool, type ExecutionContext } from '@anytool/core';
import { BullmqTaskQueue, RedisStore, mcpSession, runTaskWorker, serveMcp, type McpServerHandle, type TaskWorkerHandle } from '@anytool/mcp';
import { servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import { taskClient, type Task, type TaskClient } from '../fixtures/task-client';
import { ROOT, requireBuilt, startHttpChild, stopChild, MCP_DIST } from './helpers';
import { join } from 'node:path';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const TEXT = { type: 'object' as const, properties: { text: { type: 'string' as const } }, required: ['text'] };

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
  });
}

/** Tools that end at once, later, with a tool error, with a large result, or asking what the client cannot give. */
function tools(runs: string[], slowMs: number): Toolset {
  return new Toolset([
    tool(
      ({ text }: { text: string }) => {
        runs.push(`echo ${text}`);
        return text;
      },
      { name: 'echo', description: 'Echoes at once.', parameters: TEXT, task: true },
    ),
    tool(
      async ({ text }: { text: string }, context: ExecutionContext) => {
        runs.push(`slow ${text}`);
        await sleep(slowMs, context.signal);
        return `slow ${text}`;
      },
      { name: 'slow', description: 'Echoes after a while.', parameters: TEXT, context: true, task: true },
    ),
    tool(
      ({ text }: { text: string }) => {
        throw new Error(`no ${text}`);
      },
      { name: 'broken', description: 'Fails at once.', parameters: TEXT, task: true },
    ),
    tool(({ text }: { text: string }) => text.repeat(100_000), { name: 'large', description: 'A large result.', parameters: TEXT, task: true }),
    tool(
      async ({ text }: { text: string }, context: ExecutionContext) => {
        // Becomes a task itself, then ends at once: its call was answered with the task, which must end completed.
        await mcpSession(context)!.startTask();
        return `deferred ${text}`;
      },
      { name: 'deferred', description: 'Becomes a task, then ends.', parameters: TEXT, context: true, task: true, deferTask: true },
    ),
  ]);
}

async function settled(client: TaskClient, taskId: string): Promise<Task> {
  const until = Date.now() + scaled(20_000);
  for (;;) {
    const task = await client.get(taskId);
    if (!['working', 'input_required'].includes(task.status)) return task;
    if (Date.now() > until) throw new Error(`task still ${task.status}`);
    await sleep(50);
  }
}

describe('--task-answer-within-ms of anytool-mcp serve', () => {
  it('reaches the server: a task that ends at once is answered with its result, a longer one with its task', async () => {
    requireBuilt(MCP_DIST);
    const cli = join(ROOT, 'packages', 'mcp', 'bin', 'anytool-mcp.mjs');
    const module = join(__dirname, '..', 'fixtures', 'queue-tools.mjs');
    const served = await startHttpChild([cli, 'serve', module, '--http', '--port', '0', '--task-answer-within-ms', String(scaled(1_000))]);
    const client = await taskClient(served.url);
    try {
      expect(await client.call('idempotent_job', { steps: 0 })).toEqual({ text: expect.stringMatching(/^idempotent_job done by \d+ from step 0$/) });
      expect('task' in (await client.call('idempotent_job', { steps: 3, stepMs: scaled(1_000) }))).toBe(true);
    } finally {
      await client.close();
      await stopChild(served.child, served.exited);
    }
  });
});

describe('taskAnswerWithinMs while the server closes', () => {
  it('answers a call still waiting with its task when the server closes, before its endpoint goes', async () => {
    const server = await serveMcp(tools([], scaled(10_000)), { transport: 'http', port: 0, taskAnswerWithinMs: scaled(10_000) });
    const client = await taskClient(server.url!);
    try {
      const started = Date.now();
      const answer = client.call('slow', { text: 'c1' });
      await sleep(scaled(300));
      const closed = server.close();
      const answered = await answer;
      expect('task' in answered).toBe(true);
      expect(Date.now() - started).toBeLessThan(scaled(5_000));
      await closed;
    } finally {
      await client.close().catch(() => undefined);
      await server.close();
    }
  });
});

describe('taskAnswerWithinMs, in one process', () => {
  const runs: string[] = [];
  let server: McpServerHandle;
  let client: TaskClient;

  beforeAll(async () => {
    // Three kept tasks per client at most: calls answered with their result must not take a place.
    server = await serveMcp(tools(runs, scaled(600)), { transport: 'http', port: 0, taskAnswerWithinMs: scaled(300), maxTasksKeptPerClient: 3 });
    client = await taskClient(server.url!);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('answers a call whose task completes within the window with its result, and keeps no task for it', async () => {
    for (let i = 0; i < 5; i++) expect(await client.call('echo', { text: `e${i}` })).toEqual({ text: `e${i}` });
    expect(runs.filter((run) => run.startsWith('echo'))).toEqual(['echo e0', 'echo e1', 'echo e2', 'echo e3', 'echo e4']);
  });

  it("answers a tool's error the same way: a result with isError, as a plain call", async () => {
    const result = await client.client.callTool({ name: 'broken', arguments: { text: 'way' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('no way');
  });

  it('leaves a tool that makes itself a task (deferTask) as it was: answered with the task, which completes', async () => {
    const answer = await client.call('deferred', { text: 'd1' });
    if (!('task' in answer)) throw new Error(`deferred answered without a task: ${JSON.stringify(answer)}`);
    const task = await settled(client, answer.task.taskId);
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]?.text).toBe('deferred d1');
  });

  it('answers a call whose task outlasts the window with the task, once the window is over; the task completes', async () => {
    const started = Date.now();
    const answer = await client.call('slow', { text: 's1' });
    if (!('task' in answer)) throw new Error(`slow answered without a task: ${JSON.stringify(answer)}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(scaled(300) - 20);
    expect(answer.task.status).toBe('working');
    const task = await settled(client, answer.task.taskId);
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]?.text).toBe('slow s1');
    // That task is kept (beside the deferred one): with the per-client cap of three, one more waits in the same way, a
    // fourth is refused.
    const second = await client.call('slow', { text: 's2' });
    expect('task' in second).toBe(true);
    await expect(client.call('slow', { text: 's3' })).rejects.toThrow(/maxTasksKeptPerClient/);
  });

  it('refuses a bad window with a clear error', async () => {
    await expect(serveMcp(tools([], 0), { transport: 'http', port: 0, taskAnswerWithinMs: -1 })).rejects.toThrow(
      'serveMcp(): taskAnswerWithinMs must be a whole number of milliseconds from 0 to 2147483647, got -1',
    );
    // Past what a timer takes, a wait would end at once: refused too.
    await expect(serveMcp(tools([], 0), { transport: 'http', port: 0, taskAnswerWithinMs: 2 ** 31 })).rejects.toThrow(/from 0 to 2147483647/);
  });
});

const withRedis = servicesAvailable('redis-server');

(withRedis ? describe : describe.skip)('taskAnswerWithinMs, on a BullMQ queue in Redis', () => {
  const runs: string[] = [];
  let redis: RedisServer;
  const closers: Array<() => Promise<unknown>> = [];
  let own: TaskClient;
  let servingOnly: TaskClient;

  /** The task records in Redis (the store's keys of tasks). */
  const taskKeys = (): string[] =>
    spawnSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', '*task:*'], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((key) => key !== '' && !key.includes(':bull:') && !key.includes('tasks:'));

  async function serve(worker: boolean): Promise<TaskClient> {
    const store = new RedisStore({ url: redis.url });
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: worker ? 'own' : 'shared' });
    const server = await serveMcp(tools(runs, scaled(2000)), {
      transport: 'http',
      port: 0,
      store,
      taskQueue,
      taskWorker: worker,
      taskAnswerWithinMs: scaled(1000),
    });
    closers.push(async () => {
      await server.close();
      await taskQueue.close();
      await store.close();
    });
    const client = await taskClient(server.url!);
    closers.push(() => client.close());
    return client;
  }

  beforeAll(async () => {
    redis = await startRedis();
    own = await serve(true);
    servingOnly = await serve(false);
    // The serving-only instance's jobs run on a worker of their own (another task manager, as another process would).
    const store = new RedisStore({ url: redis.url });
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: 'shared' });
    const worker: TaskWorkerHandle = await runTaskWorker(tools(runs, scaled(2000)), { store, taskQueue });
    closers.push(async () => {
      await worker.close();
      await taskQueue.close();
      await store.close();
    });
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await redis?.stop();
  });

  it("answers with the result when the task completes on this process's worker, and drops its record", async () => {
    const before = taskKeys().length;
    expect(await own.call('echo', { text: 'q1' })).toEqual({ text: 'q1' });
    expect(runs).toContain('echo q1');
    await sleep(200);
    expect(taskKeys()).toHaveLength(before);
  });

  it('answers with the result when a worker elsewhere completes the task (its end comes over Redis)', async () => {
    const before = taskKeys().length;
    expect(await servingOnly.call('echo', { text: 'q2' })).toEqual({ text: 'q2' });
    // A result too large to be published with the end is read from the store.
    const large = await servingOnly.call('large', { text: 'ab' });
    expect(large).toEqual({ text: 'ab'.repeat(100_000) });
    await sleep(200);
    expect(taskKeys()).toHaveLength(before);
  });

  it('answers with the task when it outlasts the window; the task completes on the worker', async () => {
    const before = taskKeys().length;
    const answer = await servingOnly.call('slow', { text: 'q3' });
    if (!('task' in answer)) throw new Error(`slow answered without a task: ${JSON.stringify(answer)}`);
    // This one is kept (and seen among the keys counted above).
    expect(taskKeys()).toHaveLength(before + 1);
    const task = await settled(servingOnly, answer.task.taskId);
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]?.text).toBe('slow q3');
    expect(runs.filter((run) => run === 'slow q3')).toHaveLength(1);
  });
});
