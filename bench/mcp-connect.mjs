// The MCP client's start, beside the official v2 SDK Client it is built on (and the Vercel AI SDK's client):
//
//   cold start   CPU time (user + system, the whole process) and peak RSS of a fresh `node` process that imports one
//                entry and exits: @anytool/mcp (ES module and CommonJS), @modelcontextprotocol/client alone and with
//                its stdio transport, @ai-sdk/mcp, @anytool/core, and a bare `node` for the floor. Target: @anytool/mcp
//                at most 1.1x the SDK client's own import. @anytool/mcp loads its client's implementation, and the SDK
//                client with it, on the first open(): so the cold start a client program feels is measured too, a
//                fresh process that imports, connects to a stdio server (2025 era) and lists its tools, McpConnection
//                against the raw SDK Client (its CPU and its time until the tools are listed; closing is not counted).
//                No target: most of the difference is ajv checking the listed tools' schemas, which the raw SDK does
//                not do. Reported beside the import's, per round.
//   connect      spawn (or reach) the server, initialize or server/discover, tools/list: the time until the tools
//                are listed (closing is awaited, not timed), over stdio and streamable HTTP, in each protocol mode
//                (legacy, auto, pinned 2026-07-28), McpConnection against the raw SDK Client in the same mode; and
//                the server processes each connect started (stdio). Target: at most 1.1x the raw SDK's in each mode.
//                Neither side does more than that before its tools are listed: McpConnection compiles the argument
//                validator of a schema that surely compiles on the tool's first use (as the raw SDK, which compiles
//                none), and opens its 2026-07-28 subscriptions/listen stream once open() has returned.
//
// The server is packages/mcp/test/fixtures/eras-server.mjs (the v2 SDK, both eras), which logs each process it starts.
// Every sample of both parts interleaves the variants, in an order that rotates every round. Connect runs in
// `--processes` processes one after the other (each its own JIT and heap); reported: the median of the processes'
// medians and their min-max, and the per-process ratio to the SDK's.
// Run after a build:  node bench/mcp-connect.mjs [--cold-rounds 11] [--rounds 6] [--http-rounds 24] [--processes 3] [--only cold|connect] [--transport stdio|http]
// (--transport: connect over that one only, for more rounds in the same time).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ERAS = join(root, 'packages', 'mcp', 'test', 'fixtures', 'eras-server.mjs');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 6));
// An HTTP connect takes about 10 ms (a stdio one, a process start, 10x that): six samples of it are mostly noise, and
// two dozen cost a few seconds.
const HTTP_ROUNDS = Number(arg('--http-rounds', 24));
const roundsOf = (transport) => (transport === 'http' ? HTTP_ROUNDS : ROUNDS);
// A fresh process's import swings by a third from one start to the next: eleven of each take about 22 s, and eleven of
// each client's first connect 17 s (more, with --cold-rounds, when the run has the time: `npm run bench` keeps within
// its 10 minutes). An odd count, so that the median is one of the samples.
const COLD_ROUNDS = Number(arg('--cold-rounds', 11));
const PROCESSES = Number(arg('--processes', 3));
const ONLY = arg('--only', undefined);
const TRANSPORTS = arg('--transport', undefined)?.split(',') ?? ['stdio', 'http'];
const TARGET = 1.1;

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s.at(-1) };
};
const spread = (xs, digits, unit = '') => {
  const s = stats(xs);
  return `${s.median.toFixed(digits)}${unit} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
};

// ---- cold start

const IMPORTS = {
  '@anytool/mcp': "await import('@anytool/mcp');",
  '@anytool/mcp (require)': "createRequire(process.cwd() + '/')('@anytool/mcp');",
  '@modelcontextprotocol/client': "await import('@modelcontextprotocol/client');",
  '@modelcontextprotocol/client + /stdio': "await import('@modelcontextprotocol/client'); await import('@modelcontextprotocol/client/stdio');",
  '@ai-sdk/mcp': "await import('@ai-sdk/mcp');",
  '@anytool/core': "await import('@anytool/core');",
  'node (nothing imported)': '',
};

/** A fresh process runs `code`, which calls `listed()` once the server's tools are listed. */
const FIRST_CONNECT = {
  McpConnection: `const { McpConnection } = await import('@anytool/mcp');
const connection = await McpConnection.open('bench', { command: process.execPath, args: [ERAS, 'stdio'], protocol: 'legacy' });
listed(connection.tools.length);
await connection.close();`,
  'raw SDK Client': `const { Client } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [ERAS, 'stdio'], stderr: 'ignore' }));
