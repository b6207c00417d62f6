import { BaseTool } from './base-tool.js';
import { makeInvoker, resolveConvention, type Invoker } from './build-info.js';
import { readToolRecords, type ResolvedToolRecord } from './decorators/records.js';
import { AnytoolError, ErrorCode } from './errors.js';
import type { ExecutionContext } from './execution-context.js';

/** One `@Tool` method of one instance, as a tool. Made by `toolsFrom`. */
export class MethodTool extends BaseTool {
  readonly instance: object;
  readonly method: string | symbol;
  readonly needsContext: boolean;
  private readonly invoker: Invoker;
  private readonly fn: (...args: never[]) => unknown;

  constructor(instance: object, record: ResolvedToolRecord) {
    const { options, build } = record;
    const className = instance.constructor.name;
    const methodName = String(record.method);
    if (typeof record.method === 'symbol' && options.name === undefined) {
      throw new AnytoolError(ErrorCode.InvalidToolName, `${className}.${methodName}: a method named by a symbol needs @Tool({ name: '...' })`);
    }
    super({ ...options, name: options.name ?? methodName }, build ?? {});
    this.instance = instance;
    this.method = record.method;
    this.source = `${className}.${methodName}`;
    const fn = (instance as Record<string | symbol, unknown>)[record.method];
    if (typeof fn !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidToolDefinition, `${this.source} is marked @Tool() but is not a method of this instance`);
    }
    this.fn = fn as (...args: never[]) => unknown;
    const convention = resolveConvention(this.label, this.fn, options, build, record.contextIndex);
    this.needsContext = convention.contextIndex !== undefined;
    this.perCallContext = this.needsContext;
    this.invoker = makeInvoker(this.fn, convention.paramNames, convention.contextIndex);
  }

  execute(context: ExecutionContext, args: Record<string, unknown>): unknown {
    return this.invoker(this.instance, context, args);
  }
}

/**
 * Makes one tool per `@Tool` method of `instance` (inherited ones included),
 * each bound to it. Every definition is checked here, so a method with no
 * schema or description fails now, not when the model calls it.
 */
export function toolsFrom(instance: object): MethodTool[] {
  if (typeof instance !== 'object' || instance === null) {
    throw new AnytoolError(
      ErrorCode.InvalidToolDefinition,
      `toolsFrom(): expected an instance of a class with @Tool() methods, got ${instance === null ? 'null' : typeof instance}`,
    );
  }
  const tools = readToolRecords(instance.constructor, true).map((record) => new MethodTool(instance, record));
  for (const tool of tools) void tool.definition;
  return tools;
}

/** Whether `value` is an instance of a class with at least one `@Tool` method. */
export function hasToolRecords(value: unknown): value is object {
  return typeof value === 'object' && value !== null && readToolRecords(value.constructor).length > 0;
}
