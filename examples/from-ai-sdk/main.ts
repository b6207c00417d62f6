// The ported AI SDK tools in a toolset: their definitions for a model, and the calls a
// model would make, arguments as JSON text.
import { Toolset, resultText } from '@anytool/core';
import { convertFahrenheitToCelsius, weather } from './tools.js';

const toolset = new Toolset(weather, convertFahrenheitToCelsius);

console.log('OpenAI (Chat Completions, strict) definitions:');
console.log(JSON.stringify(toolset.definitions('openai'), null, 2));

const calls: Array<[string, string]> = [
  ['weather', '{"location":"San Francisco"}'],
  ['convertFahrenheitToCelsius', '{"temperature":72}'],
  ['convertFahrenheitToCelsius', '{"temperature":"hot"}'],
];
for (const [name, args] of calls) {
  const result = await toolset.invoke(name, args);
  console.log(`${name}(${args}) -> ${result.isError ? `ERROR ${result.error?.code} ` : ''}${resultText(result)}`);
}
