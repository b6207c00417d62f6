import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Toolset, tool, type ExecutionContext } from '@anytool/core';
import { McpConnection, mcpSession, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { httpClient } from './server/helpers';

// Real servers over HTTP on 127.0.0.1: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(60_000);

/** The version @anytool/mcp is published as: what the handshake must report, with no source edit on a bump. */
const published = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

/** A tool that answers with the client's name and version, as the server saw them in the handshake. */
const whoCalls = tool((_args: Record<string, never>, context: ExecutionContext) => JSON.stringify(mcpSession(context)?.clientInfo), {
  name: 'who_calls',
  description: 'The calling client, as it introduced itself.',
  parameters: { type: 'object', properties: {} },
  context: true,
});

describe('the version in the MCP handshake', () => {
  let server: McpServerHandle;

  beforeAll(async () => {
    server = await serveMcp(new Toolset([whoCalls]), { transport: 'http', port: 0 });
  });

  afterAll(async () => {
    await server.close();
  });

  it('the server reports it as serverInfo.version to an official SDK client', async () => {
    const { client } = await httpClient(server.url!);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'anytool', version: published });
    } finally {
      await client.close();
    }
  });

  it('a version given to serveMcp is reported instead', async () => {
    const own = await serveMcp(new Toolset([whoCalls]), { transport: 'http', port: 0, name: 'weather', version: '3.1.4' });
    const { client } = await httpClient(own.url!);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'weather', version: '3.1.4' });
    } finally {
      await client.close();
      await own.close();
    }
  });

  it('the client reports it as clientInfo.version, and reads the server version back', async () => {
    const connection = await McpConnection.open('self', { url: server.url! });
    try {
      expect(connection.serverInfo).toEqual({ name: 'anytool', version: published });
      const [seen] = (await connection.callTool('who_calls', {})).content;
      expect(seen).toEqual({ type: 'text', text: JSON.stringify({ name: 'anytool', version: published }) });
    } finally {
      await connection.close();
    }
  });
});
