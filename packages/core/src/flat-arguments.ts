import { isPlainObject } from './is-record.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * Reads the model's JSON text of a call straight into the arguments object, for
 * the commonest parameter schema: an object of strings, numbers, integers and
 * booleans (and strings from an `enum`). Returns the arguments when the text is
 * one such object that the schema accepts, exactly as `JSON.parse` would give
 * it (the same keys in the same order, the same values); otherwise undefined,
 * and the call takes the general path (`JSON.parse`, then the validator), which
 * also writes the error for whatever is wrong. It never answers differently
 * from that path, only faster: one pass over the text instead of a parse and a
 * validation, and no walk over the result.
 */
export type FlatReader = (text: string) => Record<string, unknown> | undefined;

const STRING = 0;
const NUMBER = 1;
const INTEGER = 2;
const BOOLEAN = 3;

interface Field {
  key: string;
  kind: number;
  /** For a string `enum`: the values allowed. */
  allowed: ReadonlySet<string> | undefined;
}

/** Keywords of the object that change nothing this reader checks (annotations), and those it checks. */
const OBJECT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', 'title', '$schema', '$comment', 'examples']);
const FIELD_KEYWORDS = new Set(['type', 'enum', 'description', 'title', '$comment', 'examples']);
const KINDS: Record<string, number> = { string: STRING, number: NUMBER, integer: INTEGER, boolean: BOOLEAN };
/** Past this many properties the reader would need more than one 32-bit mask for the keys seen. */
const MAX_FIELDS = 31;

/**
 * The reader for `schema`, or undefined when the schema has anything the reader
 * does not check itself (nested objects, arrays, bounds, formats, defaults,
 * patterns, composition, `$ref`): such a schema's calls all take the general path.
 * Keys the schema does not list send a call to the general path too, so
 * `additionalProperties`, whatever it says, is left to the validator.
 */
export function compileFlatReader(schema: JsonSchema): FlatReader | undefined {
  if (!onlyKeywords(schema, OBJECT_KEYWORDS) || schema['type'] !== 'object') return undefined;
  const properties = schema['properties'];
  // Every property enumerable: what the validator walks is what is listed here.
  if (!isPlainObject(properties) || Object.keys(properties).length !== Reflect.ownKeys(properties).length) return undefined;
  const fields: Field[] = [];
  for (const key of Object.keys(properties)) {
    const field = fieldOf(key, (properties as Record<string, unknown>)[key]);
    if (field === undefined) return undefined;
    fields.push(field);
  }
  if (fields.length === 0 || fields.length > MAX_FIELDS) return undefined;
  const required = schema['required'] ?? [];
  if (!Array.isArray(required)) return undefined;
  let requiredMask = 0;
  for (const name of required) {
    const index = fields.findIndex((f) => f.key === name);
    if (index < 0) return undefined;
    requiredMask |= 1 << index;
  }
  const general: FlatReader = (text) => read(text, fields, requiredMask);
  return compileInOrder(fields, general) ?? general;
}

/**
 * The reader of the text models write: compact, every property present, in the
 * schema's order (`{"a":1,"b":"x"}`), as straight-line code made for this schema
 * (the keys compared as constants, the object built as one literal, so its shape
 * is the same every call). Any other text goes to `fallback`, which reads the
 * rest. Undefined where the runtime forbids making code (`new Function`, as a
 * strict Content Security Policy does): then the fallback reads every text.
 * Keys are plain (no quote, backslash or control character) and are written
 * into the code as string literals with every non-ASCII character escaped.
 */