listed((await client.listTools()).tools.length);
await client.close();`,
};

function firstConnect() {
  const names = Object.keys(FIRST_CONNECT);
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const ms = Object.fromEntries(names.map((n) => [n, []]));
  const ratios = { cpu: [], ms: [] };
  for (let round = 0; round < COLD_ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    const cpuOf = {};
    const msOf = {};
    for (const name of order) {
      const code = `const ERAS = ${JSON.stringify(ERAS)}; let at;
const listed = (count) => { if (count !== 2) throw new Error('listed ' + count + ' tools'); const r = process.resourceUsage(); at = { cpu: (r.userCPUTime + r.systemCPUTime) / 1000, ms: performance.now() }; };
${FIRST_CONNECT[name]}
console.log(JSON.stringify(at));`;
      const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`${name}: the first connect failed:\n${ran.stderr}`);
      const at = JSON.parse(ran.stdout.trim().split('\n').at(-1));
      cpu[name].push(at.cpu);
      ms[name].push(at.ms);
      cpuOf[name] = at.cpu;
      msOf[name] = at.ms;
    }
    ratios.cpu.push(cpuOf.McpConnection / cpuOf['raw SDK Client']);
    ratios.ms.push(msOf.McpConnection / msOf['raw SDK Client']);
  }
  console.log(`### cold start of a client: import, connect over stdio, list the tools (${COLD_ROUNDS} processes each, interleaved)\n`);
  console.log('| client | CPU ms until listed, median (min-max) | ms since the process started |');
  console.log('| --- | --- | --- |');
  for (const name of names) console.log(`| ${name} | ${spread(cpu[name], 0)} | ${spread(ms[name], 0)} |`);
  const perRound = (xs) => spread(xs, 2, 'x');
  console.log(`\nMcpConnection / raw SDK Client, per round: CPU ${perRound(ratios.cpu)}, time until listed ${perRound(ratios.ms)}\n`);
}

function coldStart() {
  const names = Object.keys(IMPORTS);
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const rss = Object.fromEntries(names.map((n) => [n, []]));
  const ratios = [];
  for (let round = 0; round < COLD_ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    if (round % 2 === 1) order.reverse();
    const cpuOf = {};
    for (const name of order) {
      const code = `import { createRequire } from 'node:module'; ${IMPORTS[name]} const r = process.resourceUsage(); console.log(JSON.stringify({ cpu: (r.userCPUTime + r.systemCPUTime) / 1000, rss: r.maxRSS / 1024 }));`;
      const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`importing ${name} failed:\n${ran.stderr}`);
      const { cpu: ms, rss: mib } = JSON.parse(ran.stdout.trim().split('\n').at(-1));
      cpu[name].push(ms);
      rss[name].push(mib);
      cpuOf[name] = ms;
    }
    ratios.push(cpuOf['@anytool/mcp'] / cpuOf['@modelcontextprotocol/client']);
  }
  console.log(`### cold start: a fresh process that imports one entry (${COLD_ROUNDS} processes each, interleaved)\n`);
  console.log('| import | CPU ms, median (min-max) | peak RSS MiB | CPU / SDK client |');
  console.log('| --- | --- | --- | --- |');
  const sdk = stats(cpu['@modelcontextprotocol/client']).median;
  for (const name of names) {
    console.log(`| ${name} | ${spread(cpu[name], 0)} | ${spread(rss[name], 1)} | ${(stats(cpu[name]).median / sdk).toFixed(2)}x |`);
  }
  const r = stats(ratios);
  console.log(
    `\n@anytool/mcp / @modelcontextprotocol/client, per round: ${r.median.toFixed(2)}x (${r.min.toFixed(2)}-${r.max.toFixed(2)}); target <= ${TARGET}x: ${r.median <= TARGET ? 'met' : 'missed'}\n`,
  );
}

// ---- connect (a child process per --processes)

const MODES = ['legacy', 'auto', 'modern'];

