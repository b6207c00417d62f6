// Hostile input to the uniform call: every case is data in one table, and each must settle
// (well within a generous bound that only catches hangs) with a coded error result.
import fc from 'fast-check';
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type JsonSchema, type ToolResult } from '@anytool/core';

const UNDESCRIBABLE = 'a thrown value that cannot be described';
const HANG_BOUND_MS = 5_000;

/** Arguments `{ a: { a: ... } }` nested `depth` levels deep (the arguments object is the first). */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

const withDefault: JsonSchema = { type: 'object', properties: { a: {}, n: { type: 'number' }, unit: { type: 'string', default: 'c' } } };
const recursive: JsonSchema = {
  type: 'object',
  properties: { node: { $ref: '#/$defs/Node' } },
  $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, label: { type: 'string' } } } },
};
const closed: JsonSchema = { type: 'object', properties: { unit: { type: 'string', default: 'c' } }, additionalProperties: false };

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}
const throwingTraps = new Proxy(
  {},
  {
    get: () => {
      throw new Error('get trap');
    },
    getPrototypeOf: () => {
      throw new Error('getPrototypeOf trap');
    },
    ownKeys: () => {
      throw new Error('ownKeys trap');
    },
    has: () => {
      throw new Error('has trap');
    },
  },
);
const cyclicNullProto = Object.create(null) as Record<string, unknown>;
cyclicNullProto['self'] = cyclicNullProto;
const throwingMessage = new Error('hidden');
// The stack first: formatting it reads the message.
Object.defineProperty(throwingMessage, 'stack', {
  get() {
    throw new Error('stack getter');
  },
});
Object.defineProperty(throwingMessage, 'message', {
  get() {
    throw new Error('message getter');
  },
});

interface Case {
  name: string;
  schema?: JsonSchema;
  /** What the tool does (by default it returns its arguments). */
  run?: (args: Record<string, unknown>) => unknown;
  args: unknown;
  code: ErrorCode;
  /** Texts the model's result must contain. */
  says: string[];
}

