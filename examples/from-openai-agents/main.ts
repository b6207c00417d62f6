// The ported OpenAI Agents SDK tools in a toolset: their definitions for a model, and the
// calls a model would make, arguments as JSON text.
import { Toolset, resultText } from '@anytool/core';
import { convertCurrency, getWeather } from './tools.js';

const toolset = new Toolset(getWeather, convertCurrency);

console.log('OpenAI (Responses, strict) definitions:');
console.log(JSON.stringify(toolset.definitions('openai-responses'), null, 2));

const calls: Array<[string, string]> = [
  ['get_weather', '{"city":"Tokyo"}'],
  ['convert_currency', '{"amount":100,"from":"USD","to":"EUR","note":null}'],
  ['convert_currency', '{"amount":-5,"from":"USD","to":"XYZ","note":null}'],
];
for (const [name, args] of calls) {
  const result = await toolset.invoke(name, args);
  console.log(`${name}(${args}) -> ${result.isError ? `ERROR ${result.error?.code} ` : ''}${resultText(result)}`);
}
