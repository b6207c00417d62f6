import { createHash, randomBytes } from 'node:crypto';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError, toError } from '@anytool/core/internal';
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type InputRequest, type ServerContext } from '@modelcontextprotocol/server';
import type { McpStore } from '../../store/store.js';
import { validAnswer, type InputRound } from '../input-rounds.js';
import type { BullmqTaskQueue, QueuedRun, TaskJob } from './bullmq-queue.js';
import { instanceChannel, isTerminal, taskKey, type TaskError, type TaskPoke, type TaskRecord } from './record.js';

/** Options of the tasks a server keeps (see `McpServerOptions`). */
export interface TaskOptions {
  /** How long a task is kept after its last change, in milliseconds (its result is kept this long). Default 1 hour. */
  ttlMs?: number | undefined;
  /** How often clients are asked to poll `tasks/get`, in milliseconds. Default 500. */
  pollIntervalMs?: number | undefined;
  /**
   * How long a task's record vouches for its instance without a heartbeat, in
   * milliseconds (heartbeats come three times per lease). A task whose instance
   * stopped is marked failed once its lease ran out and as long again passed:
   * the margin absorbs clock skew between instances and an event loop blocked
   * for a while, so a live task is not failed. Default 15 s (failed after 30 s).
   */
  leaseMs?: number | undefined;
  /** The most tasks running at once, in all the processes sharing the store. Default 1,000. */
  maxRunning?: number | undefined;
  /** The most tasks one client (its owner: principal or client identity) has running at once. Default 100. */
  maxRunningPerClient?: number | undefined;
  /** The most tasks kept at once (running, or ended and within `ttlMs`), in all the processes sharing the store. Default 10,000. */
  maxKept?: number | undefined;
  /** The most tasks of one client kept at once. Default 1,000. */
  maxKeptPerClient?: number | undefined;
  /** The most tasks waiting in the task queue for a worker (with a `queue`). Default 10,000. */
  maxQueued?: number | undefined;
  /** The largest result (its JSON) a task keeps, in bytes; past it the task fails (`RESULT_TOO_LARGE`). Also bounds a checkpoint. Default 4 MiB. */
  maxResultBytes?: number | undefined;
  /**
   * On close, how long the tasks this process's worker runs get to finish, in milliseconds;
   * then those of idempotent or resumable tools go back to the queue for another worker, and
   * the others fail, saying why. Default 20 s.
   */
  graceMs?: number | undefined;
  /**
   * How long the call that starts a task waits for it to end, in milliseconds: a task that
   * completes within it is answered with its result, as a plain call is (the Tasks extension's
   * immediate-result path), and is not kept; any other is answered with the task once the wait
   * is over. Default 0: every such call is answered with its task at once.
   */
  answerWithinMs?: number | undefined;
  /** The task queue (`BullmqTaskQueue`): tasks become its jobs, run by any worker. Default none: a task runs in the process that started it. */
  queue?: BullmqTaskQueue | undefined;
}

export const DEFAULT_TASK_TTL_MS = 60 * 60_000;
export const DEFAULT_TASK_POLL_INTERVAL_MS = 500;
export const DEFAULT_TASK_LEASE_MS = 15_000;
export const DEFAULT_MAX_TASKS_RUNNING = 1_000;
export const DEFAULT_MAX_TASKS_RUNNING_PER_CLIENT = 100;
export const DEFAULT_MAX_TASKS_KEPT = 10_000;
export const DEFAULT_MAX_TASKS_KEPT_PER_CLIENT = 1_000;
export const DEFAULT_MAX_TASKS_QUEUED = 10_000;
export const DEFAULT_MAX_TASK_RESULT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_TASK_GRACE_MS = 20_000;
export const DEFAULT_TASK_ANSWER_WITHIN_MS = 0;
/** The JSON-RPC error code of a task refused at a limit (an implementation-defined server error, as the HTTP limits use). */
export const TASK_REFUSED_CODE = -32000;
/** Waits between the tries of a task's final write (its result), while the task keeps its lease. */
const FINAL_WRITE_BACKOFF_MS = [100, 250, 500, 1_000, 2_000, 4_000, 8_000];
/** The largest ended record (its JSON, in characters) published to the instance whose call waits for it; a larger one is read from the store. */
const MAX_TOLD_RECORD = 64 * 1024;

/** What a task ended with, as its final write stores it. */
type TaskOutcome = { status: 'completed'; result: CallToolResult } | { status: 'failed'; error: TaskError; statusMessage: string };

/** How the tool of a task runs: through its `InputRound` (questions become the task's `input_required`), with its signal. */
export type TaskWork = (round: InputRound, signal: AbortSignal, progress: (progress: TaskProgress) => void) => Promise<CallToolResult>;

/** How a worker runs the tool of a queued task: the request it runs under (no client connection), and the call. */
export interface QueuedTaskRunner {
  /** The request a queued task's tool runs under, and whether the client that started the task can answer a question. */
  context(job: TaskJob): { ctx: ServerContext; canAsk: (request: InputRequest) => void };
  run(job: TaskJob, round: InputRound, signal: AbortSignal, progress: (progress: TaskProgress) => void): Promise<CallToolResult>;
}

/** A progress event of the tool; its message (else how far it is) becomes the task's status message. */
export interface TaskProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** The bounded sets of the store (`McpStore.claim`) a task is counted in, by their keys: the first in all, the second per client. */
interface TaskCounts {
  running: string[];
  kept: string[];
}

/** A task this instance runs. */
class RunningTask implements InputRound {
  readonly controller = new AbortController();
  private readonly questions = new Map<string, { request: InputRequest; resolve(value: unknown): void; reject(error: Error): void }>();
  /** The latest progress message not yet written (writes are coalesced: one in flight at a time). */
  private pendingMessage: string | undefined;
  private writingMessage = false;
  /** A protocol error the call ends with whatever the tool returns (it asked what the client cannot answer). */
  fatal: unknown;
  /** What the tool ended with while its final write is tried (the task stays running, its lease renewed, until stored). */
  outcome: TaskOutcome | undefined;
  /** The record as this instance last wrote or read it: the store tries its next write against it (no read first). */
  stored: string | undefined;
  /** A job of the task queue: it keeps its checkpoints. */
  queued = false;
  /** A queued task whose call waits on another instance for its end (`TaskJob.answerTo`). */
  answerTo: TaskJob['answerTo'];
  /** A queued task whose tool may run again on another worker (idempotent or resumable). */
  rerunnable = false;
  /** The checkpoint the tool saved in an earlier run (a queued task run again). */
  lastCheckpoint: unknown;
  /** The worker is stopping and gives this task back to the queue: its tool's abort is not its end. */
  handingOver = false;
  /** Why the task fails when its tool ends now (the worker stopped before it finished), in place of the tool's error. */
  stopReason: string | undefined;

