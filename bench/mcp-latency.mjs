// MCP call latency: the raw SDK client against @anytool/mcp, on server-everything's echo over stdio.
// Run after a build:  npm run build && node bench/mcp-latency.mjs [--calls 1000] [--rounds 20] [--target-rounds 200] [--fresh 5]
// The defaults are what `npm run bench` runs (about a minute); --calls 2000 --rounds 100 --target-rounds 1600 --fresh 15 gives
// the narrow intervals a 4% margin needs (a quarter of an hour).
//
// In one process, on one session of one server process (so the server's own speed cancels out:
// two server processes of the same build differ by several percent), interleaved call by call so
// drift hits every variant alike:
//   raw SDK        Client.callTool on the kept session (the connection's SDK client): the baseline
//   raw request    Client.request for tools/call, the request McpConnection sends (the SDK checks the result with
//                  its own schema here; McpConnection with a permissive one, then checkCallResult)
//   raw, our reader  Client.callTool reading stdout with the connection's StdioReadBuffer
//   execute        McpTool.execute alone: the MCP layer without BaseTool.invoke
//   McpTool        McpTool.invoke(context, args) (validation, events, result mapping)
//   toolset        Toolset.invoke(name, args, context), the agent's entry point (the target row)
//   with signal    toolset.invoke in a run that has an abort signal, as an Agent's run does
//   + progress     the raw client asking for progress, and McpTool asking for it (progress: true):
//                  a progress token costs the server work on every call, so these compare with each other
// The raw SDK rows run exactly as the SDK ships: while they run, the session reads the server's
// stdout with the SDK's own ReadBuffer, swapped in between calls (no call is in flight then);
// the connection's own StdioReadBuffer is swapped back for the rows of this package.
// Then rounds of 500 calls at concurrency 50: `--rounds` rounds of every variant, then `--target-rounds` rounds of
// the target pair (raw SDK against toolset.invoke, with the raw client reading through
// StdioReadBuffer beside them, to show what the reader gives), then a new connection per call
// (`--fresh` calls: spawn, initialize, call, close), the seed design's pattern.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ExecutionContext, Toolset } from '@anytool/core';
import { McpTool, McpToolset } from '@anytool/mcp';
import { Client, ReadBuffer } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CALLS = arg('--calls', 1000);
const WARMUP = 300;
const CONCURRENT_CALLS = 500;
const CONCURRENCY = 50;
const CONCURRENT_ROUNDS = arg('--rounds', 20);
const TARGET_ROUNDS = arg('--target-rounds', 200);
const FRESH_CALLS = arg('--fresh', 5);
// The bootstrap below draws blocks of rounds, at least five blocks of two, and a ratio needs at least 3 calls.
if (CALLS < 3 || CONCURRENT_ROUNDS < 10 || TARGET_ROUNDS < 10 || FRESH_CALLS < 3)
  throw new Error('mcp-latency: --calls and --fresh take at least 3, --rounds and --target-rounds at least 10');
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
const connection = mcp.connection('everything');
const raw = connection.sdkClient;
const toolset = new Toolset(mcp);
// The session's stdout reader: the SDK's own for the raw rows, the connection's for the others.
const transport = connection['transport'];
const ourReader = transport._readBuffer;
const sdkReader = new ReadBuffer();
if (ourReader instanceof ReadBuffer || !(transport instanceof StdioClientTransport))
  throw new Error('the connection does not read with its StdioReadBuffer: this bench needs updating');
function readWith(reader) {
  const current = transport._readBuffer;
  if (current === reader) return;
  // Bytes of a line not yet whole (none, unless a notification is half read) go along: the SDK's reader keeps them in
  // `_buffer`, StdioReadBuffer in `buffer` and the chunks after it without a line break in `parts`.
  const rest = current === sdkReader ? current._buffer : Buffer.concat([...(current.buffer === undefined ? [] : [current.buffer]), ...current.parts]);
  current.clear();
  if (rest !== undefined && rest.length > 0) reader.append(rest);
  transport._readBuffer = reader;
}
const echo = mcp.get('echo');
// The same tool on the same session, asking for progress (McpToolset option progress: true).
const loud = new McpTool(connection, echo.info, 'echo', undefined, true);
let context = new ExecutionContext();
let runWithSignal = new ExecutionContext({ signal: new AbortController().signal });
const newRuns = () => {
  context = new ExecutionContext();
  runWithSignal = new ExecutionContext({ signal: new AbortController().signal });
};
const progressOptions = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };

