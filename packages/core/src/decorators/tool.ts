import type { ToolBuildInfo } from '../build-info.js';
import { AnytoolError, ErrorCode } from '../errors.js';
import { addToClass, addToMetadata, addToMethod, addToReplacedMethod, type ToolOptions, type ToolRecord } from './records.js';

/** Works as a TC39 standard method decorator and as a legacy `experimentalDecorators` one. */
export interface ToolDecorator {
  // The method's own signature does not matter to the recorder.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (value: (this: any, ...args: any[]) => any, context: ClassMethodDecoratorContext): void;
  (target: object, propertyKey: string | symbol, descriptor?: PropertyDescriptor): void;
}

function isStandardContext(value: unknown): value is ClassMethodDecoratorContext {
  return typeof value === 'object' && value !== null && 'kind' in value && 'metadata' in value;
}

function record(method: string | symbol, options: ToolOptions | undefined, build: ToolBuildInfo | undefined): ToolRecord {
  const entry: ToolRecord = { method, options: { ...options } };
  if (build) entry.build = build;
  return entry;
}

/**
 * Marks a method as a tool. It only records: `toolsFrom(instance)` builds the
 * tools. The build step passes the schema and description as the second argument.
 *
 * @example
 * class Weather {
 *   /** Current weather for a city. *\/
 *   @Tool() getWeather(city: string, unit: 'celsius' | 'fahrenheit' = 'celsius') { ... }
 * }
 * const tools = toolsFrom(new Weather());
 */
export function Tool(options?: ToolOptions, build?: ToolBuildInfo): ToolDecorator {
  return ((...args: unknown[]) => {
    const [value, context] = args;
    if (isStandardContext(context)) {
      if (context.kind !== 'method' || context.static || context.private) {
        const what = context.kind !== 'method' ? `a ${context.kind}` : context.static ? 'a static method' : 'a private method';
        throw new AnytoolError(ErrorCode.InvalidToolDefinition, `@Tool() on ${what} (${String(context.name)}): put @Tool() on a public instance method`);
      }
      // Decorator metadata exists only where `Symbol.metadata` did when the class was defined; without it the method holds the record.
      if (typeof context.metadata === 'object' && context.metadata !== null)
        addToMetadata(context.metadata as Record<PropertyKey, unknown>, record(context.name, options, build));
      else {
        const own = record(context.name, options, build);
        addToMethod(value as Function, own);
        // A decorator above this one may replace the method (logging, retries): its replacement learns the record
        // when the first instance is made, before anything reads the instance's tools.
        const name = context.name;
        context.addInitializer(function (this: unknown) {
          addToReplacedMethod(this as object, name, own);
        });
      }
      return;
    }
    const target = value as object;
    const key = context as string | symbol;
    if (typeof target === 'function') {
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        `@Tool() on static method ${target.name}.${String(key)}: put @Tool() on a public instance method`,
      );
    }
    addToClass(target.constructor, record(key, options, build));
  }) as ToolDecorator;
}

/**
 * The imperative twin of `@Tool()`: records `Class.prototype[method]` as a tool.
 *
 * @example
 * defineTool(Weather, 'getWeather', { description: 'Current weather.', parameters: { type: 'object', ... } });
 */
export function defineTool<T extends object>(
  target: abstract new (...args: never[]) => T,
  method: keyof T & (string | symbol),
  options?: ToolOptions,
  build?: ToolBuildInfo,
): void {
  if (typeof (target.prototype as Record<PropertyKey, unknown>)[method] !== 'function') {
    throw new AnytoolError(
      ErrorCode.InvalidToolDefinition,
      `defineTool(${target.name}, ${String(method)}): ${target.name}.prototype.${String(method)} is not a method`,
    );
  }
  addToClass(target, record(method, options, build));
}
