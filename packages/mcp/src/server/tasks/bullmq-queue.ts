import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { importOptional } from '../../shared/optional-dependency.js';

/** Options of `BullmqTaskQueue`. */
export interface BullmqTaskQueueOptions {
  /** Where Redis is: `redis://[user:password@]host:port[/db]` (or `rediss://`); usually the store's Redis. */
  url: string;
  /** The queue's name: the processes serving one endpoint share it. Default `anytool-tasks`. */
  queueName?: string;
  /** BullMQ's key prefix in Redis. Default `anytool:bull`. */
  prefix?: string;
  /** How many tasks one worker process runs at once. Default 50. */
  concurrency?: number;
  /**
   * How long a worker's hold on a running task lasts, in milliseconds; the worker renews it
   * at half that. A worker that died stops renewing: its task is found stalled within about
   * `lockMs` plus `stalledIntervalMs`, and handled as its tool declares (run again, resumed,
   * or failed). Default 30 s.
   */
  lockMs?: number;
  /** How often workers look for stalled tasks, in milliseconds. Default: `lockMs`. */
  stalledIntervalMs?: number;
  /** How many times a task of an idempotent or resumable tool is run again after its worker stopped. Default 3. */
  retries?: number;
  /** The wait before the first rerun, in milliseconds, doubled for each further one. Default 1,000. */
  backoffMs?: number;
}

/** How a task's tool may be run again once its worker stopped: from the start, from its last checkpoint, or never. */
export type TaskRerun = 'idempotent' | 'resumable';

/** What a queued task's job carries: enough for any worker to run the tool. Kept in Redis only while the task is queued or running. */
export interface TaskJob {
  taskId: string;
  tool: string;
  args: unknown;
  /** Absent: never run twice. */
  rerun?: TaskRerun;
  /** The envelope of the request that started the task (client capabilities and info), so the tool asks only what the client can answer. */
  envelope?: Record<string, unknown>;
  /** Who called (the authenticated principal's scopes, client id, claims), without the bearer token. */
  authInfo?: Record<string, unknown>;
  /** The task's record as stored when it was queued: a worker's first take claims against it without reading it. */
  queuedRecord?: string;
  /** The instance whose call waits for the task's end until `until` (epoch ms; `taskAnswerWithinMs`): told on its channel. */
  answerTo?: { instance: string; until: number };
}

/** One run of a job on this worker, and how it gives the job back to the queue. */
export interface QueuedRun {
  readonly job: TaskJob;
  /** Puts the job back to wait until `at` (epoch ms); rejects with BullMQ's signal to leave the job as it now is. */
  delay(at: number): Promise<never>;
  /** Puts the job back to wait at once, for another worker; rejects as `delay`. */
  requeue(): Promise<never>;
}

/** The part of the `bullmq` package used here (it is loaded only when a queue connects). */
interface BullmqJob {
  id?: string;
  data: TaskJob;
  moveToDelayed(timestamp: number, token?: string): Promise<void>;
  moveToWait(token?: string): Promise<number>;
}
interface BullmqQueue {
  on(event: 'error', listener: (error: Error) => void): unknown;
  add(name: string, data: TaskJob, options: object): Promise<unknown>;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  remove(jobId: string): Promise<number>;
  close(): Promise<void>;
}
interface BullmqWorker {
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'failed', listener: (job: BullmqJob | undefined, error: Error) => void): unknown;
  close(force?: boolean): Promise<void>;
  waitUntilReady(): Promise<unknown>;
}
interface BullmqModule {
  Queue: new (name: string, options: object) => BullmqQueue;
  Worker: new (name: string, processor: (job: BullmqJob, token?: string) => Promise<unknown>, options: object) => BullmqWorker;
  DelayedError: new () => Error;
  WaitingError: new () => Error;
}
interface RedisClient {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface RedisModule {
  createClient(options: object): RedisClient;
}

/** The `bullmq` and `redis` packages, loaded on first use (both ship CommonJS too: the CommonJS build requires them). */
async function loadModules(): Promise<{ bullmq: BullmqModule; redis: RedisModule }> {
  const loaded = (await importOptional(() => import('bullmq'), 'BullmqTaskQueue', 'bullmq')) as unknown as BullmqModule & { default?: BullmqModule };
  const bullmq = typeof loaded.Worker === 'function' ? loaded : loaded.default!;
  const redis = (await importOptional(() => import('redis'), 'BullmqTaskQueue', 'redis')) as unknown as RedisModule & { default?: RedisModule };
  return { bullmq, redis: typeof redis.createClient === 'function' ? redis : redis.default! };
}

/** The URL without its credentials, for messages. */
function shownUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

/**
 * Tasks on BullMQ (https://docs.bullmq.io), on Redis: a task is a job of one queue that every
 * process serving the endpoint shares. Any process with a worker (`serveMcp`'s default, or a
 * worker-only process, `runTaskWorker`) takes jobs and runs their tools; the task's record (status,
 * progress, questions, result) stays in the server's `store`, where every process answers
 * `tasks/get` from. BullMQ's stalled-job detection finds the tasks of a worker that died; each is
 * then run again (an idempotent tool), resumed from its last checkpoint (a `resumable` tool), or
 * failed saying why (any other tool: never run twice).
 *
 * `bullmq` is an optional peer dependency of @anytool/mcp: install it to use this class
 * (`npm i bullmq`); it is loaded when the queue first connects.
 *
 * @example
 * const url = 'redis://127.0.0.1:6379';
 * await serveMcp(tools, { transport: 'http', port: 3000, store: new RedisStore({ url }), taskQueue: new BullmqTaskQueue({ url }) });
 */
export class BullmqTaskQueue {
  readonly url: string;
  readonly queueName: string;
  readonly prefix: string;
  readonly concurrency: number;
  readonly lockMs: number;
  readonly stalledIntervalMs: number;
  readonly retries: number;
  readonly backoffMs: number;
  private modules: Promise<{ bullmq: BullmqModule; redis: RedisModule }> | undefined;
  private queue: Promise<{ queue: BullmqQueue; client: RedisClient }> | undefined;
  private worker: { worker: BullmqWorker; client: RedisClient } | undefined;
  private closed = false;

