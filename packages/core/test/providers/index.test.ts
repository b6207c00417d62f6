import type Anthropic from '@anthropic-ai/sdk';
import type { FunctionDeclaration, Tool as GeminiTool } from '@google/genai';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type OpenAI from 'openai';
import Ajv from 'ajv';
import { ExecutionContext, Toolset, tool, type AnthropicTool, type JsonSchema } from '@anytool/core';

const treeSchema: JsonSchema = {
  type: 'object',
  properties: { root: { $ref: '#/$defs/Node' } },
  required: ['root'],
  $defs: {
    Node: { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['value'] },
  },
};

const samples = [
  tool(() => 1, {
    name: 'search',
    description: 'Search.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
        sort: { type: 'string', enum: ['new', 'top'] },
        filters: {
          type: 'object',
          properties: { since: { type: 'string', format: 'date-time' }, tags: { type: 'array', items: { type: 'string' }, uniqueItems: true } },
        },
        shape: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
            { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
          ],
        },
      },
      required: ['query'],
    },
  }),
  tool(() => 1, { name: 'tree_sum', description: 'Sum a tree.', parameters: treeSchema }),
  tool(() => 1, {
    name: 'tally',
    description: 'Tally by key.',
    parameters: { type: 'object', properties: { counts: { type: 'object', additionalProperties: { type: 'number' } } }, required: ['counts'] },
  }),
  tool(() => 1, {
    name: 'noop',
    description: 'Takes nothing.',
    parameters: { type: 'object', properties: {} },
    annotations: { readOnly: true, idempotent: true },
    title: 'No-op',
  }),
];
const toolset = new Toolset(samples);