const rawCall = (m) => raw.callTool({ name: 'echo', arguments: { message: m } });
// [name, call, reader]
const variants = [
  ['raw SDK Client.callTool', rawCall, sdkReader],
  // What McpConnection sends: the same request without Client.callTool's async frame and checks.
  ['raw SDK Client.request(tools/call)', (m) => raw.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: m } } }), sdkReader],
  ['raw SDK Client.callTool, read with StdioReadBuffer', rawCall, ourReader],
  ['McpTool.execute (no invoke)', (m) => echo.execute(context, { message: m }), ourReader],
  ['McpTool.invoke', (m) => echo.invoke(context, { message: m }), ourReader],
  ['toolset.invoke', (m) => toolset.invoke('echo', { message: m }, context), ourReader],
  ['toolset.invoke, run with an abort signal', (m) => toolset.invoke('echo', { message: m }, runWithSignal), ourReader],
  ['raw SDK + progress token', (m) => raw.callTool({ name: 'echo', arguments: { message: m } }, progressOptions), sdkReader],
  ['McpTool.invoke, progress: true', (m) => loud.invoke(context, { message: m }), ourReader],
];
const RAW = 0;
const RAW_OUR_READER = 2;
const TOOLSET = 5;
const RAW_PROGRESS = 7;
const LOUD = 8;

// Check that every variant answers right before timing it.
for (const [name, call, reader] of variants) {
  readWith(reader);
  const result = await call('check');
  const text = result.content[0]?.text;
  if (text !== 'Echo: check') throw new Error(`${name} answered ${JSON.stringify(result)}`);
}

for (let i = 0; i < WARMUP; i++) {
  for (const [, call, reader] of variants) {
    readWith(reader);
    await call(`w${i}`);
  }
}

const samples = variants.map(() => []);
for (let i = 0; i < CALLS; i++) {
  if (i % 500 === 0) newRuns(); // one run's history, not the whole bench's
  for (let k = 0; k < variants.length; k++) {
    const v = (i + k) % variants.length; // rotate the order so no variant always goes first
    readWith(variants[v][2]);
    const start = performance.now();
    await variants[v][1](`m${i}`);
    samples[v].push(performance.now() - start);
  }
}
const sequential = variants.map(([name], v) => ({ name, ...stats(samples[v]) }));
const rawMedian = sequential[RAW].median;

async function concurrent(call) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CONCURRENT_CALLS) await call(`c${next++}`);
    }),
  );
  return performance.now() - start;
}
// Every round runs each variant once, in a rotated order, so the machine's drift between rounds
// hits every variant alike. A variant's throughput is its calls over its total time in all rounds;
// the 95% interval of its ratio to raw comes from resampling the rounds. Single rounds vary a lot
// (500 calls take 7 to 45 ms here, as the client's and the server's bursts line up or not, and
// the ratio of two neighbouring rounds varies by about 45%): every variant gets `--rounds` rounds, and
// the target pair (raw against toolset.invoke) `--target-rounds` more of its own, with raw through our reader.
async function interleavedRounds(chosen, rounds) {
  const times = chosen.map(() => []);
  const cpu = chosen.map(() => 0);
  for (let round = 0; round < rounds; round++) {
    newRuns();
    for (let k = 0; k < chosen.length; k++) {
      const v = (round + k) % chosen.length;
      readWith(chosen[v][2]);
      const before = process.cpuUsage();
      times[v].push(await concurrent(chosen[v][1]));
      const used = process.cpuUsage(before);
      cpu[v] += used.user + used.system;
    }
  }
  return { rounds, times, cpu };
}
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const callsPerSecond = (run, v) => (run.rounds * CONCURRENT_CALLS) / (sum(run.times[v]) / 1000);
const ratioTo = (run, v, base = 0) => sum(run.times[base]) / sum(run.times[v]);
function ratioInterval(run, v, base = 0) {
  // mulberry32: a small seeded generator, exact in 32-bit integer arithmetic.
  let seed = 42;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // A moving-block bootstrap: neighbouring rounds share the machine's state, so runs of
  // BLOCK rounds are drawn together (single rounds would give too narrow an interval). At
  // least five blocks a draw: with two, a short run's interval can miss its own estimate.
  const BLOCK = Math.max(2, Math.min(10, Math.floor(run.rounds / 5)));
  const ratios = [];
  for (let b = 0; b < 2000; b++) {
    let baseTime = 0;
    let time = 0;
    for (let drawn = 0; drawn < run.rounds; drawn += BLOCK) {
      const first = Math.floor(random() * (run.rounds - BLOCK + 1));
      for (let round = first; round < first + BLOCK; round++) {
        baseTime += run.times[base][round];
        time += run.times[v][round];
      }
    }
    ratios.push(baseTime / time);
  }
  ratios.sort((a, b) => a - b);
  return [quantile(ratios, 0.025), quantile(ratios, 0.975)];
}
const concurrentVariants = [variants[RAW], variants[TOOLSET], variants[TOOLSET + 1], variants[RAW_OUR_READER], variants[RAW_PROGRESS], variants[LOUD]];
const C_RAW_PROGRESS = 4;
const C_LOUD = 5;
const everyVariant = await interleavedRounds(concurrentVariants, CONCURRENT_ROUNDS);
const targetVariants = [variants[RAW], variants[TOOLSET], variants[RAW_OUR_READER]];
const targetPair = await interleavedRounds(targetVariants, TARGET_ROUNDS);
readWith(ourReader);
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
for (const row of sequential)
  console.log(`| ${row.name} | ${us(row.median)} | ${us(row.p90)} | ${us(row.p99)} | ${us(row.mean)} | ${(row.median / rawMedian).toFixed(3)}x |`);
