// What validating arguments against a server's schema may cost: the classifier sends every schema whose
// validation is not linear in the arguments off the event loop, and leaves ordinary ones (recursive
// types included) inline. Random schemas of combinators, $refs and uniqueItems with random arguments:
// each validation settles within a bound, and the event loop is never held over 100 ms.
import { compileValidator } from '@anytool/core/internal';
import fc from 'fast-check';
import { costlyFeature } from '../../src/client/schema-cost';
import { OffloadedValidation } from '../../src/client/offloaded-validation';
import { linearPatterns } from '../../src/shared/linear-patterns';
import { probeEventLoop } from '../../../core/test/helpers/event-loop-probe';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(300_000));

// A loop held by validation shows as a gap of seconds; on a loaded shared machine the process alone
// may be descheduled for a tenth of a second, so the bound takes the tests' time scale.
const GAP_BOUND_MS = scaled(100);
const DEADLINE_MS = 100;
/** The deadline plus a worker started again after one was stopped, and the schema compiled there. */
const SETTLE_BOUND_MS = scaled(10_000);

type Schema = Record<string, unknown>;
const ref = (i: number): Schema => ({ $ref: `#/$defs/n${i}` });

describe('costlyFeature', () => {
  const legitimate: Array<[string, Schema]> = [
    ['an object of strings', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer', enum: [1, 2, 3] } } }],
    [
      'a JSON value type (branches differ by type)',
      {
        type: 'object',
        properties: { v: ref(0) },
        $defs: {
          n0: {
            anyOf: [
              { type: 'string' },
              { type: 'number' },
              { type: 'null' },
              { type: 'array', items: ref(0) },
              { type: 'object', additionalProperties: ref(0) },
            ],
          },
        },
      },
    ],
    [
      'optional fields of shared definitions (as pydantic writes them)',
      {
        type: 'object',
        properties: { a: { anyOf: [ref(0), { type: 'null' }] }, b: { type: 'array', items: ref(0) } },
        $defs: {
          n0: { type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null }, y: { anyOf: [ref(1), { type: 'null' }] } } },
          n1: { enum: ['a', 'b'] },
        },
      },
    ],
    ['uniqueItems over strings', { type: 'object', properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } } }],
    [
      'a tree of children',
      { type: 'object', properties: { root: ref(0) }, $defs: { n0: { type: 'object', properties: { children: { type: 'array', items: ref(0) } } } } },
    ],
  ];
  it.each(legitimate)('%s is validated inline', (_name, schema) => {
    expect(costlyFeature(schema)).toBeUndefined();
  });

  const dag = (key: string): Schema => {
    const $defs: Schema = {};
    for (let i = 0; i < 12; i++) $defs[`n${i}`] = i === 11 ? { type: 'string' } : { [key]: [ref(i + 1), ref(i + 1)] };
    return { type: 'object', properties: { x: ref(0) }, $defs };
  };
  const recursive = (node: Schema): Schema => ({ type: 'object', properties: { x: ref(0) }, $defs: { n0: node } });
  const costly: Array<[string, Schema, string]> = [
    ['uniqueItems over objects', { type: 'object', properties: { r: { type: 'array', uniqueItems: true, items: { type: 'object' } } } }, '"uniqueItems"'],
    ['uniqueItems over items of no type', { type: 'object', properties: { r: { type: 'array', uniqueItems: true } } }, '"uniqueItems"'],
    ['an anyOf DAG', dag('anyOf'), 'combinators'],
    ['a oneOf DAG', dag('oneOf'), 'combinators'],
    ['an allOf DAG', dag('allOf'), 'combinators'],
    [
      'not and if/then/else over a recursive type',
      recursive({ type: 'array', items: ref(0), not: { items: ref(0) }, if: { items: ref(0) }, then: {}, else: {} }),
      'combinators',
    ],
    ['contains and items of one recursive type', recursive({ type: 'array', items: ref(0), contains: ref(0) }), 'combinators'],
    [
      'dependentSchemas over a recursive type',
      recursive({ type: 'object', properties: { a: ref(0) }, dependentSchemas: { a: { properties: { a: ref(0) } } } }),
      'combinators',
    ],
    [
      'unevaluatedProperties next to properties',
      recursive({ type: 'object', properties: { a: ref(0) }, patternProperties: { '^a': ref(0) }, unevaluatedProperties: ref(0) }),
      'combinators',
    ],
    ['an anyOf of 100 branches', { type: 'object', properties: { x: { anyOf: Array.from({ length: 100 }, (_, i) => ({ const: i })) } } }, 'combinators'],
    ['a $ref by anchor', { type: 'object', properties: { x: { $ref: '#node' } }, $defs: { n: { $anchor: 'node' } } }, '"$ref" to "#node"'],
  ];
  it.each(costly)('%s is costly', (_name, schema, says) => {
    expect(costlyFeature(schema)).toContain(says);
  });
});

