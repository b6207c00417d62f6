import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultText } from '@anytool/core';
import { textTools } from './index.js';

test('every tool has a description and a schema from its types', () => {
  assert.deepEqual(textTools.names, ['countWords', 'slugify', 'repeat']);
  const slugify = textTools.get('slugify')!.definition;
  assert.equal(slugify.description, 'Make a URL slug from a title: lower case, words joined by hyphens.');
  assert.deepEqual(slugify.parameters, {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'The title' },
      maxLength: { type: 'number', description: 'The longest slug wanted', default: 60 },
    },
    required: ['title'],
    additionalProperties: false,
  });
});

test('the tools answer', async () => {
  assert.equal(resultText(await textTools.invoke('countWords', { text: ' one two  three ' })), '3');
  assert.equal(resultText(await textTools.invoke('slugify', { title: 'Crème Brûlée, at Home!' })), 'creme-brulee-at-home');
  assert.equal(resultText(await textTools.invoke('repeat', { text: 'ha', times: 3 })), 'ha ha ha');
});

test('arguments that do not match the schema come back as an error result, before the tool runs', async () => {
  const wrongType = await textTools.invoke('countWords', { text: 42 });
  assert.equal(wrongType.isError, true);
  const thrown = await textTools.invoke('repeat', { text: 'ha', times: 11 });
  assert.equal(thrown.isError, true);
  assert.match(resultText(thrown), /1 to 10/);
});
