// Hostile schemas against every provider lowering: each case is data in one table, and every
// lowering must settle (well within a generous bound that only catches hangs), stay small, and
// leave the tool callable with arguments the full schema accepts.
import {
  ErrorCode,
  ExecutionContext,
  Toolset,
  lowerDefinitions,
  resultText,
  tool,
  type DefinitionFormat,
  type GeminiFunctionDeclaration,
  type JsonSchema,
} from '@anytool/core';

const HANG_BOUND_MS = 10_000;
/** The old Gemini lowering took 247 MB for 22 levels and never finished 30. */
const MEMORY_BOUND_BYTES = 200e6;
const OUTPUT_BOUND_BYTES = 2e6;
const FORMATS: DefinitionFormat[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

/** `levels` definitions, each an object whose two properties use the next one: 2^levels values once inlined. */
function refDag(levels: number): JsonSchema {
  const $defs: Record<string, JsonSchema> = {};
  for (let i = 0; i < levels; i++) {
    $defs[`L${i}`] =
      i === levels - 1 ? { type: 'string' } : { type: 'object', properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } } };
  }
  return { type: 'object', properties: { root: { $ref: '#/$defs/L0' } }, required: ['root'], $defs };
}

/** `length` definitions, each an object holding the next one once. */
function refChain(length: number): JsonSchema {
  const $defs: Record<string, JsonSchema> = {};
  for (let i = 0; i < length; i++)
    $defs[`C${i}`] = i === length - 1 ? { type: 'string' } : { type: 'object', properties: { a: { $ref: `#/$defs/C${i + 1}` } } };
  return { type: 'object', properties: { root: { $ref: '#/$defs/C0' } }, required: ['root'], $defs };
}

/** Arguments `{ root: { a: { a: ... leaf } } }` with `depth` objects under root. */
function nestedArgs(depth: number, leaf: unknown = 'leaf'): Record<string, unknown> {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return { root: value };
}

/** The schema with every local `$ref` replaced by its definition, the naive way (only for small schemas). */
function expand(node: unknown, defs: Record<string, JsonSchema>): unknown {
  if (typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) return node.map((n) => expand(n, defs));
  const record = node as Record<string, unknown>;
  if (typeof record['$ref'] === 'string') return expand(defs[record['$ref'].replace('#/$defs/', '')], defs);
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => key !== '$defs')
      .map(([key, value]) => [key, expand(value, defs)]),
  );
}

interface Case {
  name: string;
  schema: JsonSchema;
  /** Arguments the full schema accepts: the tool must still take them. */
  args: Record<string, unknown>;
  /** Whether Gemini gets `$ref`s inlined less deep than in full, with a note. */
  cut: boolean;
  /** A schema the validator cannot compile: `Toolset` refuses the tool with INVALID_SCHEMA saying this. */
  refused?: string;
}

const TOO_DEEP = 'nests too deep, or its $refs chain too deep or into a cycle with no schema between';
const tree: JsonSchema = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/Node' } },
  $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
};

const cycle: JsonSchema = { type: 'object', properties: { x: { $ref: '#/$defs/A' } }, $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } };

const cases: Case[] = [
  { name: '20-level $ref DAG, each definition using the next twice (62 MB in 6.7 s before)', schema: refDag(20), args: nestedArgs(19), cut: true },
  { name: '22-level $ref DAG (247 MB in 26 s before)', schema: refDag(22), args: nestedArgs(21), cut: true },
  { name: '30-level $ref DAG (never finished before)', schema: refDag(30), args: nestedArgs(29), cut: true },
  {
    name: 'a chain of 200 definitions, each holding the next once (inlined deeper than 100 levels)',
    schema: refChain(200),
    args: nestedArgs(40, {}),
    cut: true,
  },
  { name: 'a chain of 2,000 definitions (too deep for the validator)', schema: refChain(2_000), args: {}, cut: true, refused: TOO_DEEP },
  { name: 'a $ref cycle with nothing between (A is B, B is A)', schema: cycle, args: {}, cut: false, refused: TOO_DEEP },
  {
    name: 'a recursive tree type',
    schema: tree,
    args: { root: { label: 'a', children: [{ label: 'b', children: [{ label: 'c', children: [{ label: 'd', children: [] }] }] }] } },
    cut: false,
  },
  { name: 'an 8-level $ref DAG (inlined in full)', schema: refDag(8), args: nestedArgs(7), cut: false },
];

