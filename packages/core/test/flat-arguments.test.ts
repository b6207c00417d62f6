// The one-pass reader of flat arguments against the general path it stands in for: whatever text it
// accepts, JSON.parse gives the same object (the same keys in the same order, the same values) and the
// schema's validator accepts it; the model's plain text of valid arguments takes it; anything else is left
// to JSON.parse and the validator.
import fc from 'fast-check';
import { Toolset, tool, type JsonSchema } from '@anytool/core';
import { compileFlatReader } from '../src/flat-arguments.js';
import { compileValidator } from '../src/validation.js';

const FIELDS = {
  a: { type: 'number', description: 'A number.' },
  b: { type: 'integer' },
  s: { type: 'string', title: 'S' },
  f: { type: 'boolean' },
  e: { type: 'string', enum: ['x', 'y', 'é'] },
} as const;

const schemas: Array<[string, JsonSchema]> = [
  ['closed, two required', { type: 'object', properties: FIELDS, required: ['a', 's'], additionalProperties: false }],
  ['open, 2020-12, none required', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: FIELDS }],
];

const space = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ', '\u00a0', '\v');
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.constantFrom(
    '-0',
    '0',
    '01',
    '+1',
    '1.',
    '.5',
    '1e',
    '1E+2',
    '2e-3',
    '1e400',
    '-1e400',
    '1.5e308',
    '00',
    '-',
    '1.0',
    '4.0e1',
    '9007199254740993',
    '123456789012345',
  ),
);
const stringText = fc.oneof(
  fc.string().map((s) => JSON.stringify(s)),
  fc.string({ unit: 'binary' }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"x"', '"y"', '"é"', '"\\u0078"', '"a\u0001b"', '"tab\there"', '"unterminated', '"\ud800"', '"\u2028"'),
);
const valueText = fc.oneof(numberText, stringText, fc.constantFrom('true', 'false', 'null', 'tru', 'falsey', '{}', '[]', '[1]', '{"a":1}'));
const keyText = fc.constantFrom('"a"', '"b"', '"s"', '"f"', '"e"', '"other"', '"\\u0061"', '"__proto__"', '"a "', 'a', '""');
const booleanText = fc.constantFrom('true', 'false');
const enumText = fc.constantFrom('"x"', '"y"', '"é"', '"z"', '"X"');
/** Mostly a listed key with a value of its kind (so whole texts are often valid), sometimes anything. */
const pair = fc
  .oneof(
    { weight: 1, arbitrary: fc.tuple(keyText, valueText) },
    { weight: 2, arbitrary: fc.tuple(fc.constant('"a"'), numberText) },
    { weight: 2, arbitrary: fc.tuple(fc.constant('"b"'), numberText) },
    { weight: 2, arbitrary: fc.tuple(fc.constant('"s"'), stringText) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('"f"'), booleanText) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('"e"'), enumText) },
  )
  .chain(([key, value]) => fc.tuple(space, space).map(([s1, s2]) => `${key}${s1}:${s2}${value}`));
const objectText = fc
  .tuple(
    space,
    fc.option(fc.tuple(numberText, stringText), { freq: 2 }),
    fc.array(fc.tuple(pair, space, space), { maxLength: 5 }),
    space,
    fc.constantFrom('', '', '', ',', 'x', '}', ' 1'),
    fc.boolean(),
  )
  .map(([lead, required, pairs, tail, garbage, trailingComma]) => {
    // Often the two required keys first, so that many texts are whole valid calls.
    const all = required === null ? pairs : [[`"s":${required[1]}`, '', ''] as const, ...pairs, [`"a": ${required[0]}`, ' ', ''] as const];
    const body = all.map(([p, s1, s2]) => `${s1}${p}${s2}`).join(',');
    return `${lead}{${body}${trailingComma && all.length > 0 ? ',' : ''}}${tail}${garbage}`;
  });

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The same own keys in the same order, each value the same (Object.is: -0 is not 0). */
function sameObject(read: Record<string, unknown>, parsed: unknown): boolean {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const keys = Object.keys(read);
  const parsedKeys = Object.keys(parsed);
  return keys.length === parsedKeys.length && keys.every((k, i) => k === parsedKeys[i] && Object.is(read[k], (parsed as Record<string, unknown>)[k]));
}

