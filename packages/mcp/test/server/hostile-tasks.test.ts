import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, MCP_DIST, answerTaskCreation, requireBuilt, startHttpChild, stopChild } from './helpers';
import { servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import { scaled } from '../../../core/test/helpers/time-scale';

// A client that starts tasks without end (the Tasks extension, 2026-07-28 era) against a served endpoint, each
// server in a process of its own (its memory measured alone): the tasks one client runs and keeps stop at their
// limits with a coded JSON-RPC error naming the limit, its memory stays bounded, and other clients are served.
// With several processes on one Redis the limits hold across them.
jest.setTimeout(scaled(180_000));

const FIXTURE = join(ROOT, 'packages', 'mcp', 'test', 'fixtures', 'tasked-server.mjs');
const TASKS = 'io.modelcontextprotocol/tasks';
const MiB = 1024 * 1024;
const anyResult = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };

type Outcome =
  | { task: { taskId: string; status: string } }
  | { error: { code: number; message: string; data?: { code?: string; limit?: string; max?: number } | undefined } };

/**
 * An official v2 client of the 2026-07-28 era declaring the Tasks extension, as `user`. The 2.4 client has no task
 * results (it refuses an unknown `resultType`), so a `CreateTaskResult` is handed to it as the JSON text of a plain
 * result, unchanged.
 */
async function tasksClient(url: string, user: string) {
  const client = new Client(
    { name: `tasks-${user}`, version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { extensions: { [TASKS]: {} } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-user': user } } });
  await client.connect(transport);
  answerTaskCreation(transport);
  return {
    client,
    async start(ms: number, again = true): Promise<Outcome> {
      try {
        const result = (await client.request({ method: 'tools/call', params: { name: 'work', arguments: { ms } } }, anyResult)) as {
          content: Array<{ text: string }>;
        };
        return { task: (JSON.parse(result.content[0]!.text) as { created: { taskId: string; status: string } }).created };
      } catch (error) {
        const { code, message, data } = error as { code: number; message: string; data?: never };
        // A client idle while another floods the server (alice) may send on a kept-alive connection the server has just
        // closed: the request never reached it, and is sent once more. A server that is gone fails the second time too.
        if (again && code === undefined && message === 'fetch failed') return this.start(ms, false);
        return { error: { code, message, data } };
      }
    },
    cancel: (taskId: string) => client.request({ method: 'tasks/cancel', params: { taskId } }, anyResult),
    get: (taskId: string) => client.request({ method: 'tasks/get', params: { taskId } }, anyResult) as Promise<{ status: string }>,
    async stats(): Promise<{ rss: number; peakRss: number }> {
      const result = await client.callTool({ name: 'server_stats', arguments: {} });
      return result.structuredContent as { rss: number; peakRss: number };
    },
  };
}

/** Starts `count` tasks, at most `inFlight` requests at once. */
async function startMany(client: Awaited<ReturnType<typeof tasksClient>>, count: number, ms: number, inFlight: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        outcomes.push(await client.start(ms));
      }
    }),
  );
  return outcomes;
}

const started = (outcomes: Outcome[]) => outcomes.filter((outcome): outcome is Extract<Outcome, { task: unknown }> => 'task' in outcome);
const refused = (outcomes: Outcome[]) => outcomes.filter((outcome): outcome is Extract<Outcome, { error: unknown }> => 'error' in outcome);

