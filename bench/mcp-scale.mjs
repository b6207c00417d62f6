// Scale-out: throughput of a CPU-bound tool through nginx, three `anytool serve --http --store redis://...`
// instances against one. Run after a build:  npm run build && node bench/mcp-scale.mjs [--rounds 3] [--calls 200]
//
// Real processes: a redis-server, three instances of packages/mcp/test/fixtures/scale-tools.mjs, and two nginx
// with the deployment guide's configuration (docs/deployment.md, its ```nginx block, ports filled in): one whose
// upstreams hold one instance, one whose upstreams hold all three. This process is the client: a plain keep-alive
// HTTP client sending what the v2 SDK Client sends pinned to 2026-07-28, `--calls` calls of `hash_chain`
// (20,000 SHA-256 rounds, a few milliseconds of CPU) with 12 in flight.
// Rounds interleave one and three (in alternating order); reported: calls/s median (min-max) over the rounds and
// the per-round ratio three / one. The machine's cores bound it: one instance uses one core at most; three can use
// what the client, nginx and Redis leave of the others.
import { spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { request as httpRequest, Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 3));
const CALLS = Number(arg('--calls', 200));
const CONCURRENCY = 12;
const HASH_ROUNDS = 20_000;
const MODERN = '2026-07-28';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ANYTOOL = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = join(root, 'packages', 'mcp', 'test', 'fixtures', 'scale-tools.mjs');

function find(program) {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin', ...(process.env.PATH ?? '').split(':')]) {
    if (spawnSync('test', ['-x', join(dir, program)]).status === 0) return join(dir, program);
  }
  return undefined;
}

async function freePort() {
  const server = netServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port) {
  const { connect } = await import('node:net');
  for (let i = 0; i < 200; i++) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts a process and resolves when `ready` holds; `stop()` ends it and resolves when it exited. */
function startChild(command, args, ready, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async (signal = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    children.delete(child);
  };
  return ready(child).then((value) => ({ ...value, child, stop }));
}

async function startRedis(dir) {
  const port = await freePort();
  return startChild(find('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], async () => {
    await waitForPort(port);
    return { url: `redis://127.0.0.1:${port}` };
  });
}

function startInstance(redisUrl) {
  return startChild(
    process.execPath,
    [ANYTOOL, 'serve', MODULE, '--http', '--port', '0', '--store', redisUrl],
    (child) =>
      new Promise((resolve, reject) => {
        let text = '';
        child.stderr.on('data', (chunk) => {
          text += chunk;
          const match = /(http:\/\/\S+\/mcp)/.exec(text);
          if (match) resolve({ url: match[1] });
        });
        child.once('exit', (code) => reject(new Error(`anytool serve exited with ${code}: ${text}`)));
      }),
  );
}

/** nginx with the guide's configuration, its upstreams holding `upstreams` (host:port each). */
async function startNginx(dir, upstreams) {
  const port = await freePort();
  const guide = /^```nginx\n([\s\S]*?)^```$/m.exec(readFileSync(join(root, 'docs', 'deployment.md'), 'utf8'))[1];
  const servers = upstreams.map((address) => `server ${address};`).join(' ');
  const site = guide
    .replace('listen 8080;', `listen 127.0.0.1:${port};`)
    .replace(/^\s*server 127\.0\.0\.1:300\d;\n/gm, '')
    .replace('upstream mcp_any {', `upstream mcp_any { ${servers}`)
    .replace('upstream mcp_sticky {', `upstream mcp_sticky { ${servers}`);
  const config = `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 1024; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n${site}\n}\n`;
  writeFileSync(join(dir, 'nginx.conf'), config);
  return startChild(find('nginx'), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], async () => {
    await waitForPort(port);
    return { url: `http://127.0.0.1:${port}/mcp` };
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(url, headers, body, retried = false) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk) => (text += chunk))
        .once('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`))));
    });
    req
      .once('error', (error) =>
        req.reusedSocket && !retried && error.code === 'ECONNRESET' ? post(url, headers, body, true).then(resolve, reject) : reject(error),
      )
      .end(body);
  });
}