describe.each(schemas)('compileFlatReader, schema %s', (_name, schema) => {
  const reader = compileFlatReader(schema)!;
  const validate = compileValidator(schema, 'test');

  it('accepts only what JSON.parse reads to the same object and the validator accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(objectText, (text) => {
        const read = reader(text);
        if (read === undefined) return true;
        accepted++;
        const parsed = parseOrUndefined(text);
        return parsed !== undefined && sameObject(read, parsed) && validate(parsed);
      }),
      { numRuns: 20_000 },
    );
    // The property is about the texts it takes: it must take some of these (near misses and all).
    expect(accepted).toBeGreaterThan(100);
  });

  it("reads the model's plain text of valid arguments (compact or spaced) in one pass", () => {
    const plain = fc.string().filter((text) => [...text].every((ch) => ch >= ' ' && ch !== '"' && ch !== '\\'));
    const valid = fc.record(
      {
        a: fc.double({ noNaN: true, noDefaultInfinity: true }),
        b: fc.integer(),
        s: plain,
        f: fc.boolean(),
        e: fc.constantFrom('x', 'y', 'é'),
      },
      { requiredKeys: ['a', 's'] },
    );
    fc.assert(
      fc.property(valid, fc.boolean(), (args, spaced) => {
        const text = JSON.stringify(args, null, spaced ? 1 : undefined);
        const read = reader(text);
        return read !== undefined && sameObject(read, JSON.parse(text));
      }),
      { numRuns: 5_000 },
    );
  });
});

describe("compileFlatReader: the model's usual text (compact, in the schema's order, every property)", () => {
  // Keys a code generator could get wrong: non-ASCII, a line separator, spaces, digits first, `$`.
  const keys = ['n', 'é', 'a\u2028b', 'with space', '1st', '$i', 'ok', 'tag'] as const;
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      n: { type: 'number' },
      é: { type: 'integer' },
      'a\u2028b': { type: 'string' },
      'with space': { type: 'boolean' },
      '1st': { type: 'string', enum: ['x', 'y', 'é'] },
      $i: { type: 'integer' },
      ok: { type: 'boolean' },
      tag: { type: 'string' },
    },
    required: ['n'],
    additionalProperties: false,
  };
  const reader = compileFlatReader(schema)!;
  const validate = compileValidator(schema, 'test');
  const valid = fc.tuple(
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 0, 1e21, 123456789012345, 1234567890123456)),
    fc.oneof(fc.integer(), fc.constantFrom(-0, 2 ** 53, 1e20)),
    fc.string(),
    fc.boolean(),
    fc.constantFrom('x', 'y', 'é'),
    fc.integer({ min: -1000, max: 1000 }),
    fc.boolean(),
    fc.string({ unit: 'binary' }),
  );
  const text = (values: readonly unknown[]): string => JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, values[i]])));

  it('is read by code made for the schema, the same as JSON.parse', () => {
    expect(reader.name).toBe('readInOrder');
    fc.assert(
      fc.property(valid, (values) => {
        const t = text(values);
        const read = reader(t);
        const parsed: unknown = JSON.parse(t);
        // A string JSON writes with an escape is left to JSON.parse; everything else valid is read here.
        if (read === undefined) return !validate(parsed) || t.includes('\\');
        return sameObject(read, parsed) && validate(parsed);
      }),
      { numRuns: 5_000 },
    );
  });

  it('never reads a near miss of it differently from JSON.parse and the validator', () => {
    const alphabet = fc.constantFrom('{', '}', '"', ':', ',', ' ', '\\', '-', '+', '.', 'e', '0', '1', '9', 't', 'f', 'n', 'x', 'é', '\u0001', '\ud800');
    const edit = fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), alphabet);
    let accepted = 0;
    fc.assert(
      fc.property(valid, fc.array(edit, { minLength: 1, maxLength: 3 }), (values, edits) => {
        let t = text(values);
        for (const [at, how, ch] of edits) {
          const i = at % (t.length + 1);
          t = how === 'insert' ? t.slice(0, i) + ch + t.slice(i) : t.slice(0, i) + (how === 'replace' ? ch : '') + t.slice(i + 1);
        }
        const read = reader(t);
        if (read === undefined) return true;
        accepted++;
        const parsed = parseOrUndefined(t);
        return parsed !== undefined && sameObject(read, parsed) && validate(parsed);
      }),
      { numRuns: 20_000 },
    );
    // Edits inside a string value keep the text valid: the property must be about texts it took.
    expect(accepted).toBeGreaterThan(100);
  });

  it('is read by the general reader when the keys are too long to make code of', () => {
    const long = 'k'.repeat(1100);
    const reader = compileFlatReader({ type: 'object', properties: { [long]: { type: 'number' } } })!;
    expect(reader.name).not.toBe('readInOrder');
    expect(reader(`{"${long}":1}`)).toEqual({ [long]: 1 });
  });

  it('is read by the general reader where the runtime forbids making code', () => {
    const original = globalThis.Function;
    globalThis.Function = function forbidden() {
      throw new EvalError('Code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    let fallback: ReturnType<typeof compileFlatReader>;
    try {
      fallback = compileFlatReader(schema);
    } finally {
      globalThis.Function = original;
    }
    expect(fallback).toBeInstanceOf(original);
    expect(fallback!.name).not.toBe('readInOrder');
    const t = text([1.5, 2, 's', true, 'é', -3, false, 'tag']);
    expect(sameObject(fallback!(t)!, JSON.parse(t))).toBe(true);
  });
});