const cases: Case[] = [
  // 1: arguments too deep for the recursive walks (argument copy, null stripper, validator).
  {
    name: 'object arguments 5,000 deep, schema with a default',
    schema: withDefault,
    args: nested(5_000),
    code: ErrorCode.InvalidArguments,
    says: ['"hostile"', 'more than 64 levels deep', 'limit of 64'],
  },
  {
    name: 'a 53 KB JSON string 2,626 deep, recursive $ref schema',
    schema: recursive,
    args: `{"node":${'{"child":'.repeat(2_624)}{}${'}'.repeat(2_625)}`,
    code: ErrorCode.InvalidArguments,
    says: ['"hostile"', 'more than 64 levels deep', 'limit of 64'],
  },
  { name: 'arguments 65 deep (one past the limit)', schema: withDefault, args: nested(65), code: ErrorCode.InvalidArguments, says: ['limit of 64'] },
  {
    name: 'a cyclic arguments object',
    schema: withDefault,
    args: cyclicNullProto,
    code: ErrorCode.InvalidArguments,
    says: ['cyclic object counts as too deep'],
  },
  {
    name: 'a class instance holding arguments 5,000 deep',
    schema: withDefault,
    args: Object.assign(new (class Args {})(), nested(5_000)),
    code: ErrorCode.InvalidArguments,
    says: ['limit of 64'],
  },
  // Arguments whose reading throws (in-process callers).
  { name: 'a revoked proxy as arguments', schema: withDefault, args: revokedProxy(), code: ErrorCode.InvalidArguments, says: ['could not be read'] },
  { name: 'a proxy with throwing traps as arguments', schema: withDefault, args: throwingTraps, code: ErrorCode.InvalidArguments, says: ['could not be read'] },
  // 2: thrown values that cannot be read.
  ...(
    [
      ['a revoked proxy', revokedProxy()],
      ['a proxy whose traps throw', throwingTraps],
      ['an Error whose message and stack getters throw', throwingMessage],
    ] as const
  ).map(([what, thrown]): Case => ({
    name: `the tool throws ${what}`,
    run: () => {
      throw thrown;
    },
    args: {},
    code: ErrorCode.ToolFailed,
    says: ['Tool "hostile" failed', UNDESCRIBABLE],
  })),
  {
    name: 'the tool throws a cyclic null-prototype object',
    run: () => {
      throw cyclicNullProto;
    },
    args: {},
    code: ErrorCode.ToolFailed,
    says: ['Tool "hostile" failed', UNDESCRIBABLE],
  },
  { name: 'the tool rejects with a revoked proxy', run: () => Promise.reject(revokedProxy()), args: {}, code: ErrorCode.ToolFailed, says: [UNDESCRIBABLE] },
  { name: 'the tool returns a revoked proxy', run: () => revokedProxy(), args: {}, code: ErrorCode.ToolFailed, says: ['Tool "hostile" failed'] },
  // 3: data shaped like a ToolResult, with a broken part.
  {
    name: 'an audio part without data and mimeType',
    run: () => ({ content: [{ type: 'audio' }], isError: false }),
    args: {},
    code: ErrorCode.InvalidResult,
    says: ['content[0] (type "audio") has no string "data"'],
  },
  {
    name: 'an image part with a numeric mimeType',
    run: () => ({
      content: [
        { type: 'text', text: 'ok' },
        { type: 'image', data: 'AA==', mimeType: 7 },
      ],
      isError: false,
    }),
    args: {},
    code: ErrorCode.InvalidResult,
    says: ['content[1] (type "image") has no string "mimeType"'],
  },
  {
    name: 'a resource link without a name',
    run: () => ({ content: [{ type: 'resource_link', uri: 'file:///x' }], isError: false }),
    args: {},
    code: ErrorCode.InvalidResult,
    says: ['content[0] (type "resource_link") has no string "name"'],
  },
  // 6: numbers JSON cannot carry, from in-process callers.
  { name: 'NaN for a number', schema: withDefault, args: { n: Number.NaN }, code: ErrorCode.InvalidArguments, says: ['/n: must be a finite number (got NaN'] },
  {
    name: 'Infinity for a number',
    schema: withDefault,
    args: { n: Number.POSITIVE_INFINITY },
    code: ErrorCode.InvalidArguments,
    says: ['/n: must be a finite number (got Infinity'],
  },
  {
    name: '-Infinity deep in an array',
    schema: withDefault,
    args: { a: [1, [Number.NEGATIVE_INFINITY]] },
    code: ErrorCode.InvalidArguments,
    says: ['/a/1/0: must be a finite number (got -Infinity'],
  },
  // `__proto__` is a plain data key on both paths: an unknown property where none are allowed.
  {
    name: 'an own __proto__ key in object arguments, closed schema',
    schema: closed,
    args: JSON.parse('{"__proto__":{"polluted":true}}'),
    code: ErrorCode.InvalidArguments,
    says: ['/__proto__: is not an allowed property'],
  },
  {
    name: 'a __proto__ key in JSON text, closed schema',
    schema: closed,
    args: '{"__proto__":{"polluted":true}}',
    code: ErrorCode.InvalidArguments,
    says: ['/__proto__: is not an allowed property'],
  },
  // 7: invoke has no default timeout; one set on the call ends a tool that never settles.
  {
    name: 'a tool that never settles, under a call timeout',
    run: () => new Promise(() => undefined),
    args: { timeoutMs: 30 },
    code: ErrorCode.Timeout,
    says: ['timed out after 30 ms'],
  },
];

describe('hostile input: invoke settles with a coded result', () => {
  it.each(cases)('$name', async ({ schema, run, args, code, says }) => {
    const hostile = tool((a: Record<string, unknown>) => (run ?? ((x: unknown) => x))(a), {
      name: 'hostile',
      description: 'Does what the case says.',
      parameters: schema ?? { type: 'object', properties: {} },
    });
    const toolset = new Toolset(hostile);
    const timed = code === ErrorCode.Timeout;
    const started = Date.now();
    const result: ToolResult = await toolset.invoke('hostile', timed ? {} : args, new ExecutionContext(), timed ? (args as { timeoutMs: number }) : undefined);
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(code);
    for (const text of says) expect(resultText(result)).toContain(text);
    expect(resultText(result).length).toBeLessThan(1_000);
  });
});

describe('hostile input: an unknown tool name', () => {
  const many = new Toolset(
    ...Array.from({ length: 10_000 }, (_, i) =>
      tool(() => i, { name: `tool_${i}`, description: `Tool ${i}.`, parameters: { type: 'object', properties: {} } }),
    ),
  );

  it('a 1 MB name comes back cut short, with its length', async () => {
    const result = await many.invoke('x'.repeat(1_000_000), {});
    expect(result.error?.code).toBe(ErrorCode.UnknownTool);
    expect(resultText(result)).toContain(`"${'x'.repeat(64)}"… (1000000 characters)`);
    expect(resultText(result).length).toBeLessThan(1_000);
  });

  it('10,000 tools: the result lists the closest 20, not all of them', async () => {
    const result = await many.invoke('tool_9999x', {});
    const text = resultText(result);
    expect(text).toContain('the closest of the 10000 available tools are: tool_9999,');
    expect(text.split(', ')).toHaveLength(20);
    expect(text.length).toBeLessThan(1_000);
  });
});