let ids = 0;
/** One 2026-07-28 tools/call of hash_chain; resolves to the process id that answered. */
async function hashChain(url) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++ids,
    method: 'tools/call',
    params: {
      name: 'hash_chain',
      arguments: { rounds: HASH_ROUNDS },
      _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  const text = await post(
    url,
    {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'hash_chain',
    },
    body,
  );
  const answer = /"text":"(\d+) [0-9a-f]{16}"/.exec(text);
  if (answer === null) throw new Error(`hash_chain answered ${text.slice(0, 300)}`);
  return answer[1];
}

/** `--calls` calls, 12 in flight; resolves to calls/s and the calls each process answered. */
async function throughput(url) {
  const by = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) {
        next++;
        const pid = await hashChain(url);
        by[pid] = (by[pid] ?? 0) + 1;
      }
    }),
  );
  return { perSecond: CALLS / ((performance.now() - started) / 1000), by };
}

async function bench() {
  const missing = ['redis-server', 'nginx'].filter((program) => find(program) === undefined);
  if (missing.length > 0) {
    console.log(`SKIPPED: ${missing.join(' and ')} not installed (.ci/run installs them: apt-get install -y ${missing.join(' ')})`);
    process.exitCode = 1;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'anytool-bench-scale-'));
  const started = [];
  try {
    const redis = await startRedis(dir);
    started.push(redis);
    const instances = [];
    for (let i = 0; i < 3; i++) {
      instances.push(await startInstance(redis.url));
      started.push(instances[i]);
    }
    const hosts = instances.map((instance) => new URL(instance.url).host);
    const oneDir = mkdtempSync(join(dir, 'one-'));
    const threeDir = mkdtempSync(join(dir, 'three-'));
    const one = await startNginx(oneDir, hosts.slice(0, 1));
    started.push(one);
    const three = await startNginx(threeDir, hosts);
    started.push(three);
    const variants = [
      { name: 'one instance behind nginx', url: one.url, values: [], spread: {} },
      { name: 'three instances behind nginx', url: three.url, values: [], spread: {} },
    ];
    // Warm-up, unrecorded.
    for (const variant of variants) await throughput(variant.url);
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const { perSecond, by } = await throughput(variants[v].url);
        variants[v].values.push(perSecond);
        for (const [pid, count] of Object.entries(by)) variants[v].spread[pid] = (variants[v].spread[pid] ?? 0) + count;
      }
    }
    const sorted = (values) => [...values].sort((a, b) => a - b);
    const median = (values) => sorted(values)[Math.floor(values.length / 2)];
    console.log(
      `${ROUNDS} rounds of ${CALLS} hash_chain calls (${HASH_ROUNDS} SHA-256 rounds each), ${CONCURRENCY} in flight; ${cpus().length} cores; Node ${process.version}\n`,
    );
    console.log('| variant | calls/s median | min | max | calls answered per process |');
    console.log('| --- | ---: | ---: | ---: | --- |');
    for (const { name, values, spread } of variants)
      console.log(
        `| ${name} | ${median(values).toFixed(1)} | ${Math.min(...values).toFixed(1)} | ${Math.max(...values).toFixed(1)} | ${Object.values(spread).join(' / ')} |`,
      );
    const ratios = sorted(variants[1].values.map((value, round) => value / variants[0].values[round]));
    const ratio = median(ratios);
    console.log(
      `\nload average (1 min) at the end: ${loadavg()[0].toFixed(1)} on ${cpus().length} cores (above the core count, other processes take CPU time the instances would use)`,
    );
    console.log(
      `three / one, per-round ratios: median ${ratio.toFixed(2)}x (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)}); target >= 1.5x: ${ratio >= 1.5 ? 'met' : 'not met'} (ceiling: the cores, ${cpus().length}, shared with nginx, Redis and this client)`,
    );
  } finally {
    agent.destroy();
    // Instances before Redis, so none sees its store vanish.
    for (const child of started.reverse()) await child.stop(child.child.spawnfile.endsWith('nginx') ? 'SIGQUIT' : 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await bench();
