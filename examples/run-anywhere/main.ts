// Prints the definitions of the same tools for every provider, then calls each once.
// `main.js` uses the build-time tools; `main.js zod` the zod ones. Every way of running
// it (README.md) prints the same definitions.
import { ExecutionContext, Toolset, resultText } from '@anytool/core';

const which = process.argv[2] === 'zod' ? await import('./zod-tools.js') : await import('./tools.js');
const toolset = new Toolset(which.convert, new which.Forecast(), new which.Notes());

for (const format of ['openai', 'anthropic', 'gemini', 'mcp'] as const) {
  console.log(`${format}: ${JSON.stringify(toolset.definitions(format))}`);
}
const context = new ExecutionContext();
const calls: Array<[string, unknown]> = [
  ['convert', { amount: 10, from: 'EUR', to: 'USD' }],
  ['forecast', { city: 'Oslo', days: 2 }],
  ['save', { text: 'buy milk', tags: ['home'] }],
  ['forecast', { city: 'Oslo', unit: 'kelvin' }],
];
for (const [name, args] of calls) console.log(`${name}(${JSON.stringify(args)}) -> ${resultText(await toolset.invoke(name, args, context))}`);
