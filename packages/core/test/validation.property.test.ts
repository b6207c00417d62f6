// Property-based: for several schemas, arguments that fail the schema never reach the tool,
// and arguments that satisfy it always do (unchanged).
import fc from 'fast-check';
import Ajv from 'ajv';
import { ErrorCode, Toolset, tool, type JsonSchema } from '@anytool/core';

interface Case {
  name: string;
  schema: JsonSchema;
  valid: fc.Arbitrary<Record<string, unknown>>;
}

const cases: Case[] = [
  {
    name: 'point',
    schema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false },
    valid: fc.record({ x: fc.double({ noNaN: true, noDefaultInfinity: true }), y: fc.integer() }),
  },
  {
    name: 'user',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 20 },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        role: { enum: ['admin', 'user'] },
      },
      required: ['name', 'role'],
    },
    valid: fc.record(
      { name: fc.string({ minLength: 1, maxLength: 20 }), age: fc.integer({ min: 0, max: 150 }), role: fc.constantFrom('admin', 'user') },
      { requiredKeys: ['name', 'role'] },
    ),
  },
  {
    name: 'batch',
    schema: {
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'string', pattern: '^[a-z]{3}$' }, minItems: 1, maxItems: 5 }, dryRun: { type: 'boolean' } },
      required: ['ids'],
    },
    valid: fc.record({ ids: fc.array(fc.stringMatching(/^[a-z]{3}$/), { minLength: 1, maxLength: 5 }), dryRun: fc.boolean() }, { requiredKeys: ['ids'] }),
  },
];

// Anything at all: JSON-ish values of every shape, including near misses of the valid ones.
const anyArgs = fc.oneof(
  fc.dictionary(fc.constantFrom('x', 'y', 'name', 'age', 'role', 'ids', 'dryRun', 'other'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
  fc.jsonValue({ maxDepth: 2 }),
);

describe.each(cases)('schema "$name"', ({ name, schema, valid }) => {
  const oracle = new Ajv({ strict: false }).compile(schema);
  const received: unknown[] = [];
  const toolset = new Toolset(tool((args: unknown) => void received.push(args), { name, description: 'Records what it receives.', parameters: schema }));

  it('valid arguments always reach the tool, unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(valid, async (args) => {
        received.length = 0;
        const snapshot = structuredClone(args);
        const result = await toolset.invoke(name, args);
        expect(result.isError).toBe(false);
        expect(received).toEqual([snapshot]);
      }),
      { numRuns: 200 },
    );
  });

  it('invalid arguments never reach the tool', async () => {
    await fc.assert(
      fc.asyncProperty(anyArgs, async (args) => {
        received.length = 0;
        const isObject = typeof args === 'object' && args !== null && !Array.isArray(args);
        const shouldPass = (isObject || args === null) && oracle(args ?? {});
        const result = await toolset.invoke(name, args);
        if (shouldPass) {
          expect(received).toHaveLength(1);
        } else {
          expect(received).toHaveLength(0);
          expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
        }
      }),
      { numRuns: 300 },
    );
  });
});
