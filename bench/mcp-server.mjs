// MCP server cost over streamable HTTP, 2026-07-28 era (stateless): anytool's serveMcp next to the bare SDK.
// Run after a build:  npm run build && node bench/mcp-server.mjs [--rounds 9] [--calls 3000] [--lists 300]
//
// Every server is a process of its own on 127.0.0.1 (this process is the client), so the numbers are the
// servers' and the client's work is the same for all:
//   calls/s   `add` called `--calls` times a round, 50 in flight, in 10 bursts per server that take turns (A B B A ...:
//             a round of one server after the other let the machine's load and each server's heap cycles swing a
//             round's ratio from 0.7 to 1.5), by a plain keep-alive HTTP client sending what the v2 SDK
//             Client sends pinned to 2026-07-28 (the SDK Client checks each server first; it is too slow to load one):
//               bare SDK       createMcpHandler(factory) + toNodeHandler on node:http, a low-level Server per request
//                              answering tools/list and tools/call by hand (the floor of a stateless v2 server)
//               anytool        serveMcp(toolset, { transport: 'http' }): the same endpoint serves 2025 sessions too,
//                              with host checks, body limits, a fresh ExecutionContext, validation and events per call
//   tools/list  50 tools of 25 parameters each, `--lists` requests to each, one after another, the three servers
//               taking turns request by request (p50 latency):
//               constant       a node:http route that answers the very bytes anytool answers (no MCP at all)
//               bare SDK       createMcpHandler answering the same 50 tools from a constant array
//               anytool        serveMcp of those 50 tools (definitions built once, a Server instance per request)
// Rounds interleave the variants (those compared with each other in turns, in alternating order); reported:
// median (min–max) over the rounds, and the targets as per-round ratios (and differences), median (min–max).
// On Linux each calls/s round also reads the server process's CPU time (/proc/<pid>/stat, user + system, all its
// threads): CPU per call is the server's own work, which the load other processes put on the machine's cores moves
// far less than it moves calls/s.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 9));
const CALLS = Number(arg('--calls', 3000));
/** Bursts per server and round (see callsPerSecond). */
const CHUNKS = 10;
const LISTS = Number(arg('--lists', 300));
const CONCURRENCY = 50;
const MODERN = '2026-07-28';

const addParameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };

/** 50 tools of 25 parameters each, every parameter with a type, a description and (for some) an enum or bounds. */
function wideTools() {
  const kinds = [
    { type: 'string' },
    { type: 'integer', minimum: 0, maximum: 1000 },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'string', enum: ['low', 'medium', 'high'] },
  ];
  return Array.from({ length: 50 }, (_, t) => {
    const properties = {};
    for (let f = 0; f < 25; f++)
      properties[`field_${f}`] = { ...kinds[f % kinds.length], description: `Field ${f} of tool ${t}: what it means and which values make sense.` };
    return {
      name: `tool_${t}`,
      description: `Tool number ${t}, which takes 25 parameters.`,
      parameters: { type: 'object', properties, required: ['field_0', 'field_1'] },
    };
  });
}

// ---- the server processes ------------------------------------------------------------------------------------

async function listen(handler) {
  const http = createServer(handler);
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`);
  process.on('SIGTERM', () => process.exit(0));
}

async function serve(kind) {
  if (kind === 'anytool' || kind === 'anytool-list') {
    const { Toolset, tool } = await import('@anytool/core');
    const { serveMcp } = await import('@anytool/mcp');
    const tools =
      kind === 'anytool'
        ? [tool(({ a, b }) => a + b, { name: 'add', description: 'Adds two numbers.', parameters: addParameters })]
        : wideTools().map(({ name, description, parameters }) => tool(() => name, { name, description, parameters }));
    const server = await serveMcp(new Toolset(tools), { transport: 'http', port: 0, handleSignals: true });
    process.stdout.write(`listening ${server.url}\n`);
    return;
  }
  if (kind === 'bare' || kind === 'bare-list') {
    const { Server, createMcpHandler } = await import('@modelcontextprotocol/server');
    const { toNodeHandler } = await import('@modelcontextprotocol/node');
    const wide = wideTools().map(({ name, description, parameters }) => ({ name, description, inputSchema: parameters }));
    const factory = () => {
      const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({
        tools: kind === 'bare' ? [{ name: 'add', description: 'Adds two numbers.', inputSchema: addParameters }] : wide,
      }));
      server.setRequestHandler('tools/call', (request) => {
        const { a, b } = request.params.arguments;
        return { content: [{ type: 'text', text: String(a + b) }] };
      });
      return server;
    };
    await listen(toNodeHandler(createMcpHandler(factory)));
    return;
  }
  if (kind === 'constant') {
    // The body to answer comes on stdin: what anytool answered to the same request.
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    await listen((req, res) => {
      req.resume().once('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body));
    });
  }
}

// ---- the client ------------------------------------------------------------------------------------------------

const children = new Set();
// A bench that fails leaves no server behind.
process.once('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

function start(kind, stdin) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', kind], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  if (stdin !== undefined) child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /listening (http:\S+)/.exec(text);
      if (match) resolve({ url: match[1], pid: child.pid, stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}: ${text}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/**
 * POSTs `body` and resolves to the response text. A kept-alive socket the server closed while it was idle (its
 * keep-alive timeout passes while the other variants run) fails before any answer: then once more on a new one.
 */
function post(url, agentOf, headers, body, retried = false) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: agentOf, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk) => (text += chunk))
        .once('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`))));
    });
    req
      .once('error', (error) =>
        req.reusedSocket && !retried && error.code === 'ECONNRESET' ? post(url, agentOf, headers, body, true).then(resolve, reject) : reject(error),
      )
      .end(body);
  });
}

