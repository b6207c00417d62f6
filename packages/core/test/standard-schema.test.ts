import { z } from 'zod';
import { AnytoolError, ErrorCode, ExecutionContext, Tool, Toolset, defineTool, resultText, tool, toolsFrom, type StandardSchemaV1 } from '@anytool/core';
import { isStandardSchema } from '../src/standard-schema.js';

const add = tool(({ a, b }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
});

describe('Standard Schema parameters', () => {
  test('a zod 4 object is detected as a Standard Schema', () => {
    expect(isStandardSchema(z.object({}))).toBe(true);
    expect(isStandardSchema({ type: 'object' })).toBe(false);
  });

  test('validates with the schema and passes the arguments object', async () => {
    const result = await new Toolset(add).invoke('add', { a: 2, b: 3 });
    expect(result.isError).toBe(false);
    expect(resultText(result)).toBe('5');
  });

  test('the tool receives the schema output: coerced and defaulted', async () => {
    const seen: unknown[] = [];
    const schema = z.object({ count: z.coerce.number(), unit: z.enum(['c', 'f']).default('c'), tags: z.array(z.string()).default([]) });
    const t = tool(
      (args) => {
        seen.push(args);
        const count: number = args.count;
        return count * 2;
      },
      { name: 'double', description: 'Double a count.', parameters: schema },
    );
    const result = await new Toolset(t).invoke('double', '{"count": "21"}');
    expect(resultText(result)).toBe('42');
    expect(seen).toEqual([{ count: 21, unit: 'c', tags: [] }]);
  });

  test('validation issues become an INVALID_ARGUMENTS result with field paths', async () => {
    const t = tool((args) => args, {
      name: 'place',
      description: 'Place an order.',
      parameters: z.object({ city: z.string(), items: z.array(z.object({ qty: z.number().int() })) }),
    });
    const result = await new Toolset(t).invoke('place', { city: 7, items: [{ qty: 1 }, { qty: 1.5 }] });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    const text = resultText(result);
    expect(text).toMatch(/^Invalid arguments for tool "place":\n/);
    expect(text).toMatch(/^- \/city: .+$/m);
    expect(text).toMatch(/^- \/items\/1\/qty: .+$/m);
    expect(text).toMatch(/Fix the arguments and call the tool again\.$/);
  });

  test('a missing argument is reported at its path, and the tool is not run', async () => {
    const fn = jest.fn();
    const t = tool(fn, { name: 'needs', description: 'Needs a.', parameters: z.object({ a: z.string() }) });
    const result = await t.invoke(new ExecutionContext(), {});
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(result)).toMatch(/^- \/a: /m);
    expect(fn).not.toHaveBeenCalled();
  });

  test('async validation (a Promise from ~standard.validate) is awaited', async () => {
    const schema = z.object({ name: z.string().refine(async (v) => v !== 'taken', 'is taken') });
    const t = tool(({ name }) => `hello ${name}`, { name: 'claim', description: 'Claim a name.', parameters: schema });
    const set = new Toolset(t);
    expect(resultText(await set.invoke('claim', { name: 'ada' }))).toBe('hello ada');
    const refused = await set.invoke('claim', { name: 'taken' });
    expect(refused.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(refused)).toMatch(/^- \/name: is taken$/m);
  });

  test('its JSON Schema export is the tool parameters, lowered for each provider', () => {
    const t = tool((args) => args, {
      name: 'weather',
      description: 'Current weather.',
      parameters: z.object({ city: z.string().describe('City name'), unit: z.enum(['celsius', 'fahrenheit']).optional() }),
    });
    const set = new Toolset(t);
    expect(t.parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] });

    const [openai] = set.definitions('openai');
    expect(openai).toMatchObject({ type: 'function', function: { name: 'weather', strict: true } });
    const openaiParams = (openai as { function: { parameters: Record<string, unknown> } }).function.parameters;
    expect(openaiParams['required']).toEqual(['city', 'unit']);
    expect(openaiParams['additionalProperties']).toBe(false);
    expect(openaiParams).not.toHaveProperty('$schema');

    const [anthropic] = set.definitions('anthropic');
    expect(anthropic).toMatchObject({ name: 'weather', input_schema: { type: 'object', required: ['city'] } });

    const [gemini] = set.definitions('gemini');
    expect(gemini).toMatchObject({ name: 'weather', parametersJsonSchema: { type: 'object', required: ['city'] } });
    expect(JSON.stringify(gemini)).not.toContain('$schema');
  });

  test('strict-mode nulls for optional fields reach the schema as absent', async () => {
    const t = tool((args) => JSON.stringify(args), {
      name: 'opt',
      description: 'Optional field.',
      parameters: z.object({ a: z.string(), b: z.number().default(1) }),
    });
    expect(resultText(await new Toolset(t).invoke('opt', { a: 'x', b: null }))).toBe('{"a":"x","b":1}');
  });

  test('a Standard Schema that cannot export JSON Schema fails at registration, naming tool, library and fix', () => {
    const opaque: StandardSchemaV1<{ a: number }> = {
      '~standard': { version: 1, vendor: 'opaquelib', validate: (value) => ({ value: value as { a: number } }) },
    };
    const t = tool(({ a }) => a, { name: 'opaque', description: 'No JSON Schema.', parameters: opaque });
    let error: unknown;
    try {
      new Toolset(t);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AnytoolError);
    expect((error as AnytoolError).code).toBe(ErrorCode.InvalidSchema);
    expect((error as AnytoolError).message).toMatch(/tool "opaque"/);
    expect((error as AnytoolError).message).toMatch(/"opaquelib"/);
    expect((error as AnytoolError).message).toMatch(/Standard JSON Schema .*or pass a JSON Schema/);
  });

  test('JSON-Schema parameters still work as before', async () => {
    const t = tool(({ a }: { a: number }) => a + 1, {
      name: 'inc',
      description: 'Increment.',
      parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    });
    const set = new Toolset(t);
    expect(resultText(await set.invoke('inc', { a: 1 }))).toBe('2');
    expect(resultText(await set.invoke('inc', { a: 'x' }))).toMatch(/^- \/a: must be number$/m);
  });
});

