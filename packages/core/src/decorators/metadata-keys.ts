// Every key under which anytool records something on a class, in one place.

/** Where compilers put decorator metadata when the runtime has no `Symbol.metadata` (esbuild, tsx). */
const FALLBACK_METADATA = Symbol.for('Symbol.metadata');

/**
 * The keys a class's TC39 decorator metadata may sit under: `Symbol.metadata` as it is
 * now (read at each use, never captured or polyfilled, so importing core changes no global
 * and a polyfill loaded later is seen), and the `Symbol.for` key compilers fall back to.
 */
export function metadataKeys(): symbol[] {
  const native = (Symbol as { metadata?: symbol }).metadata;
  return native === undefined || native === FALLBACK_METADATA ? [FALLBACK_METADATA] : [native, FALLBACK_METADATA];
}

/** The list of `ToolRecord`s a class (or, without decorator metadata, a method) declares itself (not inherited ones). */
export const TOOL_RECORDS: unique symbol = Symbol.for('anytool.toolRecords') as never;

/** Method name -> index of its `@Context()` parameter. */
export const CONTEXT_PARAMS: unique symbol = Symbol.for('anytool.contextParams') as never;

/** Written by TypeScript under `emitDecoratorMetadata`, when a `Reflect.metadata` polyfill is loaded. */
export const DESIGN_PARAMTYPES = 'design:paramtypes';
