// Hostile input to the uniform call: every case is data in one table, and each must settle
// (well within a generous bound that only catches hangs) with a coded error result.
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
  { name: 'object arguments 5,000 deep, schema with a default', schema: withDefault, args: nested(5_000), code: ErrorCode.InvalidArguments, says: ['"hostile"', 'more than 64 levels deep', 'limit of 64'] },
  {
    name: 'a 53 KB JSON string 2,626 deep, recursive $ref schema',
    schema: recursive,
    args: `{"node":${'{"child":'.repeat(2_624)}{}${'}'.repeat(2_625)}`,
    code: ErrorCode.InvalidArguments,
    says: ['"hostile"', 'more than 64 levels deep', 'limit of 64'],
  },
  { name: 'arguments 65 deep (one past the limit)', schema: withDefault, args: nested(65), code: ErrorCode.InvalidArguments, says: ['limit of 64'] },
  { name: 'a cyclic arguments object', schema: withDefault, args: cyclicNullProto, code: ErrorCode.InvalidArguments, says: ['cyclic object counts as too deep'] },
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
  ).map(([what, thrown]): Case => ({ name: `the tool throws ${what}`, run: () => { throw thrown; }, args: {}, code: ErrorCode.ToolFailed, says: ['Tool "hostile" failed', UNDESCRIBABLE] })),
  { name: 'the tool throws a cyclic null-prototype object', run: () => { throw cyclicNullProto; }, args: {}, code: ErrorCode.ToolFailed, says: ['Tool "hostile" failed', UNDESCRIBABLE] },
  { name: 'the tool rejects with a revoked proxy', run: () => Promise.reject(revokedProxy()), args: {}, code: ErrorCode.ToolFailed, says: [UNDESCRIBABLE] },
  { name: 'the tool returns a revoked proxy', run: () => revokedProxy(), args: {}, code: ErrorCode.ToolFailed, says: ['Tool "hostile" failed'] },
  // 3: data shaped like a ToolResult, with a broken part.
  { name: 'an audio part without data and mimeType', run: () => ({ content: [{ type: 'audio' }], isError: false }), args: {}, code: ErrorCode.InvalidResult, says: ['content[0] (type "audio") has no string "data"'] },
  { name: 'an image part with a numeric mimeType', run: () => ({ content: [{ type: 'text', text: 'ok' }, { type: 'image', data: 'AA==', mimeType: 7 }], isError: false }), args: {}, code: ErrorCode.InvalidResult, says: ['content[1] (type "image") has no string "mimeType"'] },
  { name: 'a resource link without a name', run: () => ({ content: [{ type: 'resource_link', uri: 'file:///x' }], isError: false }), args: {}, code: ErrorCode.InvalidResult, says: ['content[0] (type "resource_link") has no string "name"'] },
  // 6: numbers JSON cannot carry, from in-process callers.
  { name: 'NaN for a number', schema: withDefault, args: { n: Number.NaN }, code: ErrorCode.InvalidArguments, says: ['/n: must be a finite number (got NaN'] },
  { name: 'Infinity for a number', schema: withDefault, args: { n: Number.POSITIVE_INFINITY }, code: ErrorCode.InvalidArguments, says: ['/n: must be a finite number (got Infinity'] },
  { name: '-Infinity deep in an array', schema: withDefault, args: { a: [1, [Number.NEGATIVE_INFINITY]] }, code: ErrorCode.InvalidArguments, says: ['/a/1/0: must be a finite number (got -Infinity'] },
  // `__proto__` is a plain data key on both paths: an unknown property where none are allowed.
  { name: 'an own __proto__ key in object arguments, closed schema', schema: closed, args: JSON.parse('{"__proto__":{"polluted":true}}'), code: ErrorCode.InvalidArguments, says: ['/__proto__: is not an allowed property'] },
  { name: 'a __proto__ key in JSON text, closed schema', schema: closed, args: '{"__proto__":{"polluted":true}}', code: ErrorCode.InvalidArguments, says: ['/__proto__: is not an allowed property'] },
  // 7: invoke has no default timeout; one set on the call ends a tool that never settles.
  { name: 'a tool that never settles, under a call timeout', run: () => new Promise(() => undefined), args: { timeoutMs: 30 }, code: ErrorCode.Timeout, says: ['timed out after 30 ms'] },
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

describe('hostile input: what still passes', () => {
  const received: Array<Record<string, unknown>> = [];
  const open = new Toolset(tool((a: Record<string, unknown>) => void received.push(a), { name: 'open', description: 'Records its arguments.', parameters: withDefault }));

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
    const result = await new Toolset(tool(() => data, { name: 'video', description: 'Returns data.', parameters: { type: 'object', properties: {} } })).invoke('video', {});
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structured: data, isError: false });
  });
});
