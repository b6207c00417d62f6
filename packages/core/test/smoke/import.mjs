// Imports the built package as ESM, the way a user's ESM project does.
import { ExecutionContext, Toolset, tool } from '@anytool/core';
import * as runtime from '@anytool/core/runtime';

const add = tool(({ a, b }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
const result = await new Toolset(add).invoke('add', { a: 2, b: 3 }, new ExecutionContext());
console.log(JSON.stringify({ format: 'esm', text: result.content[0].text, runtime: Object.keys(runtime).sort() }));
