import type { ContextAccess } from './context-access.js';
import { AnytoolError, ErrorCode } from './errors.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * What the anytool build step learned from a tool's source and passes into the
 * `@Tool()` decorator, the `tool()` call or a `BaseTool` subclass (as the static
 * `[BUILD_INFO]` property). Users do not write it by hand.
 */
export interface ToolBuildInfo {
  /**
   * The name as written, the tool's name unless the options give one: the
   * function's own, or for `const x = tool(<anonymous function>)` the
   * variable's; a BaseTool subclass's class name. It outlives a bundler or
   * minifier renaming the function or class.
   */
  name?: string;
  /** The JSDoc summary of the function or method. */
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: JsonSchema;
  /**
   * The argument each non-context parameter receives, in declaration order: a
   * property name of the arguments object, or `WHOLE_ARGUMENTS` for a single
   * destructured parameter that receives the whole object.
   */
  paramNames?: readonly string[];
  /** The position of the `ExecutionContext` parameter, when the function declares one. */
  contextIndex?: number;
  /**
   * What the tool's code uses of the context, as far as the build step could read
   * it (state keys written as string literals, events, progress). The tool's own
   * `context` option wins over it.
   */
  context?: ContextAccess;
  /** JSON Schema of the (awaited) return type, when it is an object type. */
  outputSchema?: JsonSchema;
  /** The arguments objects of the tool's JSDoc `@example` blocks, checked against `parameters` at build time. */
  examples?: readonly Record<string, unknown>[];
  /**
   * Steps applied to the validated arguments before the tool runs (reviving
   * `Date`s, building class instances). Filled by the build step.
   */
  prepare?: readonly ArgumentPreparer[];
}