  constructor(
    private readonly manager: TaskManager,
    readonly taskId: string,
    readonly tool: string,
    /** The request that created the task; notifications of the task go nowhere (the client polls). */
    readonly ctx: ServerContext,
    /** Throws when the client cannot answer the question (it did not declare the capability). */
    private readonly canAsk: (request: InputRequest) => void,
    /** The store's sets this task is counted in (`claim`). */
    readonly counted: TaskCounts,
  ) {}

  ask(key: string, request: InputRequest, signal?: AbortSignal): Promise<unknown> {
    if (this.controller.signal.aborted) return Promise.reject(new AnytoolError(ErrorCode.Aborted, 'the task ended before the client answered'));
    if (this.questions.has(key))
      return Promise.reject(
        new AnytoolError(ErrorCode.McpProtocolError, `the input key "${key}" is already waiting for an answer; give each question in flight its own inputKey`),
      );
    try {
      this.canAsk(request);
    } catch (error) {
      this.fatal = error;
      this.end(toError(error));
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.questions.set(key, { request, resolve, reject });
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.questions.delete(key)) return;
          reject(signal.reason instanceof Error ? signal.reason : new AnytoolError(ErrorCode.Aborted, 'the question was withdrawn'));
          void this.manager.write(this.taskId, (record) => withoutQuestion(record, key));
        },
        { once: true },
      );
      void this.manager.write(this.taskId, (record) => {
        const inputRequests = { ...record.inputRequests, [key]: request };
        return { ...record, status: 'input_required', inputRequests };
      });
    });
  }

  /** Saves the tool's checkpoint with the task (a queued task; elsewhere nothing would ever read it: resolves false). */
  async checkpoint(data: unknown): Promise<boolean> {
    if (!this.queued || this.controller.signal.aborted) return false;
    const text = JSON.stringify(data ?? null);
    const bytes = Buffer.byteLength(text);
    if (bytes > this.manager.maxResultBytes)
      throw new AnytoolError(
        ErrorCode.ResultTooLarge,
        `tool "${this.tool}": a checkpoint of ${bytes} bytes is more than the server's maxTaskResultBytes (${this.manager.maxResultBytes}); save where the work is (an offset, the ids done), not its data`,
      );
    const checkpoint: unknown = JSON.parse(text);
    const stored = await this.manager.write(this.taskId, (record) => ({ ...record, checkpoint }));
    return stored !== undefined && !isTerminal(stored.status);
  }

  /** The tool's progress, as the task's status message. */
  progress(message: string): void {
    this.pendingMessage = message;
    if (this.writingMessage) return;
    this.writingMessage = true;
    void (async () => {
      while (this.pendingMessage !== undefined) {
        const statusMessage = this.pendingMessage;
        this.pendingMessage = undefined;
        await this.manager.write(this.taskId, (record) => ({ ...record, statusMessage }));
      }
      this.writingMessage = false;
    })();
  }

  /** Takes what the record holds for this instance: a cancel, answers to open questions. */
  take(record: TaskRecord | undefined): void {
    if (record === undefined || record.cancelRequested === true || isTerminal(record.status)) {
      this.end(new AnytoolError(ErrorCode.Aborted, record === undefined ? 'the task expired' : 'the client cancelled the task'));
      return;
    }
    const answers = record.inputResponses;
    if (answers === undefined) return;
    const taken: string[] = [];
    for (const [key, value] of Object.entries(answers)) {
      const question = this.questions.get(key);
      if (question === undefined || !validAnswer(question.request, value)) continue;
      this.questions.delete(key);
      taken.push(key);
      question.resolve(value);
    }
    if (taken.length > 0) {
      void this.manager.write(this.taskId, (current) => {
        const left = { ...current.inputResponses };
        for (const key of taken) delete left[key];
        return { ...current, inputResponses: Object.keys(left).length > 0 ? left : undefined };
      });
    }
  }

  /** Ends the tool: its signal aborts and its open questions fail. */
  end(reason: Error): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    for (const question of this.questions.values()) question.reject(reason);
    this.questions.clear();
  }
}

function withoutQuestion(record: TaskRecord, key: string): TaskRecord {
  const inputRequests = { ...record.inputRequests };
  delete inputRequests[key];
  const open = Object.keys(inputRequests).length > 0;
  return { ...record, inputRequests: open ? inputRequests : undefined, status: open ? 'input_required' : 'working' };
}

/** The error a failed task carries: a protocol error as it is, anything else as an internal error (-32603). */
function taskError(error: unknown): TaskError {
  if (error instanceof ProtocolError)
    return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
  const message = describeError(error);
  return { code: ProtocolErrorCode.InternalError, message };
}

/**
 * The tasks of one server (every instance of it in this process), kept in an
 * `McpStore` so every process sharing the store answers for them. The tools
 * of the tasks this process started run here; the others only read and poke.
 */
export class TaskManager {
  /** This process's name in the records of the tasks it runs. */
  readonly instanceId = randomBytes(12).toString('base64url');
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly maxRunning: number;
  readonly maxRunningPerClient: number;
  readonly maxKept: number;
  readonly maxKeptPerClient: number;
  readonly maxQueued: number;
  readonly maxResultBytes: number;
  readonly graceMs: number;
  readonly answerWithinMs: number;
  readonly queue: BullmqTaskQueue | undefined;
  private readonly running = new Map<string, RunningTask>();
  /** The queue's length as last read, and the tasks this process queued since (`queuedCount`). */
  private queuedSeen = { count: 0, at: -Infinity, since: 0 };
  /** The tasks whose calls wait for their end (`answerWithinMs`), and how each hears of it. */
  private readonly awaited = new Map<string, { ended: Promise<TaskRecord | undefined>; hear(record: TaskRecord | undefined): void }>();
  private subscription: Promise<() => Promise<void>> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** Closing: no new task starts, while the worker's tasks get their grace period. */
  private stopping = false;
  /** No call waits for its task's end any more (`stopAnswering`). */
  private answeringStopped = false;