async function connectChild() {
  const { McpConnection } = await import('@anytool/mcp');
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
  const dir = mkdtempSync(join(tmpdir(), 'mcp-connect-'));
  const log = join(dir, 'starts');
  const env = { ERA_LOG: log };
  const stdio = { command: process.execPath, args: [ERAS, 'stdio'], env };
  const server = spawn(process.execPath, [ERAS, 'http'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    server.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /listening (http:\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(`eras-server exited with ${code}: ${text}`)));
  });
  const negotiation = (mode) => ({ versionNegotiation: { mode: mode === 'modern' ? { pin: '2026-07-28' } : mode } });
  /** Each variant connects, lists the tools and returns its close. */
  const variants = {};
  for (const transport of TRANSPORTS) {
    for (const mode of MODES) {
      variants[`${transport} ${mode}: raw SDK Client`] = async () => {
        const client = new Client({ name: 'bench', version: '1.0.0' }, negotiation(mode));
        await client.connect(
          transport === 'stdio' ? new StdioClientTransport({ ...stdio, stderr: 'ignore' }) : new StreamableHTTPClientTransport(new URL(url)),
        );
        await client.listTools();
        return () => client.close();
      };
      variants[`${transport} ${mode}: McpConnection`] = async () => {
        const connection = await McpConnection.open('bench', transport === 'stdio' ? { ...stdio, protocol: mode } : { url, protocol: mode });
        return () => connection.close();
      };
    }
    variants[`${transport} legacy: AI SDK (@ai-sdk/mcp)`] = async () => {
      const client = await createMCPClient({
        transport: transport === 'stdio' ? new Experimental_StdioMCPTransport({ ...stdio, stderr: 'ignore' }) : { type: 'http', url },
      });
      await client.tools();
      return () => client.close();
    };
  }
  const names = Object.keys(variants);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const starts = Object.fromEntries(names.map((n) => [n, []]));
  const startsNow = () => {
    try {
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('start ')).length;
    } catch {
      return 0;
    }
  };
  // One untimed connect each: the first pays for loading and compiling the code of its path.
  for (const name of names) await (await variants[name]())();
  for (let round = 0; round < Math.max(...TRANSPORTS.map(roundsOf)); round++) {
    // Past its transport's rounds, a variant sits out (the HTTP ones take more).
    const order = names.map((_, i) => names[(i + round) % names.length]).filter((name) => round < roundsOf(name.split(' ')[0]));
    if (round % 2 === 1) order.reverse();
    for (const name of order) {
      const before = startsNow();
      const began = performance.now();
      const close = await variants[name]();
      times[name].push(performance.now() - began);
      await close();
      starts[name].push(startsNow() - before);
    }
  }
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
  const out = {};
  for (const name of names) out[name] = { median: stats(times[name]).median, starts: stats(starts[name]).max };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function connect() {
  const runs = [];
  for (let p = 0; p < PROCESSES; p++) {
    const ran = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', '--rounds', String(ROUNDS), '--http-rounds', String(HTTP_ROUNDS), '--transport', TRANSPORTS.join(',')],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    if (ran.status !== 0) throw new Error(`connect process ${p + 1} failed:\n${ran.stderr}`);
    runs.push(JSON.parse(ran.stdout.trim().split('\n').at(-1)));
  }
  console.log(
    `### connect: spawn or reach, initialize or discover, tools/list (${PROCESSES} processes x ${TRANSPORTS.map((t) => `${roundsOf(t)} rounds over ${t}`).join(', ')})\n`,
  );
  console.log('| transport, mode: client | ms, median of processes (min-max) | / raw SDK, per process | server processes per connect |');
  console.log('| --- | --- | --- | --- |');
  for (const name of Object.keys(runs[0])) {
    const [where] = name.split(': ');
    const raw = `${where}: raw SDK Client`;
    const ratio =
      raw in runs[0] && name !== raw
        ? spread(
            runs.map((run) => run[name].median / run[raw].median),
            2,
            'x',
          )
        : '';
    console.log(
      `| ${name} | ${spread(
        runs.map((run) => run[name].median),
        1,
      )} | ${ratio} | ${runs[0][name].starts} |`,
    );
  }
  console.log(`\ntarget: McpConnection <= ${TARGET}x the raw SDK Client in each mode (stdio: one server process for a pinned era)\n`);
}

if (process.argv.includes('--child')) await connectChild();
else {
  console.log(`Node ${process.version}\n`);
  if (ONLY !== 'connect') {
    coldStart();
    firstConnect();
  }
  if (ONLY !== 'cold') connect();
}
