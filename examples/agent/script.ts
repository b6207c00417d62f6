import { resultText, textResult, type ToolResult } from '@anytool/core';
import { ScriptedModel, latestToolResults, type ModelRequest, type ScriptStep } from '@anytool/agent';

export const QUESTION =
  'I have a free weekend. Compare the forecasts for Oslo and Lisbon. For the warmer city, what do 2 hotel nights plus a 45 EUR dinner cost? If that is under 300 EUR, put a hold on the room.';

interface Forecast {
  city: string;
  highC: number;
  summary: string;
}

function results(request: ModelRequest): ToolResult[] {
  return latestToolResults(request).map((m) => m.result);
}

/** The last number in a result's text ("The sum of 190 and 45 is 235." -> 235). */
function lastNumber(result: ToolResult | undefined): number {
  const numbers = (result === undefined ? '' : resultText(result)).match(/-?\d+(\.\d+)?/g) ?? [];
  return Number(numbers[numbers.length - 1] ?? NaN);
}

/**
 * The turns a model would take for QUESTION, replayed offline. Later turns read
 * the tool results they were sent, so the answer is computed by the tools.
 * `sumTool` is the tool that adds two numbers ({ a, b }); `webSearchTool` the provider's
 * built-in web search, whose call the scripted provider reports as run on its side.
 */
export function scriptedTravelModel(sumTool: string, webSearchTool: string): ScriptedModel {
  let warmer: Forecast | undefined;
  let other: Forecast | undefined;
  let hotel = 0;
  let total = 0;
  const script: ScriptStep[] = [
    {
      text: 'Let me get both forecasts.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Oslo' } },
        { name: 'get_weather', arguments: { city: 'Lisbon' } },
      ],
      // The provider's own web search, run on its side during the turn: it comes back with the turn, already done.
      builtinCalls: [
        {
          id: 'ws_demo_1',
          name: webSearchTool,
          arguments: { type: 'search', query: 'things to do this weekend in Oslo and Lisbon' },
          result: textResult(
            'Oslo: jazz festival at Nasjonal jazzscene (example.com/oslo). Lisbon: Feira da Ladra flea market on Saturday (example.com/lisbon).',
          ),
        },
      ],
    },
    (request) => {
      const [oslo, lisbon] = results(request).map((r) => r.structured as Forecast);
      [warmer, other] = lisbon!.highC >= oslo!.highC ? [lisbon!, oslo!] : [oslo!, lisbon!];
      // A realistic slip: the number of nights sent as a word. The tool's schema rejects it.
      return {
        text: `${warmer.city} is warmer (${warmer.highC} °C against ${other.highC} °C). Checking the hotel price.`,
        toolCalls: [{ name: 'hotel_price', arguments: { city: warmer.city, nights: 'two' } }],
      };
    },
    () => ({
      text: 'The tool wants the nights as a number; trying again.',
      toolCalls: [{ name: 'hotel_price', arguments: { city: warmer!.city, nights: 2 } }],
    }),
    (request) => {
      hotel = (results(request)[0]!.structured as { totalEur: number }).totalEur;
      return { text: `Two nights cost ${hotel} EUR. Adding the dinner.`, toolCalls: [{ name: sumTool, arguments: { a: hotel, b: 45 } }] };
    },
    (request) => {
      total = lastNumber(results(request)[0]);
      if (!(total < 300)) return { text: `The total is ${total} EUR, over your 300 EUR limit, so I did not hold a room.` };
      return {
        text: `${total} EUR is under 300 EUR, so I am holding the room.`,
        toolCalls: [{ name: 'hold_room', arguments: { city: warmer!.city, nights: 2 } }],
      };
    },
    (request) => {
      const hold = results(request)[0];
      const held = hold !== undefined && !hold.isError ? `Done: ${resultText(hold)}.` : 'The hold was not approved, so nothing is reserved.';
      return {
        text:
          `${warmer!.city} is the warmer choice: ${warmer!.summary}, up to ${warmer!.highC} °C (${other!.city}: ${other!.summary}, up to ${other!.highC} °C). ` +
          `Two hotel nights (${hotel} EUR) plus dinner (45 EUR) come to ${total} EUR. ${held}`,
      };
    },
  ];
  return new ScriptedModel(script, { name: 'scripted travel agent' });
}