describe('hostile input: a Standard Schema check that never settles', () => {
  const hanging = {
    '~standard': {
      version: 1 as const,
      vendor: 'hanging',
      validate: () => new Promise<never>(() => undefined),
      jsonSchema: { input: () => ({ type: 'object', properties: {} }), output: () => ({ type: 'object', properties: {} }) },
    },
  };
  const ran: unknown[] = [];
  const toolset = new Toolset(tool((a: Record<string, unknown>) => void ran.push(a), { name: 'stuck', description: 'Never validated.', parameters: hanging }));

  it('the call time limit covers the check: TIMEOUT, the tool never runs', async () => {
    const result = await toolset.invoke('stuck', {}, new ExecutionContext(), { timeoutMs: 30 });
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(ran).toHaveLength(0);
  });

  it("the run's abort signal covers the check: ABORTED", async () => {
    const controller = new AbortController();
    const call = toolset.invoke('stuck', {}, new ExecutionContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('stop')), 10);
    const result = await call;
    expect(result.error?.code).toBe(ErrorCode.Aborted);
    expect(ran).toHaveLength(0);
  });
});

describe('hostile input: what still passes', () => {
  const received: Array<Record<string, unknown>> = [];
  const open = new Toolset(
    tool((a: Record<string, unknown>) => void received.push(a), { name: 'open', description: 'Records its arguments.', parameters: withDefault }),
  );

  it('arguments exactly 64 levels deep reach the tool', async () => {
    received.length = 0;
    const result = await open.invoke('open', nested(64));
    expect(result.isError).toBe(false);
    expect(received).toHaveLength(1);
  });

  it('a __proto__ key stays a data key, never the prototype, whether the arguments are an object or JSON text', async () => {
    for (const args of [JSON.parse('{"__proto__":{"polluted":true}}') as unknown, '{"__proto__":{"polluted":true}}']) {
      received.length = 0;
      const result = await open.invoke('open', args);
      expect(result.isError).toBe(false);
      const got = received[0]!;
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(got, '__proto__')).toBe(true);
      expect((got as { polluted?: unknown }).polluted).toBeUndefined();
      expect(got['unit']).toBe('c');
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    }
  });

  it('data with an unknown content part type is still plain data', async () => {
    const data = { content: [{ type: 'video', url: 'x' }], isError: false };
    const result = await new Toolset(tool(() => data, { name: 'video', description: 'Returns data.', parameters: { type: 'object', properties: {} } })).invoke(
      'video',
      {},
    );
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structured: data, isError: false });
  });
});

