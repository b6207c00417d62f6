import { ProtocolError, ProtocolErrorCode, Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';
import { isRecord } from '@anytool/core/internal';
import { TaskAnswer } from './input-rounds.js';

/**
 * A server whose `tools/call` takes arguments of any shape: the SDK checks the
 * request before the handler runs and would answer bad arguments with a
 * protocol error; here they reach the toolset, which answers them with an
 * `isError` result the model can act on. A call without a tool name is a
 * clean -32602 that says what is missing.
 */
export class RawArgumentsServer extends Server {
  /** The arguments as the client sent them, for requests whose arguments are not an object. */
  private static readonly rawArguments = new WeakMap<object, unknown>();
  /** Starts a call as a task, when it becomes one: its result (a `CreateTaskResult`) is the answer as it is. */
  startTask: ((name: string, args: unknown, ctx: ServerContext) => Promise<Result | undefined> | undefined) | undefined;
  /** Whether a call of the tool may become a task on one of its rounds (`deferTask`): its handler may throw a `TaskAnswer`. */
  defersTask: ((name: string) => boolean) | undefined;

  /** The arguments of a `tools/call` as the client sent them, whatever their shape. */
  static argumentsOf(request: { params: { arguments?: unknown } }): unknown {
    return RawArgumentsServer.rawArguments.has(request) ? RawArgumentsServer.rawArguments.get(request) : request.params.arguments;
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => {
      const params: Record<string, unknown> = isRecord(request.params) ? request.params : {};
      const name = params['name'];
      if (typeof name !== 'string') {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `tools/call needs params.name, the name of the tool to call (a string), got ${name === undefined ? 'none' : typeof name}; tools/list gives the names`,
        );
      }
      const args = params['arguments'];
      const plain = (): Promise<Result> => {
        if (args === undefined || isRecord(args)) return wrapped(request, ctx);
        const checked = { ...request, params: { ...params, arguments: {} } };
        RawArgumentsServer.rawArguments.set(checked, args);
        return wrapped(checked, ctx);
      };
      // A task's answer is not a tool result: it goes out as it is, past the SDK's check of tools/call results.
      const task = this.startTask?.(name, args, ctx);
      if (task !== undefined) return task.then((created) => created ?? plain());
      return this.defersTask?.(name) === true ? plain().catch(taskAnswer) : plain();
    };
  }
}

/** The answer of a round on which the call became a task; any other error stays one. */
function taskAnswer(error: unknown): Result {
  if (error instanceof TaskAnswer) return error.answer;
  throw error;
}
