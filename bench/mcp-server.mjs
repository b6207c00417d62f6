// MCP server overhead: what serving a tool through @anytool/mcp costs per call, next to a bare
// SDK low-level Server answering the same call by hand.
// Run after a build:  npm run build && node bench/mcp-server.mjs [--calls 3000]
//
// The official SDK client calls `add` on one session, sequentially, variants interleaved call by
// call (the order rotated each round) so drift hits every variant alike:
//   in-memory  bare SDK Server       a tools/call handler that adds two numbers (the floor)
//   in-memory  anytool               createMcpServer(toolset): fresh context, validation, events, result mapping
//   HTTP       bare SDK Server       StreamableHTTPServerTransport on node:http, one session
//   HTTP       anytool serveMcp      serveMcp(toolset, { transport: 'http' }) (Host/Origin check, sessions)
// plus toolset.invoke alone, the same work with no MCP at all.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ExecutionContext, Toolset, tool } from '@anytool/core';
import { createMcpServer, serveMcp } from '@anytool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg('--calls', 3000);
const WARMUP = 300;

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };
const add = tool(({ a, b }) => a + b, { name: 'add', description: 'Adds two numbers.', parameters });
const toolset = new Toolset(add);

function bareServer() {
  const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'add', description: 'Adds two numbers.', inputSchema: parameters }] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { a, b } = request.params.arguments;
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  return server;
}

async function inMemory(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

async function bareHttp() {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await bareServer().connect(transport);
  const http = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${http.address().port}/mcp`, close: () => new Promise((resolve) => { http.closeAllConnections(); http.close(resolve); }) };
}

async function httpClient(url) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const bareMemory = await inMemory(bareServer());
const anytoolMemory = await inMemory(createMcpServer(toolset));
const bareHttpServer = await bareHttp();
const bareHttpClient = await httpClient(bareHttpServer.url);
const served = await serveMcp(toolset, { transport: 'http', port: 0 });
const anytoolHttpClient = await httpClient(served.url);

const call = (client) => (i) => client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
const variants = [
  ['toolset.invoke (no MCP)', (i) => toolset.invoke('add', { a: i, b: 1 }, new ExecutionContext())],
  ['in-memory, bare SDK Server', call(bareMemory)],
  ['in-memory, anytool createMcpServer', call(anytoolMemory)],
  ['HTTP, bare SDK Server', call(bareHttpClient)],
  ['HTTP, anytool serveMcp', call(anytoolHttpClient)],
];

for (let i = 0; i < WARMUP; i++) for (const [, run] of variants) await run(i);
const samples = variants.map(() => []);
for (let i = 0; i < CALLS; i++) {
  // Rotate which variant goes first: the one after a given variant pays for that variant's leftovers (GC, timers).
  for (let k = 0; k < variants.length; k++) {
    const v = (i + k) % variants.length;
    const started = performance.now();
    const result = await variants[v][1](i);
    samples[v].push(performance.now() - started);
    const text = result.content[0].text;
    if (text !== String(i + 1)) throw new Error(`${variants[v][0]} answered ${text}`);
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const us = (ms) => `${(ms * 1000).toFixed(1)} us`;
console.log(`${CALLS} sequential calls each, Node ${process.version}\n`);
console.log('| variant | median | p90 | p99 | mean |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (let v = 0; v < variants.length; v++) {
  const sorted = [...samples[v]].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  console.log(`| ${variants[v][0]} | ${us(quantile(sorted, 0.5))} | ${us(quantile(sorted, 0.9))} | ${us(quantile(sorted, 0.99))} | ${us(mean)} |`);
}

await Promise.all([bareMemory.close(), anytoolMemory.close(), bareHttpClient.close(), anytoolHttpClient.close()]);
await served.close();
await bareHttpServer.close();
