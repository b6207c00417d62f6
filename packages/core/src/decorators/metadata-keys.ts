// Every key under which anytool records something on a class, in one place.

/** The polyfilled or native `Symbol.metadata` (TC39 decorator metadata). */
export const METADATA: symbol = ((Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata'));

/** The list of `ToolRecord`s a class declares itself (not inherited ones). */
export const TOOL_RECORDS: unique symbol = Symbol.for('anytool.toolRecords') as never;

/** Method name -> index of its `@Context()` parameter. */
export const CONTEXT_PARAMS: unique symbol = Symbol.for('anytool.contextParams') as never;

/** Written by TypeScript under `emitDecoratorMetadata`. */
export const DESIGN_PARAMTYPES = 'design:paramtypes';
