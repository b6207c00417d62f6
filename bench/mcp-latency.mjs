// MCP call latency: the raw SDK client against @anytool/mcp, on server-everything's echo over stdio.
// Run after a build:  npm run build && node bench/mcp-latency.mjs [--calls 2000]
//
// In one process, on one session of one server process (so the server's own speed cancels out),
// interleaved call by call so drift hits every variant alike:
//   raw SDK     Client.callTool on the kept session (the connection's SDK client)
//   + progress  the raw client with the request options McpTool uses (a progress token, timeout reset by progress)
//   execute     McpTool.execute alone: the MCP layer without BaseTool.invoke
//   McpTool     McpTool.invoke(context, args) (validation, events, result mapping)
//   toolset     Toolset.invoke(name, args, context), the agent's entry point
//   quiet       McpTool.invoke with requestProgress off (McpToolset option progress: false)
// then 500 calls at concurrency 50 (raw SDK vs toolset, rounds alternated), then a new
// connection per call (15 calls: spawn, initialize, call, close), the seed design's pattern.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ExecutionContext, Toolset } from '@anytool/core';
import { McpTool, McpToolset } from '@anytool/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg('--calls', 2000);
const WARMUP = 300;
const CONCURRENT_CALLS = 500;
const CONCURRENCY = 50;
const CONCURRENT_ROUNDS = 12;
const FRESH_CALLS = 15;
const server = { command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'pipe' };

async function rawClient() {
  const client = new Client({ name: 'bench-raw', version: '1.0.0' });
  await client.connect(new StdioClientTransport(server));
  return client;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99), mean };
}
const us = (ms) => `${(ms * 1000).toFixed(1)} us`;

const mcp = await McpToolset.connect({ mcpServers: { everything: { command: server.command, args: server.args } } });
const raw = mcp.connection('everything').sdkClient;
const toolset = new Toolset(mcp);
const echo = mcp.get('echo');
// The same tool on the same session without a progress token: the cost of asking for progress.
const quiet = new McpTool(mcp.connection('everything'), echo.info, 'echo', undefined, false);
let context = new ExecutionContext();

const variants = [
  ['raw SDK Client.callTool', (m) => raw.callTool({ name: 'echo', arguments: { message: m } })],
  // What McpTool asks the SDK for: a progress token (so progress can reach the run) and a timeout reset by progress.
  ['raw SDK + progress options', (m) => raw.callTool({ name: 'echo', arguments: { message: m } }, undefined, { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined })],
  // The MCP layer alone, without BaseTool.invoke (validation, events): splits the overhead between the layers.
  ['McpTool.execute (no invoke)', (m) => echo.execute(context, { message: m })],
  ['McpTool.invoke', (m) => echo.invoke(context, { message: m })],
  ['toolset.invoke', (m) => toolset.invoke('echo', { message: m }, context)],
  // Not the default: an McpToolset asks for progress unless given { progress: false }.
  ['McpTool.invoke with progress: false (NOT the default)', (m) => quiet.invoke(context, { message: m })],
];

// Check that every variant answers right before timing it.
for (const [name, call] of variants) {
  const result = await call('check');
  const text = result.content[0]?.text;
  if (text !== 'Echo: check') throw new Error(`${name} answered ${JSON.stringify(result)}`);
}

for (let i = 0; i < WARMUP; i++) for (const [, call] of variants) await call(`w${i}`);

const samples = variants.map(() => []);
for (let i = 0; i < CALLS; i++) {
  if (i % 500 === 0) context = new ExecutionContext(); // one run's history, not the whole bench's
  for (let k = 0; k < variants.length; k++) {
    const v = (i + k) % variants.length; // rotate the order so no variant always goes first
    const start = performance.now();
    await variants[v][1](`m${i}`);
    samples[v].push(performance.now() - start);
  }
}
const sequential = variants.map(([name], v) => ({ name, ...stats(samples[v]) }));
const rawMedian = sequential[0].median;

async function concurrent(call) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONCURRENT_CALLS) await call(`c${next++}`);
    }),
  );
  return CONCURRENT_CALLS / ((performance.now() - start) / 1000);
}
const concurrentVariants = [variants[0], variants[4], variants[5]];
const throughput = concurrentVariants.map(() => []);
for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
  context = new ExecutionContext();
  for (let k = 0; k < concurrentVariants.length; k++) {
    const v = (round + k) % concurrentVariants.length;
    throughput[v].push(await concurrent(concurrentVariants[v][1]));
  }
}
const median = (xs) => stats(xs).median;

const fresh = [];
for (let i = 0; i < FRESH_CALLS; i++) {
  const start = performance.now();
  const client = await rawClient();
  await client.callTool({ name: 'echo', arguments: { message: `f${i}` } });
  await client.close();
  fresh.push(performance.now() - start);
}

await mcp.close();

console.log(`\nMCP call latency, server-everything echo over stdio (${CALLS} interleaved calls each, Node ${process.version})\n`);
console.log('| variant | median | p90 | p99 | mean | median vs raw |');
console.log('|---|---|---|---|---|---|');
for (const row of sequential) console.log(`| ${row.name} | ${us(row.median)} | ${us(row.p90)} | ${us(row.p99)} | ${us(row.mean)} | ${(row.median / rawMedian).toFixed(3)}x |`);
const freshStats = stats(fresh);
console.log(`| new connection per call (raw SDK, ${FRESH_CALLS} calls) | ${freshStats.median.toFixed(1)} ms | ${freshStats.p90.toFixed(1)} ms | - | ${freshStats.mean.toFixed(1)} ms | ${(freshStats.median / rawMedian).toFixed(0)}x |`);
console.log(`\n| ${CONCURRENT_CALLS} calls at concurrency ${CONCURRENCY} (median of ${CONCURRENT_ROUNDS} rounds each) | calls/s | vs raw |`);
console.log('|---|---|---|');
const rawThroughput = median(throughput[0]);
concurrentVariants.forEach(([name], v) => console.log(`| ${name} | ${median(throughput[v]).toFixed(0)} | ${(median(throughput[v]) / rawThroughput).toFixed(3)}x |`));

console.log('\nRows marked "progress: false (NOT the default)" call the same tool on the same session without a progress token,');
console.log('as McpToolset.connect(..., { progress: false }) does. The default (progress: true) is the "McpTool.invoke" and');
console.log('"toolset.invoke" rows; compare those with "raw SDK + progress options", the raw client asking for the same.');
const quietRatio = sequential[5].median / rawMedian;
const quietTput = median(throughput[2]) / rawThroughput;
console.log(`progress: false (NOT the default): median ${quietRatio.toFixed(3)}x raw; concurrency-50 throughput ${quietTput.toFixed(3)}x raw`);

const ratio = sequential[4].median / rawMedian;
const tput = median(throughput[1]) / rawThroughput;
console.log(`\ntargets (default, progress: true): toolset.invoke median ${ratio.toFixed(3)}x raw (target <= 1.05x): ${ratio <= 1.05 ? 'met' : 'MISSED'}; concurrency-50 throughput ${tput.toFixed(3)}x raw (target >= 1.0x): ${tput >= 1 ? 'met' : 'MISSED'}`);
