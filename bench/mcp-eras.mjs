// MCP clients side by side on one server: the raw v2 SDK Client (the baseline of the v2 migration), the raw v1 SDK
// Client, our McpConnection, and the Vercel AI SDK's MCP client, on server-everything's echo over stdio and over
// streamable HTTP.
// Run after a build:  npm run build && node bench/mcp-eras.mjs [--rounds 5] [--calls 200] [--concurrent-calls N]
//                     [--transport stdio|http]   (both by default)
//                     [--without NAMES]   (also McpConnection without the speed tricks NAMES, comma-separated or `all`;
//                                          see packages/mcp/src/client/speedups/speedups.ts)
//
// Each variant runs in a process of its own (driven by this one over IPC, so no variant shares JIT type feedback, GC
// or event loop with another) and keeps one connection: over stdio a server process of its own (the same build), over
// HTTP one shared server-everything process on 127.0.0.1 (a session each). Rounds interleave the variants, McpConnection between the
// two it is held against (raw v2 Client, AI SDK) and the order reversed every other round, so each compared pair runs
// back to back, each side first in half the rounds, and a burst of load elsewhere on the machine hits both sides of a
// ratio alike. Each round measures, per variant:
//   sequential   `--calls` calls one after another: the median latency of the round
//   client CPU   process.cpuUsage() of the variant's process over those calls, per call (the servers are other
//                processes: this is client work)
//   throughput   `--concurrent-calls` calls (6,000 over stdio, 1,500 over HTTP), 50 in flight at a time, in 6 bursts the
//                variants take in turns: calls/s, and the client's CPU per call meanwhile (the work each client leaves
//                the machine's cores to do: steadier than calls/s on a busy machine)
// Reported: min / median / max over the rounds, and the median's ratio to the raw v2 Client; the targets as per-round
// ratios.
// server-everything is built on the v1 SDK, so every variant speaks the 2025 era here (the v2 Client in its default
// mode, no probe; McpConnection probes once at connect and falls back): the numbers compare the clients' own costs,
// not the eras.
import { fork, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { McpConnection } from '@anytool/mcp';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const SERVERS = new URL('../packages/mcp/test/fixtures/interop/servers.mjs', import.meta.url).pathname;
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('--rounds', 5);
if (ROUNDS < 3) throw new Error('mcp-eras: --rounds takes at least 3: the ratios are medians over rounds');
const CALLS = arg('--calls', 200);
// Calls per throughput sample, about a third of a second of work on each transport: a shorter burst (1,500 stdio calls
// take under 0.1 s) is at the mercy of the scheduler, and its per-round ratios spread from 0.7x to 1.4x.
const CONCURRENT_CALLS = { stdio: arg('--concurrent-calls', 6000), http: arg('--concurrent-calls', 1500) };
const CONCURRENCY = 50;
const only = process.argv.indexOf('--transport');
const TRANSPORTS = only >= 0 ? [process.argv[only + 1]] : ['stdio', 'http'];
if (!TRANSPORTS.every((t) => t === 'stdio' || t === 'http')) {
  console.error(`mcp-eras: --transport takes stdio or http, not ${process.argv[only + 1] ?? 'nothing'}`);
  process.exit(2);
}
const withoutAt = process.argv.indexOf('--without');
/** Speed tricks of McpConnection measured against a copy of it without them (ANYTOOL_MCP_WITHOUT), if asked. */
const WITHOUT = withoutAt >= 0 ? process.argv[withoutAt + 1] : undefined;
const PLAIN = `anytool McpConnection without ${WITHOUT}`;
/** Bursts a round's concurrent calls are taken in, the variants taking turns (see measure). */
const BURSTS = 6;
// Long enough for every server process (one per variant over stdio) and client to reach steady JIT state.
const WARMUP = 1000;
const stdio = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const args = { message: 'hello' };

/** server-everything over streamable HTTP on 127.0.0.1 and a free port (the interop fixture binds it there). */
async function startHttpServer() {
  const child = spawn(process.execPath, [SERVERS, 'everything', 'http'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /listening (http:\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${text}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Each variant: `call()` makes one echo call and resolves when it is answered; `close()` ends the connection. */
const variants = {
  'raw v2 Client': async (transport, url) => {
    const client = new V2Client({ name: 'bench-v2', version: '1.0.0' });
    await client.connect(transport === 'stdio' ? new V2Stdio({ ...stdio, stderr: 'ignore' }) : new V2Http(new URL(url)));
    return { call: () => client.callTool({ name: 'echo', arguments: args }), close: () => client.close() };
  },
  'raw v1 Client': async (transport, url) => {
    const client = new V1Client({ name: 'bench-v1', version: '1.0.0' });
    await client.connect(transport === 'stdio' ? new V1Stdio({ ...stdio, stderr: 'ignore' }) : new V1Http(new URL(url)));
    return { call: () => client.callTool({ name: 'echo', arguments: args }), close: () => client.close() };
  },
  'anytool McpConnection': async (transport, url) => {
    const connection = await McpConnection.open('everything', transport === 'stdio' ? stdio : { url });
    return { call: () => connection.callTool('echo', args), close: () => connection.close() };
  },
  ...(WITHOUT === undefined
    ? {}
    : {
        [PLAIN]: async (transport, url) => {
          const connection = await McpConnection.open('everything', transport === 'stdio' ? stdio : { url });
          return { call: () => connection.callTool('echo', args), close: () => connection.close() };
        },
      }),
  'Vercel AI SDK (@ai-sdk/mcp)': async (transport, url) => {
    const client = await createMCPClient({
      transport: transport === 'stdio' ? new Experimental_StdioMCPTransport({ ...stdio, stderr: 'ignore' }) : { type: 'http', url },
    });
    const { echo } = await client.tools();
    const options = { toolCallId: 'bench', messages: [] };
    return { call: () => echo.execute(args, options), close: () => client.close() };
  },
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (values) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const spread = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: quantile(sorted, 0.5), max: sorted.at(-1) };
};

async function sequential(variant) {
  const times = new Array(CALLS);
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await variant.call();
    times[i] = performance.now() - start;
  }
  const used = process.cpuUsage(before);
  return { median: median(times), cpuPerCall: (used.user + used.system) / CALLS };
}

/**
 * CPU time so far, in ms, of the processes this one started (a stdio variant's server; Linux: /proc, in ticks of
 * 1/100 s), or undefined where it cannot be read.
 */
function childrenCpuMs() {
  try {
    let ticks = 0;
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      const children = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').trim();
      for (const pid of children === '' ? [] : children.split(' ')) {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      }
    }
    return ticks * 10;
  } catch {
    return undefined;
  }
}

/** `calls` calls, 50 in flight: the seconds they took, the client's CPU time over them (µs) and the server's (ms). */
async function concurrent(variant, transport, calls) {
  let next = 0;
  const before = process.cpuUsage();
  const serverBefore = transport === 'stdio' ? childrenCpuMs() : undefined;
  const start = performance.now();
  const lane = async () => {
    while (next < calls) {
      next++;
      await variant.call();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(before);
  const serverAfter = serverBefore === undefined ? undefined : childrenCpuMs();
  return { calls, seconds, cpu: used.user + used.system, serverMs: serverAfter === undefined ? undefined : serverAfter - serverBefore };
}

/**
 * A variant in a process of its own (this file with `--child`), driven over IPC: no variant's code shares the JIT's
 * type feedback, the garbage collector or the event loop with another's (in one process the raw v2 Client and
 * McpConnection run the same SDK functions on different paths, which slows both), and `process.cpuUsage()` in the
 * child is that variant's CPU alone.
 */
async function child(name, transport, url) {
  // The bench's own options (--calls and the others) go to the child too.
  const args = [...process.argv.slice(2), '--child', name, transport, url ?? ''];
  const env = name === PLAIN ? { ...process.env, ANYTOOL_MCP_WITHOUT: WITHOUT } : process.env;
  const proc = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--expose-gc'], stdio: 'inherit', env });
  const waiting = [];
  proc.on('message', (message) => waiting.shift()?.resolve(message));
  proc.once('exit', (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`the ${name} process exited with ${code}`));
  });
  const ask = (op) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      proc.send(op);
    });
  await ask('open');
  return { ask, done: () => ask('close') };
}