describe('hostile schemas: every lowering is linear in the schema, or bounded', () => {
  it.each(cases)('$name', async ({ schema, args, cut, refused }) => {
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    // Lowered as it is, whether or not a toolset would take it.
    for (const format of FORMATS) {
      const { tools, notes } = lowerDefinitions(format, [{ name: 'hostile', description: 'Takes a hostile schema.', parameters: schema }]);
      expect(JSON.stringify(tools).length).toBeLessThan(OUTPUT_BOUND_BYTES);
      if (format !== 'gemini') continue;
      const lowered = JSON.stringify((tools[0] as GeminiFunctionDeclaration).parametersJsonSchema);
      expect(lowered).not.toContain('$ref');
      const cutNote = notes.find((n) => n.path === '' && /\$refs inlined only \d+ deep/.test(n.detail));
      expect(cutNote !== undefined).toBe(cut);
      // Inlined in full, or the note says how deep, and that the full schema still validates.
      if (cutNote !== undefined) expect(cutNote.detail).toContain('still validated against the full schema');
    }
    const hostile = tool((received: Record<string, unknown>) => JSON.stringify(received).length, {
      name: 'hostile',
      description: 'Takes a hostile schema.',
      parameters: schema,
    });
    if (refused !== undefined) {
      expect(() => new Toolset(hostile)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidSchema, message: expect.stringContaining(refused) }));
    } else {
      // Whatever a provider was sent, the full schema validates the call.
      const toolset = new Toolset(hostile);
      expect(toolset.definitions('gemini')).toHaveLength(1);
      const result = await toolset.invoke('hostile', args, new ExecutionContext());
      expect(result.isError).toBe(false);
      expect(Number(resultText(result))).toBe(JSON.stringify(args).length);
    }
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(MEMORY_BOUND_BYTES);
  });

  it('Gemini: a DAG that fits is inlined in full, exactly as a naive expansion; one that does not is inlined as deep as fits', () => {
    for (const levels of [8, 20]) {
      const schema = refDag(levels);
      const { tools } = new Toolset(tool(() => 1, { name: 'dag', description: 'A DAG.', parameters: schema })).lower('gemini');
      const lowered = tools[0]!.parametersJsonSchema!;
      if (levels === 8) {
        expect(lowered).toEqual(expand(schema, schema['$defs'] as Record<string, JsonSchema>));
        continue;
      }
      // Cut at the same depth on every branch: the deepest inlined level is an object, the next a bare stub.
      let deepest = 0;
      let node = (lowered['properties'] as Record<string, JsonSchema>)['root']!;
      while (node['properties'] !== undefined) {
        const { a, b } = node['properties'] as Record<string, JsonSchema>;
        expect(a).toEqual(b);
        node = a!;
        deepest++;
      }
      expect(node).toEqual({ type: 'object' });
      expect(deepest).toBeGreaterThan(5);
      expect(deepest).toBeLessThan(levels - 1);
    }
  });

  it('a dynamic source: a tool the validator cannot take is left out with a warning, the others are held, and it comes back fixed', () => {
    const deep = (levels: number): JsonSchema => {
      let schema: JsonSchema = { type: 'string' };
      for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
      return schema;
    };
    const make = (name: string, parameters: JsonSchema) => tool(() => name, { name, description: `Tool ${name}.`, parameters });
    let tools = [
      make('good', { type: 'object' }),
      make('cycle', cycle),
      make('deep', deep(1_000)),
      make('draft4', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }),
    ];
    const listeners = new Set<() => void>();
    const source = {
      get tools() {
        return tools;
      },
      subscribe: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)),
    };
    const toolset = new Toolset(source);
    expect(toolset.names).toEqual(['good']);
    expect(toolset.warnings).toEqual([
      expect.stringMatching(/^tool "cycle" .*cycle with no schema between.*; the tool is left out$/),
      expect.stringMatching(/^tool "deep" .*nests too deep.*; the tool is left out$/),
      expect.stringMatching(/^tool "draft4" .*draft-04.*; the tool is left out$/),
    ]);
    tools = [...tools.slice(0, 3), make('draft4', { type: 'object' })];
    for (const listener of listeners) listener();
    expect(toolset.names).toEqual(['good', 'draft4']);
    // The same problems are not noted again.
    expect(toolset.warnings).toHaveLength(3);
  });
});
