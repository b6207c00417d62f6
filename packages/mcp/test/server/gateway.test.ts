import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tool, Toolset } from '@anytool/core';
import { McpToolset, serveMcp, type McpServerHandle } from '@anytool/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, httpClient, requireBuilt, startHttpChild, stopChild, waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Child processes and real servers: generous time on a loaded machine (nothing here asserts timing).
jest.setTimeout(scaled(60_000));

const entry = (name: string): string => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
/** The client tests' fixture server: its `cancelled_count` tool shows whether the upstream server saw a cancellation. */
const FIXTURE = join(__dirname, '..', 'fixtures', 'fixture-server.mjs');

class Local {
  readonly calls: string[] = [];

  @Tool({ description: 'Doubles a number.', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } })
  double({ n }: { n: number }): number {
    this.calls.push(`double ${n}`);
    return n * 2;
  }
}

function text(result: unknown): string {
  return ((result as { content: unknown }).content as Array<{ type: string; text?: string }>).map((c) => c.text ?? `[${c.type}]`).join('\n');
}

describe('a gateway: tools of two npm MCP servers plus local tools, served as one endpoint', () => {
  let dir: string;
  let memoryFile: string;
  let upstream: McpToolset;
  let local: Local;
  let gateway: Toolset;
  let server: McpServerHandle;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'anytool-gateway-test-'));
    memoryFile = join(dir, 'memory.jsonl');
    upstream = await McpToolset.connect(
      {
        mcpServers: {
          everything: { command: process.execPath, args: [entry('server-everything'), 'stdio'] },
          memory: { command: process.execPath, args: [entry('server-memory')], env: { MEMORY_FILE_PATH: memoryFile } },
          fixture: { command: process.execPath, args: [FIXTURE] },
        },
      },
      { prefix: true },
    );
    local = new Local();
    gateway = new Toolset(upstream, local);
    server = await serveMcp(gateway, { transport: 'http', port: 0, name: 'gateway' });
    ({ client } = await httpClient(server.url!));
  }, scaled(60_000));

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await upstream?.close();
    gateway?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the tools of both servers and the local ones, with their schemas as the servers give them', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(gateway.names);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything_echo',
        'everything_get-sum',
        'everything_get-structured-content',
        'memory_create_entities',
        'memory_read_graph',
        'double',
      ]),
    );
    const remote = upstream.get('everything_get-structured-content')!;
    const listed = tools.find((t) => t.name === 'everything_get-structured-content')!;
    expect(listed.inputSchema).toEqual(remote.definition.parameters);
    expect(listed.outputSchema).toEqual(remote.definition.outputSchema);
  });

  it('sends each call to the place its tool lives', async () => {
    expect(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'through the gateway' } }))).toBe('Echo: through the gateway');
    expect(text(await client.callTool({ name: 'everything_get-sum', arguments: { a: 2, b: 3 } }))).toBe('The sum of 2 and 3 is 5.');

    const created = await client.callTool({
      name: 'memory_create_entities',
      arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: ['found a moth'] }] },
    });
    expect(created.isError).toBeFalsy();
    expect(text(await client.callTool({ name: 'memory_read_graph', arguments: {} }))).toContain('found a moth');
    // server-memory wrote its own file: the call reached that process.
    expect(readFileSync(memoryFile, 'utf8')).toContain('Grace');

    expect(text(await client.callTool({ name: 'double', arguments: { n: 21 } }))).toBe('42');
    expect(local.calls).toEqual(['double 21']);
  });

  it('passes structured content, images, argument errors and upstream progress through', async () => {
    const structured = await client.callTool({ name: 'everything_get-structured-content', arguments: { location: 'Chicago' } });
    expect(structured.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });

    const image = await client.callTool({ name: 'everything_get-tiny-image', arguments: {} });
    expect(image.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png' })]));

    const invalid = await client.callTool({ name: 'everything_get-sum', arguments: { a: 'two', b: 3 } });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toContain('/a: must be number');

    // Upstream progress becomes progress events of the gateway's call, which go on to the client.
    const seen: Progress[] = [];
    const long = await client.callTool({ name: 'everything_trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(text(long)).toContain('Long running operation completed');
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.every((p) => p.total === 4)).toBe(true);
  });

  it('cancels the upstream call when the client cancels the gateway call', async () => {
    expect(text(await client.callTool({ name: 'fixture_cancelled_count', arguments: {} }))).toBe('0');
    const controller = new AbortController();
    let progressed = false;
    const call = client.callTool({ name: 'fixture_slow', arguments: { ms: 30_000, steps: 60 } }, undefined, {
      signal: controller.signal,
      onprogress: () => (progressed = true),
    });
    call.catch(() => undefined);
    // The first upstream progress notification shows the call is running on the upstream server.
    await waitFor(() => progressed, 20_000, 'upstream progress');
    controller.abort();
    await expect(call).rejects.toThrow();
    // The upstream server saw notifications/cancelled: its handler stopped and counted it.
    const deadline = Date.now() + 10_000;
    let count = '0';
    while (count !== '1' && Date.now() < deadline) {
      count = text(await client.callTool({ name: 'fixture_cancelled_count', arguments: {} }));
      if (count !== '1') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(count).toBe('1');
    expect(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'still here' } }))).toBe('Echo: still here');
  });

  it('tells the client when the gateway’s tools change', async () => {
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    gateway.remove('double');
    await waitFor(() => changes >= 1, 10_000, 'tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double');
  });
});

describe('the example gateway module, served by anytool serve', () => {
  const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
  const GATEWAY = 'examples/dist/mcp-server/gateway.js';

  it(
    'serves everything_*, memory_* and the local demo tools from one endpoint',
    async () => {
      requireBuilt(ANYTOOL, join(ROOT, GATEWAY));
      const server = await startHttpChild([ANYTOOL, 'serve', GATEWAY, '--http', '--port', '0']);
      const { client } = await httpClient(server.url).catch(async (error: unknown) => {
        await stopChild(server.child, server.exited);
        throw error;
      });
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['everything_echo', 'memory_read_graph', 'get_weather']));
        expect(text(await client.callTool({ name: 'everything_echo', arguments: { message: 'hi' } }))).toBe('Echo: hi');
        expect((await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })).structuredContent).toMatchObject({ city: 'Oslo' });
        expect(text(await client.callTool({ name: 'memory_read_graph', arguments: {} }))).toContain('entities');
      } finally {
        await client.close();
        expect(await stopChild(server.child, server.exited)).toBe(0);
      }
    },
    scaled(60_000),
  );
});