  constructor(
    readonly store: McpStore,
    options: TaskOptions = {},
    /** Called with errors of the store (a failed write of a running task); default a process warning. */
    private readonly onError: (error: Error) => void = (error) => process.emitWarning(error),
  ) {
    const checked = checkTaskOptions(options);
    this.ttlMs = checked.ttlMs;
    this.pollIntervalMs = checked.pollIntervalMs;
    this.leaseMs = checked.leaseMs;
    this.maxRunning = checked.maxRunning;
    this.maxRunningPerClient = checked.maxRunningPerClient;
    this.maxKept = checked.maxKept;
    this.maxKeptPerClient = checked.maxKeptPerClient;
    this.maxQueued = checked.maxQueued;
    this.maxResultBytes = checked.maxResultBytes;
    this.graceMs = checked.graceMs;
    this.answerWithinMs = checked.answerWithinMs;
    this.queue = options.queue;
  }

  /** Tasks this process runs now. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Starts a task: its record is in the store before this resolves (a
   * `tasks/get` for it then finds it, on any instance), and the tool runs on.
   */
  async start(
    call: {
      tool: string;
      owner: string | undefined;
      ctx: ServerContext;
      canAsk: (request: InputRequest) => void;
      resumable?: boolean;
      /** The caller waits for the task's end with `answerWithin` (else a completed task's outcome is stored as always). */
      answering?: boolean;
    },
    work: TaskWork,
  ): Promise<TaskRecord> {
    if (this.closed || this.stopping) throw shuttingDown();
    try {
      await this.listen();
    } catch (error) {
      throw storeUnavailable(`starting a task of tool "${call.tool}"`, error);
    }
    const taskId = randomBytes(24).toString('base64url');
    const counted = this.counts(call.owner);
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      tool: call.tool,
      instance: this.instanceId,
      leaseUntil: Date.now() + this.leaseMs,
    };
    if (call.owner !== undefined) record.owner = call.owner;
    // Outside a task queue nothing runs a task again, so its arguments (which may hold secrets) are not kept.
    if (call.resumable === true) record.resumable = true;
    const stored = JSON.stringify(record);
    // The task's place in its counts and its record go to the store side by side (nobody knows the id before this
    // answers, so a refused task's record is simply deleted again).
    const [admitted, kept] = await Promise.allSettled([
      this.admit(counted, taskId, call.tool, this.leaseMs * 2),
      this.store.set(taskKey(taskId), stored, this.ttlMs),
    ]);
    if (admitted.status === 'rejected') {
      if (kept.status === 'fulfilled') void this.store.delete(taskKey(taskId)).catch(() => undefined);
      throw admitted.reason;
    }
    if (kept.status === 'rejected') {
      void this.store.release([...counted.running, ...counted.kept], taskId).catch(() => undefined);
      throw storeUnavailable(`storing a new task of tool "${call.tool}"`, kept.reason);
    }
    const task = new RunningTask(this, record.taskId, call.tool, call.ctx, call.canAsk, counted);
    task.stored = stored;
    if (call.answering === true) this.awaitEnd(taskId);
    void this.launch(task, work);
    return record;
  }

  /**
   * Starts a task on the task queue: its record is stored and its job queued before this
   * resolves, and a worker (of this process or another) runs the tool (`serveQueue`).
   */
  async enqueue(call: { owner: string | undefined; job: Omit<TaskJob, 'taskId'>; answering?: boolean }): Promise<TaskRecord> {
    const queue = this.queue;
    const tool = call.job.tool;
    if (queue === undefined) throw new AnytoolError(ErrorCode.InvalidOptions, `MCP task of tool "${tool}": no task queue to put it on (serveMcp's taskQueue)`);
    if (this.closed || this.stopping) throw shuttingDown();
    const answering = call.answering === true && this.answerWithinMs > 0 && !this.answeringStopped;
    if (answering) {
      // A worker elsewhere says on this instance's channel when the task ended.
      try {
        await this.listen();
      } catch (error) {
        throw storeUnavailable(`queueing a task of tool "${tool}"`, error);
      }
    }
    const taskId = randomBytes(24).toString('base64url');
    const counted = this.counts(call.owner);
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      tool,
      instance: '',
      leaseUntil: 0,
      queued: true,
    };
    if (call.owner !== undefined) record.owner = call.owner;
    if (call.job.rerun !== undefined) record.resumable = true;
    const stored = JSON.stringify(record);
    // The queue's length, the task's place in its counts and its record go to Redis side by side (one round trip's
    // wait, not three): nobody knows the task's id before this answers, so a refused task's record and places are
    // simply taken back. Counted as running until it ends: it is in flight from now on, whichever worker runs it (a
    // dead one's entry lapses with the task).
    const [queued, admitted, kept] = await Promise.allSettled([
      this.queuedCount(queue),
      this.admit(counted, taskId, tool, this.ttlMs),
      this.store.set(taskKey(taskId), stored, this.ttlMs),
    ]);
    const refused = queued.status === 'rejected' || queued.value >= this.maxQueued || admitted.status === 'rejected' || kept.status === 'rejected';
    if (refused) {
      if (admitted.status === 'fulfilled') void this.store.release([...counted.running, ...counted.kept], taskId).catch(() => undefined);
      if (kept.status === 'fulfilled') void this.store.delete(taskKey(taskId)).catch(() => undefined);
      if (queued.status === 'rejected') throw storeUnavailable(`queueing a task of tool "${tool}"`, queued.reason);
      if (queued.value >= this.maxQueued)
        throw new ProtocolError(
          TASK_REFUSED_CODE,
          `Task refused: tool "${tool}" cannot start a task, ${queued.value} tasks already wait for a worker (the server's maxTasksQueued, ${this.maxQueued}); retry later, or run more workers`,
          { code: ErrorCode.ServerBusy, limit: 'maxTasksQueued', max: this.maxQueued },
        );
      if (admitted.status === 'rejected') throw admitted.reason;
      throw storeUnavailable(`storing a new task of tool "${tool}"`, (kept as PromiseRejectedResult).reason);
    }
    const job: TaskJob = { ...call.job, taskId, queuedRecord: stored };
    if (answering) {
      job.answerTo = { instance: this.instanceId, until: Date.now() + this.answerWithinMs };
      this.awaitEnd(taskId);
    }
    try {
      // The worker that takes the job claims the record against this text instead of reading it first.
      await queue.add(job);
    } catch (error) {
      this.awaited.delete(taskId);
      void this.store.release([...counted.running, ...counted.kept], taskId).catch(() => undefined);
      void this.store.delete(taskKey(taskId)).catch(() => undefined);
      throw storeUnavailable(`queueing a new task of tool "${tool}"`, error);
    }
    return record;
  }

  /**
   * About how many tasks wait in the queue: read from the queue, or, while a read less than
   * 100 ms old with the tasks queued here since stays under half of `maxQueued`, that sum
   * (others' tasks of those 100 ms unseen: the cap is exact where it matters, near the limit).
   */
  private async queuedCount(queue: BullmqTaskQueue): Promise<number> {
    const seen = this.queuedSeen;
    const now = performance.now();
    if (now - seen.at < 100 && seen.count + seen.since < this.maxQueued / 2) return seen.count + seen.since++;
    const count = await queue.queuedCount();
    this.queuedSeen = { count, at: now, since: 1 };
    return count;
  }

  /** Answers the calls waiting for their task's end with the task now, and opens no more waits: the process stops serving. */
  stopAnswering(): void {
    this.answeringStopped = true;
    for (const waiting of this.awaited.values()) waiting.hear(undefined);
  }

  /** Opens the wait for a new task's end, before it can end (`answerWithinMs`; nothing without one). */
  private awaitEnd(taskId: string): void {
    if (this.answerWithinMs === 0 || this.answeringStopped) return;
    let hear!: (record: TaskRecord | undefined) => void;
    const ended = new Promise<TaskRecord | undefined>((resolve) => (hear = resolve));
    this.awaited.set(taskId, { ended, hear });
  }

  /**
   * The answer to the call that started the task, when the task completed within `answerWithinMs`:
   * its result. Its record and places then go (nobody else knows its id). Undefined: answer with
   * the task (it did not complete in time, or ended otherwise, which a poll shows).
   */
  async answerWithin(record: TaskRecord): Promise<CallToolResult | undefined> {
    const { taskId } = record;
    const waiting = this.awaited.get(taskId);
    if (waiting === undefined) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.answerWithinMs);
    });
    const ended = await Promise.race([waiting.ended, waited]);
    clearTimeout(timer);
    this.awaited.delete(taskId);
    if (ended?.status !== 'completed') return undefined;
    const { kept } = this.counts(ended.owner);
    void Promise.all([this.store.delete(taskKey(taskId)), this.store.release(kept, taskId)]).catch((error: unknown) =>
      // Not lost: the record and its place lapse after taskTtlMs.
      this.report(this.storeError(taskId, 'dropping the record of a task answered with its result', error)),
    );
    return ended.result;
  }

  /** Makes this process a worker of the task queue: it takes queued tasks and runs their tools with `runner`. */
  async serveQueue(runner: QueuedTaskRunner): Promise<void> {
    const queue = this.queue;
    if (queue === undefined) throw new AnytoolError(ErrorCode.InvalidOptions, 'serveMcp(): a task worker needs a task queue (taskQueue)');
    await this.listen();
    await queue.work(
      (run) => this.runQueued(runner, run),
      (job, error) => void this.fail(job.taskId, `The task queue gave up on this task (${describeError(error)}); call the tool again`),
      (error) => this.report(error),
    );
  }

  /** Runs one job this process's worker took: settles once the task ended here, or rejects as the job goes back to the queue. */
  private async runQueued(runner: QueuedTaskRunner, run: QueuedRun): Promise<void> {
    const { job } = run;
    let claim: { record: TaskRecord; stored: string } | undefined;
    try {
      claim = await this.claimQueued(run);
    } catch (error) {
      if (!storeFailed(error)) throw error;
      // The store failed before the tool started here: nothing ran, so the job waits a moment and is taken again.
      this.report(error);
      return run.delay(Date.now() + this.queue!.backoffMs);
    }
    if (claim === undefined) return;
    const claimed = claim.record;
    const before = claimed.runs! - 1;
    const { ctx, canAsk } = runner.context(job);
    const task = new RunningTask(this, job.taskId, job.tool, ctx, canAsk, this.counts(claimed.owner));
    // Its next write (progress, the outcome) goes against the claimed record without reading it first.
    task.stored = claim.stored;
    task.queued = true;
    task.rerunnable = job.rerun !== undefined;
    task.lastCheckpoint = claimed.checkpoint;
    if (job.answerTo !== undefined && job.answerTo.instance !== this.instanceId) task.answerTo = job.answerTo;
    const ended = await this.launch(task, (round, signal, progress) => runner.run(job, round, signal, progress));
    if (ended === 'handed over') {
      // Not a death: the next worker runs it at once (from its checkpoint), and it does not count as a retry.
      await this.write(job.taskId, (current) => ({
        ...current,
        instance: '',
        runs: before,
        waited: before,
        inputRequests: undefined,
        status: 'working',
        statusMessage: 'Handed over to another worker (the one running it was stopping)',
      }));
      return run.requeue();
    }
  }

  /**
   * Decides what becomes of a job this worker took, from its task's record: nothing (it ended), a
   * failure or a later run (its last worker died), or a run here (the record is claimed: resolves to it and its stored text).
   */
  private async claimQueued(run: QueuedRun): Promise<{ record: TaskRecord; stored: string } | undefined> {
    const { job } = run;
    // A job's first take: the record as queued came with the job, and is claimed against that text without reading
    // it. A record changed since (ended, or run before) is read and decided on below.
    if (job.queuedRecord !== undefined) {
      let text: string | undefined;
      try {
        text = await this.tryWriteText(job.taskId, (current) => ((current.runs ?? 0) === 0 ? this.claimed(current, 0) : undefined), job.queuedRecord);
      } catch (error) {
        throw storeUnavailable('claiming the task', error);
      }
      const claimed = text === undefined ? undefined : (JSON.parse(text) as TaskRecord);
      if (claimed?.instance === this.instanceId && claimed.runs === 1) return { record: claimed, stored: text! };
    }
    const { record, stored } = await this.read(job.taskId);
    if (record === undefined) return undefined;
    // Cancelled or failed while it waited: it no longer counts as running (whoever ended it may have freed it already).
    if (isTerminal(record.status)) {
      await this.uncountQueued(job.taskId, record.owner);
      return undefined;
    }
    const before = record.runs ?? 0;
    if (before > 0) {
      // A worker started it and never ended it: it died (BullMQ found the job stalled).
      const refusal = this.rerunRefusal(job, before);
      if (refusal !== undefined) {
        await this.fail(job.taskId, refusal, stored);
        return undefined;
      }
      if (record.waited !== before) {
        const wait = this.queue!.backoffMs * 2 ** (before - 1);
        const statusMessage = `The worker running it stopped before it finished; it runs again in ${wait} ms (run ${before + 1} of at most ${this.queue!.retries + 1})`;
        await this.tryWrite(job.taskId, (current) => ({ ...current, waited: before, status: 'working', inputRequests: undefined, statusMessage }), stored);
        await run.delay(Date.now() + wait);
        return undefined;
      }
    }
    const text = await this.tryWriteText(job.taskId, (current) => this.claimed(current, before), before > 0 ? undefined : stored);
    const claimed = text === undefined ? undefined : (JSON.parse(text) as TaskRecord);
    // Ended (cancelled) in the meantime.
    if (claimed === undefined || claimed.instance !== this.instanceId || claimed.runs !== before + 1) return undefined;
    return { record: claimed, stored: text! };
  }

  /** A queued task's record as this worker's run `before + 1` of it. */
  private claimed(record: TaskRecord, before: number): TaskRecord {
    return {
      ...record,
      instance: this.instanceId,
      runs: before + 1,
      leaseUntil: Date.now() + this.leaseMs,
      status: 'working',
      inputRequests: undefined,
      inputResponses: undefined,
    };
  }

  /** Why a queued task whose worker died is not run again, if it is not. */
  private rerunRefusal(job: TaskJob, runs: number): string | undefined {
    if (job.rerun === undefined)
      return (
        `The worker running this task stopped before it finished; tool "${job.tool}" is not marked idempotent (annotations.idempotent) or resumable, ` +
        'so it is not run again: call the tool again if that is safe'
      );
    const retries = this.queue!.retries;
    if (runs > retries)
      return `The workers running this task stopped ${runs} times before it finished (the task queue's retries: ${retries}); call the tool again`;
    return undefined;
  }

  /** Marks a task failed with `message` (as its status message and error). */
  private async fail(taskId: string, message: string, known?: string): Promise<void> {
    const failed = await this.write(
      taskId,
      (record) => ({
        ...record,
        status: 'failed',
        statusMessage: message,
        error: { code: ProtocolErrorCode.InternalError, message },
        inputRequests: undefined,
        inputResponses: undefined,
      }),
      known,
    );
    if (failed !== undefined) await this.uncountQueued(taskId, failed.owner);
  }

  /** A queued task that ended where no worker runs it: it no longer counts as running, and stays counted as kept. */
  private async uncountQueued(taskId: string, owner: string | undefined): Promise<void> {
    const counted = this.counts(owner);
    try {
      await this.store.release(counted.running, taskId);
    } catch (error) {
      // Not lost: the running entry lapses after taskTtlMs.
      this.report(this.storeError(taskId, 'updating the task counts', error));
    }
  }

  /** Runs a task's tool here until it ends (its outcome stored), or until it is handed over to another worker. */
  private launch(task: RunningTask, work: TaskWork): Promise<'settled' | 'handed over'> {
    this.running.set(task.taskId, task);
    this.beat();
    const handOver = (): 'handed over' => {
      this.running.delete(task.taskId);
      return 'handed over';
    };
    const fail = async (error: unknown): Promise<'settled'> => {
      const statusMessage = task.stopReason ?? `The call failed: ${taskError(error).message}`;
      const failure = task.stopReason === undefined ? taskError(error) : { code: ProtocolErrorCode.InternalError, message: task.stopReason };
      await this.settle(task, { status: 'failed', error: failure, statusMessage });
      return 'settled';
    };
    return work(task, task.controller.signal, (progress) => this.progress(task.taskId, progress)).then(
      async (result) => {
        if (task.fatal !== undefined) return fail(task.fatal);
        // A tool stopped by a stopping worker ends with an error result (the toolset's abort): not what the task ended with.
        if (result.isError === true && task.handingOver) return handOver();
        if (result.isError === true && task.stopReason !== undefined) return fail(undefined);
        await this.settle(task, { status: 'completed', result });
        return 'settled';
      },
      (error: unknown) => (task.handingOver ? handOver() : fail(error)),
    );
  }

  /** The sets a task of `owner` is counted in: running, and kept (per client, and in all). */
  private counts(owner: string | undefined): TaskCounts {
    // Hashed: an owner is whatever the endpoint's identity gives (a long token subject, an address), a key stays short.
    const client = owner === undefined ? undefined : createHash('sha256').update(owner).digest('base64url');
    return {
      running: client === undefined ? ['tasks:running'] : ['tasks:running', `tasks:running:${client}`],
      kept: client === undefined ? ['tasks:kept'] : ['tasks:kept', `tasks:kept:${client}`],
    };
  }

  /**
   * Takes the new task's place in its counts, or refuses it (a JSON-RPC error naming the limit reached).
   * Its running entry lives `runningMs` unless renewed: a process that died frees its places.
   */
  private async admit(counted: TaskCounts, taskId: string, tool: string, runningMs: number): Promise<void> {
    const limits = [
      { key: counted.running[0]!, limit: this.maxRunning, ttlMs: runningMs, option: 'maxTasksRunning', what: 'tasks running on this server' },
      { key: counted.kept[0]!, limit: this.maxKept, ttlMs: this.ttlMs, option: 'maxTasksKept', what: 'tasks kept by this server' },
    ];
    if (counted.running[1] !== undefined) {
      limits.unshift({
        key: counted.running[1],
        limit: this.maxRunningPerClient,
        ttlMs: runningMs,
        option: 'maxTasksRunningPerClient',
        what: 'tasks running for this client',
      });
      limits.splice(2, 0, {
        key: counted.kept[1]!,
        limit: this.maxKeptPerClient,
        ttlMs: this.ttlMs,
        option: 'maxTasksKeptPerClient',
        what: 'tasks kept for this client',
      });
    }
    let full: number;
    try {
      full = await this.store.claim(limits, taskId);
    } catch (error) {
      throw storeUnavailable(`starting a task of tool "${tool}"`, error);
    }
    const limit = limits[full];
    if (limit === undefined) return;
    const kept = limit.option.startsWith('maxTasksKept');
    const then = kept
      ? `an ended task is kept ${this.ttlMs} ms after its last change (taskTtlMs); retry once older tasks have expired`
      : 'retry once one has ended (poll tasks/get), or cancel one with tasks/cancel';
    throw new ProtocolError(
      TASK_REFUSED_CODE,
      `Task refused: tool "${tool}" cannot start a task, there are already ${limit.limit} ${limit.what} (the server's ${limit.option}); ${then}`,
      { code: ErrorCode.ServerBusy, limit: limit.option, max: limit.limit },
    );
  }

  /** The running task's progress, as its status message (the tool's message, else how far it is). */
  progress(taskId: string, progress: TaskProgress): void {
    const message = progress.message ?? (progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`);
    this.running.get(taskId)?.progress(message);
  }

  /**
   * A task as its owner sees it; undefined when there is none, it expired, or
   * it belongs to someone else. A task whose instance stopped is marked failed here.
   */
  async get(taskId: string, owner: string | undefined): Promise<TaskRecord | undefined> {
    const { record, stored } = await this.read(taskId);
    if (record === undefined || record.owner !== owner) return undefined;
    // A queued task has no lease: the queue finds a dead worker's job (stalled) and a worker settles it.
    if (isTerminal(record.status) || record.queued === true || this.vouched(record)) return record;
    return this.write(
      taskId,
      (current) => {
        if (isTerminal(current.status) || this.vouched(current)) return current;
        const since = new Date(current.leaseUntil - this.leaseMs).toISOString();
        const message = `The server process running this task stopped before it finished (no heartbeat since ${since}); call the tool again`;
        return { ...current, status: 'failed', statusMessage: message, error: { code: ProtocolErrorCode.InternalError, message }, inputRequests: undefined };
      },
      stored,
    );
  }

  /** Gives a task answers to its open questions (keys not open are ignored); the instance running it picks them up. */
  async answer(taskId: string, owner: string | undefined, responses: Record<string, unknown>): Promise<void> {
    const { record, stored } = await this.read(taskId);
    if (record === undefined || record.owner !== owner || isTerminal(record.status)) return;
    const updated = await this.write(
      taskId,
      (current) => {
        const open = current.inputRequests ?? {};
        const keys = Object.keys(responses).filter((key) => key in open && validAnswer(open[key]!, responses[key]));
        if (keys.length === 0) return undefined;
        let next: TaskRecord = { ...current, inputResponses: { ...current.inputResponses } };
        for (const key of keys) {
          next.inputResponses![key] = responses[key];
          next = withoutQuestion(next, key);
        }
        return next;
      },
      stored,
    );
    if (updated !== undefined) await this.poke(updated, 'input');
  }

  /** Cancels a task: it is `cancelled` at once, and the instance running it aborts the tool's signal. */
  async cancel(taskId: string, owner: string | undefined): Promise<void> {
    const { record, stored } = await this.read(taskId);
    if (record === undefined || record.owner !== owner || isTerminal(record.status)) return;
    const updated = await this.write(
      taskId,
      (current) => ({ ...current, status: 'cancelled', statusMessage: 'Cancelled by the client', cancelRequested: true, inputRequests: undefined }),
      stored,
    );
    if (updated === undefined) return;
    if (updated.queued !== true || updated.instance !== '') return this.poke(updated, 'cancel');
    // Queued and taken by no worker: out of the queue now, rather than when a worker would take it and find it cancelled.
    try {
      await this.queue?.remove(taskId);
    } catch (error) {
      this.report(this.storeError(taskId, 'removing its job from the task queue', error));
    }
    await this.uncountQueued(taskId, updated.owner);
  }

  /**
   * Changes a task's record (renewing its expiry); `change` sees the current
   * record and returns the next, or undefined to leave it. A terminal record
   * stays as it is. Resolves with the record now stored. `known` is the record
   * as last read (default: as this instance last wrote it, for a task running here).
   */
  async write(taskId: string, change: (record: TaskRecord) => TaskRecord | undefined, known?: string): Promise<TaskRecord | undefined> {
    try {
      return await this.tryWrite(taskId, change, known);
    } catch (error) {
      this.report(this.storeError(taskId, 'a change of its record', error));
      return undefined;
    }
  }

  /** `write`, but a failure of the store rejects. */
  private async tryWrite(taskId: string, change: (record: TaskRecord) => TaskRecord | undefined, known?: string): Promise<TaskRecord | undefined> {
    const stored = await this.tryWriteText(taskId, change, known);
    return stored === undefined ? undefined : (JSON.parse(stored) as TaskRecord);
  }

  /** `tryWrite`, resolving to the record's text as now stored (the next write of it can skip reading it). */
  private async tryWriteText(taskId: string, change: (record: TaskRecord) => TaskRecord | undefined, known?: string): Promise<string | undefined> {
    const running = this.running.get(taskId);
    const stored = await this.store.update(
      taskKey(taskId),
      (value) => {
        if (value === undefined) return undefined;
        const current = JSON.parse(value) as TaskRecord;
        if (isTerminal(current.status)) return undefined;
        const next = change(current);
        return next === undefined || next === current ? undefined : JSON.stringify({ ...next, lastUpdatedAt: new Date().toISOString() });
      },
      this.ttlMs,
      known ?? running?.stored,
    );
    if (running !== undefined) running.stored = stored;
    return stored;
  }

  /**
   * Whether the record's instance still vouches for it. A lease counts for as
   * long again after it ran out: the instance's clock may lag ours, or its
   * event loop may have been blocked past a heartbeat.
   */
  private vouched(record: TaskRecord): boolean {
    return record.leaseUntil + this.leaseMs >= Date.now();
  }

  private report(error: unknown): void {
    this.onError(toError(error));
  }

  /** A failure of the store, naming the task and (when it runs here) its tool. */
  private storeError(taskId: string, what: string, error: unknown, then = "Check the store's connection."): Error {
    const tool = this.running.get(taskId)?.tool;
    const reason = describeError(error);
    return new Error(`MCP task ${taskId}${tool === undefined ? '' : ` (tool "${tool}")`}: ${what} failed in the store (${reason}). ${then}`, { cause: error });
  }

  /**
   * Stops the heartbeats and ends the tasks running here. A worker first stops taking tasks and
   * gives those it runs `graceMs` to finish; then the tasks of idempotent or resumable tools go
   * back to the queue, the others fail, saying why. Tasks that run outside the queue are marked
   * failed (the server stopped).
   */
  async close(): Promise<void> {
    if (this.closed || this.stopping) return;
    this.stopping = true;
    this.stopAnswering();
    if (this.queue?.working === true) await this.queue.stopWorking(this.graceMs, () => this.graceOver());
    this.closed = true;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const tasks = [...this.running.values()];
    for (const task of tasks) task.end(new AnytoolError(ErrorCode.Aborted, 'the server stopped'));
    await Promise.all(
      tasks.map((task) => {
        // A task whose final write is still being tried gets one last try with its outcome.
        if (task.outcome !== undefined) return this.write(task.taskId, (record) => ended(record, task.outcome!));
        const message = 'The server stopped before the task finished; call the tool again';
        return this.write(task.taskId, (record) => ({
          ...record,
          status: 'failed',
          statusMessage: message,
          error: { code: ProtocolErrorCode.InternalError, message },
          inputRequests: undefined,
        }));
      }),
    );
    await Promise.all(tasks.map((task) => this.uncount(task)));
    this.running.clear();
    const unsubscribe = this.subscription;
    this.subscription = undefined;
    if (unsubscribe !== undefined)
      await unsubscribe
        .then(
          (stop) => stop(),
          () => undefined,
        )
        .catch(() => undefined);
  }

  /** The grace period of a stopping worker is over: its tasks go back to the queue, or fail when their tool may not run again. */
  private graceOver(): void {
    for (const task of this.running.values()) {
      if (!task.queued) continue;
      if (task.rerunnable) task.handingOver = true;
      else
        task.stopReason =
          `The worker running this task was stopped, and the task did not finish within its grace period (taskGraceMs, ${this.graceMs} ms); ` +
          `tool "${task.tool}" is not marked idempotent or resumable, so it is not run again elsewhere: call the tool again if that is safe`;
      task.end(new AnytoolError(ErrorCode.Aborted, 'the worker running the task is stopping'));
    }
  }

  /** A task's record, and its stored text (to write against). */
  private async read(taskId: string): Promise<{ record: TaskRecord | undefined; stored: string | undefined }> {
    if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > 200) return { record: undefined, stored: undefined };
    let stored: string | undefined;
    try {
      stored = await this.store.get(taskKey(taskId));
    } catch (error) {
      throw storeUnavailable('reading the task', error);
    }
    return { record: stored === undefined ? undefined : (JSON.parse(stored) as TaskRecord), stored };
  }

  private async poke(record: TaskRecord, reason: TaskPoke['reason']): Promise<void> {
    const local = record.instance === this.instanceId ? this.running.get(record.taskId) : undefined;
    if (local !== undefined) return local.take(record);
    const poke: TaskPoke = { taskId: record.taskId, reason };
    await this.store.publish(instanceChannel(record.instance), JSON.stringify(poke));
  }

  /** Subscribes to this instance's channel once, before its first task exists. */
  private listen(): Promise<unknown> {
    if (this.subscription !== undefined) return this.subscription;
    const subscription: Promise<() => Promise<void>> = this.store
      .subscribe(instanceChannel(this.instanceId), (message) => {
        let poke: TaskPoke;
        try {
          poke = JSON.parse(message) as TaskPoke;
        } catch {
          return;
        }
        const waiting = poke.reason === 'ended' && typeof poke.taskId === 'string' ? this.awaited.get(poke.taskId) : undefined;
        const told = waiting === undefined ? undefined : toldRecord(poke);
        if (waiting !== undefined && told !== undefined) waiting.hear(told);
        else if (waiting !== undefined)
          // Only an ended record answers the call; else (a poke from elsewhere, a failed read) it waits out its window.
          void this.read(poke.taskId).then(
            ({ record }) => {
              if (record !== undefined && isTerminal(record.status)) waiting.hear(record);
            },
            () => undefined,
          );
        const task = typeof poke.taskId === 'string' ? this.running.get(poke.taskId) : undefined;
        if (task !== undefined)
          void this.read(task.taskId).then(
            ({ record }) => task.take(record),
            (error: unknown) => this.report(this.storeError(task.taskId, 'reading its record after a poke', error)),
          );
      })
      .catch((error: unknown) => {
        // Not kept: the next task subscribes again, rather than every later start failing on this one hiccup.
        if (this.subscription === subscription) this.subscription = undefined;
        throw error;
      });
    this.subscription = subscription;
    return subscription;
  }

  /** Renews the lease of every task running here, and picks up what a dropped poke would have brought. */
  private beat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(
      () => {
        if (this.running.size === 0) {
          clearInterval(this.heartbeat);
          this.heartbeat = undefined;
          return;
        }
        const renewals: Array<{ key: string; member: string; ttlMs: number }> = [];
        for (const task of this.running.values()) {
          for (const key of task.counted.running) renewals.push({ key, member: task.taskId, ttlMs: task.queued ? this.ttlMs : this.leaseMs * 2 });
          for (const key of task.counted.kept) renewals.push({ key, member: task.taskId, ttlMs: this.ttlMs });
        }
        this.store.renew(renewals).catch((error: unknown) => this.report(storeUnavailable('renewing the counts of the tasks running here', error)));
        for (const task of this.running.values()) {
          void this.write(task.taskId, (record) => (record.instance === this.instanceId ? { ...record, leaseUntil: Date.now() + this.leaseMs } : undefined))
            .then(async (record) => task.take(record ?? (await this.read(task.taskId)).record))
            .catch((error: unknown) => this.report(this.storeError(task.taskId, 'a heartbeat', error)));
        }
      },
      Math.max(Math.floor(this.leaseMs / 3), 10),
    );
    this.heartbeat.unref();
  }

  /**
   * Stores what the task ended with. The task stays running here (its lease
   * renewed) while the write is tried again with a growing wait: a result lost
   * to a store hiccup would let the lease run out and the client call the tool
   * again, doing its work twice.
   */
  private async settle(task: RunningTask, toolOutcome: TaskOutcome): Promise<void> {
    const outcome = this.withinResultLimit(task.tool, toolOutcome);
    task.outcome = outcome;
    task.end(new AnytoolError(ErrorCode.Aborted, 'the task ended'));
    // The call that started the task may still wait for its end (`answerWithinMs`): here, or on another instance.
    const waiting = this.awaited.get(task.taskId);
    const answerTo = task.answerTo !== undefined && Date.now() < task.answerTo.until ? task.answerTo : undefined;
    let told = false;
    if ((waiting !== undefined || answerTo !== undefined) && outcome.status === 'completed' && task.stored !== undefined) {
      const record = ended(JSON.parse(task.stored) as TaskRecord, outcome);
      if (waiting !== undefined) {
        // It is answered with the result, and the record goes (`answerWithin`) instead of ending.
        waiting.hear(record);
        this.running.delete(task.taskId);
        // No longer running; its kept place goes with its record (`answerWithin`), so it is not renewed here.
        return this.store.release(task.counted.running, task.taskId).catch((error: unknown) => {
          this.report(this.storeError(task.taskId, 'updating the task counts', error));
        });
      }
      const text = JSON.stringify(record);
      if (text.length <= MAX_TOLD_RECORD) {
        // Told with the record, beside its final write: should that call have stopped waiting, a poll reads the write.
        told = true;
        this.tell(answerTo!, { taskId: task.taskId, reason: 'ended', record: text });
      }
    }
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const written = await this.tryWrite(task.taskId, (record) => ended(record, outcome));
          // A call waiting here that hears of a failure answers with the task (a poll shows why); one elsewhere reads the record.
          this.awaited.get(task.taskId)?.hear(written);
          if (answerTo !== undefined && !told) this.tell(answerTo, { taskId: task.taskId, reason: 'ended' });
          return;
        } catch (error) {
          const wait = FINAL_WRITE_BACKOFF_MS[attempt];
          if (wait === undefined || this.closed) {
            const then = this.closed
              ? 'The closing server tries once more.'
              : `Gave up after ${attempt + 1} tries: clients will see the task fail once its lease runs out; check the store's connection.`;
            this.report(this.storeError(task.taskId, `storing its ${outcome.status} outcome`, error, then));
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
      }
    } finally {
      if (!this.closed) this.running.delete(task.taskId);
      await this.uncount(task);
    }
  }

  /** Tells the instance whose call waits for a task's end that it ended. */
  private tell(answerTo: NonNullable<TaskJob['answerTo']>, poke: TaskPoke): void {
    this.store.publish(instanceChannel(answerTo.instance), JSON.stringify(poke)).catch((error: unknown) => this.report(error));
  }

  /** The outcome, or a failure when its result is larger than `maxResultBytes`. */
  private withinResultLimit(tool: string, outcome: TaskOutcome): TaskOutcome {
    if (outcome.status !== 'completed') return outcome;
    const bytes = Buffer.byteLength(JSON.stringify(outcome.result));
    if (bytes <= this.maxResultBytes) return outcome;
    const message = `Tool "${tool}" returned a result of ${bytes} bytes, more than the server keeps for a task (maxTaskResultBytes, ${this.maxResultBytes}); return less, or a link to it`;
    return {
      status: 'failed',
      statusMessage: message,
      error: { code: ProtocolErrorCode.InternalError, message, data: { code: ErrorCode.ResultTooLarge, bytes, max: this.maxResultBytes } },
    };
  }

  /** A task that ended no longer counts as running; it stays counted as kept for as long as its record is. */
  private async uncount(task: RunningTask): Promise<void> {
    try {
      await this.store.release(task.counted.running, task.taskId);
      await this.store.renew(task.counted.kept.map((key) => ({ key, member: task.taskId, ttlMs: this.ttlMs })));
    } catch (error) {
      // Not lost: the running entry lapses after two leases, the kept one after taskTtlMs.
      this.report(this.storeError(task.taskId, 'updating the task counts', error));
    }
  }
}

