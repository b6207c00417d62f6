import type { Worker } from 'node:worker_threads';
import type { ArgumentProblem } from '@anytool/core/internal';
import { describeError } from '@anytool/core/internal';
import type { ValidationAnswer, ValidationRequest } from './validation-messages.js';
import { validationWorkerFile } from './validation-worker-file.cjs';
import { workerThreads } from '../shared/builtins.cjs';

/** How long a call's arguments may take to validate off the event loop, by default, in milliseconds. */
export const DEFAULT_VALIDATION_TIMEOUT_MS = 500;
/** The longest a Node.js timer waits; a longer delay would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
/** How long the worker may take to start and compile a schema before it counts as stuck. */
const COMPILE_TIMEOUT_MS = 30_000;
/** Schemas kept compiled in the worker; the least recently used beyond are dropped, and compiled again when needed. */
const MAX_COMPILED = 64;

/** How one validation off the event loop ended. */
export type OffloadedOutcome =
  { args: Record<string, unknown> } | { problems: ArgumentProblem[]; more: number } | { timedOut: true } | { failed: string } | { aborted: true };

interface Job {
  id: number;
  key: number;
  schema: object;
  args: unknown;
  timeoutMs: number;
  settle(outcome: OffloadedOutcome): void;
  settled: boolean;
}

/**
 * The thread that validates arguments whose schema may cost more than linear time, one call at a
 * time, each under a deadline: a validation past it is stuck (ajv cannot be interrupted), so the
 * thread is ended and the next call starts another, which also bounds what the errors of a stuck
 * validation hold in memory (a heap limit of its own would not: the arguments are copied into it,
 * and V8 may end the whole process when a copy does not fit). Started on first use and `unref`'d.
 */
class ValidationHost {
  private worker: Worker | undefined;
  /** Schemas the running worker has compiled, least recently used first. */
  private readonly compiled = new Set<number>();
  private forget: number[] = [];
  private readonly queue: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | undefined;
  private nextId = 1;

  validate(key: number, schema: object, args: unknown, timeoutMs: number, signal: AbortSignal | undefined): Promise<OffloadedOutcome> {
    if (signal?.aborted) return Promise.resolve({ aborted: true });
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const queued = this.queue.indexOf(job);
        if (queued >= 0) this.queue.splice(queued, 1);
        job.settle({ aborted: true });
      };
      const job: Job = {
        id: this.nextId++,
        key,
        schema,
        args,
        timeoutMs,
        settled: false,
        settle(outcome) {
          if (job.settled) return;
          job.settled = true;
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.next();
    });
  }

  private next(): void {
    if (this.current !== undefined) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (error) {
      job.settle({ failed: `the validation worker could not be started (${describeError(error)})` });
      this.next();
      return;
    }
    const known = this.compiled.delete(job.key);
    this.compiled.add(job.key);
    const request: ValidationRequest = { id: job.id, key: job.key, args: job.args, forget: this.forget };
    if (!known) request.schema = job.schema;
    this.forget = [];
    if (this.compiled.size > MAX_COMPILED) {
      const oldest = this.compiled.values().next().value as number;
      this.compiled.delete(oldest);
      this.forget.push(oldest);
    }
    try {
      worker.postMessage(request);
    } catch (error) {
      // Arguments a structured clone refuses never reach a server either.
      this.compiled.delete(job.key);
      job.settle({ failed: `the arguments could not be sent to the validation worker (${describeError(error)})` });
      this.next();
      return;
    }
    this.current = { job, timer: this.deadline(job, known ? job.timeoutMs : COMPILE_TIMEOUT_MS) };
  }

  private start(): Worker {
    const worker = new (workerThreads().Worker)(validationWorkerFile());
    worker.on('message', (answer: ValidationAnswer) => this.answered(worker, answer));
    worker.on('error', (error) => this.lost(worker, `the validation worker failed (${describeError(error)})`));
    worker.on('exit', (code) => this.lost(worker, `the validation worker exited (code ${code})`));
    // After the listeners, which would hold the process open again: a pending call's deadline timer does that.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private deadline(job: Job, ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      // ajv cannot be interrupted: the thread is stuck in it, so it goes.
      const worker = this.worker;
      this.reset();
      if (worker !== undefined) void worker.terminate();
      job.settle({ timedOut: true });
      this.next();
    }, ms);
  }

  private answered(worker: Worker, answer: ValidationAnswer): void {
    const current = this.current;
    if (worker !== this.worker || current === undefined || answer.id !== current.job.id) return;
    clearTimeout(current.timer);
    if ('compiled' in answer) {
      current.timer = this.deadline(current.job, current.job.timeoutMs);
      return;
    }
    this.current = undefined;
    // Past the deadline on the worker's clock: refused as if the timer had fired in time (a busy loop may run it late).
    if ('ms' in answer && answer.ms > current.job.timeoutMs) current.job.settle({ timedOut: true });
    else if ('args' in answer) current.job.settle({ args: answer.args });
    else if ('problems' in answer) current.job.settle({ problems: answer.problems, more: answer.more });
    else current.job.settle(answer);
    this.next();
  }

  private lost(worker: Worker, why: string): void {
    if (worker !== this.worker) return;
    const current = this.current;
    this.reset();
    if (current !== undefined) {
      clearTimeout(current.timer);
      current.job.settle({ failed: why });
    }
    this.next();
  }

  private reset(): void {
    this.worker = undefined;
    this.current = undefined;
    this.compiled.clear();
    this.forget = [];
  }
}

// One thread for the process, not one per toolset or tool: it holds only compiled schemas.
let host: ValidationHost | undefined;
let nextKey = 1;

/**
 * The validation of one tool's arguments against a schema that may cost more than linear time,
 * off the event loop (see `costlyFeature`): the schema is compiled there on first use, with the
 * same options and pattern engine, and each call's arguments come back with their defaults filled.
 */
export class OffloadedValidation {
  private readonly key = nextKey++;

  constructor(private readonly schema: object) {}

  check(args: unknown, timeoutMs: number, signal?: AbortSignal): Promise<OffloadedOutcome> {
    return (host ??= new ValidationHost()).validate(this.key, this.schema, args, timeoutMs, signal);
  }
}