/** Turns validated JSON arguments into what the function expects; may reject them with a message. */
export type ArgumentPreparer = (args: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** In `paramNames`, the parameter that receives the whole arguments object. */
export const WHOLE_ARGUMENTS = '*';

/** The static property of a `BaseTool` subclass where the build step leaves its `ToolBuildInfo`. */
export const BUILD_INFO: unique symbol = Symbol.for('anytool.buildInfo') as never;

/** Calls `fn` with the arguments object spread into its parameters, the context at its declared position. */
export type Invoker = (thisArg: unknown, context: unknown, args: Record<string, unknown>) => unknown;

/**
 * Makes the function that maps one arguments object onto a function's parameters.
 * With `paramNames` each parameter gets its property; without them the function
 * receives the arguments object first and, when `contextIndex` is given, the context there.
 */
export function makeInvoker(fn: (...args: never[]) => unknown, paramNames: readonly string[] | undefined, contextIndex: number | undefined): Invoker {
  const call = fn as (...args: unknown[]) => unknown;
  if (paramNames === undefined) {
    if (contextIndex === undefined) return (self, _context, args) => call.call(self, args);
    if (contextIndex === 0) return (self, context, args) => call.call(self, context, args);
    return (self, context, args) => call.call(self, args, context);
  }
  const names = [...paramNames];
  const arity = names.length + (contextIndex === undefined ? 0 : 1);
  if (contextIndex === undefined && !names.includes(WHOLE_ARGUMENTS)) {
    // Fixed arities without the generic loop: this runs on every call.
    const [n0, n1, n2] = names as [string, string, string];
    if (names.length === 0) return (self) => call.call(self);
    if (names.length === 1) return (self, _context, args) => call.call(self, args[n0]);
    if (names.length === 2) return (self, _context, args) => call.call(self, args[n0], args[n1]);
    if (names.length === 3) return (self, _context, args) => call.call(self, args[n0], args[n1], args[n2]);
  }
  if (contextIndex === undefined && names.length === 1) return (self, _context, args) => call.call(self, args);
  return (self, context, args) => {
    const argv = new Array<unknown>(arity);
    let n = 0;
    for (let i = 0; i < arity; i++) {
      if (i === contextIndex) argv[i] = context;
      else {
        const name = names[n++]!;
        argv[i] = name === WHOLE_ARGUMENTS ? args : args[name];
      }
    }
    return call.apply(self, argv);
  };
}

/** How one function or method receives a call: its parameter names (or the arguments object) and where the context goes. */
export interface CallingConvention {
  /** Undefined: the function receives the arguments object. */
  paramNames: readonly string[] | undefined;
  contextIndex: number | undefined;
}

/**
 * The one error for a tool that has neither build information nor explicit
 * `parameters`: the build step did not run on its code. The same code and text
 * for `@Tool` methods (TC39 or legacy decorators), `defineTool`, `tool(fn)`,
 * `BaseTool` subclasses and plain JavaScript; `label` names the tool.
 */
export function missingBuildInfo(label: string): AnytoolError {
  return new AnytoolError(
    ErrorCode.MissingSchema,
    `${label} has no parameter schema: the anytool build step did not run on its code, so nothing read its parameter types and JSDoc. ` +
      'Compile it with the build step (`anytool build`, or another way in from docs/build-setup.md), or pass explicit { description, parameters } (the function then receives the arguments object)',
  );
}

/**
 * Decides the calling convention from what the build step read and what the
 * user gave:
 * - build information and no explicit `parameters`: parameters by name;
 * - explicit `parameters` that name every parameter the build read: still by name;
 * - explicit `parameters` and nothing else: the arguments object, the context
 *   second with `context: true` (or where `@Context()` / the build put it).
 * Anything in between is an error that says which names are missing.
 */
export function resolveConvention(
  owner: string,
  fn: Function,
  options: { parameters?: object; context?: boolean | object },
  build: ToolBuildInfo | undefined,
  declaredContextIndex: number | undefined,
): CallingConvention {
  const names = build?.paramNames;
  if (names === undefined && options.parameters === undefined) throw missingBuildInfo(owner);
  if (names !== undefined) {
    if (options.context === true) {
      throw new AnytoolError(
        ErrorCode.ConflictingOptions,
        `${owner}: { context: true } is only for tools given explicit parameters and no build step; the build step already knows where the context parameter is`,
      );
    }
    const contextIndex = build?.contextIndex ?? declaredContextIndex;
    if (options.parameters === undefined) return { paramNames: names, contextIndex };
    const declared = Object.keys(((options.parameters as Record<string, unknown>)['properties'] as Record<string, unknown> | undefined) ?? {});
    const named = names.filter((n) => n !== WHOLE_ARGUMENTS);
    const missing = named.filter((n) => !declared.includes(n));
    if (named.length > 0 && missing.length === 0) return { paramNames: names, contextIndex };
    if (named.length <= 1) return { paramNames: undefined, contextIndex };
    throw new AnytoolError(
      ErrorCode.InvalidToolDefinition,
      `${owner}: its explicit parameters schema has no ${missing.map((n) => JSON.stringify(n)).join(', ')}, but the function takes those parameters by name; add them to the schema's properties, or drop { parameters } and let the build step generate it`,
    );
  }
  // A declaration ({ state: ... }) asks for the context as much as `true` does.
  const contextIndex = options.context === true || (typeof options.context === 'object' && options.context !== null) ? 1 : declaredContextIndex;
  // `fn.length` counts the parameters before the first default: more than one means at least two.
  if (contextIndex === undefined && fn.length > 1) {
    throw new AnytoolError(
      ErrorCode.InvalidToolDefinition,
      `${owner}: it takes more than one parameter, but a tool given explicit { parameters } and no build information receives one arguments object; ` +
        "if its second parameter is the ExecutionContext, pass { context: true } (under legacy decorators: mark it with @Context(), or `import 'reflect-metadata'` before the class so its type is seen), otherwise take the arguments object as its one parameter, or drop { parameters } and compile it with the build step",
    );
  }
  return { paramNames: undefined, contextIndex };
}