/** A random schema of up to 8 definitions, each a combinator, an applicator or a leaf over $refs to any definition. */
const schemas: fc.Arbitrary<Schema> = fc.integer({ min: 1, max: 8 }).chain((size) => {
  const target = fc.integer({ min: 0, max: size - 1 }).map(ref);
  const refs = fc.array(target, { minLength: 1, maxLength: 3 });
  const node: fc.Arbitrary<Schema> = fc.oneof(
    fc.constantFrom<Schema>({ type: 'string' }, { type: 'number' }, { type: 'array' }, { type: 'object' }, { enum: [1, 'a', null] }),
    refs.map((r) => ({ anyOf: r })),
    refs.map((r) => ({ oneOf: r })),
    refs.map((r) => ({ allOf: r })),
    target.map((r) => ({ not: r })),
    fc.tuple(target, target, target).map(([i, t, e]) => ({ if: i, then: t, else: e })),
    target.map((r) => ({ type: 'array', items: r })),
    fc.tuple(target, target).map(([i, c]) => ({ type: 'array', items: i, contains: c })),
    fc.tuple(target, fc.boolean()).map(([i, objects]) => ({ type: 'array', uniqueItems: true, items: objects ? i : { type: 'string' } })),
    fc.tuple(target, target).map(([p, q]) => ({ type: 'object', properties: { a: p }, patternProperties: { '^a': q } })),
    fc
      .tuple(target, target)
      .map(([p, d]) => ({ type: 'object', properties: { a: p }, dependentSchemas: { a: { properties: { b: d } } }, unevaluatedProperties: d })),
  );
  return fc.array(node, { minLength: size, maxLength: size }).map((nodes) => ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { x: ref(0), mode: { type: 'string', default: 'fast' } },
    $defs: Object.fromEntries(nodes.map((n, i) => [`n${i}`, n])),
  }));
});

/** Values that fail deep (nested arrays or objects, 4,096 leaves at most, with a number at the bottom), long arrays of objects, or any JSON. */
const values: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map((depth) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value, value];
    return value;
  }),
  fc.integer({ min: 1, max: 12 }).map((depth) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = { a: value, b: value };
    return value;
  }),
  fc.integer({ min: 1, max: 30 }).map((depth) => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  }),
  fc.integer({ min: 0, max: 4_000 }).map((length) => Array.from({ length }, (_, i) => ({ i }))),
  fc.jsonValue({ maxDepth: 6 }),
);

it(`random schemas of combinators, $refs and uniqueItems: every validation settles within ${SETTLE_BOUND_MS} ms, the loop never held over ${GAP_BOUND_MS} ms`, async () => {
  let offloaded = 0;
  let inline = 0;
  await fc.assert(
    fc.asyncProperty(schemas, values, async (schema, x) => {
      // Shared subtrees of a value are a tree again once it is sent as JSON.
      const args = JSON.parse(JSON.stringify({ x })) as Record<string, unknown>;
      let validate;
      try {
        validate = compileValidator(schema, 'tool "random"', linearPatterns);
      } catch {
        // A schema ajv refuses (a $ref cycle with nothing between) is left out at listing.
        return;
      }
      const feature = costlyFeature(schema);
      const started = performance.now();
      const { value: outcome, gaps } = await probeEventLoop(async () => {
        if (feature === undefined) return validate(args);
        return new OffloadedValidation(schema).check(args, DEADLINE_MS);
      });
      if (feature === undefined) inline++;
      else offloaded++;
      expect(performance.now() - started).toBeLessThan(SETTLE_BOUND_MS);
      expect(gaps.blockedMs).toBeLessThan(GAP_BOUND_MS);
      if (typeof outcome === 'object' && 'args' in outcome) expect(outcome.args['mode']).toBe('fast');
    }),
    { numRuns: 100 },
  );
  // Both ways were taken.
  expect(inline).toBeGreaterThan(0);
  expect(offloaded).toBeGreaterThan(0);
});