/** The record of a task that ended with `outcome`. */
function ended(record: TaskRecord, outcome: TaskOutcome): TaskRecord {
  const next: TaskRecord = { ...record, status: outcome.status, inputRequests: undefined, inputResponses: undefined };
  if (outcome.status === 'completed') next.result = outcome.result;
  else {
    next.error = outcome.error;
    next.statusMessage = outcome.statusMessage;
  }
  return next;
}

/** The ended record a poke carries, when it is one of the poked task (else undefined: the record is read from the store). */
function toldRecord(poke: TaskPoke): TaskRecord | undefined {
  if (typeof poke.record !== 'string') return undefined;
  try {
    const record = JSON.parse(poke.record) as TaskRecord;
    return record?.taskId === poke.taskId && isTerminal(record.status) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The task options with their defaults; throws the coded `InvalidOptions` error the first bad one gets. */
export function checkTaskOptions(options: TaskOptions): { [K in Exclude<keyof TaskOptions, 'queue'>]-?: number } {
  return {
    ttlMs: milliseconds(options.ttlMs ?? DEFAULT_TASK_TTL_MS, 'taskTtlMs'),
    pollIntervalMs: milliseconds(options.pollIntervalMs ?? DEFAULT_TASK_POLL_INTERVAL_MS, 'taskPollIntervalMs'),
    leaseMs: milliseconds(options.leaseMs ?? DEFAULT_TASK_LEASE_MS, 'taskLeaseMs'),
    maxRunning: count(options.maxRunning ?? DEFAULT_MAX_TASKS_RUNNING, 'maxTasksRunning'),
    maxRunningPerClient: count(options.maxRunningPerClient ?? DEFAULT_MAX_TASKS_RUNNING_PER_CLIENT, 'maxTasksRunningPerClient'),
    maxKept: count(options.maxKept ?? DEFAULT_MAX_TASKS_KEPT, 'maxTasksKept'),
    maxKeptPerClient: count(options.maxKeptPerClient ?? DEFAULT_MAX_TASKS_KEPT_PER_CLIENT, 'maxTasksKeptPerClient'),
    maxQueued: count(options.maxQueued ?? DEFAULT_MAX_TASKS_QUEUED, 'maxTasksQueued'),
    maxResultBytes: count(options.maxResultBytes ?? DEFAULT_MAX_TASK_RESULT_BYTES, 'maxTaskResultBytes'),
    graceMs: milliseconds(options.graceMs ?? DEFAULT_TASK_GRACE_MS, 'taskGraceMs'),
    answerWithinMs: orNone(options.answerWithinMs ?? DEFAULT_TASK_ANSWER_WITHIN_MS, 'taskAnswerWithinMs'),
  };
}

function count(value: number, option: string): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): ${option} must be a positive whole number, got ${String(value)}`);
}

function orNone(value: number, option: string): number {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_TIMER_MS) return value;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `serveMcp(): ${option} must be a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${String(value)}`,
  );
}

/** The longest wait a timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The error of a task started while the server shuts down. */
function shuttingDown(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, 'the server is shutting down; call the tool again');
}

/**
 * A store failure as the client of a task request sees it: a JSON-RPC internal error that
 * says the store is unreachable (the store's own message says where and since when), with
 * the `STORE_FAILED` code in its data. Its text never is empty.
 */
/** Whether `error` is the store failing: the store's own error, or the task layer's report of one (`storeUnavailable`). */
function storeFailed(error: unknown): boolean {
  const coded = error as { code?: unknown; data?: { code?: unknown } } | null | undefined;
  return coded?.code === ErrorCode.StoreFailed || coded?.data?.code === ErrorCode.StoreFailed;
}

export function storeUnavailable(what: string, error: unknown): ProtocolError {
  const reason = error instanceof Error && error.message !== '' ? error.message : `${error instanceof Error ? error.name : String(error)} (no message)`;
  return new ProtocolError(ProtocolErrorCode.InternalError, `The task store failed while ${what}: ${reason}. Retry later.`, { code: ErrorCode.StoreFailed });
}

function milliseconds(value: number, option: string): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): ${option} must be a positive whole number of milliseconds, got ${String(value)}`);
}