/** The child's side: opens its variant and answers `open`, `warmup`, `sequential`, `concurrent` and `close`. */
async function serveChild(name, transport, url) {
  let open;
  process.on('message', async (op) => {
    if (op === 'open') open = await variants[name](transport, url || undefined);
    else if (op === 'warmup') for (let i = 0; i < WARMUP; i++) await open.call();
    else if (op === 'sequential' || op?.op === 'concurrent') {
      // A full collection throws away optimized code that holds weak references: once before a round's measures, as
      // a quiet moment in a real process might, not before every burst (which would time re-optimization each time).
      if (op === 'sequential' || op.first) globalThis.gc?.();
      return process.send(await (op === 'sequential' ? sequential(open) : concurrent(open, transport, op.calls)));
    } else if (op === 'close') {
      await open.close();
      return process.send(op, () => process.exit(0));
    }
    process.send(op);
  });
}

async function measure(transport, url) {
  const names = Object.keys(variants);
  const open = {};
  for (const name of names) open[name] = await child(name, transport, url);
  // One at a time, so each warms up on a quiet machine.
  for (const name of names) await open[name].ask('warmup');
  const rows = Object.fromEntries(names.map((name) => [name, { latency: [], cpu: [], throughput: [], loadCpu: [], serverBusy: [], serverCpu: [] }]));
  // McpConnection sits between the raw v2 Client and the AI SDK client: both pairs it is compared in run back to back.
  const forward = ['raw v1 Client', 'raw v2 Client', 'anytool McpConnection', ...(WITHOUT === undefined ? [] : [PLAIN]), 'Vercel AI SDK (@ai-sdk/mcp)'];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? forward : [...forward].reverse();
    for (const name of order) {
      const seq = await open[name].ask('sequential');
      rows[name].latency.push(seq.median);
      rows[name].cpu.push(seq.cpuPerCall);
    }
    // The round's calls in bursts, the variants taking turns burst by burst (the order reversed every other burst).
    const spent = Object.fromEntries(names.map((name) => [name, { calls: 0, seconds: 0, cpu: 0, serverMs: 0 }]));
    const burst = Math.ceil(CONCURRENT_CALLS[transport] / BURSTS);
    for (let b = 0; b < BURSTS; b++) {
      for (const name of b % 2 === 0 ? order : [...order].reverse()) {
        const { calls, seconds, cpu, serverMs } = await open[name].ask({ op: 'concurrent', calls: burst, first: b === 0 });
        const total = spent[name];
        total.calls += calls;
        total.seconds += seconds;
        total.cpu += cpu;
        total.serverMs = serverMs === undefined || total.serverMs === undefined ? undefined : total.serverMs + serverMs;
      }
    }
    for (const name of order) {
      const { calls, seconds, cpu, serverMs } = spent[name];
      rows[name].throughput.push(calls / seconds);
      rows[name].loadCpu.push(cpu / calls);
      // The share of the bursts the server process spent on a core: at 100% the server, not the client, sets the calls/s.
      if (serverMs !== undefined) {
        rows[name].serverBusy.push(serverMs / 1000 / seconds);
        rows[name].serverCpu.push((serverMs * 1000) / calls);
      }
    }
  }
  for (const name of names) await open[name].done();
  return rows;
}