const freshStats = stats(fresh);
console.log(
  `| new connection per call (raw SDK, ${FRESH_CALLS} calls) | ${freshStats.median.toFixed(1)} ms | ${freshStats.p90.toFixed(1)} ms | - | ${freshStats.mean.toFixed(1)} ms | ${(freshStats.median / rawMedian).toFixed(0)}x |`,
);
console.log(
  `\n| ${CONCURRENT_CALLS} calls at concurrency ${CONCURRENCY}, ${CONCURRENT_ROUNDS} interleaved rounds | calls/s | vs raw | 95% interval | client CPU per call |`,
);
console.log('|---|---|---|---|---|');
const cpuPerCall = (run, v) => run.cpu[v] / (run.rounds * CONCURRENT_CALLS);
concurrentVariants.forEach(([name], v) => {
  const [low, high] = ratioInterval(everyVariant, v);
  console.log(
    `| ${name} | ${callsPerSecond(everyVariant, v).toFixed(0)} | ${ratioTo(everyVariant, v).toFixed(3)}x | ${low.toFixed(3)}-${high.toFixed(3)} | ${cpuPerCall(everyVariant, v).toFixed(1)} us |`,
  );
});
const rawProgress = sequential[RAW_PROGRESS].median;
console.log(
  `\nprogress: true (asked for per server or toolset): McpTool.invoke median ${(sequential[LOUD].median / rawProgress).toFixed(3)}x the raw client asking for progress too;`,
);
console.log(
  `concurrency-50 throughput ${ratioTo(everyVariant, C_LOUD, C_RAW_PROGRESS).toFixed(3)}x of it (the token itself costs the server: raw with a token ${ratioTo(everyVariant, C_RAW_PROGRESS).toFixed(3)}x raw without)`,
);

console.log(
  `\n| the target pair (and raw with our reader), ${TARGET_ROUNDS} more interleaved rounds | calls/s | vs raw | 95% interval | client CPU per call |`,
);
console.log('|---|---|---|---|---|');
targetVariants.forEach(([name], v) => {
  const [low, high] = ratioInterval(targetPair, v);
  console.log(
    `| ${name} | ${callsPerSecond(targetPair, v).toFixed(0)} | ${ratioTo(targetPair, v).toFixed(3)}x | ${low.toFixed(3)}-${high.toFixed(3)} | ${cpuPerCall(targetPair, v).toFixed(1)} us |`,
  );
});

const ratio = sequential[TOOLSET].median / rawMedian;
const tput = ratioTo(targetPair, 1);
const [tputLow, tputHigh] = ratioInterval(targetPair, 1);
const [layerLow, layerHigh] = ratioInterval(targetPair, 1, 2);
console.log(
  `\nwhere the margin comes from: toolset.invoke ${ratioTo(targetPair, 1, 2).toFixed(3)}x (95% interval ${layerLow.toFixed(3)}-${layerHigh.toFixed(3)}) the raw SDK client reading with StdioReadBuffer as it does; the reader gives raw ${ratioTo(targetPair, 2).toFixed(3)}x`,
);
const tputVerdict =
  tputLow >= 1
    ? 'met'
    : tput >= 1
      ? 'met by the point estimate (the interval includes 1.0)'
      : tputHigh >= 1
        ? 'MISSED by the point estimate, but the interval includes 1.0: not told apart from raw in this run'
        : 'MISSED';
console.log(
  `\ntargets (defaults): toolset.invoke median ${ratio.toFixed(3)}x raw (target <= 1.05x): ${ratio <= 1.05 ? 'met' : 'MISSED'}; concurrency-50 throughput ${tput.toFixed(3)}x raw, 95% interval ${tputLow.toFixed(3)}-${tputHigh.toFixed(3)} (target >= 1.0x): ${tputVerdict}`,
);
