// How core recognises its own objects when more than one copy of @anytool/core is loaded
// (two installed versions, or the ES and CommonJS builds side by side). `instanceof` only
// knows one copy's classes; a registered symbol (`Symbol.for`) is the same in every copy.

/** The brand of each class that other packages, or other copies of core, recognise. */
export const BRAND = {
  BaseTool: Symbol.for('anytool.BaseTool'),
  Toolset: Symbol.for('anytool.Toolset'),
  AnytoolError: Symbol.for('anytool.AnytoolError'),
  ExecutionContext: Symbol.for('anytool.ExecutionContext'),
} as const;

/** Marks every instance of `Class` (and of its subclasses) with `brand`, through the prototype. */
export function setBrand(Class: Function, brand: symbol): void {
  Object.defineProperty(Class.prototype, brand, { value: true });
}

/** Whether `value` carries `brand`, whichever copy of core made it. */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * The `instanceof` of a branded class: for the class itself, the brand (so an
 * instance from another copy of core counts); for a subclass, the ordinary
 * prototype-chain check.
 */
export function brandedHasInstance(self: unknown, Class: Function, brand: symbol, value: unknown): boolean {
  return self === Class ? hasBrand(value, brand) : Function.prototype[Symbol.hasInstance].call(self, value);
}
