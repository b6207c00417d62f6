// Scale-out with real processes: three `anytool serve --http --store redis://...` instances of one
// module behind a real nginx (the deployment guide's configuration) and a real redis-server.
// 2026-07-28 calls spread over all three; a task started on one is polled to completion through
// the others; a task whose instance is killed ends `failed`, saying why; a 2025-era client works
// through the same nginx, its session kept on one instance.
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { servicesAvailable, startNginx, startRedis, type Nginx, type RedisServer } from '../fixtures/services';
import { taskClient, type Task } from '../fixtures/task-client';
import { ROOT, requireBuilt, startHttpChild, stopChild, waitFor, MCP_DIST } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = join(__dirname, '..', 'fixtures', 'scale-tools.mjs');

type Instance = Awaited<ReturnType<typeof startHttpChild>>;

const withServices = servicesAvailable('redis-server', 'nginx');

(withServices ? describe : describe.skip)('three anytool serve instances behind nginx, sharing Redis', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  const instances: Instance[] = [];
  const pids = (): string[] => instances.map((instance) => String(instance.child.pid));

  beforeAll(async () => {
    requireBuilt(MCP_DIST);
    redis = await startRedis();
    // A 3 s lease (15 s by default): the killed instance's task is failed after two, not after 30 s.
    const lease = ['--task-lease-ms', String(scaled(3_000))];
    for (let i = 0; i < 3; i++) instances.push(await startHttpChild([ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--store', redis.url, ...lease]));
    nginx = await startNginx(instances.map((instance) => new URL(instance.url).host));
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => stopChild(instance.child, instance.exited)));
    await redis?.stop();
  });

  it('says on stderr which store each instance shares', async () => {
    // Written after the URL line the start waits for.
    for (const instance of instances) await waitFor(() => instance.stderr().includes('store: '), 10_000, 'the store line');
    for (const instance of instances) expect(instance.stderr()).toContain(`anytool serve: store: ${redis.url}`);
  });

  it('answers a 2026-07-28 client’s 1,000 calls from all three instances', async () => {
    const client = await taskClient(nginx.url);
    try {
      const answeredBy = new Map<string, number>();
      let next = 0;
      // 20 calls in flight at a time, as a busy agent host would send them.
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (next < 1000) {
            next++;
            const answer = await client.call('whoami');
            if (!('text' in answer)) throw new Error(`whoami became a task: ${JSON.stringify(answer)}`);
            answeredBy.set(answer.text, (answeredBy.get(answer.text) ?? 0) + 1);
          }
        }),
      );
      const spread = Object.fromEntries([...answeredBy].sort());
      console.log(`1,000 calls through nginx, answered per instance (process id: calls): ${JSON.stringify(spread)}`);
      expect([...answeredBy.keys()].sort()).toEqual(pids().sort());
      expect([...answeredBy.values()].reduce((a, b) => a + b, 0)).toBe(1000);
    } finally {
      await client.close();
    }
  });

  it('polls a task started through one instance to completion through the others', async () => {
    const [first, second, third] = await Promise.all(instances.map((instance) => taskClient(instance.url)));
    try {
      const started = await first!.call('long_job', { steps: 5, stepMs: 100 });
      if (!('task' in started)) throw new Error(`long_job answered without a task: ${JSON.stringify(started)}`);
      const { taskId } = started.task;
      const seen: string[] = [];
      let task: Task;
      for (let poll = 0; ; poll++) {
        // Every poll goes to an instance other than the one running the task.
        task = await (poll % 2 === 0 ? second! : third!).get(taskId);
        seen.push(task.status);
        if (!['working', 'input_required'].includes(task.status) || poll > 500) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(task.status).toBe('completed');
      expect(seen).toContain('working');
      expect(task.result?.content[0]?.text).toBe(`done by ${instances[0]!.child.pid}`);
      // And through nginx, round-robin: the same task, the same result.
      const viaNginx = await taskClient(nginx.url);
      try {
        for (let i = 0; i < 3; i++) expect((await viaNginx.get(taskId)).result?.content[0]?.text).toBe(`done by ${instances[0]!.child.pid}`);
      } finally {
        await viaNginx.close();
      }
    } finally {
      await Promise.all([first, second, third].map((client) => client!.close()));
    }
  });

  it('keeps a 2025-era session on one instance through nginx', async () => {
    const client = new V1Client({ name: 'legacy-through-nginx', version: '1' });
    await client.connect(new V1HttpTransport(new URL(nginx.url)));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hash_chain', 'long_job', 'whoami']);
      const answers = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
        answers.add(result.content[0]!.text);
      }
      expect(answers.size).toBe(1);
      expect(pids()).toContain([...answers][0]);
      // A task tool is a plain call on this era: it answers when done.
      const job = (await client.callTool({ name: 'long_job', arguments: { steps: 2, stepMs: 10 } })) as { content: Array<{ text: string }> };
      expect(job.content[0]!.text).toBe(`done by ${[...answers][0]}`);
    } finally {
      await client.close();
    }
  });

  it('marks a task failed, saying why, when the instance running it is killed', async () => {
    const victim = instances[2]!;
    const onVictim = await taskClient(victim.url);
    const viaNginx = await taskClient(nginx.url);
    try {
      const started = await onVictim.call('long_job', { steps: 600, stepMs: 100 });
      if (!('task' in started)) throw new Error(`long_job answered without a task: ${JSON.stringify(started)}`);
      const { taskId } = started.task;
      expect((await viaNginx.get(taskId)).status).toBe('working');
      victim.child.kill('SIGKILL');
      await victim.exited;
      let task: Task;
      const deadline = Date.now() + 60_000;
      do {
        await new Promise((resolve) => setTimeout(resolve, 250));
        // nginx passes a poll that lands on the dead instance to a live one.
        task = await viaNginx.get(taskId);
      } while (task.status === 'working' && Date.now() < deadline);
      expect(task.status).toBe('failed');
      expect(task.statusMessage).toMatch(/server process running this task stopped before it finished .*call the tool again/);
      expect(task.error?.message).toBe(task.statusMessage);
    } finally {
      await Promise.all([onVictim.client.close().catch(() => undefined), viaNginx.close()]);
    }
  });
});
