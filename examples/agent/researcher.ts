// The demo's agent used as a tool: after the travel run, a lead agent hands the
// weather question to a forecaster agent, which it calls like any tool
// (`forecaster.asTool(...)`). The forecaster runs in a context of its own with the
// travel desk's get_weather tool; its events come back under the lead's call, and
// its tokens count in the lead's usage. Offline, both models are scripted.
import { resultText, type Toolset } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type Model } from '@anytool/agent';
import type { Forecast } from './tools.js';

/** Runs the lead agent and prints what its forecaster did; with a real model, both agents run on it. */
export async function printForecasterDemo(model: Model | undefined, tools: Toolset): Promise<void> {
  const forecaster = new Agent({
    name: 'forecaster',
    model: model ?? scriptedForecaster(),
    tools: [tools.get('get_weather')!],
    instructions: 'You compare weather forecasts. Use get_weather for each city, then answer in one sentence.',
  });
  const lead = new Agent({
    name: 'lead',
    model: model ?? scriptedLead(),
    tools: [forecaster.asTool({ name: 'forecaster', description: 'Compares the weather of cities; give it the whole question.' })],
    instructions: 'Delegate weather questions to the forecaster.',
  });
  const result = await lead.run('Which is warmer this weekend, Oslo or Lisbon?');
  console.log('\nagent as a tool: lead -> forecaster');
  for (const event of result.context.events) {
    if (event.type === 'tool_call') console.log(`  lead calls ${event.tool} ${JSON.stringify(event.args)}`);
    if (event.type === 'nested' && event.event.type === 'tool_call')
      console.log(`    forecaster calls ${event.event.tool} ${JSON.stringify(event.event.args)}`);
    if (event.type === 'tool_result') console.log(`  ${event.tool} answers: ${resultText(event.result)}`);
  }
  console.log(`  lead: ${result.text} (${result.usage.totalTokens} tokens, the forecaster's included)`);
}

function scriptedForecaster(): ScriptedModel {
  return new ScriptedModel(
    [
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Oslo' } },
          { name: 'get_weather', arguments: { city: 'Lisbon' } },
        ],
      },
      (request) => {
        const [oslo, lisbon] = latestToolResults(request).map((m) => m.result.structured as Forecast);
        const [warmer, other] = lisbon!.highC >= oslo!.highC ? [lisbon!, oslo!] : [oslo!, lisbon!];
        return { text: `${warmer.city} is warmer: ${warmer.highC} °C against ${other.highC} °C.` };
      },
    ],
    { name: 'scripted forecaster' },
  );
}

function scriptedLead(): ScriptedModel {
  return new ScriptedModel(
    [
      { toolCalls: [{ name: 'forecaster', arguments: { task: 'Which is warmer this weekend, Oslo or Lisbon?' } }] },
      (request) => ({ text: `The forecaster says: ${resultText(latestToolResults(request)[0]!.result)}` }),
    ],
    { name: 'scripted lead' },
  );
}