function compileInOrder(fields: readonly Field[], fallback: FlatReader): FlatReader | undefined {
  // The code grows with the keys' length: a schema from elsewhere (an MCP server) with huge keys gets the fallback.
  if (fields.reduce((sum, field) => sum + field.key.length, 0) > MAX_GENERATED_KEY_CHARS) return undefined;
  const lines = ['let i = 0, end = 0, c = 0, start = 0, n = 0;'];
  fields.forEach((field, f) => {
    const prefix = `${f === 0 ? '{' : ','}"${field.key}":`;
    const checks: string[] = [];
    for (let k = 0; k < prefix.length; k++) checks.push(`text.charCodeAt(i + ${k}) !== ${prefix.charCodeAt(k)}`);
    lines.push(`if (${checks.join(' || ')}) return fallback(text);`, `i += ${prefix.length};`);
    if (field.kind === STRING) {
      lines.push(
        'if (text.charCodeAt(i) !== 34 || (end = stringEnd(text, i + 1)) < 0) return fallback(text);',
        `const v${f} = text.slice(i + 1, end);`,
        field.allowed === undefined ? '' : `if (!allowed[${f}].has(v${f})) return fallback(text);`,
        'i = end + 1;',
      );
    } else if (field.kind === BOOLEAN) {
      lines.push(
        'c = text.charCodeAt(i);',
        "if (c === 116 ? !text.startsWith('true', i) : c !== 102 || !text.startsWith('false', i)) return fallback(text);",
        `const v${f} = c === 116;`,
        `i += v${f} ? 4 : 5;`,
      );
    } else {
      // Whole numbers of up to 15 digits (exact as a sum) are read here; others by the general number reader.
      lines.push(
        'start = i; c = text.charCodeAt(i); if (c === 45) c = text.charCodeAt(++i); n = 0;',
        'if (c === 48) c = text.charCodeAt(++i);',
        'else if (c >= 49 && c <= 57) do { n = n * 10 + (c - 48); c = text.charCodeAt(++i); } while (c >= 48 && c <= 57);',
        'else return fallback(text);',
        'if (c === 46 || c === 101 || c === 69 || i - start > 15) {',
        '  if ((end = numberEnd(text, start)) < 0) return fallback(text);',
        '  n = numberValue(text, start, end);',
        `  if (!Number.isFinite(n)${field.kind === INTEGER ? ' || n % 1 !== 0' : ''}) return fallback(text);`,
        '  i = end;',
        '} else if (text.charCodeAt(start) === 45) n = -n;',
        `const v${f} = n;`,
      );
    }
  });
  lines.push(
    'if (text.charCodeAt(i) !== 125 || i + 1 !== text.length) return fallback(text);',
    `return { ${fields.map((field, f) => `${keyLiteral(field.key)}: v${f}`).join(', ')} };`,
  );
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code is made from the checked keys above, nothing else
    const make = new Function('fallback', 'stringEnd', 'numberEnd', 'numberValue', 'allowed', `return function readInOrder(text) {\n${lines.join('\n')}\n};`);
    return make(
      fallback,
      stringEnd,
      numberEnd,
      numberValue,
      fields.map((field) => field.allowed),
    ) as FlatReader;
  } catch (error) {
    // A runtime that forbids making code throws an EvalError; anything else would be a bug here, and shows.
    if (error instanceof EvalError) return undefined;
    throw error;
  }
}

/** Past this many characters of keys in all, a schema's reader is not made as code (see `compileInOrder`). */
const MAX_GENERATED_KEY_CHARS = 1024;

/** A plain key as an ASCII string literal of code. */
function keyLiteral(key: string): string {
  return JSON.stringify(key).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Whether `schema` is a plain object whose own keys, enumerable or not, are all
 * among `allowed`: the validator reads keywords by name, so a hidden one would be
 * checked there and not here.
 */
function onlyKeywords(schema: unknown, allowed: ReadonlySet<string>): schema is Record<string, unknown> {
  if (!isPlainObject(schema)) return false;
  for (const key of Reflect.ownKeys(schema)) if (typeof key !== 'string' || !allowed.has(key)) return false;
  return true;
}

function fieldOf(key: string, schema: unknown): Field | undefined {
  // `__proto__` would be a prototype change when assigned (checked by name: a runtime started with
  // --disable-proto=delete has no such member); a key with an escape in the text never matches a plain one.
  // A name `Object.prototype` has (`constructor`, `toString`): the validator sees the inherited value when it is absent.
  if (key === '' || key === '__proto__' || key in Object.prototype || !plain(key)) return undefined;
  if (!onlyKeywords(schema, FIELD_KEYWORDS)) return undefined;
  const s = schema;
  const type = s['type'];
  const kind = typeof type === 'string' && Object.hasOwn(KINDS, type) ? KINDS[type]! : undefined;
  if (kind === undefined) return undefined;
  if (s['enum'] === undefined) return { key, kind, allowed: undefined };
  if (kind !== STRING || !Array.isArray(s['enum']) || !s['enum'].every((v) => typeof v === 'string')) return undefined;
  return { key, kind, allowed: new Set(s['enum'] as string[]) };
}

/** Whether `s` has no quote, backslash or control character: JSON writes it as it is. */
function plain(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 32 || c === 34 || c === 92) return false;
  }
  return true;
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/**
 * The end of the string whose opening quote is at `i - 1`: the index of its closing
 * quote, or -1 for a string this reader leaves to `JSON.parse` (an escape, a control
 * character JSON forbids unescaped, no closing quote).
 */
