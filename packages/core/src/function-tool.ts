import { BaseTool, type BaseToolOptions } from './base-tool.js';
import { makeInvoker, missingBuildInfo, resolveConvention, type Invoker, type ToolBuildInfo } from './build-info.js';
import { AnytoolError, ErrorCode } from './errors.js';
import type { ContextAccess } from './context-access.js';
import type { ExecutionContext } from './execution-context.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { JsonSchema } from './tool-definition.js';

/** Options of `tool(fn, options)`. */
export interface FunctionToolOptions extends BaseToolOptions {
  /**
   * What the tool needs of the run's context (see `BaseToolOptions.context`).
   * For a function given explicit `parameters` and no build information it also
   * passes the context as its second argument, after the arguments object:
   * `true` passes it with nothing declared (the signal only), a declaration
   * (`{ state: { read: ['key'] } }`) passes it with that.
   */
  context?: boolean | ContextAccess;
}

// Any function: its parameters are matched from the arguments object at run time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFunction = (...args: any[]) => unknown;

/** The start of a function's source on one line, to point at an anonymous function in a message. */
function sourceSnippet(fn: Function): string {
  const text = Function.prototype.toString.call(fn).replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A plain function, sync or async, as a tool.
 *
 * Two calling conventions:
 * - With build information (the anytool build step read the function's
 *   parameters), each parameter receives the argument of the same name, and a
 *   parameter typed `ExecutionContext` receives the context wherever it stands.
 * - With explicit `parameters` and no build information, the function receives
 *   the arguments object, and the context second only with `{ context: true }`.
 */
export class FunctionTool<Fn extends AnyFunction = AnyFunction> extends BaseTool {
  readonly fn: Fn;
  /** Whether the function receives the run's context. */
  readonly needsContext: boolean;
  private readonly invoker: Invoker;

  constructor(fn: Fn, options: FunctionToolOptions = {}, build?: ToolBuildInfo) {
    if (typeof fn !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidToolDefinition, `tool(): expected a function, got ${fn === null ? 'null' : typeof fn}`);
    }
    // An anonymous function's name comes from the variable it is assigned to, through the build step.
    const name = options.name ?? (build?.name || fn.name || undefined);
    if (name === undefined) {
      // Without the build step nothing else is known about it either: say that first.
      if (build?.paramNames === undefined && options.parameters === undefined)
        throw missingBuildInfo(`the anonymous function given to tool() (${sourceSnippet(fn)})`);
      throw new AnytoolError(
        ErrorCode.InvalidToolName,
        `tool(): an anonymous function (${sourceSnippet(fn)}) needs a name; pass { name: '...' } or use a named function`,
      );
    }
    super({ ...options, name }, build ?? {});
    this.fn = fn;
    this.source = `function ${build?.name || fn.name || '(anonymous)'}`;
    const convention = resolveConvention(this.label, fn, options, build, undefined);
    this.needsContext = convention.contextIndex !== undefined;
    this.perCallContext = this.needsContext;
    this.invoker = makeInvoker(fn, convention.paramNames, convention.contextIndex);
  }

  execute(context: ExecutionContext, args: Record<string, unknown>): unknown {
    return this.invoker(undefined, context, args);
  }
}

/**
 * Wraps a function as a tool. The anytool build step fills in the description
 * (from JSDoc) and the parameter schema (from the parameter types); without it,
 * pass `parameters` yourself: a JSON Schema, or a Standard Schema such as a
 * zod 4 object (the function's argument type is then inferred from it).
 *
 * @example
 * const calculator = tool(function calculator(expression: string): number {
 *   // ...
 * }, { description: 'Calculate a math expression.' });
 */
export function tool<Schema extends StandardSchemaV1, Fn extends (args: StandardSchemaV1.InferOutput<Schema>, context: ExecutionContext) => unknown>(
  fn: Fn,
  options: Omit<FunctionToolOptions, 'parameters'> & { parameters: Schema },
  build?: ToolBuildInfo,
): FunctionTool<Fn>;
// JSON Schema (or none): a function whose types do not match a Standard Schema does not fall through to here.
export function tool<Fn extends AnyFunction>(fn: Fn, options?: FunctionToolOptions & { parameters?: JsonSchema }, build?: ToolBuildInfo): FunctionTool<Fn>;
export function tool<Schema extends StandardSchemaV1, R>(
  definition: ToolObject<Schema, R> & { parameters: Schema },
): FunctionTool<ToolObjectExecute<Schema, R>>;
export function tool<Schema extends StandardSchemaV1, R>(
  definition: ToolObject<Schema, R> & { inputSchema: Schema },
): FunctionTool<ToolObjectExecute<Schema, R>>;
export function tool<Fn extends AnyFunction>(fn: Fn | ToolObjectAny, options?: FunctionToolOptions, build?: ToolBuildInfo): FunctionTool<Fn> {
  if (typeof fn === 'object' && fn !== null) return fromObject(fn) as FunctionTool<Fn>;
  return new FunctionTool(fn, options, build);
}

type ToolObjectExecute<Schema extends StandardSchemaV1, R> = (args: StandardSchemaV1.InferOutput<Schema>, context: ExecutionContext) => R;

/**
 * The object form of `tool()`, as the Vercel AI SDK (`inputSchema`) and the OpenAI
 * Agents SDK (`parameters`) write it: `execute` receives the schema's output and the
 * run's `ExecutionContext`.
 */
export type ToolObject<Schema extends StandardSchemaV1, R> = Omit<FunctionToolOptions, 'parameters' | 'context'> & {
  name: string;
  /** What `execute` needs of the context (see `BaseToolOptions.context`); without it, the signal only. */
  context?: ContextAccess;
  description: string;
  execute: ToolObjectExecute<Schema, R>;
};

type ToolObjectAny = Omit<FunctionToolOptions, 'parameters' | 'context'> & {
  execute?: unknown;
  parameters?: unknown;
  inputSchema?: unknown;
  context?: unknown;
};

function fromObject(definition: ToolObjectAny): FunctionTool {
  const { execute, parameters, inputSchema, ...options } = definition;
  const shown = options.name === undefined ? 'tool({ ... })' : `tool({ name: ${JSON.stringify(options.name)}, ... })`;
  if (typeof execute !== 'function')
    throw new AnytoolError(ErrorCode.InvalidToolDefinition, `${shown}: expected an execute function, got ${execute === null ? 'null' : typeof execute}`);
  if (options.name === undefined) {
    throw new AnytoolError(
      ErrorCode.InvalidToolName,
      `${shown}: a tool in object form needs a name; add name: '...' (the AI SDK names a tool by its key in \`tools\`, anytool by its name)`,
    );
  }
  if (parameters !== undefined && inputSchema !== undefined)
    throw new AnytoolError(ErrorCode.ConflictingOptions, `${shown}: give parameters or inputSchema, not both`);
  const schema = parameters ?? inputSchema;
  if (schema === undefined)
    throw new AnytoolError(
      ErrorCode.MissingSchema,
      `${shown}: give the arguments' schema as parameters (or inputSchema): a Standard Schema such as a zod object, or a JSON Schema`,
    );
  const context: NonNullable<FunctionToolOptions['context']> =
    options.context === undefined || options.context === false ? true : (options.context as NonNullable<FunctionToolOptions['context']>);
  return new FunctionTool(execute as AnyFunction, { ...options, parameters: schema as NonNullable<FunctionToolOptions['parameters']>, context });
}
