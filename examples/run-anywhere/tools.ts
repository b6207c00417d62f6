// The same three tools as zod-tools.ts, written the anytool way: the schemas come from
// the types and JSDoc, at build time (anytool build, the loader, a bundler plugin).
import { BaseTool, type ExecutionContext, Tool, tool } from '@anytool/core';

/**
 * Convert an amount between two currencies.
 * @param amount How much to convert.
 * @param from ISO 4217 code of the currency it is in, for example "EUR".
 * @param to ISO 4217 code of the currency wanted.
 */
export const convert = tool(function convert(amount: number, from: string, to: string): string {
  return `${amount} ${from} = ${(amount * 1.1).toFixed(2)} ${to}`;
});

export interface ForecastArgs {
  /** The city to forecast for. */
  city: string;
  /** How many days ahead, 1 to 7. */
  days?: number;
  /** Degrees in celsius or fahrenheit. */
  unit?: 'celsius' | 'fahrenheit';
}

/** The weather forecast for a city. */
export class Forecast extends BaseTool<ForecastArgs> {
  override name = 'forecast';

  async execute(_context: ExecutionContext, { city, days = 1, unit = 'celsius' }: ForecastArgs): Promise<string> {
    return `${city}: sunny for ${days} day(s), 21 ${unit}`;
  }
}

export class Notes {
  private readonly notes: string[] = [];

  /**
   * Save a note for later.
   * @param text The note.
   * @param tags Words to find it by.
   */
  @Tool()
  save(text: string, tags: string[]): string {
    this.notes.push(text);
    return `saved note #${this.notes.length} (${tags.join(', ')})`;
  }
}
