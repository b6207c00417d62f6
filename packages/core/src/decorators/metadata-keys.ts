// Every key under which anytool records something on a class, in one place.

/**
 * `Symbol.metadata` (TC39 decorator metadata) as it is now: read at each use, never
 * captured or polyfilled, so importing core changes no global and a polyfill loaded
 * later (or a runtime that ships it) is seen.
 */
export function metadataSymbol(): symbol | undefined {
  return (Symbol as { metadata?: symbol }).metadata;
}

/** The list of `ToolRecord`s a class (or, without decorator metadata, a method) declares itself (not inherited ones). */
export const TOOL_RECORDS: unique symbol = Symbol.for('anytool.toolRecords') as never;

/** Method name -> index of its `@Context()` parameter. */
export const CONTEXT_PARAMS: unique symbol = Symbol.for('anytool.contextParams') as never;

/** Written by TypeScript under `emitDecoratorMetadata`, when a `Reflect.metadata` polyfill is loaded. */
export const DESIGN_PARAMTYPES = 'design:paramtypes';
