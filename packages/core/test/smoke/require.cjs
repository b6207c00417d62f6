// Requires the built package as CommonJS, the way a user's CommonJS project does.
const { ExecutionContext, Toolset, tool } = require('@anytool/core');
const runtime = require('@anytool/core/runtime');

const add = tool(({ a, b }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
new Toolset(add).invoke('add', { a: 2, b: 3 }, new ExecutionContext()).then((result) => {
  console.log(JSON.stringify({ format: 'cjs', text: result.content[0].text, runtime: Object.keys(runtime).sort() }));
});
