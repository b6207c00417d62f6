// A gateway: the tools of two MCP servers from npm plus local tools, served as one MCP server.
//   npx anytool serve examples/dist/mcp-server/gateway.js --http --port 3000
// Clients see `everything_*` and `memory_*` tools (prefixed by server) next to the local ones;
// each call is forwarded to the server the tool came from.
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Toolset } from '@anytool/core';
import { McpToolset } from '@anytool/mcp';
import { DemoTools } from './demo-tools.js';

const require = createRequire(import.meta.url);
const entry = (name: string): string => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
const memoryFile = process.env['MEMORY_FILE_PATH'] ?? join(mkdtempSync(join(tmpdir(), 'anytool-gateway-')), 'memory.jsonl');

/** The upstream servers, started as child processes of this one (the Node running this file starts them). */
export const upstream = await McpToolset.connect(
  {
    mcpServers: {
      everything: { command: process.execPath, args: [entry('server-everything'), 'stdio'] },
      memory: { command: process.execPath, args: [entry('server-memory')], env: { MEMORY_FILE_PATH: memoryFile } },
    },
  },
  { prefix: true },
);

/** What `anytool serve` serves: a Toolset, so only it is served (it follows the servers' tools/list_changed). */
export const gateway = new Toolset(upstream, new DemoTools());