describe('Standard Schema parameters on methods', () => {
  test('@Tool({ parameters }) with a zod object', async () => {
    class Greeter {
      prefix = 'Hello';
      @Tool({ description: 'Greet someone.', parameters: z.object({ name: z.string().trim(), excited: z.boolean().default(false) }) })
      greet(args: { name: string; excited: boolean }) {
        return `${this.prefix}, ${args.name}${args.excited ? '!' : '.'}`;
      }
    }
    const set = new Toolset(...toolsFrom(new Greeter()));
    expect(resultText(await set.invoke('greet', { name: '  Ada ' }))).toBe('Hello, Ada.');
    expect((await set.invoke('greet', { name: 3 })).error?.code).toBe(ErrorCode.InvalidArguments);
    expect(set.definitions('anthropic')[0]).toMatchObject({ input_schema: { properties: { name: { type: 'string' } }, required: ['name'] } });
  });

  test('defineTool with a zod object', async () => {
    class Maths {
      mul(args: { a: number; b: number }) {
        return args.a * args.b;
      }
    }
    defineTool(Maths, 'mul', { description: 'Multiply.', parameters: z.object({ a: z.coerce.number(), b: z.coerce.number() }) });
    const set = new Toolset(...toolsFrom(new Maths()));
    expect(resultText(await set.invoke('mul', { a: '6', b: 7 }))).toBe('42');
  });
});

describe('Standard Schema parameter types', () => {
  test('the argument type comes from the schema', () => {
    const schema = z.object({ a: z.number() });
    // @ts-expect-error -- a is a number, not a string
    tool(({ a }: { a: string }) => a, { name: 'wrong', description: 'Wrong type.', parameters: schema });
    tool(({ a }: { a: number }) => a, { name: 'right', description: 'Right type.', parameters: schema });
  });
});

describe('tool() in object form (as the AI SDK and the OpenAI Agents SDK write it)', () => {
  test('with parameters: execute receives the schema output and the context', async () => {
    const seen: unknown[] = [];
    const weather = tool({
      name: 'get_weather',
      description: 'Get the weather for a city.',
      parameters: z.object({ city: z.string(), unit: z.enum(['c', 'f']).default('c') }),
      execute: async ({ city, unit }, context) => {
        seen.push(context instanceof ExecutionContext);
        const name: string = city;
        return `${name}: 21 ${unit}`;
      },
    });
    const set = new Toolset(weather);
    expect(resultText(await set.invoke('get_weather', '{"city":"Oslo"}'))).toBe('Oslo: 21 c');
    expect(seen).toEqual([true]);
    expect((await set.invoke('get_weather', { city: 1 })).error?.code).toBe(ErrorCode.InvalidArguments);
    expect(set.definitions('anthropic')[0]).toMatchObject({
      name: 'get_weather',
      description: 'Get the weather for a city.',
      input_schema: { required: ['city'] },
    });
  });

  test('with inputSchema', async () => {
    const add = tool({ name: 'add', description: 'Add.', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
    expect(resultText(await new Toolset(add).invoke('add', { a: 2, b: 3 }))).toBe('5');
  });

  test('argument types come from the schema', () => {
    // @ts-expect-error -- a is a number
    tool({ name: 'wrong', description: 'Wrong.', parameters: z.object({ a: z.number() }), execute: ({ a }: { a: string }) => a });
  });

  test('a missing name, execute or schema is a coded error naming the fix', () => {
    const definition = { description: 'No name.', inputSchema: z.object({}), execute: () => 1 };
    expect(() => tool(definition as never)).toThrow(/a tool in object form needs a name; add name: '...'/);
    expect(() => tool({ name: 'x', description: 'No execute.', parameters: z.object({}) } as never)).toThrow(
      /tool\(\{ name: "x", \.\.\. \}\): expected an execute function/,
    );
    expect(() => tool({ name: 'x', description: 'No schema.', execute: () => 1 } as never)).toThrow(
      /give the arguments' schema as parameters \(or inputSchema\)/,
    );
    expect(() => tool({ name: 'x', description: 'No schema.', execute: () => 1 } as never)).toThrow(expect.objectContaining({ code: ErrorCode.MissingSchema }));
    const both = { name: 'x', description: 'Two schemas.', parameters: z.object({}), inputSchema: z.object({}), execute: () => 1 };
    expect(() => tool(both as never)).toThrow(
      expect.objectContaining({ code: ErrorCode.ConflictingOptions, message: expect.stringContaining('give parameters or inputSchema, not both') }),
    );
  });
});
