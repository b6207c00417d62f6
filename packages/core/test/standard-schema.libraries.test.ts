// Standard Schema libraries other than zod, as a user would use them: valibot (whose
// schemas export JSON Schema only through @valibot/to-json-schema) and arktype.
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { AnytoolError, ErrorCode, Tool, Toolset, resultText, tool, toolsFrom } from '@anytool/core';

const placeOrder = (args: { city: string; items: Array<{ sku: string; qty: number }>; express: boolean }) =>
  `${args.items.reduce((n, item) => n + item.qty, 0)} item(s) to ${args.city}${args.express ? ', express' : ''}`;

/** One bad call breaking three fields: an INVALID_ARGUMENTS result naming each field's path. */
async function expectIssuesAtFields(toolset: Toolset): Promise<void> {
  const result = await toolset.invoke('place_order', {
    city: 'O',
    items: [
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 1.5 },
    ],
    express: 'yes',
  });
  expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
  const text = resultText(result);
  expect(text).toMatch(/^- \/city: .+$/m);
  expect(text).toMatch(/^- \/items\/1\/qty: .*integer.*$/m);
  expect(text).toMatch(/^- \/express: .+$/m);
}

describe('valibot', () => {
  const Order = v.object({
    city: v.pipe(v.string(), v.minLength(2), v.description('Delivery city')),
    items: v.array(v.object({ sku: v.string(), qty: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
    express: v.optional(v.boolean(), false),
  });

  test('a plain valibot schema fails at registration, naming the tool, valibot and the fix', () => {
    const order = tool(placeOrder, { name: 'place_order', description: 'Place an order.', parameters: Order });
    let error: unknown;
    try {
      new Toolset(order);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AnytoolError);
    expect((error as AnytoolError).code).toBe(ErrorCode.InvalidSchema);
    expect((error as AnytoolError).message).toMatch(/tool "place_order"/);
    expect((error as AnytoolError).message).toMatch(/"valibot", which does not export JSON Schema/);
    expect((error as AnytoolError).message).toMatch(/wrap the schema with toStandardJsonSchema\(\) from '@valibot\/to-json-schema'/);
  });

  describe('wrapped with toStandardJsonSchema', () => {
    const order = tool(placeOrder, { name: 'place_order', description: 'Place an order.', parameters: toStandardJsonSchema(Order) });
    const toolset = new Toolset(order);

    test('validates, fills defaults and runs the tool', async () => {
      const result = await toolset.invoke('place_order', '{"city":"Oslo","items":[{"sku":"a","qty":2},{"sku":"b","qty":1}]}');
      expect(result.isError).toBe(false);
      expect(resultText(result)).toBe('3 item(s) to Oslo');
    });

    test('issues become an INVALID_ARGUMENTS result with field paths', async () => {
      await expectIssuesAtFields(toolset);
    });

    test('its JSON Schema is what the model sees, in every format', () => {
      expect(order.definition.parameters).toMatchObject({
        type: 'object',
        properties: {
          city: { type: 'string', minLength: 2, description: 'Delivery city' },
          items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } },
          express: { type: 'boolean', default: false },
        },
        required: ['city', 'items'],
      });
      const [openai] = toolset.definitions('openai');
      expect(openai!.function.strict).toBe(true);
      expect(openai!.function.parameters).toMatchObject({ required: ['city', 'items', 'express'], additionalProperties: false });
      expect(toolset.definitions('anthropic')[0]!.input_schema).toMatchObject({ required: ['city', 'items'] });
      expect(toolset.definitions('gemini')[0]!.parametersJsonSchema).toMatchObject({ properties: { city: { minLength: 2 } } });
      expect(JSON.stringify(toolset.definitions('gemini'))).not.toContain('$schema');
    });

    test('on a method with @Tool({ parameters })', async () => {
      class Shop {
        @Tool({ description: 'Place an order.', parameters: toStandardJsonSchema(Order) })
        place(args: { city: string; items: Array<{ sku: string; qty: number }>; express: boolean }) {
          return placeOrder(args);
        }
      }
      const shop = new Toolset(...toolsFrom(new Shop()));
      expect(resultText(await shop.invoke('place', { city: 'Rome', items: [{ sku: 'a', qty: 1 }], express: true }))).toBe('1 item(s) to Rome, express');
      expect((await shop.invoke('place', { city: 'Rome', items: [{ sku: 'a', qty: 0 }] })).error?.code).toBe(ErrorCode.InvalidArguments);
    });

    test('the argument type comes from the schema', () => {
      // @ts-expect-error -- city is a string, not a number
      tool((args: { city: number }) => args.city, { name: 'wrong', description: 'Wrong type.', parameters: toStandardJsonSchema(Order) });
    });
  });
});

describe('arktype', () => {
  const Order = type({
    city: type('string >= 2').describe('Delivery city'),
    items: type({ sku: 'string', qty: 'number.integer >= 1' }).array(),
    'express?': 'boolean',
  });
  const order = tool(({ city, items, express }) => placeOrder({ city, items, express: express ?? false }), {
    name: 'place_order',
    description: 'Place an order.',
    parameters: Order,
  });
  const toolset = new Toolset(order);

  test('validates and runs the tool', async () => {
    const result = await toolset.invoke('place_order', '{"city":"Oslo","items":[{"sku":"a","qty":2}],"express":true}');
    expect(result.isError).toBe(false);
    expect(resultText(result)).toBe('2 item(s) to Oslo, express');
  });

  test('issues become an INVALID_ARGUMENTS result with field paths', async () => {
    await expectIssuesAtFields(toolset);
  });

  test('its Standard JSON Schema export is what the model sees, in every format', () => {
    expect(order.definition.parameters).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 2, description: 'Delivery city' },
        items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } },
        express: { type: 'boolean' },
      },
      required: ['city', 'items'],
    });
    const [openai] = toolset.definitions('openai');
    expect(openai!.function.strict).toBe(true);
    expect(openai!.function.parameters['additionalProperties']).toBe(false);
    expect([...(openai!.function.parameters['required'] as string[])].sort()).toEqual(['city', 'express', 'items']);
    expect(toolset.definitions('mcp')[0]!.inputSchema).toMatchObject({ type: 'object', required: ['city', 'items'] });
  });

  test('a strict-mode null for the optional field reaches the schema as absent', async () => {
    expect(resultText(await toolset.invoke('place_order', { city: 'Oslo', items: [], express: null }))).toBe('0 item(s) to Oslo');
  });
});
