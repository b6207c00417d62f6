// Tools written for the Vercel AI SDK, ported to anytool: the import of `tool` changed,
// and each tool got the name the AI SDK took from its key in `tools: { ... }`.
import { tool } from '@anytool/core';
import { z } from 'zod';

/** A stand-in for a weather service: the same answer for the same place. */
function fahrenheitIn(location: string): number {
  let sum = 0;
  for (const char of location) sum += char.charCodeAt(0);
  return 50 + (sum % 40);
}

export const weather = tool({
  name: 'weather',
  description: 'Get the weather in a location (fahrenheit)',
  inputSchema: z.object({
    location: z.string().describe('The location to get the weather for'),
  }),
  execute: async ({ location }) => {
    const temperature = fahrenheitIn(location);
    return { location, temperature };
  },
});

export const convertFahrenheitToCelsius = tool({
  name: 'convertFahrenheitToCelsius',
  description: 'Convert a temperature in fahrenheit to celsius',
  inputSchema: z.object({
    temperature: z.number().describe('The temperature in fahrenheit to convert'),
  }),
  execute: async ({ temperature }) => {
    const celsius = Math.round((temperature - 32) * (5 / 9));
    return { celsius };
  },
});