describe('provider formats', () => {
  it('are assignable to the official SDK types (checked by the compiler)', () => {
    const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = toolset.definitions('openai');
    // A toolset may hold provider built-ins: the lists are what the clients' `tools` take.
    const responses: OpenAI.Responses.Tool[] = toolset.definitions('openai-responses');
    const anthropic: Anthropic.Messages.ToolUnion[] = toolset.definitions('anthropic');
    const gemini: Array<FunctionDeclaration | GeminiTool> = toolset.definitions('gemini');
    const mcp: McpTool[] = toolset.definitions('mcp');
    for (const list of [chat, responses, anthropic, gemini, mcp]) expect(list).toHaveLength(samples.length);
  });

  it('Gemini schemas use only the keywords Gemini accepts', () => {
    const allowed = new Set([
      'type',
      'format',
      'title',
      'description',
      'enum',
      'items',
      'prefixItems',
      'minItems',
      'maxItems',
      'minimum',
      'maximum',
      'minLength',
      'maxLength',
      'pattern',
      'anyOf',
      'properties',
      'required',
      'additionalProperties',
      'propertyOrdering',
      'nullable',
      'minProperties',
      'maxProperties',
    ]);
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        expect({ where, key, allowed: allowed.has(key) }).toEqual({ where, key, allowed: true });
        if (key === 'properties') for (const [name, child] of Object.entries(value as object)) walk(child, `${where}/properties/${name}`);
        else if (key === 'items' || key === 'additionalProperties') walk(value, `${where}/${key}`);
        else if (key === 'anyOf' || key === 'prefixItems') (value as unknown[]).forEach((v, i) => walk(v, `${where}/${key}/${i}`));
      }
    };
    for (const t of toolset.definitions('gemini')) walk(t.parametersJsonSchema, t.name!);
  });

  it('hands out frozen definitions: changing an emitted definition never changes the tool or what the next caller gets', () => {
    const [first] = toolset.definitions('anthropic') as AnthropicTool[];
    expect(() => {
      (first!.input_schema['properties'] as Record<string, unknown>)['query'] = { type: 'number' };
    }).toThrow(TypeError);
    // A field of the caller's own goes on a copy.
    const marked = { ...first!, cache_control: { type: 'ephemeral' } };
    expect(marked.cache_control).toEqual({ type: 'ephemeral' });
    const [again] = toolset.definitions('anthropic') as AnthropicTool[];
    expect(again).not.toHaveProperty('cache_control');
    expect((again!.input_schema['properties'] as Record<string, { type: string }>)['query']!.type).toBe('string');
  });

  it('every emitted schema is valid JSON Schema', () => {
    const ajv = new Ajv({ strict: false });
    const schemas: unknown[] = [
      ...toolset.definitions('openai').map((t) => t.function.parameters),
      ...toolset.definitions('openai', { strict: false }).map((t) => t.function.parameters),
      ...toolset.definitions('openai-responses').map((t) => t.parameters),
      ...toolset.definitions('anthropic').map((t) => t.input_schema),
      ...toolset.definitions('gemini').map((t) => t.parametersJsonSchema),
      ...toolset.definitions('mcp').flatMap((t) => [t.inputSchema, ...(t.outputSchema ? [t.outputSchema] : [])]),
    ];
    for (const schema of schemas) expect({ schema, valid: ajv.validateSchema(schema as object), errors: ajv.errors }).toMatchObject({ valid: true });
  });

  it('OpenAI strict mode: closed objects, all properties required, optional ones nullable', () => {
    const [search] = toolset.definitions('openai');
    const p = search!.function.parameters as { properties: Record<string, JsonSchema>; required: string[]; additionalProperties: boolean };
    expect(search!.function.strict).toBe(true);
    expect(p.additionalProperties).toBe(false);
    expect(p.required).toEqual(['query', 'limit', 'sort', 'filters', 'shape']);
    expect(p.properties['query']).toEqual({ type: 'string', description: 'What to look for' });
    expect(p.properties['limit']).toEqual({ type: ['integer', 'null'], minimum: 1, maximum: 50 });
    expect(p.properties['sort']).toEqual({ type: ['string', 'null'], enum: ['new', 'top', null] });
    const filters = p.properties['filters'] as { type: string[]; additionalProperties: boolean; required: string[] };
    expect(filters.type).toEqual(['object', 'null']);
    expect(filters.additionalProperties).toBe(false);
    expect(filters.required).toEqual(['since', 'tags']);
    expect((p.properties['shape'] as { anyOf: unknown[] }).anyOf).toHaveLength(3);
  });

  it('reports everything a lowering dropped or changed', () => {
    const { notes } = toolset.lower('openai');
    const by = (tool: string, action: string) => notes.filter((n) => n.tool === tool && n.action === action).map((n) => n.path);
    expect(by('search', 'dropped')).toEqual(
      expect.arrayContaining(['/properties/query/minLength', '/properties/limit/default', '/properties/filters/properties/tags/uniqueItems']),
    );
    expect(by('search', 'changed')).toEqual(expect.arrayContaining(['/properties/shape/oneOf', '/properties/limit']));
    expect(by('tally', 'not-strict')).toEqual(['/properties/counts/additionalProperties']);
    expect(toolset.definitions('openai').find((t) => t.function.name === 'tally')!.function.strict).toBe(false);
    expect(by('tree_sum', 'not-strict')).toEqual([]);
  });

  it('Gemini: $refs inlined (recursion cut and noted), unsupported keywords dropped and noted', () => {
    const { tools, notes } = toolset.lower('gemini');
    const tree = JSON.stringify(tools.find((t) => t.name === 'tree_sum')!.parametersJsonSchema);
    expect(tree).not.toContain('$ref');
    expect(tree).not.toContain('$defs');
    expect(notes.some((n) => n.tool === 'tree_sum' && /recursive type "Node"/.test(n.detail))).toBe(true);
    expect(notes.some((n) => n.tool === 'search' && n.path === '/properties/limit/default' && n.action === 'dropped')).toBe(true);
    const shape = (tools[0]!.parametersJsonSchema!['properties'] as Record<string, JsonSchema>)['shape']!;
    expect(shape['anyOf']).toBeDefined();
  });

  it('Gemini: a draft-07 tuple is sent as prefixItems, its additionalItems as items', () => {
    const pair = tool(() => 1, {
      name: 'pair',
      description: 'A tuple.',
      parameters: {
        type: 'object',
        properties: {
          point: { type: 'array', items: [{ type: 'number' }, { type: 'string' }], minItems: 2, maxItems: 2, additionalItems: false },
          head: { type: 'array', items: [{ type: 'string' }], minItems: 1, additionalItems: { type: 'number' } },
          open: { type: 'array', items: [{ type: 'string' }] },
        },
        required: ['point', 'head', 'open'],
      },
    });
    const { tools, notes } = new Toolset(pair).lower('gemini');
    expect(tools[0]!.parametersJsonSchema!['properties']).toEqual({
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], minItems: 2, maxItems: 2, items: false },
      head: { type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, items: { type: 'number' } },
      open: { type: 'array', prefixItems: [{ type: 'string' }] },
    });
    expect(notes).toEqual([]);
  });

  it('MCP: annotations become hints, the title travels', () => {
    const noop = toolset.definitions('mcp').find((t) => t.name === 'noop')!;
    expect(noop).toMatchObject({ title: 'No-op', annotations: { title: 'No-op', readOnlyHint: true, idempotentHint: true } });
  });
});