function report(transport, rows) {
  const base = rows['raw v2 Client'];
  const baseLatency = median(base.latency);
  const baseCpu = median(base.cpu);
  const baseThroughput = median(base.throughput);
  const us = (ms) => `${(ms * 1000).toFixed(0)}`;
  const range = ({ min, median: mid, max }, format) => `${format(mid)} (${format(min)}-${format(max)})`;
  console.log(`\n### server-everything echo over ${transport}: ${ROUNDS} interleaved rounds, median (min-max over rounds)\n`);
  const baseLoadCpu = median(base.loadCpu);
  console.log(
    `| client | sequential median, us | vs v2 | client CPU per call, us | vs v2 | calls/s at concurrency ${CONCURRENCY} | vs v2 | client CPU per call at concurrency ${CONCURRENCY}, us | vs v2 |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const [name, row] of Object.entries(rows)) {
    const latency = spread(row.latency);
    const cpu = spread(row.cpu);
    const throughput = spread(row.throughput);
    const loadCpu = spread(row.loadCpu);
    console.log(
      `| ${name} | ${range(latency, us)} | ${(latency.median / baseLatency).toFixed(3)}x | ${range(cpu, (v) => v.toFixed(0))} | ${(cpu.median / baseCpu).toFixed(3)}x | ${range(throughput, (v) => v.toFixed(0))} | ${(throughput.median / baseThroughput).toFixed(3)}x | ${range(loadCpu, (v) => v.toFixed(0))} | ${(loadCpu.median / baseLoadCpu).toFixed(3)}x |`,
    );
  }
  const busy = Object.entries(rows).filter(([, row]) => row.serverBusy.length > 0);
  if (busy.length > 0) {
    const percent = (v) => `${(v * 100).toFixed(0)}%`;
    console.log(
      `\nThe server process's share of a core during the calls at concurrency ${CONCURRENCY}, median (min-max): ${busy
        .map(([name, row]) => `${name} ${range(spread(row.serverBusy), percent)}`)
        .join('; ')}. At 100% the server sets the calls/s, whichever client feeds it.`,
    );
    // What a client's way of writing costs the server (fewer, larger reads cost it less per call); in ticks of 10 ms.
    console.log(
      `The server's CPU per call at concurrency ${CONCURRENCY}, us, median (min-max): ${busy
        .map(([name, row]) => `${name} ${range(spread(row.serverCpu), (v) => v.toFixed(0))}`)
        .join('; ')}.`,
    );
  }
}

const childArgs = process.argv.indexOf('--child');
if (childArgs >= 0) {
  const [name, transport, url] = process.argv.slice(childArgs + 1);
  await serveChild(name, transport, url);
} else await main();

async function main() {
  console.log(
    `MCP clients on one server (Node ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(
        ' ',
      )}): ${CALLS} sequential calls and ${CONCURRENT_CALLS.stdio} (stdio) or ${CONCURRENT_CALLS.http} (HTTP) calls at concurrency ${CONCURRENCY} per variant and round`,
  );
  const ours = { seq: {}, cpu: {}, tput: {}, loadCpu: {} };
  const tricks = {};
  for (const transport of TRANSPORTS) {
    const server = transport === 'http' ? await startHttpServer() : undefined;
    try {
      const rows = await measure(transport, server?.url);
      report(transport, rows);
      // Each round's ratio, the two variants measured side by side in that round: the spread says how far to trust the median.
      const row = rows['anytool McpConnection'];
      const perRound = (mine, theirs) => spread(mine.map((value, round) => value / theirs[round]));
      ours.seq[transport] = perRound(row.latency, rows['raw v2 Client'].latency);
      ours.cpu[transport] = perRound(row.cpu, rows['raw v2 Client'].cpu);
      ours.tput[transport] = perRound(row.throughput, rows['Vercel AI SDK (@ai-sdk/mcp)'].throughput);
      ours.loadCpu[transport] = perRound(row.loadCpu, rows['Vercel AI SDK (@ai-sdk/mcp)'].loadCpu);
      if (WITHOUT !== undefined) {
        const plain = rows[PLAIN];
        tricks[transport] = {
          seq: perRound(row.latency, plain.latency),
          cpu: perRound(row.cpu, plain.cpu),
          tput: perRound(row.throughput, plain.throughput),
          loadCpu: perRound(row.loadCpu, plain.loadCpu),
        };
      }
    } finally {
      server?.stop();
    }
  }
  // The client targets of the v2 migration, for the record (this bench does not fail on them): the median of the
  // per-round ratios, and their min-max over the rounds.
  const verdict = (ok) => (ok ? 'met' : 'not met');
  const ratio = ({ min, median: mid, max }) => `${mid.toFixed(3)}x (${min.toFixed(3)}-${max.toFixed(3)})`;
  console.log(`\n### Targets: McpConnection against the raw v2 Client and the Vercel AI SDK client, per-round ratios, median (min-max)\n`);
  console.log(
    '| transport | sequential median vs raw v2 (<= 1.0x) | client CPU per call vs raw v2 (<= 1.05x) | throughput at concurrency 50 vs AI SDK (>= 1.0x) | (no target) client CPU per call at concurrency 50 vs AI SDK |',
  );
  console.log('|---|---|---|---|---|');
  for (const transport of TRANSPORTS) {
    const { seq, cpu, tput, loadCpu } = { seq: ours.seq[transport], cpu: ours.cpu[transport], tput: ours.tput[transport], loadCpu: ours.loadCpu[transport] };
    console.log(
      `| ${transport} | ${ratio(seq)} ${verdict(seq.median <= 1)} | ${ratio(cpu)} ${verdict(cpu.median <= 1.05)} | ${ratio(tput)} ${verdict(tput.median >= 1)} | ${ratio(loadCpu)} |`,
    );
  }
  if (WITHOUT !== undefined) {
    console.log(`\n### McpConnection with its speed tricks against without ${WITHOUT}, per-round ratios, median (min-max)\n`);
    console.log('| transport | sequential median | client CPU per call | calls/s at concurrency 50 | client CPU per call at concurrency 50 |');
    console.log('|---|---|---|---|---|');
    for (const transport of TRANSPORTS) {
      const { seq, cpu, tput, loadCpu } = tricks[transport];
      console.log(`| ${transport} | ${ratio(seq)} | ${ratio(cpu)} | ${ratio(tput)} | ${ratio(loadCpu)} |`);
    }
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
}
