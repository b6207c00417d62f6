// The demo's local tools: methods of a class marked with @Tool. No JSON Schema is
// written by hand: `anytool build` reads the parameter types and the JSDoc and
// passes each schema into the decorator (see docs/build-setup.md).
import { Tool } from '@anytool/core';

export interface Forecast {
  city: string;
  summary: string;
  highC: number;
  lowC: number;
}

/** A hotel stay. */
export interface Stay {
  /** City name, e.g. "Lisbon". */
  city: string;
  /**
   * Number of nights.
   * @minimum 1
   * @maximum 14
   */
  nights: number;
}

const FORECASTS: Record<string, Forecast> = {
  oslo: { city: 'Oslo', summary: 'cloudy, light rain on Sunday', highC: 9, lowC: 3 },
  lisbon: { city: 'Lisbon', summary: 'sunny all weekend', highC: 22, lowC: 14 },
  paris: { city: 'Paris', summary: 'mild, a few showers', highC: 15, lowC: 8 },
};
const HOTEL_EUR_PER_NIGHT: Record<string, number> = { oslo: 165, lisbon: 95, paris: 140 };

function known(city: string): Forecast {
  const forecast = FORECASTS[city.trim().toLowerCase()];
  if (forecast === undefined) throw new Error(`no data for "${city}"; known cities are Oslo, Lisbon and Paris`);
  return forecast;
}

export class TravelDesk {
  readonly holds: string[] = [];

  /**
   * The weekend's weather forecast for a city.
   * @param city City name, e.g. "Oslo"
   */
  @Tool({ name: 'get_weather', annotations: { readOnly: true } })
  async getWeather(city: string): Promise<Forecast> {
    await new Promise((resolve) => setTimeout(resolve, 20)); // a pretend network call
    return known(city);
  }

  /** The price of a mid-range hotel in a city, in euros. */
  @Tool({ name: 'hotel_price', annotations: { readOnly: true } })
  hotelPrice({ city, nights }: Stay): { city: string; nights: number; perNightEur: number; totalEur: number } {
    const { city: name } = known(city);
    const perNightEur = HOTEL_EUR_PER_NIGHT[name.toLowerCase()]!;
    return { city: name, nights, perNightEur, totalEur: perNightEur * nights };
  }

  /** Put a refundable hold on a hotel room. Needs the user's approval. */
  @Tool({ name: 'hold_room', annotations: { destructive: true, idempotent: false }, requiresApproval: true })
  holdRoom({ city, nights }: Stay): string {
    const { city: name } = known(city);
    const reference = `HOLD-${name.toUpperCase()}-${nights}N`;
    this.holds.push(reference);
    return `room held in ${name} for ${nights} night(s), reference ${reference}`;
  }
}
