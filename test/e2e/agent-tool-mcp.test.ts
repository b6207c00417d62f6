// An agent used as a tool, served over MCP by `anytool serve` in a child process and called with the
// official MCP client: the inner agent runs on a model (Chat Completions through the official client,
// pointed at a local server), and a call whose inner run waits for approval ends with that, since an
// MCP call cannot pause.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startProviderServer, type ProviderServer } from '../../packages/agent/test/helpers/provider-server';
import { PROVIDERS } from '../../packages/agent/test/helpers/provider-replies';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const root = join(__dirname, '..', '..');
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = join(__dirname, 'fixtures', 'agent-tool-module.mjs');
const openai = PROVIDERS.find((p) => p.name === 'openai')!;

describe('an agent as a tool, served by anytool serve', () => {
  let provider: ProviderServer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await provider?.close();
    client = undefined;
    provider = undefined;
  });

  it('is listed with its task schema and answers a call by running the inner agent', async () => {
    provider = await startProviderServer([
      openai.toolCall('call_1', 'search', { query: '2024 report' }, false),
      openai.text('The archive has 3 results on the 2024 report.', false),
      openai.toolCall('call_2', 'pay', { amount: 40 }, false),
    ]);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [anytool, 'serve', MODULE],
      env: { ...(process.env as Record<string, string>), PROVIDER_URL: provider.url },
      stderr: 'pipe',
    });
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['billing', 'research']);
    expect(tools.find((t) => t.name === 'research')).toMatchObject({
      description: 'Researches a question in the archive.',
      inputSchema: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
    });

    const answer = await client.callTool({ name: 'research', arguments: { task: 'What does the 2024 report say?' } });
    expect(answer).toEqual({ content: [{ type: 'text', text: 'The archive has 3 results on the 2024 report.' }] });
    // The inner model saw the task alone, then its tool's result.
    expect(JSON.stringify(provider.requests[0]!.body['messages'])).toContain('What does the 2024 report say?');
    expect(JSON.stringify(provider.requests[1]!.body['messages'])).toContain('3 results for 2024 report');

    const paused = await client.callTool({ name: 'billing', arguments: { task: 'Pay 40' } });
    expect(paused.isError).toBe(true);
    expect(JSON.stringify(paused.content)).toMatch(
      /waits for the user's approval.*the agent \\"billing\\" waits: tool \\"pay\\" needs approval.*this run cannot pause for it/,
    );
  });
});