describe('task limits against a client starting tasks without end', () => {
  beforeAll(() => requireBuilt(MCP_DIST));

  it('2,000 tasks from one client: 100 run (maxTasksRunningPerClient), 1,000 are kept (maxTasksKeptPerClient), the rest get -32000 SERVER_BUSY; server memory grows < 300 MiB (unbounded: +459 MiB); another client is served', async () => {
    const server = await startHttpChild([FIXTURE, JSON.stringify({})]);
    const clients: Array<Awaited<ReturnType<typeof tasksClient>>> = [];
    try {
      const mallory = await tasksClient(server.url, 'mallory');
      const alice = await tasksClient(server.url, 'alice');
      clients.push(mallory, alice);
      const before = await alice.stats();

      // Tasks that would run for an hour: the default limits stop them at 100 running.
      const long = await startMany(mallory, 2_000, 3_600_000, 50);
      expect(started(long)).toHaveLength(100);
      expect(refused(long)).toHaveLength(1_900);
      for (const { error } of refused(long)) {
        expect(error.code).toBe(-32000);
        expect(error.data).toEqual({ code: 'SERVER_BUSY', limit: 'maxTasksRunningPerClient', max: 100 });
        expect(error.message).toContain(
          `Task refused: tool "work" cannot start a task, there are already 100 tasks running for this client (the server's maxTasksRunningPerClient); retry once one has ended`,
        );
      }
      // Another client is not held by mallory's tasks.
      const aliceTask = await alice.start(10);
      expect(aliceTask).toEqual({ task: expect.objectContaining({ status: 'working' }) });

      // Ended tasks free their running places, but stay kept (taskTtlMs): kept ones stop at 1,000.
      for (const { task } of started(long)) await mallory.cancel(task.taskId);
      const quick = await startMany(mallory, 2_000, 0, 20);
      expect(started(quick)).toHaveLength(900);
      expect(refused(quick).length).toBe(1_100);
      for (const { error } of refused(quick)) {
        // A burst may still meet 100 running before the quick tasks end; past 900 it is the kept limit.
        expect(error.data?.limit === 'maxTasksKeptPerClient' || error.data?.limit === 'maxTasksRunningPerClient').toBe(true);
      }
      expect(refused(quick).filter(({ error }) => error.data?.limit === 'maxTasksKeptPerClient').length).toBeGreaterThan(0);
      const kept = refused(quick).find(({ error }) => error.data?.limit === 'maxTasksKeptPerClient')!.error;
      expect(kept).toMatchObject({ code: -32000, data: { code: 'SERVER_BUSY', max: 1_000 } });
      expect(kept.message).toContain("there are already 1000 tasks kept for this client (the server's maxTasksKeptPerClient)");
      expect(await alice.start(10)).toEqual({ task: expect.objectContaining({ status: 'working' }) });
      expect(await alice.get((aliceTask as { task: { taskId: string } }).task.taskId)).toMatchObject({ status: 'completed' });

      const after = await alice.stats();
      const growth = (after.peakRss - before.rss) / MiB;
      process.stdout.write(
        `task flood: rss ${Math.round(before.rss / MiB)} MiB before, peak ${Math.round(after.peakRss / MiB)} MiB (+${growth.toFixed(1)} MiB)\n`,
      );
      // Peak RSS holds the collector's slack too, and Node 24 keeps more of it than Node 20: the bound leaves room for
      // both and still fails the unbounded store.
      expect(growth).toBeLessThan(300);
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
      await stopChild(server.child, server.exited);
    }
  });

  it('refuses nonsense task limits with a coded error naming the option', async () => {
    const { serveMcp } = await import('@anytool/mcp');
    for (const option of ['maxTasksRunning', 'maxTasksRunningPerClient', 'maxTasksKept', 'maxTasksKeptPerClient']) {
      for (const value of [0, -1, 1.5, Number.NaN, '10']) {
        await expect(serveMcp([], { transport: 'http', port: 0, [option]: value })).rejects.toMatchObject({
          code: 'INVALID_OPTIONS',
          message: `serveMcp(): ${option} must be a positive whole number, got ${String(value)}`,
        });
      }
    }
  });
});

const withRedis = servicesAvailable('redis-server') ? describe : describe.skip;

withRedis('task limits across processes sharing one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    requireBuilt(MCP_DIST);
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('two processes, 200 task requests from one client at once to each: exactly 10 run in all (maxTasksRunningPerClient 10, counted in Redis)', async () => {
    const options = JSON.stringify({ redisUrl: redis.url, maxTasksRunningPerClient: 10 });
    const servers = [await startHttpChild([FIXTURE, options]), await startHttpChild([FIXTURE, options])];
    const clients: Array<Awaited<ReturnType<typeof tasksClient>>> = [];
    try {
      for (const server of servers) clients.push(await tasksClient(server.url, 'mallory'));
      const outcomes = (await Promise.all(clients.map((client) => startMany(client, 200, 3_600_000, 100)))).flat();
      expect(started(outcomes)).toHaveLength(10);
      expect(refused(outcomes)).toHaveLength(390);
      for (const { error } of refused(outcomes)) expect(error.data).toEqual({ code: 'SERVER_BUSY', limit: 'maxTasksRunningPerClient', max: 10 });
      // Another client, on either process, is served.
      const bob = await tasksClient(servers[1]!.url, 'bob');
      clients.push(bob);
      expect(await bob.start(10)).toEqual({ task: expect.objectContaining({ status: 'working' }) });
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
      await Promise.all(servers.map((server) => stopChild(server.child, server.exited)));
    }
  });
});
