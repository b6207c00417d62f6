/*
 * Sync-or-async values on the call path, in one place.
 *
 * Most tool calls are synchronous from end to end: the arguments are read and
 * validated, a plain function runs, its value becomes a result. The call path
 * (`invokeThrough` and `runChain` in pipeline.ts, the tool's stage in base-tool.ts)
 * therefore passes a plain value from stage to stage and switches to a promise only
 * where something really is async (an async tool, a hook that returns a promise, a
 * time limit); `invoke` makes the one promise its caller awaits at the end. Written
 * with `async` / `await` all the way, every stage would add a promise and a
 * microtask to every call. What this buys at the least is measured by
 * `bench/local-dispatch.mjs`: a sync tool's call against the same tool async, which goes
 * async at one stage only (1.24x on the realistic schema, Node 20).
 *
 * A reader may skip this file: `andThen(value, f)` reads as `(await value)` then `f`.
 */

/** A value now, or a promise of it: what each stage of the call path returns. */
export type MaybePromise<T> = T | Promise<T>;

/** Whether `value` is the promise of a `MaybePromise`: the one test the call path makes to know it went async. */
export function isAsync<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * `onValue` of `value`: at once when it is a value, when it settles when it is a
 * promise (a rejection passes through). A value takes no microtask.
 */
export function andThen<T, U>(value: MaybePromise<T>, onValue: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(onValue) : onValue(value);
}

/** `value` as a promise, made once where the call path must hand one out: a promise is returned as it is. */
export function toPromise<T>(value: T | PromiseLike<T>): Promise<T> {
  return value instanceof Promise ? (value as Promise<T>) : Promise.resolve(value);
}

/**
 * Whether a value of unknown origin (what a tool's `execute` or a middleware hook
 * returned) has a `then` method, a promise's or another library's. Reading `then`
 * may throw (a hostile getter): call it where a throw is caught.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Continues after a thenable of unknown origin that `isThenable` found: `onValue`
 * with what it settles to, `onError` with why it failed.
 */
export function whenSettled<U>(
  value: PromiseLike<unknown>,
  onValue: (value: unknown) => MaybePromise<U>,
  onError: (error: unknown) => MaybePromise<U>,
): Promise<U> {
  return toPromise(value).then(onValue, onError);
}
