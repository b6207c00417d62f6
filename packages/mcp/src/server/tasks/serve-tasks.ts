import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type InputRequest,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { NEEDS } from '../input-rounds.js';
import { TASKS_EXTENSION, detailedTask } from './record.js';
import type { TaskManager } from './task-manager.js';

/** The client capabilities a 2026-07-28 request declares in its envelope. */
function declared(ctx: ServerContext): ClientCapabilities | undefined {
  return (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/** Whether the request declares the Tasks extension (each 2026-07-28 request declares what its client supports). */
export function declaresTasks(ctx: ServerContext): boolean {
  const extensions = (declared(ctx) as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && extensions[TASKS_EXTENSION] !== undefined;
}

/** The error for a request that needs the Tasks extension from a client that did not declare it (-32021). */
export function tasksRequired(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } as never,
    `${what} needs the Tasks extension (${TASKS_EXTENSION}), which this request does not declare in its client capabilities`,
  );
}

/**
 * Throws when the client that started a task cannot answer `request` (it did
 * not declare the capability): the task then fails with -32021, as a plain
 * call would.
 */
export function checkAskable(ctx: ServerContext, request: InputRequest): void {
  const needed = NEEDS[request.method];
  if (needed === undefined || declared(ctx)?.[needed] !== undefined) return;
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { [needed]: {} } },
    `the tool asks the client for input it did not declare it can give (${needed} capability missing from the request that started the task)`,
  );
}

interface TaskParams {
  taskId: string;
  inputResponses?: Record<string, unknown>;
}

/** Checks the params of a `tasks/*` request: a string `taskId` (and for `tasks/update`, an `inputResponses` object). */
function taskParams(method: string, update: boolean): StandardSchemaV1<unknown, TaskParams> {
  return {
    '~standard': {
      version: 1,
      vendor: 'anytool',
      validate(value: unknown) {
        const params = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
        const taskId = params['taskId'];
        if (typeof taskId !== 'string' || taskId.length === 0)
          return { issues: [{ message: `${method} needs params.taskId, the id the tools/call that started the task returned` }] };
        if (!update) return { value: { taskId } };
        // The SDK lifts a well-formed inputResponses out of the params (into ctx.mcpReq.inputResponses).
        const responses = params['inputResponses'];
        if (responses === undefined) return { value: { taskId } };
        if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
          return { issues: [{ message: `${method}: params.inputResponses must be an object of answers by the keys of the task's inputRequests` }] };
        return { value: { taskId, inputResponses: responses as Record<string, unknown> } };
      },
    },
  };
}

/** The params schemas of the three methods: made once, not for each server instance (one per modern request). */
const GET_PARAMS = { params: taskParams('tasks/get', false) };
const UPDATE_PARAMS = { params: taskParams('tasks/update', true) };
const CANCEL_PARAMS = { params: taskParams('tasks/cancel', false) };

/**
 * Serves the Tasks extension's methods on a 2026-07-28 server instance
 * (`tasks/get`, `tasks/update`, `tasks/cancel`), for the tasks of `owner`
 * (who sends the request), from `tasks` (made on first use). A task of anyone else, like an unknown one, is not
 * found. The SDK leaves these methods out of that era's registry; handlers
 * with their own params schema bring them back.
 */
export function serveTaskMethods(server: Server, tasks: () => TaskManager, owner: string | undefined): void {
  server.setRequestHandler('tasks/get', GET_PARAMS, async (params, ctx) => {
    if (!declaresTasks(ctx)) throw tasksRequired('tasks/get');
    const record = await tasks().get(params.taskId, owner);
    if (record === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found (it expired, or was never started by this client)');
    return detailedTask(record);
  });
  server.setRequestHandler('tasks/update', UPDATE_PARAMS, async (params, ctx) => {
    if (!declaresTasks(ctx)) throw tasksRequired('tasks/update');
    // Acknowledged whatever the task: answers to unknown or closed questions are ignored.
    await tasks().answer(params.taskId, owner, { ...params.inputResponses, ...ctx.mcpReq.inputResponses });
    return {};
  });
  server.setRequestHandler('tasks/cancel', CANCEL_PARAMS, async (params, ctx) => {
    if (!declaresTasks(ctx)) throw tasksRequired('tasks/cancel');
    await tasks().cancel(params.taskId, owner);
    return {};
  });
}