  constructor(options: BullmqTaskQueueOptions) {
    if (typeof options?.url !== 'string' || !/^rediss?:\/\//.test(options.url))
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `BullmqTaskQueue: url must be a redis:// or rediss:// URL, got ${typeof options?.url === 'string' ? JSON.stringify(shownUrl(options.url)) : String(options?.url)}`,
      );
    this.url = options.url;
    this.queueName = options.queueName ?? 'anytool-tasks';
    this.prefix = options.prefix ?? 'anytool:bull';
    if (!/^[\w.-]+$/.test(this.queueName))
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `BullmqTaskQueue: queueName must be letters, digits, "_", "." or "-", got ${JSON.stringify(this.queueName)}`,
      );
    this.concurrency = whole(options.concurrency ?? 50, 'concurrency', 1);
    this.lockMs = whole(options.lockMs ?? 30_000, 'lockMs', 100);
    this.stalledIntervalMs = whole(options.stalledIntervalMs ?? this.lockMs, 'stalledIntervalMs', 50);
    this.retries = whole(options.retries ?? 3, 'retries', 0);
    this.backoffMs = whole(options.backoffMs ?? 1_000, 'backoffMs', 0);
  }

  /** Connects now (it would on first use): rejects, saying where and why, when Redis cannot be reached or bullmq is not installed. */
  async connect(): Promise<void> {
    await this.opened();
  }