describe('hostile input: properties', () => {
  /** The result, or a failure when `call` throws, rejects or has not settled after the bound. */
  async function settled(call: () => Promise<ToolResult>): Promise<ToolResult> {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`did not settle within ${HANG_BOUND_MS} ms`)), HANG_BOUND_MS);
    });
    try {
      return await Promise.race([call(), hang]);
    } finally {
      clearTimeout(timer);
    }
  }

  function expectResult(result: ToolResult): void {
    expect(typeof result.isError).toBe('boolean');
    expect(Array.isArray(result.content)).toBe(true);
    if (result.isError) expect(typeof result.error?.code).toBe('string');
    expect(typeof resultText(result)).toBe('string');
  }

  // Small schemas: the common keywords, defaults, nullable types, nesting and a recursive $ref.
  const { schema: propertySchema } = fc.letrec<{ schema: JsonSchema }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', ['string', 'null']) }),
      fc.record({ type: fc.constant('number'), minimum: fc.integer(), default: fc.integer() }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constant('string'), maxLength: fc.nat(5), default: fc.string() }, { requiredKeys: ['type'] }),
      fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ type: fc.constant('array'), items: tie('schema') }),
      fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
      fc.record(
        {
          type: fc.constant('object'),
          properties: fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'constructor'), tie('schema'), { maxKeys: 3 }),
          required: fc.subarray(['a', 'b']),
          additionalProperties: fc.boolean(),
        },
        { requiredKeys: ['type', 'properties'] },
      ),
      fc.constant({ $ref: '#/$defs/Node' }),
    ) as fc.Arbitrary<JsonSchema>,
  }));
  const rootSchema: fc.Arbitrary<JsonSchema> = fc
    .record({
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'n', '__proto__'), propertySchema, { maxKeys: 3 }),
      required: fc.subarray(['a', 'b']),
      additionalProperties: fc.boolean(),
    })
    .map((parts) => ({
      type: 'object',
      ...parts,
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' }, label: { type: 'string' } } } },
    }));

  /** Arguments nested `depth` levels (one key, then `child` or arrays below it), as an object or as JSON text. */
  const deepArgs = fc
    .tuple(
      fc.oneof(fc.integer({ min: 60, max: 70 }), fc.integer({ min: 2_000, max: 8_000 })),
      fc.constantFrom('a', 'b', 'n'),
      fc.constantFrom('child', 'a', '[]'),
      fc.boolean(),
    )
    .map(([depth, top, inner, asText]) => {
      if (asText) {
        // Written out: JSON.stringify itself recurses.
        const [open, close] = inner === '[]' ? ['[', ']'] : [`{"${inner}":`, '}'];
        return { depth, args: `{"${top}":${open.repeat(depth - 2)}{}${close.repeat(depth - 2)}}` };
      }
      let value: unknown = {};
      for (let i = 2; i < depth; i++) value = inner === '[]' ? [value] : { [inner]: value };
      return { depth, args: { [top]: value } };
    });
  const anyArgs: fc.Arbitrary<unknown> = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(fc.constantFrom('a', 'b', 'n', '__proto__', 'child', 'label'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
    fc.json(),
    fc.string(),
    fc.anything({
      withNullPrototype: true,
      withBigInt: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      withBoxedValues: true,
    }),
    fc.record({ n: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) }),
    deepArgs.map(({ args }) => args),
  );

  // Thrown values: anything, plus proxies, throwing getters and cycles. Each is made by a
  // function called inside the property, since fast-check itself would trip over a proxy's traps.
  const throwingGetter = fc
    .tuple(fc.constantFrom('message', 'name', 'stack', 'code', 'toJSON', 'toString', 'then'), fc.boolean())
    .map(([key, asError]) => () => {
      const value: object = asError ? new Error('e') : {};
      if (key !== 'stack')
        Object.defineProperty(value, 'stack', {
          get: () => {
            throw new Error('stack');
          },
        });
      Object.defineProperty(value, key, {
        get: () => {
          throw new Error(key);
        },
      });
      return value;
    });
  const cyclic = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }).chain((base) =>
    fc.boolean().map((nullProto) => () => {
      const value = Object.assign(nullProto ? (Object.create(null) as Record<string, unknown>) : {}, base);
      value['self'] = value;
      return value;
    }),
  );
  const anyThrown: fc.Arbitrary<() => unknown> = fc.oneof(
    fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withBoxedValues: true }).map((value) => () => value),
    fc.constantFrom<() => unknown>(
      revokedProxy,
      () => throwingTraps,
      () => cyclicNullProto,
      () => throwingMessage,
    ),
    throwingGetter,
    cyclic,
    fc.string().map((message) => () => new Error(message)),
  );
  const behaviour = fc.constantFrom('returns args', 'throws', 'rejects', 'returns it', 'resolves to it');

  it('invoke settles with a result for any arguments and any schema', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, anyArgs, async (schema, args) => {
        const subject = tool((a: unknown) => a, { name: 'subject', description: 'Returns its arguments.', parameters: schema });
        expectResult(await settled(() => subject.invoke(new ExecutionContext(), args)));
      }),
      { numRuns: 300 },
    );
  });

  it('arguments deeper than the limit are refused for any schema, as objects and as JSON text', async () => {
    await fc.assert(
      fc.asyncProperty(rootSchema, deepArgs, async (schema, { depth, args }) => {
        const subject = tool((a: unknown) => a, { name: 'subject', description: 'Returns its arguments.', parameters: schema });
        const result = await settled(() => subject.invoke(new ExecutionContext(), args));
        expectResult(result);
        if (depth > 64) expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
        else expect(resultText(result)).not.toContain('levels deep');
      }),
      { numRuns: 100 },
    );
  });

  it('invoke settles with a result whatever the tool throws, rejects with or returns', async () => {
    await fc.assert(
      fc.asyncProperty(anyThrown, behaviour, async (make, how) => {
        const value = make();
        const subject = tool(
          (a: unknown) => {
            if (how === 'returns args') return a;
            if (how === 'throws') throw value;
            if (how === 'rejects') return Promise.reject(value);
            if (how === 'resolves to it') return Promise.resolve().then(() => value);
            return value;
          },
          { name: 'subject', description: 'Misbehaves.', parameters: { type: 'object', properties: {} } },
        );
        const result = await settled(() => subject.invoke(new ExecutionContext(), {}));
        expectResult(result);
        if (how === 'throws' || how === 'rejects') expect(result.error?.code).toBe(ErrorCode.ToolFailed);
      }),
      { numRuns: 300 },
    );
  });
});
