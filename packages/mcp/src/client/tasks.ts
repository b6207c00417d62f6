import { AnytoolError, ErrorCode } from '@anytool/core';
import { abortWatch, describeError, isRecord } from '@anytool/core/internal';
import { ProtocolError, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { httpStatus, isServerError } from './sdk-errors.js';

/*
 * MCP Tasks, the client's side (the `io.modelcontextprotocol/tasks` extension of
 * the 2026-07-28 era, SEP-2663). A server that negotiated the extension may answer
 * a `tools/call` with a task (`resultType: "task"`) in place of the result; the
 * client then polls `tasks/get` until the task ends, answers the task's input
 * requests with `tasks/update`, and cancels it with `tasks/cancel`. To the caller
 * it stays one `tools/call` with a longer life.
 */

/** The extension's identifier, declared in the client's capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The statuses of a task; the last three end it. */
export type McpTaskStatusName = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * What the client keeps of a running task: enough to poll it again after a
 * restart of the server's connection or of the client itself.
 */
export interface McpTaskHandle {
  /** The server's name in the configuration. */
  server: string;
  /** The tool's name on its server. */
  tool: string;
  taskId: string;
  /** The server's opaque state, echoed on the next request about the task. */
  requestState?: string;
  /** When the client learned of the task (ISO 8601). */
  createdAt: string;
  /** How long the server keeps the task, in milliseconds (null: no limit). */
  ttlMs?: number | null;
}

/** A task's state as the server last reported it (`tasks/get`), for progress. */
export interface McpTaskStatus {
  taskId: string;
  status: McpTaskStatusName;
  statusMessage?: string;
}

const STATUSES: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** A task as read from the wire, checked for the fields the client relies on. */
export interface WireTask {
  taskId: string;
  status: McpTaskStatusName;
  statusMessage?: string;
  /** ISO 8601; the server changes it with every change of the task. */
  lastUpdatedAt?: string;
  /** The server's wait between polls, in milliseconds. */
  pollIntervalMs?: number;
  requestState?: string;
  /** How long the server keeps the task, in milliseconds (null: no limit). */
  ttlMs?: number | null;
  inputRequests?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

const isDuration = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/*
 * The duration fields were renamed while SEP-2663 was drafted: `pollInterval`
 * (ms) and `ttl` (s), then `pollIntervalMilliseconds` and `ttlSeconds`, now
 * `pollIntervalMs` and `ttlMs` (both ms). The current names win; a server on an
 * earlier draft is still understood.
 */

/** The server's poll interval in milliseconds, or undefined when it gives none. */
function pollIntervalOf(value: Record<string, unknown>): number | undefined {
  return [value['pollIntervalMs'], value['pollIntervalMilliseconds'], value['pollInterval']].find(isDuration);
}

/** How long the server keeps the task in milliseconds (null: no limit), or undefined when it does not say. */
function ttlOf(value: Record<string, unknown>): number | null | undefined {
  if ('ttlMs' in value) {
    const ttl = value['ttlMs'];
    return ttl === null || isDuration(ttl) ? ttl : undefined;
  }
  for (const key of ['ttlSeconds', 'ttl']) {
    const ttl = value[key];
    if (ttl === null) return null;
    if (isDuration(ttl)) return ttl * 1_000;
  }
  return undefined;
}

/** The task in a server's answer, or a short description of what is wrong with it. */
export function readTask(value: unknown): WireTask | string {
  if (!isRecord(value)) return 'it is not an object';
  const { taskId, status } = value;
  if (typeof taskId !== 'string' || taskId === '') return 'it has no "taskId" string';
  if (typeof status !== 'string' || !STATUSES.has(status))
    return `its "status" ${JSON.stringify(status)?.slice(0, 40)} is not one of ${[...STATUSES].join(', ')}`;
  const task: WireTask = { taskId, status: status as McpTaskStatusName };
  if (typeof value['statusMessage'] === 'string') task.statusMessage = value['statusMessage'];
  if (typeof value['lastUpdatedAt'] === 'string') task.lastUpdatedAt = value['lastUpdatedAt'];
  const interval = pollIntervalOf(value);
  if (interval !== undefined) task.pollIntervalMs = interval;
  if (typeof value['requestState'] === 'string') task.requestState = value['requestState'];
  const ttl = ttlOf(value);
  if (ttl !== undefined) task.ttlMs = ttl;
  if (isRecord(value['inputRequests'])) task.inputRequests = value['inputRequests'];
  if (isRecord(value['result'])) task.result = value['result'];
  if (isRecord(value['error'])) task.error = value['error'];
  return task;
}

/*
 * The SDK (2.4) refuses a `tools/call` answer whose `resultType` is "task"
 * (UNSUPPORTED_RESULT_TYPE) and keeps nothing of it. `TaskCreations` reads the
 * transport's messages before the SDK does: an answer with a task is handed to
 * the SDK as a JSON-RPC error whose data holds a token, and the task is kept
 * under that token for the caller, who finds it in the rejection. Only the
 * transport's public `onmessage` is used.
 */

/** The code of the error a task answer is turned into; `data` names the token. */
const TASK_CREATED_CODE = -32_099;
const TOKEN_KEY = 'anytoolTaskToken';
/** Tasks taken by nobody (an answer to a request that was given up) are dropped past this many. */
const MAX_UNCLAIMED = 1_000;

export class TaskCreations {
  private readonly unclaimed = new Map<string, Record<string, unknown>>();
  private readonly watched = new WeakSet<Transport>();
  private next = 0;

  /** Reads the answers of `transport` (connected: its `onmessage` is the SDK's) before the SDK does. */
  watch(transport: Transport): void {
    if (this.watched.has(transport)) return;
    const inner = transport.onmessage;
    if (inner === undefined) return;
    this.watched.add(transport);
    transport.onmessage = (message, extra) => inner.call(transport, this.intercept(message), extra);
  }

  /** The task a failed `tools/call` was answered with, taken (once), or undefined when the failure is another. */
  take(error: unknown): Record<string, unknown> | undefined {
    if (!(error instanceof ProtocolError) || error.code !== TASK_CREATED_CODE || !isRecord(error.data)) return undefined;
    const token = error.data[TOKEN_KEY];
    if (typeof token !== 'string') return undefined;
    const task = this.unclaimed.get(token);
    this.unclaimed.delete(token);
    return task;
  }

  private intercept(message: JSONRPCMessage): JSONRPCMessage {
    const result = (message as { result?: unknown }).result;
    if (!isRecord(result) || result['resultType'] !== 'task' || !('id' in message)) return message;
    const token = `${process.pid}.${++this.next}`;
    this.unclaimed.set(token, result);
    if (this.unclaimed.size > MAX_UNCLAIMED) this.unclaimed.delete(this.unclaimed.keys().next().value!);
    return {
      jsonrpc: '2.0',
      id: message.id,
      error: { code: TASK_CREATED_CODE, message: 'The server answered with a task (resultType "task").', data: { [TOKEN_KEY]: token } },
    };
  }
}

/** What the poll loop needs of the connection. */
export interface TaskHost {
  server: string;
  tool: string;
  /** Sends `tasks/get`, `tasks/update` or `tasks/cancel` on the connection's current session (started again when it ended). */
  request(
    method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
    params: Record<string, unknown>,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>>;
  /** Answers one input request through the client's handlers (elicitation, sampling, roots). */
  answer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Writes a changed handle (kept for a resume), or forgets it when its task ended; never rejects. */
  keep(handle: McpTaskHandle, ended: boolean): Promise<void>;
  note(message: string): void;
  /** Whether the connection was closed by the client (polling stops; the task goes on on the server). */
  closed(): boolean;
}

/** How a task is followed. */
export interface TaskPolicy {
  /** The longest a single `tasks/get` (or update, cancel) may take. */
  requestTimeout: number;
  /** A cap on the task's whole life, counted from when it was created (undefined: none). */
  taskTimeout: number | undefined;
  /** The longest wait between two polls, whatever the server asks. */
  maxPollInterval: number;
  signal: AbortSignal | undefined;
  onstatus: ((status: McpTaskStatus) => void) | undefined;
}

/** The first wait when the server suggests none; it grows by half each poll up to the cap. */
const DEFAULT_POLL_MS = 500;
/** Failed polls in a row (the server restarting, the network down) before the call gives up. */
const MAX_POLL_FAILURES = 8;

/** Read through a function: the signal changes while the loop awaits. */
const isAborted = (policy: TaskPolicy): boolean => policy.signal?.aborted === true;

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const stop = signal === undefined ? () => undefined : abortWatch(signal, done);
    function done(): void {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });

/**
 * Follows a task to its end and returns the tool's result (a `CallToolResult`
 * object, unchecked). Throws `AnytoolError`s: `ABORTED` (cancelled, by the
 * signal or by the server), `TIMEOUT` (over `taskTimeout`), `MCP_PROTOCOL_ERROR`
 * (the task failed, or the server lost it), `MCP_INVALID_RESULT`.
 */
export async function followTask(host: TaskHost, first: WireTask, handle: McpTaskHandle, policy: TaskPolicy): Promise<Record<string, unknown>> {
  const where = `Tool "${host.tool}" on MCP server "${host.server}"`;
  const deadline = policy.taskTimeout === undefined ? undefined : Date.parse(handle.createdAt) + policy.taskTimeout;
  const answered: Answered = new Map();
  let task = first;
  let wait = DEFAULT_POLL_MS;
  let failures = 0;
  let lastReport = '';
  for (;;) {
    if (task.requestState !== undefined && task.requestState !== handle.requestState) {
      handle.requestState = task.requestState;
      void host.keep(handle, false);
    }
    const report = `${task.status}\u0000${task.statusMessage ?? ''}`;
    if (report !== lastReport) {
      lastReport = report;
      const status: McpTaskStatus = { taskId: task.taskId, status: task.status };
      if (task.statusMessage !== undefined) status.statusMessage = task.statusMessage;
      policy.onstatus?.(status);
    }
    switch (task.status) {
      case 'completed':
        await host.keep(handle, true);
        if (task.result === undefined) throw new AnytoolError(ErrorCode.McpInvalidResult, `${where} completed task "${task.taskId}" without a result.`);
        return task.result;
      case 'failed': {
        await host.keep(handle, true);
        const text = typeof task.error?.['message'] === 'string' ? task.error['message'] : (task.statusMessage ?? 'no reason given');
        const failed = typeof task.error?.['code'] === 'number' ? `failed (error ${task.error['code']})` : 'failed';
        throw new AnytoolError(ErrorCode.McpProtocolError, `${where} ${failed}: ${clip(text)}`);
      }
      case 'cancelled':
        await host.keep(handle, true);
        throw new AnytoolError(
          ErrorCode.Aborted,
          `${where} was cancelled by the server${task.statusMessage === undefined ? '' : `: ${clip(task.statusMessage)}`}.`,
        );
      case 'input_required':
        await answerInputs(host, task, handle, answered, policy);
        break;
      case 'working':
        answered.clear();
        break;
    }
    if (isAborted(policy)) throw await cancelled(host, handle, where);
    const interval = task.pollIntervalMs ?? (wait = Math.min(Math.round(wait * 1.5), policy.maxPollInterval));
    const pause = Math.min(Math.max(interval, 1) * 2 ** Math.min(failures, 6), policy.maxPollInterval);
    if (deadline !== undefined && Date.now() + pause > deadline) {
      await sleep(Math.max(0, deadline - Date.now()), policy.signal);
      if (!isAborted(policy)) {
        await cancel(host, handle);
        await host.keep(handle, true);
        throw new AnytoolError(
          ErrorCode.Timeout,
          `${where} did not finish within taskTimeoutMs (${policy.taskTimeout} ms); task "${task.taskId}" was cancelled. Raise "taskTimeoutMs" for longer tasks.`,
        );
      }
    } else {
      await sleep(pause, policy.signal);
    }
    if (isAborted(policy)) throw await cancelled(host, handle, where);
    let answer: Record<string, unknown>;
    try {
      answer = await host.request('tasks/get', withState({ taskId: handle.taskId }, handle), policy.requestTimeout, policy.signal);
      failures = 0;
    } catch (error) {
      if (isAborted(policy)) throw await cancelled(host, handle, where);
      if (host.closed()) {
        throw new AnytoolError(
          ErrorCode.McpConnectionClosed,
          `${where} was cut off: the connection to the server was closed by the client. Task "${handle.taskId}" goes on on the server; a client with the same taskHandles store can resume it.`,
          { cause: error },
        );
      }
      if (isServerError(error)) {
        await host.keep(handle, true);
        throw new AnytoolError(
          ErrorCode.McpProtocolError,
          `${where}: the server no longer knows task "${handle.taskId}" (tasks/get answered error ${error.code}: ${clip(error.message)}). It may have expired or been lost when the server restarted.`,
          { cause: error },
        );
      }
      if (++failures >= MAX_POLL_FAILURES) {
        throw new AnytoolError(
          ErrorCode.McpConnectionClosed,
          `${where}: ${MAX_POLL_FAILURES} polls of task "${handle.taskId}" failed in a row, the last with: ${clip(describeTransient(error))}. The task may still run on the server; resume it later with its handle.`,
          { cause: error },
        );
      }
      host.note(`polling task "${handle.taskId}" of tool "${host.tool}" failed (${failures} in a row), trying again: ${describeTransient(error)}`);
      continue;
    }
    const read = readTask(answer);
    if (typeof read === 'string')
      throw new AnytoolError(ErrorCode.McpInvalidResult, `${where}: the server's tasks/get answer for task "${handle.taskId}" is not a task: ${read}.`);
    task = read;
  }
}

/**
 * The input keys answered, each with the `lastUpdatedAt` of the task as it was
 * when the client answered. A `tasks/update` is taken before the task shows it
 * (the SEP lets a server be eventually consistent), so a later poll may list a
 * key just answered: it is not answered twice while the task is unchanged. A
 * tool may ask again under the same key once it has its answer (`inputKey`);
 * the task has changed by then (the answer changed it), so the key is answered
 * again.
 */
type Answered = Map<string, string | undefined>;

/** Answers the input requests not answered before, all in one `tasks/update`. */
async function answerInputs(host: TaskHost, task: WireTask, handle: McpTaskHandle, answered: Answered, policy: TaskPolicy): Promise<void> {
  const listed = task.inputRequests ?? {};
  for (const key of [...answered.keys()]) if (!(key in listed)) answered.delete(key);
  const isNew = (key: string): boolean => !answered.has(key) || (task.lastUpdatedAt !== undefined && answered.get(key) !== task.lastUpdatedAt);
  const fresh = Object.entries(listed).filter(([key]) => isNew(key));
  if (fresh.length === 0) return;
  const signal = policy.signal ?? new AbortController().signal;
  const responses: Record<string, unknown> = {};
  await Promise.all(
    fresh.map(async ([key, request]) => {
      const method = isRecord(request) ? request['method'] : undefined;
      const params = isRecord(request) && isRecord(request['params']) ? request['params'] : {};
      try {
        responses[key] = await host.answer(typeof method === 'string' ? method : '', params, signal);
      } catch (error) {
        await cancel(host, handle);
        await host.keep(handle, true);
        throw new AnytoolError(
          ErrorCode.McpProtocolError,
          `Tool "${host.tool}" on MCP server "${host.server}" needed input (${typeof method === 'string' ? method : 'an unknown request'}) this client could not give: ${describeError(error)}. Task "${handle.taskId}" was cancelled.`,
          { cause: error },
        );
      }
    }),
  );
  for (const [key] of fresh) answered.set(key, task.lastUpdatedAt);
  await host.request('tasks/update', withState({ taskId: handle.taskId, inputResponses: responses }, handle), policy.requestTimeout, policy.signal);
}

function withState(params: Record<string, unknown>, handle: McpTaskHandle): Record<string, unknown> {
  return handle.requestState === undefined ? params : { ...params, requestState: handle.requestState };
}

/** Tells the server the task is no longer wanted (best effort: the call ends either way). */
async function cancel(host: TaskHost, handle: McpTaskHandle): Promise<void> {
  try {
    await host.request('tasks/cancel', withState({ taskId: handle.taskId }, handle), 5_000, undefined);
  } catch (error) {
    host.note(`could not cancel task "${handle.taskId}" of tool "${host.tool}": ${describeError(error)}`);
  }
}

async function cancelled(host: TaskHost, handle: McpTaskHandle, where: string): Promise<AnytoolError> {
  await cancel(host, handle);
  await host.keep(handle, true);
  return new AnytoolError(ErrorCode.Aborted, `${where} was cancelled (task "${handle.taskId}").`);
}

function describeTransient(error: unknown): string {
  const status = httpStatus(error);
  return status === undefined ? describeError(error) : `HTTP ${status}: ${describeError(error)}`;
}

function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}
