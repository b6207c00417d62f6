import { Tool } from '@anytool/core';

export type DistanceUnit = 'km' | 'mi';

const METRES: Record<DistanceUnit, number> = { km: 1000, mi: 1609.344 };

/** Unit conversions, served over MCP by units-server.ts: the agent reaches them as an MCP server's tools. */
export class Units {
  /**
   * Convert a distance between kilometres and miles, rounded to two decimals.
   * @param value The distance
   * @param from Its unit
   * @param to The unit wanted
   */
  @Tool()
  convertDistance(value: number, from: DistanceUnit, to: DistanceUnit): number {
    return Math.round(((value * METRES[from]) / METRES[to]) * 100) / 100;
  }
}
