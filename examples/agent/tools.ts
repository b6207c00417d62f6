import { Tool } from '@anytool/core';

interface Forecast {
  city: string;
  summary: string;
  highC: number;
  lowC: number;
}

const FORECASTS: Record<string, Forecast> = {
  oslo: { city: 'Oslo', summary: 'cloudy, light rain on Sunday', highC: 9, lowC: 3 },
  lisbon: { city: 'Lisbon', summary: 'sunny all weekend', highC: 22, lowC: 14 },
  paris: { city: 'Paris', summary: 'mild, a few showers', highC: 15, lowC: 8 },
};
const HOTEL_EUR_PER_NIGHT: Record<string, number> = { oslo: 165, lisbon: 95, paris: 140 };

function known(city: string): string {
  const key = city.trim().toLowerCase();
  if (!(key in FORECASTS)) throw new Error(`no data for "${city}"; known cities are Oslo, Lisbon and Paris`);
  return key;
}

/** Local tools, written as methods of a class marked with `@Tool`. */
export class TravelDesk {
  readonly holds: string[] = [];

  @Tool({
    name: 'get_weather',
    description: "The weekend's weather forecast for a city.",
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name, e.g. "Oslo"' } }, required: ['city'] },
    annotations: { readOnly: true },
  })
  async getWeather({ city }: { city: string }): Promise<Forecast> {
    await new Promise((resolve) => setTimeout(resolve, 20)); // a pretend network call
    return FORECASTS[known(city)]!;
  }

  @Tool({
    name: 'hotel_price',
    description: 'The price of a mid-range hotel in a city, in euros.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, nights: { type: 'integer', minimum: 1, maximum: 14 } },
      required: ['city', 'nights'],
    },
    annotations: { readOnly: true },
  })
  hotelPrice({ city, nights }: { city: string; nights: number }): { city: string; nights: number; perNightEur: number; totalEur: number } {
    const perNightEur = HOTEL_EUR_PER_NIGHT[known(city)]!;
    return { city: FORECASTS[known(city)]!.city, nights, perNightEur, totalEur: perNightEur * nights };
  }

  @Tool({
    name: 'hold_room',
    description: 'Put a refundable hold on a hotel room. Needs the user\'s approval.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, nights: { type: 'integer', minimum: 1, maximum: 14 } },
      required: ['city', 'nights'],
    },
    annotations: { destructive: true, idempotent: false },
    requiresApproval: true,
  })
  holdRoom({ city, nights }: { city: string; nights: number }): string {
    const reference = `HOLD-${FORECASTS[known(city)]!.city.toUpperCase()}-${nights}N`;
    this.holds.push(reference);
    return `room held in ${FORECASTS[known(city)]!.city} for ${nights} night(s), reference ${reference}`;
  }
}
