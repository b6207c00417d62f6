import { Toolset, resultText } from '@anytool/core';
import { McpConnection } from '@anytool/mcp';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpChild, stopChild } from '../server/helpers';
import { alive, connectForEachTest, tempDir, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

/** A v2 SDK server of both eras that logs its starts and the requests it reads (see the file). */
const ERAS = join(__dirname, '..', 'fixtures', 'eras-server.mjs');

/** The lines of the fixture's log that start with `prefix`. */
function logged(file: string, prefix: string): number {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 0;
  }
  return text.split('\n').filter((line) => line.startsWith(prefix)).length;
}

describe('the era a server was found to speak', () => {
  it('is kept across a restart after the server died: the new process is not probed again (stdio)', async () => {
    const log = join(tempDir('eras'), 'log');
    const connection = await McpConnection.open('e', { command: process.execPath, args: [ERAS, 'stdio'], env: { ERA_LOG: log } });
    const pids: number[] = [];
    try {
      expect(connection.era).toBe('modern');
      const startsBefore = logged(log, 'start ');
      const probesBefore = logged(log, 'request server/discover');
      // The first start probed (the count below would hide a restart that probes if there were none to compare with).
      expect(probesBefore).toBeGreaterThanOrEqual(1);
      const first = connection.pid!;
      pids.push(first);
      process.kill(first, 'SIGKILL');
      await until(() => !connection.connected, 10_000, 'the connection to see the server die');

      expect((await connection.callTool('echo', { message: 'again' })).content).toEqual([{ type: 'text', text: 'echo: again' }]);
      pids.push(connection.pid!);
      expect(connection.starts).toBe(2);
      expect(connection.era).toBe('modern');
      // One process more (no probe sibling), and no server/discover sent to it: the SDK got the kept verdict.
      expect(logged(log, 'start ')).toBe(startsBefore + 1);
      expect(logged(log, 'request server/discover')).toBe(probesBefore);
      expect(logged(log, 'request tools/call')).toBe(1);
      expect(connection.diagnostics.filter((d) => d.includes('speaks the 2026-07-28 protocol'))).toHaveLength(1);
    } finally {
      await connection.close();
    }
    for (const pid of pids) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
  });
});

describe('one server process per start over stdio', () => {
  // The SDK probes its base stdio transport on a sibling process and then starts the server again for the session.
  it.each(['auto', 'modern'] as const)('protocol %s: the era probe runs on the session process', async (protocol) => {
    const log = join(tempDir('eras'), 'log');
    const connection = await McpConnection.open('e', { command: process.execPath, args: [ERAS, 'stdio'], env: { ERA_LOG: log }, protocol });
    try {
      expect(connection.era).toBe('modern');
      expect(logged(log, 'start ')).toBe(1);
      expect(logged(log, 'request server/discover')).toBe(1);
      expect((await connection.callTool('echo', { message: 'one' })).content).toEqual([{ type: 'text', text: 'echo: one' }]);
    } finally {
      await connection.close();
    }
  });
});

describe('modern-era tools/list_changed, through subscriptions/listen', () => {
  const connect = connectForEachTest();

  async function followsChanges(config: Parameters<typeof McpConnection.open>[1]): Promise<void> {
    const mcp = await connect({ mcpServers: { e: config } });
    expect(mcp.connection('e')?.era).toBe('modern');
    const toolset = new Toolset(mcp);
    let changes = 0;
    toolset.subscribe(() => changes++);
    expect(toolset.has('late_tool')).toBe(false);
    expect(resultText(await toolset.invoke('add_tool', { name: 'late_tool' }))).toBe('added');
    await until(() => toolset.has('late_tool'), 10_000, 'the toolset to see the new tool');
    expect(changes).toBeGreaterThanOrEqual(1);
    expect(resultText(await toolset.invoke('late_tool', {}))).toBe('ran late_tool');
    // Closed while the server still runs (an HTTP server is stopped after this).
    await mcp.close();
  }

  it('refreshes the tool list over stdio', async () => {
    await followsChanges({ command: process.execPath, args: [ERAS, 'stdio'] });
  });

  it('opens the stream after open() returned, with no request to wait for: a change made by another client reaches an idle connection', async () => {
    const server = await startHttpChild([ERAS, 'http']);
    const connection = await McpConnection.open('e', { url: server.url, protocol: 'modern' });
    let changes = 0;
    connection.onToolsChanged(() => changes++);
    const other = new Client({ name: 'other', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await other.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      expect(connection.tools.map((tool) => tool.name)).toEqual(['echo', 'add_tool']);
      // The stream opens a moment after open() returned, and a change before the server has it reaches no one: the
      // other client adds tools until one is seen (a connection that never listened sees none).
      const seen = (): boolean => connection.tools.some((tool) => tool.name.startsWith('idle_'));
      for (let n = 0; n < 20 && !seen(); n++) {
        expect((await other.callTool({ name: 'add_tool', arguments: { name: `idle_${n}` } })).content).toEqual([{ type: 'text', text: 'added' }]);
        await until(seen, 500, 'the idle connection to see a new tool').catch(() => undefined);
      }
      expect(seen()).toBe(true);
      expect(changes).toBeGreaterThanOrEqual(1);
      expect(connection.diagnostics.filter((line) => line.includes('subscriptions/listen'))).toEqual([]);
    } finally {
      await other.close();
      await connection.close();
      expect(await stopChild(server.child, server.exited)).toBe(0);
    }
  });

  it('refreshes the tool list over streamable HTTP', async () => {
    const server = await startHttpChild([ERAS, 'http']);
    try {
      await followsChanges({ url: server.url });
    } finally {
      expect(await stopChild(server.child, server.exited)).toBe(0);
    }
  });
});