function stringEnd(text: string, i: number): number {
  const end = text.indexOf('"', i);
  if (end < 0) return -1;
  for (let k = i; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 32 || c === 92) return -1;
  }
  return end;
}

/** The end of the JSON number at `i` (strict grammar), or -1. */
function numberEnd(text: string, i: number): number {
  let c = text.charCodeAt(i);
  if (c === 45) c = text.charCodeAt(++i);
  if (c === 48) c = text.charCodeAt(++i);
  else if (c >= 49 && c <= 57) {
    do c = text.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  } else return -1;
  if (c === 46) {
    c = text.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    do c = text.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  if (c === 101 || c === 69) {
    c = text.charCodeAt(++i);
    if (c === 43 || c === 45) c = text.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    do c = text.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  return i;
}

/** The value of the JSON number text from `start` to `end`: digits alone are summed, anything else is `Number`'s reading. */
function numberValue(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === 45;
  const from = negative ? start + 1 : start;
  // Up to 15 digits the sum is exact; a fraction or exponent goes through the same conversion JSON.parse uses.
  if (end - from > 15) return Number(text.slice(start, end));
  let value = 0;
  for (let k = from; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) return Number(text.slice(start, end));
    value = value * 10 + (c - 48);
  }
  return negative ? -value : value;
}

/** Skips whitespace at `i` if there is any: the model's compact text has none, and pays one comparison. */
function space(text: string, i: number): number {
  return text.charCodeAt(i) > 32 ? i : skipSpace(text, i);
}

function read(text: string, fields: readonly Field[], requiredMask: number): Record<string, unknown> | undefined {
  let i = space(text, 0);
  if (text.charCodeAt(i) !== 123) return undefined;
  i = space(text, i + 1);
  const out: Record<string, unknown> = {};
  let seen = 0;
  if (text.charCodeAt(i) === 125) return finish(text, i + 1, out, seen, requiredMask);
  for (;;) {
    if (text.charCodeAt(i) !== 34) return undefined;
    // A listed key has no quote, backslash or control character: text that matches one up to a quote is that key.
    let index = -1;
    for (let f = 0; f < fields.length; f++) {
      const key = fields[f]!.key;
      const length = key.length;
      if (text.charCodeAt(i + 1 + length) !== 34) continue;
      let k = 0;
      while (k < length && key.charCodeAt(k) === text.charCodeAt(i + 1 + k)) k++;
      if (k === length) {
        index = f;
        break;
      }
    }
    // A key the schema does not list, or a key given twice: the general path.
    if (index < 0 || (seen & (1 << index)) !== 0) return undefined;
    seen |= 1 << index;
    const field = fields[index]!;
    i = space(text, i + field.key.length + 2);
    if (text.charCodeAt(i) !== 58) return undefined;
    i = space(text, i + 1);
    const c = text.charCodeAt(i);
    if (field.kind === STRING) {
      if (c !== 34) return undefined;
      const end = stringEnd(text, i + 1);
      if (end < 0) return undefined;
      const s = text.slice(i + 1, end);
      if (field.allowed !== undefined && !field.allowed.has(s)) return undefined;
      out[field.key] = s;
      i = end + 1;
    } else if (field.kind === BOOLEAN) {
      if (c === 116 && text.startsWith('true', i)) {
        out[field.key] = true;
        i += 4;
      } else if (c === 102 && text.startsWith('false', i)) {
        out[field.key] = false;
        i += 5;
      } else return undefined;
    } else {
      const end = numberEnd(text, i);
      if (end < 0) return undefined;
      const n = numberValue(text, i, end);
      // JSON numbers past the double range read as Infinity, which the general path refuses with its message.
      if (!Number.isFinite(n) || (field.kind === INTEGER && n % 1 !== 0)) return undefined;
      out[field.key] = n;
      i = end;
    }
    i = space(text, i);
    const next = text.charCodeAt(i);
    if (next === 44) {
      i = space(text, i + 1);
      continue;
    }
    if (next === 125) return finish(text, i + 1, out, seen, requiredMask);
    return undefined;
  }
}

function finish(text: string, i: number, out: Record<string, unknown>, seen: number, requiredMask: number): Record<string, unknown> | undefined {
  // Reading past the end gives NaN, which costs optimised code a deoptimisation: the common case does not.
  if (i !== text.length && skipSpace(text, i) !== text.length) return undefined;
  return (seen & requiredMask) === requiredMask ? out : undefined;
}
