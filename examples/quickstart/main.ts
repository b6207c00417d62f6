import { ExecutionContext, Toolset, resultText } from '@anytool/core';
import { Clock, Notes, calculator, webSearch } from './tools.js';

const toolset = new Toolset(calculator, webSearch, new Clock(), new Notes());

console.log('anytool quickstart: four kinds of tool, one interface\n');
const rows = toolset.tools.map((t) => [
  t.name,
  t.source,
  Object.keys((t.definition.parameters['properties'] as object | undefined) ?? {}).join(', ') || '-',
  t.description ?? '',
]);
const header = ['tool', 'source', 'arguments', 'description'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
console.log(line(header));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const row of rows) console.log(line(row));

console.log('\nOpenAI (Chat Completions, strict) definitions:');
console.log(JSON.stringify(toolset.definitions('openai'), null, 2));
console.log('\nAnthropic definitions:');
console.log(JSON.stringify(toolset.definitions('anthropic'), null, 2));

console.log('\nEach tool called the same way: toolset.invoke(name, args, context)');
const context = new ExecutionContext();
const calls: Array<[string, unknown]> = [
  ['calculator', { expression: '1234 * 5678' }],
  ['web_search', { query: 'TypeScript decorators', maxResults: 2 }],
  ['Clock', { timeZone: 'Europe/Oslo' }],
  ['save', { text: 'buy milk' }],
  ['history', {}],
];
for (const [name, args] of calls) {
  const result = await toolset.invoke(name, args, context);
  console.log(`  ${name}(${JSON.stringify(args)}) -> ${result.isError ? 'ERROR ' : ''}${resultText(result)}`);
}
