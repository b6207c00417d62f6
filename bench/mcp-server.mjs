// MCP server cost over streamable HTTP, both eras: anytool's serveMcp next to the bare SDK v2.
// Run after a build:  npm run build && node bench/mcp-server.mjs [--rounds 4] [--calls 2000] [--lists 300]
//
// Every server is a process of its own on 127.0.0.1 (this process is the client, the load generator), so the numbers
// are the servers' and the client's work is the same for all:
//   calls       `add` called `--calls` times a round per server and era, 64 in flight, in 10 bursts per server that
//               take turns (A B C, then C B A, ...: a round of one server after the other let the machine's load and
//               each server's heap cycles swing a round's ratio from 0.7 to 1.5), by a plain keep-alive HTTP client
//               sending what the v2 SDK Client sends (the SDK Client checks each server first; it is too slow to load
//               one). Per server and round: calls/s, p50 and p99 latency of a call, and the server's CPU per call.
//               Two eras:
//                 2026-07-28   stateless, MCP-Protocol-Version 2026-07-28 on every request
//                 2025         one 2025-11-25 session (Mcp-Session-Id) per server, initialized first; answers are SSE
//               Three servers, each validating `add`'s arguments against the same JSON Schema:
//                 bare SDK     createMcpHandler(factory) + toNodeHandler on node:http, a low-level Server per request
//                              (2026-07-28), and a NodeStreamableHTTPServerTransport per session (2025), answering
//                              tools/call by hand after checking the arguments with the SDK's Ajv validator
//                 anytool      serveMcp(toolset, { transport: 'http' }): one endpoint serving both eras, with host checks,
//                              body limits, a fresh ExecutionContext, validation and events per call
//                 anytool+bearer  the same with `auth: { tokens }`, the client sending its bearer token
//   tools/list  50 tools of 25 parameters each, `--lists` requests to each, one after another, the three servers
//               taking turns request by request (p50 latency):
//               constant       a node:http route that answers the very bytes anytool answers (no MCP at all)
//               bare SDK       createMcpHandler answering the same 50 tools from a constant array
//               anytool        serveMcp of those 50 tools (definitions built once, a Server instance per request)
// Rounds interleave the variants (those compared with each other in turns, in alternating order); reported:
// median (min–max) over the rounds, and the targets as per-round ratios (and differences), median (min–max).
// On Linux the server process's CPU time is read from /proc/<pid>/task/*/schedstat (nanoseconds on a CPU, every
// thread): CPU per call is the server's own work, which the load other processes put on the machine's cores moves
// far less than it moves calls/s.
// --json prints the per-round ratios as one JSON line at the end (to combine processes).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, Agent } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 4));
const CALLS = Number(arg('--calls', 2000));
/** Bursts per server and round (see callsPerSecond). */
const CHUNKS = 10;
const LISTS = Number(arg('--lists', 300));
const CONCURRENCY = 64;
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
/** The bearer token of the anytool+bearer server (a benchmark's, not a secret). */
const TOKEN = 'bench-token-0123456789abcdef';

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
  if (kind === 'anytool' || kind === 'anytool-bearer' || kind === 'anytool-list') {
    const { Toolset, tool } = await import('@anytool/core');
    const { serveMcp } = await import('@anytool/mcp');
    const tools =
      kind === 'anytool-list'
        ? wideTools().map(({ name, description, parameters }) => tool(() => name, { name, description, parameters }))
        : [tool(({ a, b }) => a + b, { name: 'add', description: 'Adds two numbers.', parameters: addParameters })];
    const auth = kind === 'anytool-bearer' ? { auth: { tokens: [{ token: TOKEN, subject: 'bench' }] } } : {};
    const server = await serveMcp(new Toolset(tools), { transport: 'http', port: 0, handleSignals: true, ...auth });
    process.stdout.write(`listening ${server.url}\n`);
    return;
  }
  if (kind === 'bare' || kind === 'bare-list') {
    const { Server, createMcpHandler, isInitializeRequest } = await import('@modelcontextprotocol/server');
    const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/server/validators/ajv');
    const { toNodeHandler, NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
    const wide = wideTools().map(({ name, description, parameters }) => ({ name, description, inputSchema: parameters }));
    // The same work anytool does on a call's arguments: checked against the tool's JSON Schema (compiled once).
    const validAdd = new AjvJsonSchemaValidator().getValidator(addParameters);
    const factory = () => {
      const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({
        tools: kind === 'bare' ? [{ name: 'add', description: 'Adds two numbers.', inputSchema: addParameters }] : wide,
      }));
      server.setRequestHandler('tools/call', (request) => {
        const checked = validAdd(request.params.arguments);
        if (!checked.valid) return { content: [{ type: 'text', text: checked.errorMessage ?? 'invalid arguments' }], isError: true };
        const { a, b } = checked.data;
        return { content: [{ type: 'text', text: String(a + b) }] };
      });
      return server;
    };
    const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
    // 2025 sessions as the SDK documents them: a transport and a Server per session, found by Mcp-Session-Id.
    const sessions = new Map();
    const readJson = async (req) => JSON.parse(Buffer.concat(await req.toArray()).toString('utf8'));
    await listen(async (req, res) => {
      const id = req.headers['mcp-session-id'];
      if (id !== undefined) return sessions.get(id).handleRequest(req, res);
      if (req.headers['mcp-protocol-version'] === MODERN) return modern(req, res);
      const body = await readJson(req);
      if (!isInitializeRequest(body)) return void res.writeHead(400).end();
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      await factory().connect(transport);
      return transport.handleRequest(req, res, body);
    });
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

/**
 * What a call to one server in one era takes: its URL and process, and the headers of the era (2026-07-28: the
 * protocol revision and method in headers; 2025: the session's id and revision), plus any bearer token.
 */
function target(server, era, headers = {}) {
  return { url: server.url, pid: server.pid, era, headers };
}

/** Opens a 2025-11-25 session as the SDK client does (initialize, then notifications/initialized); resolves to its id. */
function openSession(url, headers) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: callAgent, headers: { ...base, 'content-length': Buffer.byteLength(initialize) } }, (res) => {
      const id = res.headers['mcp-session-id'];
      res.resume().once('end', () => {
        if (res.statusCode !== 200 || typeof id !== 'string') return reject(new Error(`initialize answered HTTP ${res.statusCode}`));
        const session = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': LEGACY };
        const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
        const note = httpRequest(
          url,
          { method: 'POST', agent: callAgent, headers: { ...base, ...session, 'content-length': Buffer.byteLength(initialized) } },
          (r) => r.resume().once('end', () => (r.statusCode === 202 ? resolve(session) : reject(new Error(`initialized answered HTTP ${r.statusCode}`)))),
        );
        note.once('error', reject).end(initialized);
      });
    });
    req.once('error', reject).end(initialize);
  });
}

