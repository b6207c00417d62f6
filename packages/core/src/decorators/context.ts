import { AnytoolError, ErrorCode } from '../errors.js';
import { setContextParam } from './records.js';

export type ContextDecorator = (target: object, propertyKey: string | symbol | undefined, parameterIndex: number) => void;

/**
 * Legacy (`experimentalDecorators`) parameter decorator: marks the parameter
 * that receives the run's `ExecutionContext`. Standard decorators have no
 * parameter decorators: there, type the parameter as `ExecutionContext` and the
 * build step finds it.
 */
export function Context(): ContextDecorator {
  return (target, propertyKey, parameterIndex) => {
    if (propertyKey === undefined) {
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        `@Context() on a constructor parameter of ${(target as Function).name}: put it on a parameter of a @Tool() method`,
      );
    }
    const owner = typeof target === 'function' ? target : target.constructor;
    setContextParam(owner, propertyKey, parameterIndex);
  };
}

/** The imperative twin of `@Context()`: parameter `index` of `method` receives the context. */
export function defineContext<T extends object>(target: abstract new (...args: never[]) => T, method: keyof T & (string | symbol), index: number): void {
  setContextParam(target, method, index);
}