/** One hand-made 2026-07-28 tools/list request (what the SDK client sends, minus its own work); resolves to the body. */
function listRequest(url, id) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
  return post(
    url,
    agent,
    { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    body,
  );
}

const callAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One hand-made 2026-07-28 tools/call of `add` (the headers and envelope the SDK client sends); resolves to the body. */
function callRequest(url, id, a) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'add',
      arguments: { a, b: 1 },
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  return post(
    url,
    callAgent,
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'add',
    },
    body,
  );
}

/** A process's CPU time so far in microseconds (user + system, every thread); undefined off Linux. */
function cpuTime(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat, in clock ticks of 1/100 s (USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * `calls` calls of `add`, 50 in flight. The client is a plain HTTP client (keep-alive, 50 sockets) sending what
 * the SDK Client sends, so the server, not the client, is what runs out of time. Resolves to the seconds it took
 * and the server's CPU time over them, in microseconds (NaN off Linux).
 */
async function callBurst({ url, pid }, calls) {
  let next = 0;
  const cpuBefore = cpuTime(pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) {
        const i = next++;
        const text = await callRequest(url, i, i);
        if (!text.includes(`"text":"${i + 1}"`)) throw new Error(`add answered ${text.slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuTime(pid);
  return { seconds, cpu: cpuBefore === undefined || cpuAfter === undefined ? NaN : cpuAfter - cpuBefore };
}

/**
 * One round of calls/s for two servers: `--calls` calls each, in CHUNKS bursts per server taken in turn (A B B A
 * A B ...), so load elsewhere on the machine and the servers' own heap cycles fall on both alike. Resolves to each
 * server's calls/s and CPU per call over the round.
 */
async function callsPerSecond(servers) {
  const chunk = Math.ceil(CALLS / CHUNKS);
  const spent = servers.map(() => ({ seconds: 0, cpu: 0, calls: 0 }));
  for (let c = 0; c < CHUNKS; c++) {
    const order = c % 2 === 0 ? [0, 1] : [1, 0];
    for (const s of order) {
      const { seconds, cpu } = await callBurst(servers[s], chunk);
      spent[s].seconds += seconds;
      spent[s].cpu += cpu;
      spent[s].calls += chunk;
    }
  }
  return spent.map(({ seconds, cpu, calls }) => ({ callsPerSecond: calls / seconds, cpuPerCall: cpu / calls }));
}

/**
 * `--lists` tools/list requests to each of `urls`, taking turns request by request (the order of a turn reversed every
 * other turn), so a burst of load elsewhere on the machine falls on all of them alike: the p50 latency of each.
 */
async function listP50s(urls) {
  const samples = urls.map(() => []);
  for (let i = 0; i < LISTS; i++) {
    for (let turn = 0; turn < urls.length; turn++) {
      const u = i % 2 === 0 ? turn : urls.length - 1 - turn;
      const started = performance.now();
      const text = await listRequest(urls[u], i);
      samples[u].push(performance.now() - started);
      if (!text.includes('tool_49')) throw new Error(`tools/list answered ${text.slice(0, 200)}`);
    }
  }
  return samples.map((values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]);
}

async function bench() {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const servers = { bare: await start('bare'), anytool: await start('anytool'), list: await start('anytool-list'), bareList: await start('bare-list') };
  // The constant route answers exactly what anytool answers (its JSON body for the same request).
  const listBody = await listRequest(servers.list.url, 0);
  servers.constant = await start('constant', listBody);
  // The SDK Client, pinned to 2026-07-28, checks that both serve that era and the same tool.
  for (const name of ['bare', 'anytool']) {
    const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(servers[name].url)));
    const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    if (client.getProtocolEra() !== 'modern' || result.content[0].text !== '3') throw new Error(`${name}: not served in the 2026-07-28 era`);
    await client.close();
  }
  const variants = [
    ['calls/s, bare SDK createMcpHandler'],
    ['calls/s, anytool serveMcp'],
    ['tools/list p50 ms, constant route'],
    ['tools/list p50 ms, bare SDK createMcpHandler'],
    ['tools/list p50 ms, anytool serveMcp'],
  ];
  const lists = () => listP50s([servers.constant.url, servers.list.url, servers.bareList.url]);
  // Warm-up: a round's worth of each, unrecorded.
  await callsPerSecond([servers.bare, servers.anytool]);
  await lists();
  // Each round runs the calls/s servers in bursts taken in turn, and the tools/list variants taking turns request by
  // request, so a burst of load elsewhere on the machine hits both sides of a ratio alike; the targets are read from
  // the per-round ratios (and differences), whose spread says how far to trust them.
  const results = variants.map(() => []);
  const bareCpu = [];
  const anytoolCpu = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Each server goes first in half of a round's bursts (see callsPerSecond).
    const [bareCalls, anytoolCalls] = await callsPerSecond([servers.bare, servers.anytool]);
    results[0].push(bareCalls.callsPerSecond);
    results[1].push(anytoolCalls.callsPerSecond);
    bareCpu.push(bareCalls.cpuPerCall);
    anytoolCpu.push(anytoolCalls.cpuPerCall);
    const [constant, anytool, bare] = await lists();
    results[2].push(constant);
    results[3].push(bare);
    results[4].push(anytool);
  }
  const sorted = (values) => [...values].sort((a, b) => a - b);
  const median = (values) => sorted(values)[Math.floor(values.length / 2)];
  const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(3));
  console.log(
    `${ROUNDS} rounds; ${CALLS} calls at concurrency ${CONCURRENCY}; ${LISTS} sequential tools/list of 50 tools x 25 parameters (${(listBody.length / 1024).toFixed(0)} KiB); Node ${process.version}; ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| variant | median | min | max |');
  console.log('| --- | ---: | ---: | ---: |');
  for (let v = 0; v < variants.length; v++) {
    const values = results[v];
    console.log(`| ${variants[v][0]} | ${fmt(median(values))} | ${fmt(Math.min(...values))} | ${fmt(Math.max(...values))} |`);
  }
  const measuredCpu = !anytoolCpu.some(Number.isNaN) && !bareCpu.some(Number.isNaN);
  if (measuredCpu) {
    console.log(
      `| server CPU per call, us, bare SDK createMcpHandler | ${fmt(median(bareCpu))} | ${fmt(Math.min(...bareCpu))} | ${fmt(Math.max(...bareCpu))} |`,
    );
    console.log(
      `| server CPU per call, us, anytool serveMcp | ${fmt(median(anytoolCpu))} | ${fmt(Math.min(...anytoolCpu))} | ${fmt(Math.max(...anytoolCpu))} |`,
    );
  }
  const callRatios = sorted(results[1].map((anytool, round) => anytool / results[0][round]));
  const listCosts = sorted(results[4].map((anytool, round) => anytool - results[2][round]));
  const verdict = (ok) => (ok ? 'met' : 'not met');
  const callRatio = median(callRatios);
  const listCost = median(listCosts);
  console.log(
    `\nanytool calls/s / bare calls/s, per-round ratios: median ${callRatio.toFixed(3)} (${callRatios[0].toFixed(3)}-${callRatios.at(-1).toFixed(3)}), target >= 1.00: ${verdict(callRatio >= 1)}`,
  );
  if (measuredCpu) {
    const cpuRatios = sorted(anytoolCpu.map((anytool, round) => anytool / bareCpu[round]));
    console.log(
      `anytool server CPU per call / bare, per-round ratios (no target; <= 1.00 is the same calls/s on a CPU-bound server): median ${median(cpuRatios).toFixed(3)} (${cpuRatios[0].toFixed(3)}-${cpuRatios.at(-1).toFixed(3)})`,
    );
  }
  console.log(
    `tools/list cost over the constant route, p50, per-round differences: median ${listCost.toFixed(3)} ms (${listCosts[0].toFixed(3)} to ${listCosts.at(-1).toFixed(3)}), target <= 1 ms: ${verdict(listCost <= 1)}`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (const server of Object.values(servers)) server.stop();
  agent.destroy();
  callAgent.destroy();
}

const kind = arg('--serve', undefined);
if (kind !== undefined) await serve(kind);
else await bench();
