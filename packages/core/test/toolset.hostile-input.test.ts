// Hostile input to the uniform call: every case is data in one table, and each must settle
// (well within a generous bound that only catches hangs) with a coded error result.
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { ErrorCode, ExecutionContext, Pipeline, Toolset, resultText, tool, type JsonSchema, type ToolResult } from '@anytool/core';

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

describe('hostile input: invoke called wrongly settles with INVALID_OPTIONS, never a throw or a rejection', () => {
  const echo = tool((a: Record<string, unknown>) => a, { name: 'echo', description: 'Returns its arguments.', parameters: withDefault });
  const toolset = new Toolset(echo);
  const throwingOptions = Object.defineProperty({}, 'callId', {
    get() {
      throw new Error('callId getter');
    },
  });

  /** Calls `call` and gives its result, failing the test if it throws or rejects. */
  async function neverThrows(call: () => Promise<ToolResult>): Promise<ToolResult> {
    let promise: Promise<ToolResult>;
    try {
      promise = call();
    } catch (error) {
      throw new Error(`invoke threw synchronously: ${String(error)}`);
    }
    expect(promise).toBeInstanceOf(Promise);
    return promise.catch((error: unknown) => {
      throw new Error(`invoke rejected: ${String(error)}`);
    });
  }

  const misuses: Array<[string, () => Promise<ToolResult>, string[]]> = [
    ['a number as the name', () => toolset.invoke(42 as never, {}), ['Toolset.invoke(): the tool name must be a string, got a number']],
    ['no name at all', () => (toolset.invoke as (...args: unknown[]) => Promise<ToolResult>)(), ['the tool name must be a string, got a undefined']],
    ['an object as the name', () => toolset.invoke({ name: 'echo' } as never, {}), ['the tool name must be a string, got a plain object']],
    ['a symbol as the name', () => toolset.invoke(Symbol('echo') as never, {}), ['got a symbol']],
    [
      'a plain object as the context',
      () => toolset.invoke('echo', {}, { state: new Map() } as never),
      ['the context must be an ExecutionContext', 'got a plain object'],
    ],
    ['a string as the context', () => toolset.invoke('echo', {}, 'run-1' as never), ['got a string']],
    ['null as the context', () => toolset.invoke('echo', {}, null as never), ['got null']],
    ['a revoked proxy as the context', () => toolset.invoke('echo', {}, revokedProxy() as never), ['the context must be an ExecutionContext']],
    ['a proxy with throwing traps as the context', () => toolset.invoke('echo', {}, throwingTraps as never), ['the context must be an ExecutionContext']],
    ['null as the options', () => toolset.invoke('echo', {}, new ExecutionContext(), null as never), ['options must be an object', 'got null']],
    ['a string as the options', () => toolset.invoke('echo', {}, new ExecutionContext(), 'call_1' as never), ['got a string']],
    ['an array as the options', () => toolset.invoke('echo', {}, new ExecutionContext(), [] as never), ['got an array']],
    [
      'a number as the call id',
      () => toolset.invoke('echo', {}, new ExecutionContext(), { callId: 7 as never }),
      ['options.callId must be a non-empty string', 'got a number'],
    ],
    [
      'an empty call id',
      () => toolset.invoke('echo', {}, new ExecutionContext(), { callId: '' }),
      ['options.callId must be a non-empty string', 'got an empty string'],
    ],
    [
      'options whose callId getter throws',
      () => toolset.invoke('echo', {}, new ExecutionContext(), throwingOptions),
      ['options could not be read (callId getter)'],
    ],
    ['a revoked proxy as the options', () => toolset.invoke('echo', {}, new ExecutionContext(), revokedProxy() as never), ['options could not be read']],
    [
      'the arguments first on a tool (tool.invoke(args))',
      () => (echo.invoke as (...args: unknown[]) => Promise<ToolResult>)({ a: 1 }),
      ['tool "echo" (function', 'invoke(): the context must be an ExecutionContext', 'the context first'],
    ],
    ['null as a tool’s options', () => echo.invoke(new ExecutionContext(), {}, null as never), ['tool "echo"', 'options must be an object']],
    ['a number as the name through a Pipeline', () => new Pipeline().invoke(toolset, 42 as never, {}), ['Pipeline.invoke(): the tool name must be a string']],
  ];

  it.each(misuses)('%s: a coded result naming what was wrong and the fix, within the hang bound', async (_what, call, says) => {
    const started = Date.now();
    const result = await neverThrows(call);
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.InvalidOptions);
    for (const text of says) expect(result.error?.message).toContain(text);
    expect(result.error?.message).toMatch(/; call \S+\.invoke\(/);
    // The model reads a short text that says the fault is not its own.
    expect(resultText(result)).toContain('the application called the tool wrongly');
    expect(resultText(result).length).toBeLessThan(200);
  });

  it('a well-formed context is told of the misuse as a diagnostic, and runs no tool', async () => {
    const context = new ExecutionContext();
    const result = await toolset.invoke('echo', {}, context, { callId: 3 as never });
    expect(result.error?.code).toBe(ErrorCode.InvalidOptions);
    expect(context.events.filter((e) => e.type === 'tool_call')).toEqual([]);
    expect(context.events).toEqual([expect.objectContaining({ type: 'diagnostic', code: ErrorCode.InvalidOptions, source: 'toolset' })]);
  });

  const anyValue = fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true, withBoxedValues: true, withSparseArray: true });
  const anyName = fc.oneof(fc.constantFrom('echo', 'missing', ''), fc.string(), anyValue);
  // Contexts and options are made inside the property: fast-check itself would trip over a proxy's traps.
  const hostileObjects = fc.constantFrom<() => unknown>(
    revokedProxy,
    () => throwingTraps,
    () => throwingOptions,
  );
  const anyContext = fc.oneof(
    fc.constantFrom<() => unknown>(
      () => undefined,
      () => new ExecutionContext(),
    ),
    anyValue.map((value) => () => value),
    hostileObjects,
  );
  const anyOptions = fc.oneof(
    fc.constant(() => undefined),
    fc
      .record({ callId: fc.oneof(fc.string(), anyValue), timeoutMs: fc.oneof(fc.integer(), anyValue), defaultTimeoutMs: anyValue }, { requiredKeys: [] })
      .map((options) => () => options),
    anyValue.map((value) => () => value),
    hostileObjects,
  );
  const anyArguments = fc.oneof(fc.json(), fc.string(), fc.jsonValue(), anyValue);

  it('for random names, JSON texts or values as arguments, contexts and options, invoke (toolset and tool) never throws or rejects: always a ToolResult', async () => {
    await fc.assert(
      fc.asyncProperty(anyName, anyArguments, anyContext, anyOptions, async (name, args, makeContext, makeOptions) => {
        const ctx = makeContext();
        const options = makeOptions();
        for (const call of [
          () => toolset.invoke(name as string, args, ctx as ExecutionContext, options as never),
          () => echo.invoke(ctx as ExecutionContext, args, options as never),
        ]) {
          const result = await neverThrows(call);
          expect(typeof result.isError).toBe('boolean');
          expect(Array.isArray(result.content)).toBe(true);
          if (result.isError) expect(typeof result.error?.code).toBe('string');
          expect(typeof resultText(result)).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('hostile input: huge errors give bounded error results', () => {
  const MB50 = 50 * 1024 * 1024;
  /** Heap a call may keep after it settled, with its result held: far below the 50 MB thrown. */
  const MEMORY_BOUND_BYTES = 10 * 1024 * 1024;
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;

  function throwing(make: () => unknown, options: { maxErrorChars?: number } = {}): ReturnType<typeof tool> {
    return tool(
      () => {
        throw make();
      },
      { name: 'huge', description: 'Throws something huge.', parameters: { type: 'object', properties: {} }, ...options },
    );
  }
  function hugeObject(): object {
    return { toJSON: () => ({ detail: 'y'.repeat(MB50) }) };
  }
  function hugeToString(): object {
    return {
      toJSON() {
        throw new Error('no JSON');
      },
      toString: () => 'z'.repeat(MB50),
    };
  }
  function causeChain(): Error {
    let error = new Error(`root ${'c'.repeat(10_000)}`);
    for (let i = 0; i < 10_000; i++) error = new Error(`level ${i} ${'c'.repeat(10_000)}`, { cause: error });
    return error;
  }

  /** What was thrown, and at least how long its description is. */
  const huge: Array<[string, () => unknown, number]> = [
    ['an Error with a 50 MB message', () => new Error('x'.repeat(MB50)), MB50],
    ['a 50 MB string', () => 's'.repeat(MB50), MB50],
    ['an object whose JSON is 50 MB', hugeObject, MB50],
    ['an object whose toString gives 50 MB (its JSON throws)', hugeToString, MB50],
    ['an Error 10,000 causes deep, each 10 KB', causeChain, 10_000],
  ];

  it.each(huge)(
    `a tool throwing %s: result texts of at most 4,096 characters each, settled in under ${HANG_BOUND_MS} ms, the thrown value not held (heap under +10 MB)`,
    async (what, make, length) => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const started = Date.now();
      const result = await new Toolset(throwing(make)).invoke('huge', {}, new ExecutionContext());
      const ms = Date.now() - started;
      gc();
      const held = process.memoryUsage().heapUsed - before;
      expect(result.error?.code).toBe(ErrorCode.ToolFailed);
      expect(resultText(result)).toContain('Tool "huge" failed: ');
      expect(resultText(result).length).toBeLessThanOrEqual(4_096);
      expect(result.error!.message.length).toBeLessThanOrEqual(4_096);
      expect(Number(/\[cut: (\d+) characters in all/.exec(resultText(result))?.[1])).toBeGreaterThanOrEqual(length);
      expect(JSON.stringify(result).length).toBeLessThan(10_000);
      expect(ms).toBeLessThan(HANG_BOUND_MS);
      expect(held).toBeLessThan(MEMORY_BOUND_BYTES);
      process.stdout.write(`huge error, ${what}: result ${JSON.stringify(result).length} bytes, ${ms} ms, heap held ${(held / 1024 / 1024).toFixed(1)} MB\n`);
    },
  );

  it('the cut text says it was cut, how long it was and how to see more; a surrogate pair is never split', async () => {
    const result = await new Toolset(throwing(() => new Error('😀'.repeat(10_000)))).invoke('huge', {});
    const text = resultText(result);
    expect(text).toMatch(/… \[cut: \d+ characters in all, the first \d+ kept; maxErrorChars raises the limit\]$/);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('a tool’s maxErrorChars and a call’s own set the bound (the call’s wins); nonsense values are refused with a coded error', async () => {
    const small = throwing(() => new Error('x'.repeat(100_000)), { maxErrorChars: 1_000 });
    const toolset = new Toolset(small);
    const byTool = await toolset.invoke('huge', {});
    expect(resultText(byTool).length).toBeLessThanOrEqual(1_000);
    expect(byTool.error!.message.length).toBeLessThanOrEqual(1_000);
    const byCall = await toolset.invoke('huge', {}, new ExecutionContext(), { maxErrorChars: 50_000 });
    expect(resultText(byCall).length).toBeGreaterThan(40_000);
    expect(resultText(byCall).length).toBeLessThanOrEqual(50_000);
    const refused = await toolset.invoke('huge', {}, new ExecutionContext(), { maxErrorChars: 10 });
    expect(refused.error?.code).toBe(ErrorCode.InvalidOptions);
    expect(refused.error?.message).toContain('options.maxErrorChars must be a whole number of characters from 256');
    expect(() => throwing(() => 'x', { maxErrorChars: -1 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidToolDefinition }));
  });

  it('an error result a tool returns is bounded the same way, its other parts kept', async () => {
    const returning = tool(
      () => ({
        content: [
          { type: 'text', text: 'r'.repeat(1_000_000) },
          { type: 'text', text: 'more' },
        ],
        isError: true,
      }),
      {
        name: 'returns',
        description: 'Returns a huge error result.',
        parameters: { type: 'object', properties: {} },
      },
    );
    const result = await returning.invoke(new ExecutionContext(), {});
    expect(result.isError).toBe(true);
    expect(resultText(result).length).toBeLessThanOrEqual(4_096);
    expect(resultText(result)).toContain('1000005 characters in all');
  });

  it('100,000 wrong arguments: the INVALID_ARGUMENTS result lists 20 problems and counts the rest, within the size bound', async () => {
    const strict = tool((a: unknown) => a, {
      name: 'strict',
      description: 'Takes strings.',
      parameters: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } },
    });
    const started = Date.now();
    const result = await strict.invoke(new ExecutionContext(), { list: Array.from({ length: 100_000 }, (_, i) => i) });
    expect(Date.now() - started).toBeLessThan(HANG_BOUND_MS);
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    const text = resultText(result);
    expect(text.split('\n').filter((line) => line.startsWith('- '))).toHaveLength(20);
    expect(text).toContain('and 99981 more problems (the first 19 are listed)');
    expect(text.length).toBeLessThanOrEqual(4_096);
  });
});
