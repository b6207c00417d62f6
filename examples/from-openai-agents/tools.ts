// Tools written for the OpenAI Agents SDK, ported to anytool: only the import of `tool` changed.
import { tool } from '@anytool/core';
import { z } from 'zod';

const RATES: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 151.2 };

export const getWeather = tool({
  name: 'get_weather',
  description: 'Get the weather for a given city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    return `The weather in ${city} is sunny.`;
  },
});

export const convertCurrency = tool({
  name: 'convert_currency',
  description: 'Convert an amount of money from one currency to another',
  parameters: z.object({
    amount: z.number().positive(),
    from: z.enum(['USD', 'EUR', 'GBP', 'JPY']),
    to: z.enum(['USD', 'EUR', 'GBP', 'JPY']),
    note: z.string().nullable().describe('Anything to say about the conversion'),
  }),
  execute: async ({ amount, from, to, note }) => {
    const converted = Math.round((amount / RATES[from]!) * RATES[to]! * 100) / 100;
    return { amount: converted, currency: to, ...(note === null ? {} : { note }) };
  },
});