/** One hand-made tools/call of `add` (the headers and envelope the SDK client sends in the target's era); resolves to the body. */
function callRequest({ url, era, headers }, id, a) {
  const modern = era === MODERN;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'add',
      arguments: { a, b: 1 },
      ...(modern ? { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } : {}),
    },
  });
  return post(
    url,
    callAgent,
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(modern ? { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'add' } : {}),
      ...headers,
    },
    body,
  );
}

/** A process's CPU time so far in microseconds (every thread's time on a CPU, in nanoseconds); undefined off Linux. */
function cpuTime(pid) {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1000;
  } catch {
    return undefined;
  }
}

/**
 * `calls` calls of `add`, 64 in flight. The client is a plain HTTP client (keep-alive, 64 sockets) sending what
 * the SDK Client sends, so the server, not the client, is what runs out of time. Resolves to the seconds it took,
 * the server's CPU time over them in microseconds (NaN off Linux), and pushes each call's latency (ms) to `latencies`.
 */
async function callBurst(server, calls, latencies) {
  let next = 0;
  const cpuBefore = cpuTime(server.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) {
        const i = next++;
        const sent = performance.now();
        const text = await callRequest(server, i + 1, i);
        latencies.push(performance.now() - sent);
        if (!text.includes(`"text":"${i + 1}"`)) throw new Error(`add answered ${text.slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuTime(server.pid);
  return { seconds, cpu: cpuBefore === undefined || cpuAfter === undefined ? NaN : cpuAfter - cpuBefore };
}

const quantile = (sortedValues, q) => sortedValues[Math.min(sortedValues.length - 1, Math.floor(q * sortedValues.length))];

/**
 * One round of calls for some servers: `--calls` calls each, in CHUNKS bursts per server taken in turn (A B C, then
 * C B A, ...), so load elsewhere on the machine and the servers' own heap cycles fall on all alike. Resolves to each
 * server's calls/s, p50 and p99 latency (ms) and CPU per call (us) over the round.
 */
async function callRound(servers) {
  const chunk = Math.ceil(CALLS / CHUNKS);
  const spent = servers.map(() => ({ seconds: 0, cpu: 0, calls: 0, latencies: [] }));
  for (let c = 0; c < CHUNKS; c++) {
    const order = servers.map((_, i) => (c % 2 === 0 ? i : servers.length - 1 - i));
    for (const s of order) {
      const { seconds, cpu } = await callBurst(servers[s], chunk, spent[s].latencies);
      spent[s].seconds += seconds;
      spent[s].cpu += cpu;
      spent[s].calls += chunk;
    }
  }
  return spent.map(({ seconds, cpu, calls, latencies }) => {
    latencies.sort((x, y) => x - y);
    return { callsPerSecond: calls / seconds, cpuPerCall: cpu / calls, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
  });
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

const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => sorted(values)[Math.floor(values.length / 2)];
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(3));
const spread = (values) => `${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}-${Math.max(...values).toFixed(3)})`;

async function bench() {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const servers = {
    bare: await start('bare'),
    anytool: await start('anytool'),
    bearer: await start('anytool-bearer'),
    list: await start('anytool-list'),
    bareList: await start('bare-list'),
  };
  // The constant route answers exactly what anytool answers (its JSON body for the same request).
  const listBody = await listRequest(servers.list.url, 0);
  servers.constant = await start('constant', listBody);
  const bearer = { authorization: `Bearer ${TOKEN}` };
  // The SDK Client checks that each serves `add` in both eras.
  for (const [name, headers] of [
    ['bare', {}],
    ['anytool', {}],
    ['bearer', bearer],
  ]) {
    for (const pin of [MODERN, LEGACY]) {
      const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: pin === MODERN ? { pin } : 'legacy' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(servers[name].url), { requestInit: { headers } }));
      const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      if (client.getProtocolEra() !== (pin === MODERN ? 'modern' : 'legacy') || result.content[0].text !== '3')
        throw new Error(`${name}: does not serve add in the ${pin} era`);
      await client.close();
    }
  }
  const names = ['bare SDK', 'anytool', 'anytool+bearer'];
  const eras = {
    [MODERN]: [target(servers.bare, MODERN), target(servers.anytool, MODERN), target(servers.bearer, MODERN, bearer)],
    [LEGACY]: await Promise.all(
      [
        [servers.bare, {}],
        [servers.anytool, {}],
        [servers.bearer, bearer],
      ].map(async ([server, headers]) => target(server, LEGACY, await openSession(server.url, headers))),
    ),
  };
  const lists = () => listP50s([servers.constant.url, servers.list.url, servers.bareList.url]);
  // Warm-up: a round's worth of each, unrecorded.
  for (const era of Object.keys(eras)) await callRound(eras[era]);
  await lists();
  // Each round runs the servers of an era in bursts taken in turn, and the tools/list variants taking turns request
  // by request, so a burst of load elsewhere on the machine hits both sides of a ratio alike; the targets are read
  // from the per-round ratios (and differences), whose spread says how far to trust them.
  const calls = Object.fromEntries(Object.keys(eras).map((era) => [era, names.map(() => [])]));
  const listResults = [[], [], []];
  for (let round = 0; round < ROUNDS; round++) {
    // The eras take turns going first, too.
    for (const era of round % 2 === 0 ? [MODERN, LEGACY] : [LEGACY, MODERN]) {
      const results = await callRound(eras[era]);
      results.forEach((result, s) => calls[era][s].push(result));
    }
    const [constant, anytool, bare] = await lists();
    listResults[0].push(constant);
    listResults[1].push(bare);
    listResults[2].push(anytool);
  }
  console.log(
    `${ROUNDS} rounds; ${CALLS} calls per server, era and round at ${CONCURRENCY} in flight; ${LISTS} sequential tools/list of 50 tools x 25 parameters (${(listBody.length / 1024).toFixed(0)} KiB); Node ${process.version}; ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| era | server | calls/s | p50 ms | p99 ms | server CPU per call, us |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  const range = (values) => `${fmt(median(values))} (${fmt(Math.min(...values))}-${fmt(Math.max(...values))})`;
  for (const era of Object.keys(eras))
    names.forEach((name, s) => {
      const rounds = calls[era][s];
      console.log(
        `| ${era} | ${name} | ${range(rounds.map((r) => r.callsPerSecond))} | ${range(rounds.map((r) => r.p50))} | ${range(rounds.map((r) => r.p99))} | ${range(rounds.map((r) => r.cpuPerCall))} |`,
      );
    });
  const listVariants = ['constant route', 'bare SDK createMcpHandler', 'anytool serveMcp'];
  console.log('\n| tools/list p50 ms | median | min | max |\n| --- | ---: | ---: | ---: |');
  listVariants.forEach((name, v) =>
    console.log(`| ${name} | ${fmt(median(listResults[v]))} | ${fmt(Math.min(...listResults[v]))} | ${fmt(Math.max(...listResults[v]))} |`),
  );
  // Per-round ratios to the bare SDK of the same era: the targets are p99 <= 1.2x, calls/s >= 0.95x, CPU per call <= 1.1x.
  const verdict = (ok) => (ok ? 'met' : 'not met');
  const ratios = {};
  console.log('\nper-round ratios to the bare SDK of the same era, median (min-max):');
  for (const era of Object.keys(eras))
    for (const s of [1, 2]) {
      const of = (field) => calls[era][s].map((r, round) => r[field] / calls[era][0][round][field]);
      const r = (ratios[`${era} ${names[s]}`] = { p99: of('p99'), callsPerSecond: of('callsPerSecond'), cpuPerCall: of('cpuPerCall'), p50: of('p50') });
      const met = median(r.p99) <= 1.2 && median(r.callsPerSecond) >= 0.95 && !(median(r.cpuPerCall) > 1.1);
      console.log(
        `  ${era} ${names[s]}: p99 ${spread(r.p99)}, p50 ${spread(r.p50)}, calls/s ${spread(r.callsPerSecond)}, CPU per call ${spread(r.cpuPerCall)}${s === 1 ? `; target (p99 <= 1.2, calls/s >= 0.95, CPU <= 1.1): ${verdict(met)}` : ''}`,
      );
    }
  // What a bearer token costs: anytool with auth over anytool without, per round.
  for (const era of Object.keys(eras)) {
    const of = (field) => calls[era][2].map((r, round) => r[field] / calls[era][1][round][field]);
    const r = (ratios[`${era} bearer cost`] = { p99: of('p99'), callsPerSecond: of('callsPerSecond'), cpuPerCall: of('cpuPerCall'), p50: of('p50') });
    console.log(
      `  ${era} anytool+bearer / anytool: p99 ${spread(r.p99)}, p50 ${spread(r.p50)}, calls/s ${spread(r.callsPerSecond)}, CPU per call ${spread(r.cpuPerCall)}`,
    );
  }
  const listCosts = sorted(listResults[2].map((anytool, round) => anytool - listResults[0][round]));
  console.log(
    `tools/list cost over the constant route, p50, per-round differences: median ${median(listCosts).toFixed(3)} ms (${listCosts[0].toFixed(3)} to ${listCosts.at(-1).toFixed(3)}), target <= 1 ms: ${verdict(median(listCosts) <= 1)}`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  if (process.argv.includes('--json'))
    console.log(
      JSON.stringify({
        node: process.version,
        ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([f, x]) => [f, median(x)]))])),
      }),
    );
  for (const server of Object.values(servers)) server.stop();
  agent.destroy();
  callAgent.destroy();
}

const kind = arg('--serve', undefined);
if (kind !== undefined) await serve(kind);
else await bench();
