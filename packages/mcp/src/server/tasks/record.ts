import type { CallToolResult, InputRequest } from '@modelcontextprotocol/server';

/**
 * The task of one long-running tool call (the MCP Tasks extension,
 * `io.modelcontextprotocol/tasks`), as every instance serving the endpoint
 * sees it in the shared `McpStore`.
 *
 * One record per task, under `taskKey(taskId)`, JSON. The instance running the
 * tool writes it (status, progress, questions, outcome) and renews its lease;
 * any instance reads it to answer `tasks/get`, and changes it with
 * `McpStore.update` to answer `tasks/update` (answers) and `tasks/cancel`, then
 * pokes the running instance on its channel (`instanceChannel(instance)`).
 * A poke is only a hint (a store's publish may drop it): the runner also reads
 * the record on every heartbeat, so an answer or a cancel lands within one.
 */
export interface TaskRecord {
  /** Unguessable (24 random bytes, base64url): with no `tasks/list`, knowing the id is knowing the task. */
  taskId: string;
  status: TaskStatus;
  /** The tool's latest progress message while working; why it failed or was cancelled at the end. */
  statusMessage?: string | undefined;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the record is kept after its last change, in milliseconds (the result is kept this long after the task ends). */
  ttlMs: number;
  /** How often a client should poll `tasks/get`, in milliseconds. */
  pollIntervalMs: number;
  /** The tool called. */
  tool: string;
  /**
   * Who started it: the authenticated principal, else the client identity of
   * the endpoint (`clientIdentity`), else none. Only the same owner sees the
   * task; to anyone else it does not exist.
   */
  owner?: string;
  /** The instance running the tool (`TaskManager.instanceId`, random per process); empty while a queued task waits for a worker. */
  instance: string;
  /**
   * Until when the running instance vouches for the task (epoch ms, its
   * clock), renewed every heartbeat. A task still running a lease past it (a
   * margin for clock skew and a blocked event loop) lost its instance: whoever
   * reads it next marks it failed. Not for a `queued` task: the queue finds a
   * dead worker's tasks itself (BullMQ's stalled jobs).
   */
  leaseUntil: number;
  /** The tool may run again after its worker stopped: the tool is `resumable` (or idempotent, on a queue). */
  resumable?: boolean;
  /** The task is a job of the task queue (`BullmqTaskQueue`): any worker runs it, and a dead worker's task is handled by the queue. */
  queued?: boolean;
  /** How many times a worker started the tool (a queued task): more than one only for a tool that may run again. */
  runs?: number;
  /** The run (the `runs` it follows) whose wait before starting (the backoff) has been served. */
  waited?: number;
  /** What the tool last saved with `mcpSession(context).checkpoint(data)`; a rerun reads it as `lastCheckpoint`. */
  checkpoint?: unknown;
  /** Open questions to the client, by key (status `input_required`); answered keys leave at once. */
  inputRequests?: Record<string, InputRequest> | undefined;
  /** Answers taken by `tasks/update` that the running tool has not picked up yet, by key. */
  inputResponses?: Record<string, unknown> | undefined;
  /** A client asked to cancel; the running instance aborts the tool's signal and settles the task as `cancelled`. */
  cancelRequested?: boolean;
  /** The tool's result (status `completed`; a tool error is a completed result with `isError`). */
  result?: CallToolResult | undefined;
  /** The JSON-RPC error the call ended with (status `failed`). */
  error?: TaskError | undefined;
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

/** A JSON-RPC error, as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** The extension's identifier, in capabilities (`capabilities.extensions`) and in a request's client capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Where a task's record is kept. */
export function taskKey(taskId: string): string {
  return `task:${taskId}`;
}

/** The channel an instance listens on for pokes about the tasks it runs. */
export function instanceChannel(instanceId: string): string {
  return `tasks:instance:${instanceId}`;
}

/** What is published on an instance's channel: look at this task again (an answer came, a cancel, or it ended). */
export interface TaskPoke {
  taskId: string;
  reason: 'input' | 'cancel' | 'ended';
  /** With `ended`: the ended record, when small (the instance whose call waits for it answers without reading it). */
  record?: string;
}

export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'failed';
}

/** The task's common fields as the wire carries them (`Task` of the extension). */
function wireTask(record: TaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) task['statusMessage'] = record.statusMessage;
  return task;
}

/** The answer to the `tools/call` that started the task: flat, `resultType: "task"`, no result, error or questions. */
export function createTaskResult(record: TaskRecord): Record<string, unknown> {
  return { ...wireTask(record), resultType: 'task' };
}

/** The answer to `tasks/get` (`DetailedTask`): the questions while `input_required`, the result or error once ended. */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  const task = wireTask(record);
  if (record.status === 'input_required') task['inputRequests'] = record.inputRequests ?? {};
  if (record.status === 'completed') task['result'] = record.result;
  if (record.status === 'failed') task['error'] = record.error;
  return task;
}
