// Tasks on a BullMQ queue, with real processes: two `anytool-mcp serve --http --task-queue --no-worker` instances
// (serving only) behind a real nginx, `anytool-mcp serve --worker-only` processes running the tools, one real
// redis-server. A worker killed with SIGKILL: its idempotent task runs again on another worker and completes once,
// its resumable task resumes from its last checkpoint, its plain task fails saying why (never run twice). A worker
// stopped with SIGTERM hands its tasks over after its grace period. Cancel, progress and input reach the worker
// through whichever instance the client talks to.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesAvailable, startNginx, startRedis, type Nginx, type RedisServer } from '../fixtures/services';
import { taskClient, type Task, type TaskClient } from '../fixtures/task-client';
import { ROOT, requireBuilt, startHttpChild, stopChild, waitFor, MCP_DIST } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const CLI = join(ROOT, 'packages', 'mcp', 'bin', 'anytool-mcp.mjs');
const MODULE = join(__dirname, '..', 'fixtures', 'queue-tools.mjs');
const LOCK_MS = 1000;
const GRACE_MS = 1000;

interface Proc {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<number | null>;
  stderr(): string;
}

const withServices = servicesAvailable('redis-server', 'nginx');

(withServices ? describe : describe.skip)('tasks on a BullMQ queue: serving instances behind nginx, worker-only processes', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  let dir: string;
  let runsFile: string;
  const instances: Array<Awaited<ReturnType<typeof startHttpChild>>> = [];
  const workers: Proc[] = [];
  const clients: TaskClient[] = [];

  async function startWorker(): Promise<Proc> {
    const args = [CLI, 'serve', MODULE, '--worker-only', '--store', redis.url, '--task-lock-ms', String(LOCK_MS), '--task-grace-ms', String(GRACE_MS)];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'pipe', env: { ...process.env, RUNS_FILE: runsFile } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const until = Date.now() + scaled(20_000);
    // The last line it writes once it takes tasks (two writes: a pipe may hand over the first alone).
    while (!stderr.includes('task queue: ')) {
      if (child.exitCode !== null || Date.now() > until) throw new Error(`the worker did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const worker = { child, exited, stderr: () => stderr };
    workers.push(worker);
    return worker;
  }

  /** The runs RUNS_FILE noted for `marker`: the pid and first step of each start (or "aborted"). */
  function runs(marker: string): Array<{ pid: number; from: string }> {
    let text = '';
    try {
      text = readFileSync(runsFile, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields[1] === marker)
      .map((fields) => ({ pid: Number(fields[2]), from: fields[3]! }));
  }

  async function waitForRuns(marker: string, count: number, ms = 20_000): Promise<Array<{ pid: number; from: string }>> {
    const until = Date.now() + scaled(ms);
    for (;;) {
      const seen = runs(marker);
      if (seen.length >= count) return seen;
      if (Date.now() > until) throw new Error(`${marker}: ${seen.length} runs noted, waited for ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function client(url: string, capabilities?: Record<string, unknown>): Promise<TaskClient> {
    const made = await taskClient(url, capabilities);
    clients.push(made);
    return made;
  }

  async function start(via: TaskClient, tool: string, args: object): Promise<string> {
    const started = await via.call(tool, args);
    if (!('task' in started)) throw new Error(`${tool} answered without a task: ${JSON.stringify(started)}`);
    return started.task.taskId;
  }

  async function settled(via: TaskClient, taskId: string, ms = 30_000): Promise<Task> {
    const until = Date.now() + scaled(ms);
    for (;;) {
      const task = await via.get(taskId);
      if (!['working', 'input_required'].includes(task.status)) return task;
      if (Date.now() > until) throw new Error(`task still ${task.status}: ${JSON.stringify(task)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function workerOf(pid: number): Proc {
    const found = workers.find((worker) => worker.child.pid === pid);
    if (found === undefined) throw new Error(`no worker with pid ${pid}`);
    return found;
  }

  async function kill(worker: Proc, signal: NodeJS.Signals): Promise<void> {
    worker.child.kill(signal);
    await worker.exited;
    workers.splice(workers.indexOf(worker), 1);
  }

  beforeAll(async () => {
    requireBuilt(MCP_DIST);
    dir = mkdtempSync(join(tmpdir(), 'anytool-queue-'));
    runsFile = join(dir, 'runs.txt');
    redis = await startRedis();
    for (let i = 0; i < 2; i++)
      instances.push(
        await startHttpChild([
          CLI,
          'serve',
          MODULE,
          '--http',
          '--port',
          '0',
          '--store',
          redis.url,
          '--task-queue',
          '--no-worker',
          '--task-lock-ms',
          String(LOCK_MS),
        ]),
      );
    nginx = await startNginx(instances.map((instance) => new URL(instance.url).host));
    await startWorker();
    await startWorker();
  });

  afterAll(async () => {
    await Promise.all(clients.map((made) => made.close().catch(() => undefined)));
    await nginx?.stop();
    await Promise.all(instances.map((instance) => stopChild(instance.child, instance.exited)));
    await Promise.all(workers.map((worker) => stopChild(worker.child, worker.exited)));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says on stderr that the instances serve only and the workers run tasks', async () => {
    // Written after the URL line the start waits for.
    for (const instance of instances) await waitFor(() => instance.stderr().includes('task queue: '), 10_000, 'the task queue line');
    for (const instance of instances) expect(instance.stderr()).toContain('task queue: anytool-tasks (serving only, no worker)');
    for (const worker of workers) expect(worker.stderr()).toContain('task queue: anytool-tasks in');
  });

  it('runs a task on a worker, its progress seen through the other instance', async () => {
    const [first, second] = [await client(instances[0]!.url), await client(instances[1]!.url)];
    const taskId = await start(first, 'idempotent_job', { steps: 6, stepMs: 150, marker: 'progress' });
    const messages = new Set<string>();
    let task: Task;
    do {
      task = await second.get(taskId);
      if (task.statusMessage !== undefined) messages.add(task.statusMessage);
      await new Promise((resolve) => setTimeout(resolve, 40));
    } while (task.status === 'working');
    const [run] = runs('progress');
    expect(task.status).toBe('completed');
    expect(task.result?.content[0]?.text).toBe(`idempotent_job done by ${run!.pid} from step 0`);
    expect(workers.map((worker) => worker.child.pid)).toContain(run!.pid);
    expect([...messages].some((message) => new RegExp(`^step \\d of 6 in ${run!.pid}$`).test(message))).toBe(true);
  });

  it('runs an idempotent task again on another worker when its worker is killed; the client sees one task that completes', async () => {
    const viaNginx = await client(nginx.url);
    const taskId = await start(viaNginx, 'idempotent_job', { steps: 40, stepMs: 100, marker: 'idem' });
    const [first] = await waitForRuns('idem', 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killedAt = Date.now();
    await kill(workerOf(first!.pid), 'SIGKILL');
    await startWorker();
    const [, second] = await waitForRuns('idem', 2);
    console.log(`SIGKILL of a worker to its idempotent task running on another: ${Date.now() - killedAt} ms (lock ${LOCK_MS} ms, backoff 1000 ms)`);
    const task = await settled(viaNginx, taskId);
    expect(task.status).toBe('completed');
    expect(second!.pid).not.toBe(first!.pid);
    expect(task.result?.content[0]?.text).toBe(`idempotent_job done by ${second!.pid} from step 0`);
    expect(runs('idem')).toHaveLength(2);
  });

  it('resumes a resumable task from its last checkpoint on another worker', async () => {
    const viaNginx = await client(nginx.url);
    const taskId = await start(viaNginx, 'resumable_job', { steps: 30, stepMs: 100, marker: 'resume' });
    const [first] = await waitForRuns('resume', 1);
    expect(first!.from).toBe('0');
    await new Promise((resolve) => setTimeout(resolve, 800));
    await kill(workerOf(first!.pid), 'SIGKILL');
    await startWorker();
    const [, second] = await waitForRuns('resume', 2);
    const task = await settled(viaNginx, taskId);
    expect(task.status).toBe('completed');
    expect(Number(second!.from)).toBeGreaterThanOrEqual(3);
    expect(task.result?.content[0]?.text).toBe(`resumable_job done by ${second!.pid} from step ${second!.from}`);
  });

  it('fails a plain task whose worker is killed, saying why, and never runs it twice', async () => {
    const viaNginx = await client(nginx.url);
    const taskId = await start(viaNginx, 'plain_job', { steps: 40, stepMs: 100, marker: 'plain' });
    const [first] = await waitForRuns('plain', 1);
    await kill(workerOf(first!.pid), 'SIGKILL');
    await startWorker();
    const task = await settled(viaNginx, taskId);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toMatch(/worker running this task stopped before it finished; tool "plain_job" is not marked idempotent .* or resumable/);
    expect(task.error?.message).toBe(task.statusMessage);
    expect(runs('plain')).toHaveLength(1);
  });

  it('cancels a task through the instance that did not start it: the worker aborts the tool', async () => {
    const [first, second] = [await client(instances[0]!.url), await client(instances[1]!.url)];
    const taskId = await start(first, 'plain_job', { steps: 100, stepMs: 100, marker: 'cancel' });
    await waitForRuns('cancel', 1);
    await second.client.request({ method: 'tasks/cancel', params: { taskId } }, anyResult);
    expect((await first.get(taskId)).status).toBe('cancelled');
    const [, aborted] = await waitForRuns('cancel', 2, 5_000);
    expect(aborted!.from).toBe('aborted');
  });

  it('carries a question to the client and its answer through different instances', async () => {
    const elicitation = { elicitation: { form: {} } };
    const [first, second] = [await client(instances[0]!.url, elicitation), await client(instances[1]!.url, elicitation)];
    const taskId = await start(first, 'ask_job', {});
    let task: Task;
    const until = Date.now() + scaled(10_000);
    do {
      task = await second.get(taskId);
      await new Promise((resolve) => setTimeout(resolve, 40));
    } while (task.status !== 'input_required' && Date.now() < until);
    const keys = Object.keys(task['inputRequests'] as object);
    expect(keys).toHaveLength(1);
    await second.client.request(
      { method: 'tasks/update', params: { taskId, inputResponses: { [keys[0]!]: { action: 'accept', content: { name: 'Ada' } } } } },
      anyResult,
    );
    const done = await settled(first, taskId);
    expect(done.status).toBe('completed');
    expect(done.result?.content[0]?.text).toMatch(/^hello Ada from \d+$/);
  });

  it('on SIGTERM lets a short task finish, hands an idempotent one over after the grace period, and fails a plain one saying why', async () => {
    // One worker left, so every task below runs on it.
    while (workers.length > 1) await kill(workers[workers.length - 1]!, 'SIGTERM');
    const viaNginx = await client(nginx.url);
    const short = await start(viaNginx, 'plain_job', { steps: 3, stepMs: 100, marker: 'short' });
    const long = await start(viaNginx, 'idempotent_job', { steps: 60, stepMs: 100, marker: 'handover' });
    const plain = await start(viaNginx, 'plain_job', { steps: 60, stepMs: 100, marker: 'stopped' });
    await Promise.all(['short', 'handover', 'stopped'].map((marker) => waitForRuns(marker, 1)));
    const stopping = workers[0]!;
    stopping.child.kill('SIGTERM');
    const next = await startWorker();
    await stopping.exited;
    workers.splice(workers.indexOf(stopping), 1);
    expect((await settled(viaNginx, short)).result?.content[0]?.text).toBe(`plain_job done by ${stopping.child.pid} from step 0`);
    const failed = await settled(viaNginx, plain);
    expect(failed.status).toBe('failed');
    expect(failed.statusMessage).toMatch(/did not finish within its grace period \(taskGraceMs, 1000 ms\); tool "plain_job" is not marked idempotent/);
    const handedOver = await settled(viaNginx, long);
    expect(handedOver.status).toBe('completed');
    expect(handedOver.result?.content[0]?.text).toBe(`idempotent_job done by ${next.child.pid} from step 0`);
    expect(runs('stopped').filter((run) => run.from !== 'aborted')).toHaveLength(1);
  });
});

/** A result schema that takes any object (the task methods are not in the SDK's typed method maps). */
const anyResult = { '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };
