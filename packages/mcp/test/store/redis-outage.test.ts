import { tool } from '@anytool/core';
import { BullmqTaskQueue, RedisStore, runTaskWorker, serveMcp } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import { taskClient } from '../fixtures/task-client';
import { scaled } from '../../../core/test/helpers/time-scale';

// Redis stops while an endpoint serves tasks from it, then starts again on the same port: a task call during the
// outage fails at once with a coded error that says what happened, where and since when; the outage is reported
// once (not once per reconnect attempt) and so is the recovery; calls work again once Redis is back.
jest.setTimeout(scaled(60_000));

const TASKS = 'io.modelcontextprotocol/tasks';
const anyResult = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const withRedis = servicesAvailable('redis-server') ? describe : describe.skip;

withRedis('a RedisStore while Redis is down', () => {
  it('a task call fails within 2 s with STORE_FAILED naming the address (no credentials) and since when; one report per outage and one per recovery', async () => {
    let redis: RedisServer | undefined = await startRedis();
    const port = redis.port;
    const reports: Error[] = [];
    const store = new RedisStore({ url: `redis://user:s3cret@127.0.0.1:${port}`.replace('user:s3cret@', ':s3cret@'), onError: (error) => reports.push(error) });
    const work = tool(async () => 'done', { name: 'work', description: 'A quick task.', parameters: { type: 'object', properties: {} }, task: true });
    const serverErrors: Error[] = [];
    const server = await serveMcp([work], { transport: 'http', port: 0, store, onError: (error) => serverErrors.push(error) });
    const client = new Client(
      { name: 'outage', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { extensions: { [TASKS]: {} } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(server.url!));
    await client.connect(transport);
    const deliver = transport.onmessage!;
    transport.onmessage = (message) => {
      const result = (message as { result?: Record<string, unknown> }).result;
      if (result?.['resultType'] !== 'task') return deliver(message);
      deliver({ ...message, result: { resultType: 'complete', content: [{ type: 'text', text: 'task' }] } } as typeof message);
    };
    const start = () => client.request({ method: 'tools/call', params: { name: 'work', arguments: {} } }, anyResult);
    try {
      await start();
      await redis.stop();
      redis = undefined;
      const stoppedAt = Date.now();
      await sleep(1_500);
      const began = Date.now();
      const error = (await start().then(
        () => undefined,
        (failed: unknown) => failed,
      )) as { code: number; message: string; data?: { code?: string } } | undefined;
      const waitedMs = Date.now() - began;
      process.stdout.write(`redis outage: a task call failed after ${waitedMs} ms\n`);
      expect(waitedMs).toBeLessThan(2_000);
      expect(error).toBeDefined();
      expect(error!.code).toBe(-32603);
      expect(error!.data).toEqual({ code: 'STORE_FAILED' });
      expect(error!.message).toMatch(
        new RegExp(
          `Redis at redis://127\\.0\\.0\\.1:${port} is unreachable since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(.+\\); the store reconnects on its own: check that redis-server runs there, then retry`,
        ),
      );
      expect(error!.message).not.toContain('s3cret');
      const since = Date.parse(/since (\S+)/.exec(error!.message)![1]!);
      expect(Math.abs(since - stoppedAt)).toBeLessThan(scaled(2_000));
      // Reconnect attempts kept failing meanwhile: reported once.
      await sleep(1_500);
      expect(reports.map((report) => report.message)).toEqual([
        expect.stringMatching(new RegExp(`^RedisStore: lost Redis at redis://127\\.0\\.0\\.1:${port} \\(.+\\); reconnecting`)),
      ]);
      expect(reports[0]).toMatchObject({ code: 'STORE_FAILED' });

      redis = await startRedis(port);
      const deadline = Date.now() + scaled(15_000);
      let back = false;
      while (!back && Date.now() < deadline) {
        back = await start().then(
          () => true,
          () => false,
        );
        if (!back) await sleep(200);
      }
      expect(back).toBe(true);
      expect(reports).toHaveLength(2);
      expect(reports[1]!.message).toMatch(new RegExp(`^RedisStore: Redis at redis://127\\.0\\.0\\.1:${port} is reachable again, after [\\d.]+ s$`));
    } finally {
      await client.close();
      await server.close();
      await store.close();
      await redis?.stop();
    }
  });
});

withRedis('a BullmqTaskQueue while Redis is down', () => {
  it('queueing a task fails at once rather than waiting for Redis; once Redis is back, the worker runs tasks again', async () => {
    let redis: RedisServer | undefined = await startRedis();
    const port = redis.port;
    const store = new RedisStore({ url: redis.url, onError: () => undefined });
    const taskQueue = new BullmqTaskQueue({ url: redis.url });
    const work = tool(async () => 'done', { name: 'work', description: 'A quick task.', parameters: { type: 'object', properties: {} }, task: true });
    const server = await serveMcp([work], { transport: 'http', port: 0, store, taskQueue, onError: () => undefined });
    const client = await taskClient(server.url!);
    const job = { taskId: 'outage-job', tool: 'work', args: {} };
    try {
      const first = await client.call('work', {});
      if (!('task' in first)) throw new Error('work answered without a task');
      await redis.stop();
      redis = undefined;
      await sleep(500);
      // The queue's own connection does not keep commands for later (nor time them out after 5 s): it fails now.
      const began = Date.now();
      const failure = await taskQueue.add(job).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const waitedMs = Date.now() - began;
      process.stdout.write(`redis outage: queueing a task failed after ${waitedMs} ms\n`);
      expect(failure).toBeInstanceOf(Error);
      expect(waitedMs).toBeLessThan(2_000);

      redis = await startRedis(port);
      // The worker reconnected on its own: a task queued now runs and completes.
      const deadline = Date.now() + scaled(15_000);
      let status = 'not started';
      while (status !== 'completed' && Date.now() < deadline) {
        const started = await client.call('work', {}).catch(() => undefined);
        if (started !== undefined && 'task' in started) {
          for (let poll = 0; poll < 50; poll++) {
            status = (await client.get(started.task.taskId)).status;
            if (status !== 'working') break;
            await sleep(100);
          }
        } else await sleep(200);
      }
      expect(status).toBe('completed');
    } finally {
      // Redis back first, should a check above have failed while it was down: closing waits on it.
      redis ??= await startRedis(port);
      await client.close();
      await server.close();
      await taskQueue.close();
      await store.close();
      await redis.stop();
    }
  });

  it('a worker stopping while Redis is down stops: its grace period, a bounded wait for its last commands, then it lets go', async () => {
    let redis: RedisServer | undefined = await startRedis();
    const port = redis.port;
    const store = new RedisStore({ url: redis.url, onError: () => undefined });
    const taskQueue = new BullmqTaskQueue({ url: redis.url, queueName: 'outage-stop' });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    // Ends when its signal aborts (the grace period is over): its handing back then needs Redis.
    const slow = tool(
      async (_args: object, context: { signal: AbortSignal }) => {
        started();
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
        return 'stopped';
      },
      {
        name: 'slow',
        description: 'Runs until stopped.',
        parameters: { type: 'object', properties: {} },
        task: true,
        context: true,
        annotations: { idempotent: true },
      },
    );
    const server = await serveMcp([slow], { transport: 'http', port: 0, store, taskQueue, taskWorker: false, onError: () => undefined });
    const workerQueue = new BullmqTaskQueue({ url: redis.url, queueName: 'outage-stop' });
    const worker = await runTaskWorker([slow], { store, taskQueue: workerQueue, taskGraceMs: 500, onError: () => undefined });
    const client = await taskClient(server.url!);
    try {
      const call = await client.call('slow', {});
      if (!('task' in call)) throw new Error('slow answered without a task');
      await running;
      await redis.stop();
      redis = undefined;
      await sleep(300);
      const began = Date.now();
      await worker.close();
      const stoppedMs = Date.now() - began;
      process.stdout.write(`redis outage: a worker with a running task stopped after ${stoppedMs} ms (grace 500 ms)\n`);
      // Grace 500 ms, then at most 5 s for the handing back, then the connection cut: well under a minute.
      expect(stoppedMs).toBeLessThan(scaled(15_000));
    } finally {
      redis ??= await startRedis(port);
      await worker.close();
      await client.close();
      await server.close();
      await Promise.all([taskQueue.close(), workerQueue.close()]);
      await store.close();
      await redis.stop();
    }
  });
});