  /** Queues a task's job (its id is the task's). */
  async add(job: TaskJob): Promise<void> {
    const { queue } = await this.opened();
    // The task's record is the truth about it: the job is removed once it ends, and is never retried by BullMQ itself.
    await queue.add('task', job, { jobId: job.taskId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
  }

  /**
   * Takes a task's job out of the queue if no worker holds it (waiting, or delayed before a
   * rerun); resolves to whether it did. A job a worker runs stays (BullMQ keeps its lock).
   */
  async remove(taskId: string): Promise<boolean> {
    const { queue } = await this.opened();
    return (await queue.remove(taskId)) === 1;
  }

  /** Tasks waiting for a worker (waiting, delayed before a rerun, prioritized). */
  async queuedCount(): Promise<number> {
    const { queue } = await this.opened();
    const counts = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  /** Whether this process takes jobs (`work` was called and the worker is not stopped). */
  get working(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Starts this process's worker: `run` is called for each job taken, and the job ends when it
   * settles (a rejection of `QueuedRun.delay` / `requeue` leaves it back in the queue).
   * `onLost` hears of a job BullMQ failed without `run` settling it (a worker dead too often).
   */
  async work(run: (queued: QueuedRun) => Promise<void>, onLost: (job: TaskJob, error: Error) => void, onError: (error: Error) => void): Promise<void> {
    if (this.worker !== undefined) return;
    const { bullmq, redis } = await this.load();
    const client = await this.client(redis, 'worker');
    const worker = new bullmq.Worker(
      this.queueName,
      (job, token) =>
        run({
          job: job.data,
          delay: async (at) => {
            await job.moveToDelayed(at, token);
            throw new bullmq.DelayedError();
          },
          requeue: async () => {
            await job.moveToWait(token);
            throw new bullmq.WaitingError();
          },
        }),
      {
        connection: client,
        prefix: this.prefix,
        concurrency: this.concurrency,
        lockDuration: this.lockMs,
        stalledInterval: this.stalledIntervalMs,
        // Each stall puts the job back: `run` decides from the task's record whether it runs again.
        maxStalledCount: this.retries + 1,
      },
    );
    worker.on('error', (error) => onError(new Error(`BullmqTaskQueue (${shownUrl(this.url)}): worker: ${describeError(error)}`, { cause: error })));
    worker.on('failed', (job, error) => {
      if (job !== undefined) onLost(job.data, error);
    });
    this.worker = { worker, client };
    await worker.waitUntilReady();
  }

  /**
   * Stops this process's worker: it takes no more jobs, and the running ones get `graceMs` to
   * finish; then `graceOver` is called (it hands them back or fails them), and this resolves once
   * every job has left the worker. While Redis is down the worker's commands wait for it: past
   * `STOP_WAIT_MS` more, the worker is let go, its jobs left to stall (another worker finds them).
   */
  async stopWorking(graceMs: number, graceOver: () => void): Promise<void> {
    const held = this.worker;
    if (held === undefined) return;
    this.worker = undefined;
    const stopped = held.worker.close().then(
      () => true,
      () => true,
    );
    if (!(await within(stopped, graceMs))) {
      graceOver();
      if (!(await within(stopped, STOP_WAIT_MS))) {
        void held.worker.close(true).catch(() => undefined);
        held.client.destroy();
        return;
      }
    }
    await closeClient(held.client);
  }

  /** Stops the worker at once (its jobs are left to stall) and closes the connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const held = this.worker;
    this.worker = undefined;
    if (held !== undefined) {
      await within(
        held.worker.close(true).catch(() => undefined),
        STOP_WAIT_MS,
      );
      await closeClient(held.client);
    }
    const opened = await this.queue?.catch(() => undefined);
    if (opened !== undefined) {
      await opened.queue.close().catch(() => undefined);
      await closeClient(opened.client);
    }
  }

  private load(): Promise<{ bullmq: BullmqModule; redis: RedisModule }> {
    return (this.modules ??= loadModules().catch((error: unknown) => {
      this.modules = undefined;
      throw error;
    }));
  }

  private opened(): Promise<{ queue: BullmqQueue; client: RedisClient }> {
    if (this.closed) return Promise.reject(new AnytoolError(ErrorCode.StoreFailed, `BullmqTaskQueue (${shownUrl(this.url)}) is closed`));
    return (this.queue ??= (async () => {
      const { bullmq, redis } = await this.load();
      const client = await this.client(redis, 'queue');
      const queue = new bullmq.Queue(this.queueName, { connection: client, prefix: this.prefix });
      // Else BullMQ logs each failed reconnect. Not lost: a task queued meanwhile fails with STORE_FAILED, and the
      // store, on the same Redis, reports the outage once.
      queue.on('error', () => undefined);
      return { queue, client };
    })().catch((error: unknown) => {
      this.queue = undefined;
      throw error;
    }));
  }

  /**
   * A connected node-redis client (BullMQ takes one, and opens the blocking connection a worker needs from it).
   * The queue's (a task being queued) fails at once while Redis is down, as BullMQ advises for producers, with no
   * per-command timer (node-redis's times a command out only until it is written, which is at once or never here).
   * The worker's commands wait for Redis to come back, as BullMQ advises for workers (and are not timed either); a
   * stopping worker does not wait on them past `STOP_WAIT_MS` (`stopWorking`).
   */
  private async client(redis: RedisModule, role: 'queue' | 'worker'): Promise<RedisClient> {
    let ready = false;
    const client = redis.createClient({
      url: this.url,
      commandOptions: { timeout: 0 },
      ...(role === 'queue' ? { disableOfflineQueue: true } : {}),
      socket: {
        // A new Error (not the socket's own, which may come from another realm): the client stops retrying only on its realm's Error.
        reconnectStrategy: (retries: number, cause: Error) => (!ready && retries >= 3 ? new Error(cause.message) : Math.min(50 * 2 ** retries, 2000)),
      },
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      ready = true;
      return client;
    } catch (error) {
      client.destroy();
      throw new AnytoolError(
        ErrorCode.StoreFailed,
        `BullmqTaskQueue: cannot reach Redis at ${shownUrl(this.url)} (${describeError(error)}); start redis-server there or fix the URL`,
        { cause: error },
      );
    }
  }
}

function whole(value: number, option: string, min: number): number {
  if (Number.isInteger(value) && value >= min) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `BullmqTaskQueue: ${option} must be a whole number, at least ${min}, got ${String(value)}`);
}

/** How long a stopping worker waits for its last commands (after the grace period), and for its connection to close. */
const STOP_WAIT_MS = 5_000;

/** Whether `work` settled within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([work.then(() => true), waited]);
  clearTimeout(timer);
  return settled;
}

/** Closes a client once its commands are answered; one that cannot be (Redis down, or not answering in time) is cut. */
async function closeClient(client: RedisClient): Promise<void> {
  const closed =
    client.isReady &&
    (await within(
      client.close().catch(() => undefined),
      STOP_WAIT_MS,
    ));
  if (!closed) client.destroy();
}
