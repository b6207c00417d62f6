import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Toolset, resultText } from '@anytool/core';
import { startAgent } from './agent.js';
import { Calculator } from './calculator.js';
import { scriptedModel } from './model.js';
import { Units } from './units.js';

test('the tools have schemas from their types', () => {
  const [add] = new Toolset(new Calculator()).definitions('openai');
  assert.deepEqual(add?.function.parameters, {
    type: 'object',
    properties: { a: { type: 'number', description: 'The first number' }, b: { type: 'number', description: 'The second number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  });
});

test('a call with a wrong argument is refused before the tool runs', async () => {
  const result = await new Toolset(new Units()).invoke('convertDistance', { value: 1, from: 'km', to: 'miles' });
  assert.equal(result.isError, true);
});

test('the agent calls a local tool and the MCP server tool, and answers', async () => {
  const { agent, close } = await startAgent(scriptedModel());
  try {
    const result = await agent.run('What is 17 + 25, and how many miles is a marathon?');
    assert.equal(result.text, '17 + 25 = 42, and a 42.195 km marathon is 26.22 miles.');
    const calls = result.context.events.filter((event) => event.type === 'tool_call');
    assert.equal(calls.length, 2);
  } finally {
    await close();
  }
});

test('resultText reads a tool result', async () => {
  const result = await new Toolset(new Calculator()).invoke('multiply', { a: 6, b: 7 });
  assert.equal(resultText(result), '42');
});