describe('OpenAI strict round trip', () => {
  it("an optional parameter's null from the model arrives as the parameter's default", async () => {
    const received: unknown[] = [];
    const forecast = tool(
      (city: string, unit = 'celsius', days = 3) => {
        received.push([city, unit, days]);
        return `${city} ${unit} ${days}`;
      },
      { name: 'forecast', description: 'Forecast.' },
      {
        parameters: {
          type: 'object',
          properties: {
            city: { type: 'string' },
            unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
            days: { type: 'integer', default: 3 },
          },
          required: ['city'],
        },
        paramNames: ['city', 'unit', 'days'],
      },
    );
    const own = new Toolset(forecast);
    const [definition] = own.definitions('openai');
    // What strict mode lets a model send: every property present, optional ones null.
    const modelArgs = '{"city":"Oslo","unit":null,"days":null}';
    const strictValidate = new Ajv({ strict: false }).compile(definition!.function.parameters);
    expect(strictValidate(JSON.parse(modelArgs))).toBe(true);
    const result = await own.invoke('forecast', modelArgs, new ExecutionContext());
    expect(result.isError).toBe(false);
    expect(received).toEqual([['Oslo', 'celsius', 3]]);
    await own.invoke('forecast', '{"city":"Oslo","unit":"fahrenheit","days":null}');
    expect(received[1]).toEqual(['Oslo', 'fahrenheit', 3]);
  });

  it('nulls for optional properties at any depth: array items, union branches, recursive types', async () => {
    const received: unknown[] = [];
    const nested = tool((args: unknown) => void received.push(args), {
      name: 'nested',
      description: 'x',
      parameters: {
        type: 'object',
        properties: {
          items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, note: { type: 'string' } }, required: ['name'] } },
          shape: { anyOf: [{ type: 'object', properties: { r: { type: 'number' }, label: { type: 'string' } }, required: ['r'] }, { type: 'string' }] },
          root: { $ref: '#/$defs/Node' },
        },
        $defs: { Node: { type: 'object', properties: { value: { type: 'number' }, next: { $ref: '#/$defs/Node' } }, required: ['value'] } },
      },
    });
    const own = new Toolset(nested);
    const [definition] = own.definitions('openai');
    expect(definition!.function.strict).toBe(true);
    const modelArgs = { items: [{ name: 'a', note: null }], shape: { r: 1, label: null }, root: { value: 1, next: { value: 2, next: null } } };
    expect(new Ajv({ strict: false }).validate(definition!.function.parameters, modelArgs)).toBe(true);
    const frozen = JSON.stringify(modelArgs);
    const result = await own.invoke('nested', modelArgs);
    expect(result.isError).toBe(false);
    expect(received).toEqual([{ items: [{ name: 'a' }], shape: { r: 1 }, root: { value: 1, next: { value: 2 } } }]);
    expect(JSON.stringify(modelArgs)).toBe(frozen);
  });

  it("schema defaults never write into the caller's object or the recorded event", async () => {
    const search = tool((args: { q: string; limit?: number }) => args.limit, {
      name: 'search',
      description: 'x',
      parameters: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer', default: 10 } }, required: ['q'] },
    });
    const args = Object.freeze({ q: 'x' });
    const context = new ExecutionContext();
    const result = await new Toolset(search).invoke('search', args, context);
    expect(result.structured).toBe(10);
    expect(args).toEqual({ q: 'x' });
    expect(context.events[0]).toMatchObject({ type: 'tool_call', args: { q: 'x' } });
  });

  it('a null for a property that accepts null is kept', async () => {
    const echo = tool((args: { note?: string | null }) => ({ note: args.note === null ? 'null' : typeof args.note }), {
      name: 'echo',
      description: 'x',
      parameters: { type: 'object', properties: { note: { type: ['string', 'null'] } } },
    });
    expect((await new Toolset(echo).invoke('echo', { note: null })).structured).toEqual({ note: 'null' });
  });
});

describe('a missing or unknown format', () => {
  const toolset = new Toolset(samples[0]!);
  const thrown = (format: unknown): { code?: string; message: string } => {
    try {
      toolset.definitions(format as 'openai');
    } catch (error) {
      return error as { code?: string; message: string };
    }
    throw new Error(`definitions(${String(format)}) did not throw`);
  };

  it('lists every format and says where the neutral definitions are', () => {
    const none = thrown(undefined);
    expect(none.code).toBe('INVALID_OPTIONS');
    expect(none.message).toBe(
      "no definition format given: name one of openai, openai-responses, anthropic, gemini or mcp, as in toolset.definitions('openai'); for the neutral definitions (the `neutral` format of `anytool list`), call toolset.neutralDefinitions()",
    );
    expect(thrown('neutral').message).toMatch(/^"neutral" is not a provider format: .*toolset\.neutralDefinitions\(\)/);
  });

  it('names the format a typo meant', () => {
    expect(thrown('antropic').message).toMatch(/^unknown definition format "antropic"; did you mean anthropic\? use openai, /);
    expect(thrown('xml').message).toMatch(/^unknown definition format "xml"; use openai, openai-responses, anthropic, gemini or mcp; /);
  });
});
