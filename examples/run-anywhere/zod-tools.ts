// The same three tools as tools.ts with zod schemas: no build step at all.
import { BaseTool, type ExecutionContext, Tool, tool } from '@anytool/core';
import { z } from 'zod';

export const convert = tool(({ amount, from, to }) => `${amount} ${from} = ${(amount * 1.1).toFixed(2)} ${to}`, {
  name: 'convert',
  description: 'Convert an amount between two currencies.',
  parameters: z.strictObject({
    amount: z.number().describe('How much to convert.'),
    from: z.string().describe('ISO 4217 code of the currency it is in, for example "EUR".'),
    to: z.string().describe('ISO 4217 code of the currency wanted.'),
  }),
});

const forecastArgs = z.strictObject({
  city: z.string().describe('The city to forecast for.'),
  days: z.number().optional().describe('How many days ahead, 1 to 7.'),
  unit: z.enum(['celsius', 'fahrenheit']).optional().describe('Degrees in celsius or fahrenheit.'),
});

export class Forecast extends BaseTool<z.output<typeof forecastArgs>> {
  constructor() {
    super({ name: 'forecast', description: 'The weather forecast for a city.', parameters: forecastArgs });
  }

  async execute(_context: ExecutionContext, { city, days = 1, unit = 'celsius' }: z.output<typeof forecastArgs>): Promise<string> {
    return `${city}: sunny for ${days} day(s), 21 ${unit}`;
  }
}

const noteArgs = z.strictObject({
  text: z.string().describe('The note.'),
  tags: z.array(z.string()).describe('Words to find it by.'),
});

export class Notes {
  private readonly notes: string[] = [];

  @Tool({ description: 'Save a note for later.', parameters: noteArgs })
  save({ text, tags }: z.output<typeof noteArgs>): string {
    this.notes.push(text);
    return `saved note #${this.notes.length} (${tags.join(', ')})`;
  }
}
