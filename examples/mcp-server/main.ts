// Serves the example tools as an MCP server, from code:
//   node examples/dist/mcp-server/main.js                 (stdio: for a client that starts this process)
//   node examples/dist/mcp-server/main.js --http --port 3000
import { Toolset } from '@anytool/core';
import { MemoryEventStore, serveMcp } from '@anytool/mcp';
import { TaskConformanceTools } from './task-tools.js';
import { conformanceTools, demoTools } from './tools.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};

const toolset = new Toolset(conformanceTools, demoTools, new TaskConformanceTools());
const server = args.includes('--http')
  ? await serveMcp(toolset, {
      transport: 'http',
      port: Number(option('--port') ?? 3000),
      host: option('--host') ?? '127.0.0.1',
      name: 'anytool-example',
      handleSignals: true,
      // Resumable streams: a client that loses its stream reconnects and gets what it missed.
      eventStore: new MemoryEventStore(),
      retryIntervalMs: 500,
    })
  : await serveMcp(toolset, { transport: 'stdio', name: 'anytool-example', handleSignals: true });

// stdout belongs to the protocol over stdio: say everything else on stderr.
console.error(server.url === undefined ? `serving ${toolset.size} tools over stdio` : `serving ${toolset.size} tools at ${server.url}`);
await server.closed;
