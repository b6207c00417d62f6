// A served tool that throws something huge: the client gets a bounded error result over real HTTP.
import { ErrorCode, Toolset, tool } from '@anytool/core';
import { serveMcp, type McpServerHandle } from '@anytool/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const MB50 = 50 * 1024 * 1024;
/** A call must settle well within this: it only catches a hang (a 50 MB body takes far less to send). */
const HANG_BOUND_MS = scaled(10_000);

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n');
}

describe('serveMcp: a tool throwing a 50 MB message', () => {
  const toolset = new Toolset(
    tool(
      () => {
        throw new Error('x'.repeat(MB50));
      },
      { name: 'explode', description: 'Throws a 50 MB message.', parameters: { type: 'object', properties: {} } },
    ),
    tool(
      () => {
        throw 's'.repeat(MB50);
      },
      { name: 'explode_string', description: 'Throws a 50 MB string.', parameters: { type: 'object', properties: {} } },
    ),
  );
  const servers: McpServerHandle[] = [];
  const clients: Client[] = [];

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const server of servers) await server.close();
  });

  async function connect(options: { maxErrorChars?: number } = {}): Promise<Client> {
    const server = await serveMcp(toolset, { transport: 'http', port: 0, ...options });
    servers.push(server);
    const { client } = await httpClient(server.url!);
    clients.push(client);
    return client;
  }

  it(`the SDK client gets an isError result of at most 4,096 characters, with a note of the full length, within ${HANG_BOUND_MS} ms`, async () => {
    const client = await connect();
    for (const name of ['explode', 'explode_string']) {
      const started = Date.now();
      const result = await client.callTool({ name, arguments: {} });
      const ms = Date.now() - started;
      const bytes = JSON.stringify(result).length;
      expect(result.isError).toBe(true);
      const text = textOf(result);
      expect(text).toContain(`Tool "${name}" failed: `);
      expect(text.length).toBeLessThanOrEqual(4_096);
      expect(Number(/\[cut: (\d+) characters in all/.exec(text)?.[1])).toBeGreaterThanOrEqual(MB50);
      expect(bytes).toBeLessThan(10_000);
      expect(ms).toBeLessThan(HANG_BOUND_MS);
      process.stdout.write(`served ${name}, 50 MB thrown: result ${bytes} bytes over HTTP, ${ms} ms\n`);
    }
  });

  it('serveMcp({ maxErrorChars }) sets the bound of its results; nonsense is refused with INVALID_OPTIONS', async () => {
    const client = await connect({ maxErrorChars: 1_000 });
    const text = textOf(await client.callTool({ name: 'explode', arguments: {} }));
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toContain('maxErrorChars raises the limit');
    await expect(serveMcp(toolset, { transport: 'http', port: 0, maxErrorChars: 10 })).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: expect.stringContaining('maxErrorChars must be a whole number of characters from 256') as unknown,
    });
  });
});
