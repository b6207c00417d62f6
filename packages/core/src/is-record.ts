/**
 * Whether a value is an object with string keys: not null, not an array (a JSON object,
 * a schema node, a bag of options). Says nothing of its prototype; `isPlainObject` does.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a value is a record made as a literal (its prototype is `Object.prototype`) or with no prototype at all: no class instance, nothing inherited. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
