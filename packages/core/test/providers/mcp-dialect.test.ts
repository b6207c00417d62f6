import { toMcpTools, type JsonSchema } from '@anytool/core';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020';
import fc from 'fast-check';

// MCP reads a schema that names no dialect as JSON Schema 2020-12; draft-07 forms go out rewritten.
const tuple: JsonSchema = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 1, additionalItems: { type: 'boolean' } };
const catalogue: Array<[string, JsonSchema]> = [
  ['a closed tuple', { type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }], minItems: 1, maxItems: 1, additionalItems: false } } }],
  ['a tuple with an optional element and a rest', { type: 'object', properties: { t: tuple } }],
  ['a tuple inside anyOf and $defs', { type: 'object', properties: { t: { anyOf: [{ $ref: '#/$defs/T' }, { type: 'null' }] } }, $defs: { T: tuple } }],
  ['root definitions with a $ref', { type: 'object', properties: { t: { $ref: '#/definitions/T' } }, definitions: { T: tuple } }],
  ['dependencies', { type: 'object', properties: { a: {}, b: {} }, dependencies: { a: ['b'], b: { required: ['a'] } } }],
  ['a named draft-07 schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { t: tuple } }],
  ['a property named items and values that look like tuples', { type: 'object', properties: { items: { const: { items: [1] } } }, default: { items: [] } }],
];

describe('MCP definitions in JSON Schema 2020-12', () => {
  const draft2020 = new Ajv2020({ strict: false, allErrors: true });
  const draft07 = new Ajv({ strict: false, allErrors: true });

  it.each(catalogue)('%s: valid 2020-12, and it accepts what the draft-07 original accepts', (_name, parameters) => {
    const { tools, notes } = toMcpTools([{ name: 't', description: 'T.', parameters, outputSchema: parameters }]);
    expect(notes).toEqual([]);
    const lowered = tools[0]!;
    for (const schema of [lowered.inputSchema, lowered.outputSchema!]) {
      expect(draft2020.validateSchema(schema) ? '' : draft2020.errorsText(draft2020.errors)).toBe('');
    }
    const { $schema: _named, ...unnamed } = parameters;
    const original = draft07.compile(unnamed);
    const converted = draft2020.compile(lowered.inputSchema);
    const value = fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null));
    const data = fc.dictionary(fc.constantFrom('t', 'a', 'b', 'items'), fc.oneof(value, fc.array(value, { maxLength: 4 }), fc.dictionary(fc.string(), value)));
    fc.assert(
      fc.property(data, (args) => original(structuredClone(args)) === converted(structuredClone(args))),
      { numRuns: 300 },
    );
  });

  it('leaves a schema with nothing draft-07 reads otherwise as it is (no $schema added)', () => {
    const parameters: JsonSchema = { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } }, required: ['a'] };
    expect(toMcpTools([{ name: 't', description: 'T.', parameters }]).tools[0]!.inputSchema).toEqual(parameters);
  });

  it('leaves a schema that names draft-07 as its author wrote it when nothing in it reads otherwise in 2020-12 (a gateway passes it on)', () => {
    const parameters: JsonSchema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string', enum: ['x'] } } };
    expect(toMcpTools([{ name: 't', description: 'T.', parameters }]).tools[0]!.inputSchema).toEqual(parameters);
  });
});
