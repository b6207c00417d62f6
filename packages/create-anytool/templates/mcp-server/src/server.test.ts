import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Toolset, resultText } from '@anytool/core';
import { McpToolset, serveMcp } from '@anytool/mcp';
import { notebookTools } from './tools.js';

const server = fileURLToPath(new URL('./server.js', import.meta.url));

test('the tools have schemas from their types', () => {
  const addNote = notebookTools().get('addNote');
  assert.deepEqual(addNote?.definition.parameters, {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'What to remember' },
      priority: { type: 'string', enum: ['low', 'normal', 'high'], description: 'How much it matters', default: 'normal' },
    },
    required: ['text'],
    additionalProperties: false,
  });
});

test('an MCP client lists and calls the tools over stdio', async () => {
  const client = await McpToolset.connect({ mcpServers: { notebook: { command: process.execPath, args: [server] } } });
  const tools = new Toolset(client);
  try {
    assert.deepEqual(tools.names.sort(), ['addNote', 'listNotes']);
    await tools.invoke('addNote', { text: 'water the plants', priority: 'low' });
    await tools.invoke('addNote', { text: 'ship the release', priority: 'high' });
    const listed = JSON.parse(resultText(await tools.invoke('listNotes', {}))) as Array<{ text: string }>;
    assert.deepEqual(
      listed.map((note) => note.text),
      ['ship the release', 'water the plants'],
    );
    const refused = await tools.invoke('addNote', { text: 'x', priority: 'urgent' });
    assert.equal(refused.isError, true);
  } finally {
    await client.close();
  }
});

test('over HTTP too', async () => {
  const http = await serveMcp(notebookTools(), { transport: 'http', port: 0 });
  const client = await McpToolset.connect({ mcpServers: { notebook: { url: http.url! } } });
  try {
    assert.equal(resultText(await new Toolset(client).invoke('addNote', { text: 'over http' })).includes('over http'), true);
  } finally {
    await client.close();
    await http.close();
  }
});
