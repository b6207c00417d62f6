// Which tool schemas are compiled at listing and which on first use (tool-check.ts): a schema is left for later only
// when nothing can keep it from compiling, so a tool whose schema does not compile is still left out at listing.
import { compileValidator, schemaProblems } from '@anytool/core/internal';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { checkSchemas, compileChecked, compilesSurely } from '../../src/client/tool-check';
import { linearPatterns } from '../../src/shared/linear-patterns';

const tool = (name: string, inputSchema: Record<string, unknown>): McpToolInfo => ({ name, inputSchema }) as McpToolInfo;

describe('compilesSurely', () => {
  it('holds for schemas of the keywords ajv compiles from any valid value, property names included', () => {
    expect(compilesSurely({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] })).toBe(true);
    expect(
      compilesSurely({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        // Names of properties are not keywords: "id", "pattern", "$ref" here are arguments.
        properties: { id: { type: 'integer', minimum: 1 }, pattern: { type: 'string' }, $ref: { type: 'string' } },
        additionalProperties: false,
        'x-mcp-header': 'id',
      }),
    ).toBe(true);
    expect(compilesSurely({ type: 'object', properties: { tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true } } })).toBe(true);
    expect(compilesSurely({ anyOf: [{ type: 'string' }, { not: { const: 3 } }, true] })).toBe(true);
  });

  it.each([
    ['$ref', { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } }],
    ['pattern', { type: 'object', properties: { a: { type: 'string', pattern: '^a+$' } } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x': { type: 'string' } } }],
    ['format', { type: 'object', properties: { a: { type: 'string', format: 'uri' } } }],
    ['the draft-04 id keyword', { type: 'object', properties: { a: { id: 'a', type: 'string' } } }],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }],
    ['$id', { $id: 'https://example.com/s', type: 'object' }],
    ['a keyword of no known dialect', { type: 'object', nullable: true }],
    ['$schema below the root', { type: 'object', properties: { a: { $schema: 'http://json-schema.org/draft-07/schema#' } } }],
  ])('does not hold for a schema with %s', (_, schema) => {
    expect(compilesSurely(schema)).toBe(false);
  });

  it('does not hold past 100 levels of subschemas', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { a: deep } };
    expect(compilesSurely(deep)).toBe(false);
    expect(compilesSurely((deep['properties'] as { a: unknown }).a)).toBe(true);
  });

  // Keywords, each with values of the right type and of any type: the meta-schema refuses the wrong ones.
  const anyJson = fc.jsonValue({ maxDepth: 2 });
  const schema: fc.Arbitrary<unknown> = fc.letrec<{ schema: unknown }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.boolean(),
      fc.dictionary(
        fc.constantFrom(
          'type',
          'enum',
          'const',
          'default',
          'required',
          'minimum',
          'multipleOf',
          'maxLength',
          'uniqueItems',
          'properties',
          'additionalProperties',
          'items',
          'anyOf',
          'oneOf',
          'allOf',
          'not',
          'pattern',
          'format',
          '$ref',
          'id',
          'x-note',
        ),
        fc.oneof(
          tie('schema'),
          fc.array(tie('schema'), { maxLength: 3 }),
          fc.dictionary(fc.constantFrom('a', 'b', 'id', 'pattern'), tie('schema'), { maxKeys: 2 }),
          { arbitrary: fc.constantFrom('string', 'object', 'array', 'integer', 'nope', '#/nowhere', '(', '(a)\\1', 'uri'), weight: 4 },
          fc.array(fc.constantFrom('a', 'b', 1), { maxLength: 3 }),
          anyJson,
        ),
        { maxKeys: 4 },
      ),
    ),
  })).schema;

  it('is never wrong: every schema it holds for that passes its meta-schema compiles', () => {
    let sure = 0;
    fc.assert(
      fc.property(schema, (candidate) => {
        if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) return;
        // As a server sends it: fast-check's objects may have no prototype, which JSON never gives.
        const json = JSON.parse(JSON.stringify(candidate)) as Record<string, unknown>;
        if (!compilesSurely(json) || schemaProblems(json, 'random') !== undefined) return;
        sure++;
        expect(() => compileValidator(json, 'random', linearPatterns)).not.toThrow();
      }),
      { numRuns: 2_000 },
    );
    // The property was not empty.
    expect(sure).toBeGreaterThan(100);
  });
});

describe('checkSchemas', () => {
  it('checks a sure schema now and compiles it on first use; compiles any other now, and leaves out what fails', async () => {
    const sure = tool('sure', { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    const patterned = tool('patterned', { type: 'object', properties: { s: { type: 'string', pattern: '^a+$' } } });
    const missing = tool('missing', { type: 'object', properties: { a: { $ref: '#/$defs/Nowhere' } } });
    const badType = tool('bad_type', { type: 'object', properties: { a: { type: 'nope' } } });
    const checked = await checkSchemas('s', [sure, patterned, missing, badType], () => false);
    expect(checked.tools).toEqual([sure, patterned]);
    expect(checked.problems).toEqual([
      expect.stringMatching(/^MCP server "s": tool "missing" was left out: .*can't resolve reference #\/\$defs\/Nowhere/),
      expect.stringMatching(/^MCP server "s": tool "bad_type" was left out: its input schema is not valid JSON Schema/),
    ]);
    // The sure one waits for its first use; the other was compiled to be checked.
    expect(checked.validators.has(sure) && checked.validators.get(sure) === undefined).toBe(true);
    expect(checked.validators.get(patterned)?.({ s: 'aaa' })).toBe(true);
    const validate = compileChecked(sure, 's')!;
    expect(validate({ n: 3 })).toBe(true);
    expect(validate({ n: 'three' })).toBe(false);
    expect(validate.problems()).toEqual([{ path: '/n', message: 'must be integer' }]);
  });

  it('does not check again a tool checked before', async () => {
    const before = tool('before', { type: 'object', properties: { a: { $ref: '#/$defs/Nowhere' } } });
    const checked = await checkSchemas('s', [before], (info) => info === before);
    expect(checked).toEqual({ tools: [before], validators: new Map(), problems: [] });
  });
});
