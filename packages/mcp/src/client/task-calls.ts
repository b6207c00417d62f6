import { AnytoolError, ErrorCode, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { ResultSchema } from '@modelcontextprotocol/core';
import type { McpStore } from '../store/store.js';
import { TaskHandles } from './task-handles.js';
import { followTask, readTask, type McpTaskHandle, type McpTaskStatus, type TaskHost, type WireTask } from './tasks.js';
import { redactError } from './url-credentials.js';

/*
 * The calls of one connection that became tasks (the 2026-07-28 tasks extension): following a
 * task a `tools/call` was answered with to its end, keeping its handle in the `taskHandles`
 * store while it runs, and resuming a task a client before this one left running. The poll
 * loop itself is `followTask` in `tasks.ts`.
 */

/** What task following needs of its connection. */
export interface TaskCallsHost {
  readonly name: string;
  /** The client of the open session, or a new session. */
  session(): Promise<Client>;
  closed(): boolean;
  /** The connection's request timeout, for a poll whose request has none. */
  readonly defaultTimeout: number;
  /** The cap on a task's whole life, in ms, if any. */
  readonly taskTimeout: number | undefined;
  /** The longest wait between two polls, in ms. */
  readonly maxPollInterval: number;
  /** Answers an input request of a task (elicitation, sampling, roots) as the same request outside tasks is answered. */
  answer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  redact(text: string): string;
  note(message: string): void;
  noteOnce(message: string): void;
}

export class TaskCalls {
  /** Where task handles are kept for a resume, when the options name a store. */
  private readonly handles: TaskHandles | undefined;
  /** Each handle's store writes, in order. */
  private readonly handleWrites = new WeakMap<McpTaskHandle, Promise<void>>();

  constructor(
    private readonly host: TaskCallsHost,
    store: McpStore | undefined,
  ) {
    this.handles = store === undefined ? undefined : new TaskHandles(store);
  }

  /** The handles of this server's tasks a client left running; empty without a store. */
  pending(): Promise<McpTaskHandle[]> {
    return this.handles === undefined ? Promise.resolve([]) : this.handles.pending(this.host.name);
  }

  /** A `tools/call` answered with a task (`created`): its handle is kept (when there is a store) and the task followed to its end. */
  follow(
    created: Record<string, unknown>,
    tool: string,
    request: RequestOptions,
    onstatus: ((status: McpTaskStatus) => void) | undefined,
  ): Promise<Record<string, unknown>> {
    const task = readTask(created);
    if (typeof task === 'string')
      return Promise.reject(
        new AnytoolError(ErrorCode.McpInvalidResult, `Tool "${tool}" on MCP server "${this.host.name}" answered with a task that is not valid: ${task}.`),
      );
    const handle: McpTaskHandle = { server: this.host.name, tool, taskId: task.taskId, createdAt: new Date().toISOString() };
    if (task.ttlMs !== undefined) handle.ttlMs = task.ttlMs;
    if (task.requestState !== undefined) handle.requestState = task.requestState;
    void this.keep(handle, 'add');
    return this.followTask(task, handle, request, onstatus);
  }

  /** Polls a task to its end (`followTask`), its errors without the credentials of the server's URL. */
  async followTask(
    task: WireTask,
    handle: McpTaskHandle,
    request: RequestOptions,
    onstatus: ((status: McpTaskStatus) => void) | undefined,
  ): Promise<Record<string, unknown>> {
    const taskTimeout = this.host.taskTimeout;
    try {
      return await followTask(this.pollHost(handle.tool), task, handle, {
        requestTimeout: request.timeout ?? this.host.defaultTimeout,
        taskTimeout: taskTimeout !== undefined && taskTimeout > 0 ? taskTimeout : undefined,
        maxPollInterval: this.host.maxPollInterval,
        signal: request.signal,
        onstatus,
      });
    } catch (error) {
      throw isAnytoolError(error) ? redactError(error, this.host.redact) : error;
    }
  }

  /** What the poll loop uses of this connection. */
  private pollHost(tool: string): TaskHost {
    return {
      server: this.host.name,
      tool,
      request: async (method, params, timeout, signal) => {
        const client = await this.host.session();
        const options: RequestOptions = { timeout };
        if (signal !== undefined) options.signal = signal;
        return client.request({ method, params }, ResultSchema, options);
      },
      answer: (method, params, signal) => this.host.answer(method, params, signal),
      keep: (handle, ended) => this.keep(handle, ended ? 'remove' : 'update'),
      note: (message) => this.host.noteOnce(message),
      closed: () => this.host.closed(),
    };
  }

  /** Writes a handle to the store (in order, per handle); a failed write is noted, the call goes on. */
  private keep(handle: McpTaskHandle, how: 'add' | 'update' | 'remove'): Promise<void> {
    const handles = this.handles;
    if (handles === undefined) return Promise.resolve();
    const previous = this.handleWrites.get(handle) ?? Promise.resolve();
    const written = previous
      .then(() => (how === 'add' ? handles.add(handle) : how === 'update' ? handles.update(handle) : handles.remove(handle)))
      .catch((error: unknown) =>
        this.host.note(
          `could not ${how === 'remove' ? 'forget' : 'keep'} the handle of task "${handle.taskId}" in the taskHandles store: ${describeError(error)}`,
        ),
      );
    this.handleWrites.set(handle, written);
    return written;
  }
}