describe('compileFlatReader: which schemas it reads', () => {
  const flat = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'object', properties, ...extra });

  it.each<[string, JsonSchema]>([
    ['a bound', flat({ n: { type: 'number', minimum: 0 } })],
    ['a format', flat({ d: { type: 'string', format: 'date' } })],
    ['a default', flat({ n: { type: 'number', default: 1 } })],
    ['a nested object', flat({ o: { type: 'object', properties: {} } })],
    ['an array', flat({ l: { type: 'array', items: { type: 'string' } } })],
    ['a $ref', flat({ r: { $ref: '#/$defs/r' } }, { $defs: { r: { type: 'string' } } })],
    ['patternProperties', flat({ n: { type: 'number' } }, { patternProperties: { '^x': { type: 'string' } } })],
    ['a nullable type list', flat({ n: { type: ['number', 'null'] } })],
    ['a number enum', flat({ n: { type: 'number', enum: [1, 2] } })],
    // An own `__proto__` key, as a schema parsed from JSON has it (in an object literal it would set the prototype).
    ['a __proto__ property', flat(JSON.parse('{"__proto__":{"type":"string"},"a":{"type":"number"}}') as Record<string, unknown>)],
    ['a key that JSON escapes', flat({ 'a"b': { type: 'string' } })],
    ['a required key it does not list', flat({ n: { type: 'number' } }, { required: ['m'] })],
    ['no properties', flat({})],
    ['a property named as an Object.prototype member', flat({ constructor: { type: 'string' }, a: { type: 'number' } })],
    ['a keyword that is not enumerable', flat({ city: Object.defineProperty({ type: 'string' }, 'maxLength', { value: 3 }) as JsonSchema })],
    ['a keyword it inherits', flat({ city: Object.assign(Object.create({ minLength: 5 }) as object, { type: 'string' }) as JsonSchema })],
    ['an inherited root keyword', Object.assign(Object.create({ minProperties: 2 }) as object, flat({ a: { type: 'number' } })) as JsonSchema],
    // An array made to look plain (no prototype): not an object of properties.
    ['properties that are an array', flat(Object.setPrototypeOf([{ type: 'number' }], null) as Record<string, unknown>)],
  ])('leaves a schema with %s to the general path', (_what, schema) => {
    expect(compileFlatReader(schema)).toBeUndefined();
  });

  it('reads strings, numbers, integers, booleans and string enums, with annotations', () => {
    expect(compileFlatReader(schemas[0]![1])).toBeInstanceOf(Function);
  });
});

describe('a tool with a flat schema, called with JSON text', () => {
  const received: unknown[] = [];
  const record = tool((args: object) => void received.push(args), {
    name: 'record',
    description: 'Records its arguments.',
    parameters: { type: 'object', properties: { a: { type: 'number' }, s: { type: 'string' } }, required: ['a'], additionalProperties: false },
  });
  const toolset = new Toolset(record);

  it('gets the arguments JSON.parse would give, from either path', async () => {
    for (const text of ['{"a":1,"s":"x"}', ' { "s" : "x" , "a" : -0 } ', '{"a":1,"a":2}', '{"a":1e2,"s":"\\u0078"}']) {
      received.length = 0;
      const result = await toolset.invoke('record', text);
      expect(result.isError).toBe(false);
      expect(received).toEqual([JSON.parse(text)]);
      expect(Object.is((received[0] as { a: number }).a, (JSON.parse(text) as { a: number }).a)).toBe(true);
    }
  });

  it('reads its text in one pass, its optional property included', () => {
    record.compile();
    expect(typeof (record as unknown as { validation?: { readFlat?: unknown } }).validation?.readFlat).toBe('function');
  });

  it('still drops a null the model sends for an optional property (strict mode), through the general path', async () => {
    received.length = 0;
    expect((await toolset.invoke('record', '{"a":1,"s":null}')).isError).toBe(false);
    expect(received).toEqual([{ a: 1 }]);
  });

  it("refuses what the schema refuses, with the validator's message", async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"s":"x"}', /\/a: is required/],
      ['{"a":"1"}', /\/a: must be number/],
      ['{"a":1,"other":2}', /\/other: is not an allowed property/],
      ['{"a":1e400}', /\/a: must be a finite number/],
      ['{"a":1,}', /not valid JSON/],
    ];
    for (const [text, message] of cases) {
      const result = await toolset.invoke('record', text);
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(message);
    }
  });
});
