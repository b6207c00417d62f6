import { AnytoolError, ErrorCode, type Toolset, type ToolSource } from '@anytool/core';
import { closing } from './closing.js';
import { ServedTools, asToolset } from './served-tools.js';
import { McpToolServer, type McpServerOptions } from './tool-server.js';
import type { BullmqTaskQueue } from './tasks/bullmq-queue.js';

/** Makes this process a worker of the task queue of `served` (its `taskQueue`): it takes queued tasks and runs their tools. */
export async function startTaskWorker(served: ServedTools, options: McpServerOptions): Promise<void> {
  const server = new McpToolServer(served, options, { era: 'modern', rounds: served.rounds });
  await served.tasks.serveQueue(server.queuedTaskRunner());
}

/** Options of `runTaskWorker`: the serving options that matter to running tasks, with the queue and store required. */
export interface TaskWorkerOptions extends McpServerOptions {
  /** The queue the serving processes put tasks on. */
  taskQueue: BullmqTaskQueue;
  /** The store the serving processes share (a `RedisStore`): the tasks' records are there. */
  store: NonNullable<McpServerOptions['store']>;
  /** Stop gracefully on SIGINT / SIGTERM (the running tasks get `taskGraceMs`). Default false. */
  handleSignals?: boolean;
}

/** A running worker-only process's worker. */
export interface TaskWorkerHandle {
  /** The tools it runs; a task of another tool fails, naming it. */
  readonly toolset: Toolset;
  /**
   * Stops: takes no more tasks, lets those running finish within `taskGraceMs`, then hands the
   * tasks of idempotent or resumable tools back to the queue and fails the others, saying why.
   */
  close(): Promise<void>;
  /** Settles once the worker has stopped, whatever stopped it. */
  readonly closed: Promise<void>;
}

/**
 * Runs the tools of queued tasks with no MCP endpoint of its own: a worker process beside the
 * processes that serve the endpoint (`serveMcp` with the same `taskQueue` and `store`), so
 * long tasks run on machines of their own. `anytool-mcp serve --worker-only` runs it.
 *
 * @example
 * const url = 'redis://127.0.0.1:6379';
 * const worker = await runTaskWorker(tools, { taskQueue: new BullmqTaskQueue({ url }), store: new RedisStore({ url }), handleSignals: true });
 * await worker.closed;
 */
export async function runTaskWorker(tools: Toolset | ToolSource, options: TaskWorkerOptions): Promise<TaskWorkerHandle> {
  if (options?.taskQueue === undefined)
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      'runTaskWorker(): taskQueue is required (new BullmqTaskQueue({ url })), the queue the serving processes use',
    );
  if (options.store === undefined)
    throw new AnytoolError(ErrorCode.InvalidOptions, 'runTaskWorker(): store is required (a RedisStore), the store the serving processes share');
  const toolset = asToolset(tools);
  const served = new ServedTools(toolset, options);
  try {
    await startTaskWorker(served, options);
  } catch (error) {
    served.dispose();
    throw error;
  }
  // No endpoint to close first: the tasks running here get their grace period.
  const { close, closed } = closing(served, async () => undefined, options.handleSignals);
  return { toolset, closed, close };
}
