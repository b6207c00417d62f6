// MCP Tasks (io.modelcontextprotocol/tasks) served by serveMcp over streamable HTTP, 2026-07-28 era.
// Run after a build:  npm run build && node bench/mcp-tasks.mjs [--rounds 3] [--trips 150] [--tasks 1000] [--jobs 120]
//                     [--only trips,thousand,workers]
//
// The servers are processes of their own on 127.0.0.1 (this process is the client, a plain keep-alive HTTP client
// sending what the v2 SDK Client sends pinned to 2026-07-28):
//   round trip   `echo` returns at once; called `--trips` times one after another:
//                  plain call   tools/call of the tool without `task`, answered with its result
//                  task         tools/call of the same tool with `task: true` from a client declaring the extension
//                               (answered with a task), then tasks/get at once and again until it is completed (the
//                               client does not wait the poll interval: what is measured is the server's cost)
//                done against a server whose store is in memory (MemoryStore), one on Redis (RedisStore, a
//                redis-server started here) and one running its tasks on a BullMQ queue in that Redis (its own
//                worker); then the queue again with `taskAnswerWithinMs` (the call waits for its task's end and
//                is answered with the result: no poll), with its own worker and with a worker-only process; the
//                target is the per-round ratio task / plain, median (min-max).
//                Also counted: the commands Redis processed per task round trip (machine noise does not move it;
//                the commands a script runs count as well).
//   1,000 tasks  `--tasks` tasks of a tool that works 1 s (5 steps of 200 ms) started at once (50 requests in
//                flight) across three instances sharing a RedisStore and a BullMQ queue (each one of its workers),
//                the calls and the polls sent to the instances in turn (a task is polled through another instance
//                than the one that took it), then polled until all completed; reported: the time to start them and
//                to finish them, each instance's memory (after a full GC) before, while they run and after they
//                ended (their records stay in Redis until they expire), and Redis's own memory.
//   workers      `--jobs` tasks of a CPU-bound tool (PBKDF2, about 30 ms of one core each) queued at once on an
//                instance that only serves (`taskWorker: false`), run by one worker-only process
//                (`runTaskWorker`, two jobs at a time) or by three; the time from the first call to the last task's end (the tasks'
//                own `createdAt` / `lastUpdatedAt`, so the poll interval does not count). Rounds alternate the
//                order of the two; reported: tasks/s of each, and the per-round ratio three / one.
// Rounds interleave plain and task (in alternating order); reported: median (min-max) over the rounds.
import { spawn, spawnSync } from 'node:child_process';
import { pbkdf2Sync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { request as httpRequest, Agent } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 3));
const TRIPS = Number(arg('--trips', 150));
const TASKS = Number(arg('--tasks', 1000));
const JOBS = Number(arg('--jobs', 120));
// `--only trips,thousand,workers`: the parts to run (default all).
const PARTS = new Set(arg('--only', 'trips,thousand,workers').split(','));
const CONCURRENCY = 50;
const MODERN = '2026-07-28';
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

// ---- the server process ----------------------------------------------------------------------------------------

/**
 * `kind`: `memory`, a Redis URL (RedisStore), or `queue+URL`, `serve-only+URL`, `worker+URL` (RedisStore and a BullMQ
 * queue there), each with `|NAME` for a queue of its own name: the round trips' servers each take only their own jobs.
 */
async function serve(named) {
  const [served, queueName] = named.split('|');
  // `answered+KIND`: the server answers a call with its result when its task completes within 1 s (taskAnswerWithinMs).
  const answered = served.startsWith('answered+');
  const kind = answered ? served.slice('answered+'.length) : served;
  const { Toolset, tool } = await import('@anytool/core');
  const { BullmqTaskQueue, RedisStore, runTaskWorker, serveMcp } = await import('@anytool/mcp');
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
  const echo = ({ text: value }) => value;
  const work = async (_args, context) => {
    for (let step = 0; step < 5; step++) {
      context.progress(step, 5, `step ${step + 1}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return 'worked';
  };
  // About 30 ms of one core, and nothing to wait on: the worker's event loop is busy the whole time.
  const hash = ({ text: value }) => pbkdf2Sync(value, 'anytool', 40_000, 32, 'sha256').toString('hex');
  const memory = () => {
    globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    return JSON.stringify({ rss, heapUsed });
  };
  const tools = new Toolset([
    tool(echo, { name: 'echo', description: 'Echoes.', parameters: text }),
    tool(echo, { name: 'echo_task', description: 'Echoes, as a task.', parameters: text, task: true }),
    tool(work, { name: 'work', description: 'Works 1 s.', parameters: { type: 'object', properties: {} }, context: true, task: true }),
    tool(hash, { name: 'hash', description: 'Hashes its text (CPU-bound).', parameters: text, task: true }),
    tool(memory, { name: 'memory', description: 'This process memory after a full GC.', parameters: { type: 'object', properties: {} } }),
  ]);
  const [, role, queueUrl] = /^(queue|serve-only|worker)\+(.*)$/.exec(kind) ?? [];
  const redisUrl = queueUrl ?? kind;
  const store = kind === 'memory' ? undefined : new RedisStore({ url: redisUrl });
  await store?.connect();
  // A worker-only process runs CPU-bound tools here: two jobs at a time (one computes while the other's record is
  // written), not BullMQ's 50, which would starve its event loop and delay its lock renewals.
  const taskQueue =
    role === undefined
      ? undefined
      : new BullmqTaskQueue({ url: redisUrl, ...(queueName === undefined ? {} : { queueName }), ...(role === 'worker' ? { concurrency: 2 } : {}) });
  if (role === 'worker') {
    const worker = await runTaskWorker(tools, { taskQueue, store, handleSignals: true });
    void worker.closed.then(async () => {
      await taskQueue.close();
      await store.close();
    });
    process.stdout.write('working\n');
    return;
  }
  const server = await serveMcp(tools, {
    transport: 'http',
    port: 0,
    handleSignals: true,
    maxBodyBytesInFlight: 64 * 1024 * 1024,
    // What is measured is the cost of tasks, not the caps: one client here runs 1,000 tasks at once (100 by
    // default), and the rounds keep thousands of ended tasks.
    maxTasksRunning: 1_000_000,
    maxTasksRunningPerClient: 1_000_000,
    maxTasksKept: 1_000_000,
    maxTasksKeptPerClient: 1_000_000,
    ...(store === undefined ? {} : { store }),
    ...(taskQueue === undefined ? {} : { taskQueue, taskWorker: role !== 'serve-only' }),
    ...(answered ? { taskAnswerWithinMs: 1000 } : {}),
  });
  // The store is this program's: serveMcp closes the server on SIGTERM, the store is closed here.
  void server.closed.then(async () => {
    await taskQueue?.close();
    await store?.close();
  });
  process.stdout.write(`listening ${server.url}\n`);
}

// ---- redis-server ----------------------------------------------------------------------------------------------

function have(program) {
  return spawnSync('sh', ['-c', `command -v ${program} || test -x /usr/sbin/${program}`], { stdio: 'ignore' }).status === 0;
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
  for (const child of children) child.kill('SIGTERM');
});

async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'anytool-bench-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.add(child);
  await waitForPort(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    usedMemory: () => Number(/used_memory:(\d+)/.exec(spawnSync('redis-cli', ['-p', String(port), 'info', 'memory'], { encoding: 'utf8' }).stdout)?.[1] ?? NaN),
    /** Commands Redis processed so far (a script's own commands included; this INFO is one of them). */
    commands: () =>
      Number(/total_commands_processed:(\d+)/.exec(spawnSync('redis-cli', ['-p', String(port), 'info', 'stats'], { encoding: 'utf8' }).stdout)?.[1] ?? NaN),
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function startServer(store) {
  const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--serve', store], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /listening (http:\S+)|working/.exec(text);
      if (match) resolve({ url: match[1], pid: child.pid, stop: () => (child.kill('SIGTERM'), exited) });
    });
    child.once('exit', (code) => reject(new Error(`server (${store}) exited with ${code}: ${text}`)));
  });
}

// ---- the client ------------------------------------------------------------------------------------------------

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
/** One 2026-07-28 request as the SDK client sends it (declaring the Tasks extension); resolves to its result. */
async function request(url, method, params, name) {
  const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: ++ids,
    method,
    params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
  const text = await post(url, headers, body);
  const json = JSON.parse(text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)[1]);
  if (json.error !== undefined) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
  return json.result;
}

const call = (url, name, args = {}) => request(url, 'tools/call', { name, arguments: args }, name);
const getTask = (url, taskId) => request(url, 'tasks/get', { taskId }, taskId);

/** `--trips` plain calls one after another; resolves to the mean milliseconds per call. */
async function plainTrips(url) {
  const started = performance.now();
  for (let i = 0; i < TRIPS; i++) {
    const result = await call(url, 'echo', { text: `t${i}` });
    if (result.content?.[0]?.text !== `t${i}`) throw new Error(`echo answered ${JSON.stringify(result)}`);
  }
  return (performance.now() - started) / TRIPS;
}

/**
 * `--trips` task round trips one after another (create, then tasks/get until completed); mean ms and polls per trip.
 * `answered`: the server answers with the result when the task completes within its window, so no poll is needed.
 */
async function taskTrips(url, polls, answered) {
  const started = performance.now();
  for (let i = 0; i < TRIPS; i++) {
    const created = await call(url, 'echo_task', { text: `t${i}` });
    if (answered) {
      if (created.resultType === 'task' || created.content?.[0]?.text !== `t${i}`)
        throw new Error(`echo_task was not answered with its result: ${JSON.stringify(created)}`);
      continue;
    }
    if (created.resultType !== 'task') throw new Error(`echo_task answered without a task: ${JSON.stringify(created)}`);
    let task;
    do {
      task = await getTask(url, created.taskId);
      polls.count++;
    } while (task.status === 'working');
    if (task.status !== 'completed' || task.result?.content?.[0]?.text !== `t${i}`) throw new Error(`task ended ${JSON.stringify(task)}`);
  }
  return (performance.now() - started) / TRIPS;
}

/** A serve-only instance answering within 1 s, and a worker-only process running its tasks; stops both. */
async function servedWithWorker(redis) {
  const front = await startServer(`answered+serve-only+${redis.url}|trips-worker-only`);
  const worker = await startServer(`worker+${redis.url}|trips-worker-only`);
  return { url: front.url, stop: () => Promise.all([front.stop(), worker.stop()]) };
}

async function roundTrips(servers, redis) {
  const variants = [];
  // Redis commands during the task trips on RedisStore (the plain calls send none): round trips to Redis per task.
  const commands = { count: 0 };
  for (const [store, server] of Object.entries(servers)) {
    const polls = { count: 0 };
    const answered = store.includes('answered');
    variants.push({ name: `plain call, ${store}`, run: () => plainTrips(server.url), values: [] });
    const run =
      store !== 'MemoryStore' && !answered
        ? async () => {
            const before = redis.commands();
            const ms = await taskTrips(server.url, polls, false);
            commands.count += redis.commands() - before - 1;
            return ms;
          }
        : () => taskTrips(server.url, polls, answered);
    variants.push({ name: `task round trip, ${store}`, run, values: [], polls });
  }
  for (const variant of variants) await variant.run();
  for (const variant of variants) if (variant.polls) variant.polls.count = 0;
  commands.count = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let pair = 0; pair < variants.length; pair += 2) {
      const order = round % 2 === 0 ? [pair, pair + 1] : [pair + 1, pair];
      for (const v of order) variants[v].values.push(await variants[v].run());
    }
  }
  const sorted = (values) => [...values].sort((a, b) => a - b);
  const median = (values) => sorted(values)[Math.floor(values.length / 2)];
  console.log(`Round trips: ${ROUNDS} rounds of ${TRIPS} sequential trips; ms per trip\n`);
  console.log('| variant | median | min | max |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const { name, values } of variants)
    console.log(`| ${name} | ${median(values).toFixed(3)} | ${Math.min(...values).toFixed(3)} | ${Math.max(...values).toFixed(3)} |`);
  console.log('');
  for (let pair = 0; pair < variants.length; pair += 2) {
    const ratios = sorted(variants[pair + 1].values.map((task, round) => task / variants[pair].values[round]));
    const pollsPerTrip = variants[pair + 1].polls.count / (ROUNDS * TRIPS);
    const ratio = median(ratios);
    console.log(
      `${variants[pair + 1].name} / ${variants[pair].name}: median ${ratio.toFixed(2)}x (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)}), ${pollsPerTrip.toFixed(2)} tasks/get per trip; target <= 3x: ${ratio <= 3 ? 'met' : 'not met'}`,
    );
  }
  console.log(`Redis commands per task round trip (RedisStore and BullMQ queue together): ${(commands.count / (ROUNDS * TRIPS)).toFixed(2)}`);
}

async function memoryOf(url) {
  const result = await call(url, 'memory');
  return JSON.parse(result.content[0].text);
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Polls every task (through the instances in turn, 50 requests in flight, each task at most every `everyMs`) until it ended. */
async function untilEnded(urls, taskIds, everyMs) {
  const open = new Set(taskIds);
  const ended = new Map();
  let turn = 1;
  while (open.size > 0) {
    const batch = [...open];
    let i = 0;
    const pass = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (i < batch.length) {
          const taskId = batch[i++];
          const task = await getTask(urls[turn++ % urls.length], taskId);
          if (task.status !== 'working') {
            open.delete(taskId);
            ended.set(taskId, task);
          }
        }
      }),
    );
    const wait = everyMs - (performance.now() - pass);
    if (open.size > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return ended;
}

/** Starts `count` tasks of `name` (50 calls in flight, sent to the instances in turn); resolves to their ids. */
async function startTasks(urls, count, name, args = () => ({})) {
  const taskIds = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const n = next++;
        const created = await call(urls[n % urls.length], name, args(n));
        if (created.resultType !== 'task') throw new Error(`${name} answered without a task: ${JSON.stringify(created)}`);
        taskIds.push(created.taskId);
      }
    }),
  );
  return taskIds;
}

async function thousandTasks(instances, redis) {
  const urls = instances.map((instance) => instance.url);
  const memories = () => Promise.all(urls.map(memoryOf));
  const before = await memories();
  const redisBefore = redis.usedMemory();
  const started = performance.now();
  const taskIds = await startTasks(urls, TASKS, 'work');
  const allStarted = performance.now();
  const during = await memories();
  const redisDuring = redis.usedMemory();
  const ended = await untilEnded(urls, taskIds, 200);
  const finished = performance.now();
  const after = await memories();
  const statuses = {};
  for (const task of ended.values()) statuses[task.status] = (statuses[task.status] ?? 0) + 1;
  console.log(`\n${TASKS} concurrent tasks (1 s of work each) across ${urls.length} instances (RedisStore, BullMQ queue, each instance a worker):\n`);
  console.log(
    `- started in ${((allStarted - started) / 1000).toFixed(2)} s, all ended ${((finished - started) / 1000).toFixed(2)} s after the first start: ${JSON.stringify(statuses)}`,
  );
  console.log('\n| instance | heap before | heap while running | heap per running task | heap after | RSS before | RSS while running | RSS after |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const share = TASKS / urls.length;
  urls.forEach((_url, i) =>
    console.log(
      `| ${i + 1} | ${mib(before[i].heapUsed)} | ${mib(during[i].heapUsed)} | ${((during[i].heapUsed - before[i].heapUsed) / share / 1024).toFixed(1)} KiB | ${mib(after[i].heapUsed)} | ${mib(before[i].rss)} | ${mib(during[i].rss)} | ${mib(after[i].rss)} |`,
    ),
  );
  console.log(
    `\n- Redis used_memory: ${mib(redisBefore)} before, ${mib(redisDuring)} while running, ${mib(redis.usedMemory())} after (the records stay until their TTL, 1 h by default)`,
  );
  if ((statuses.completed ?? 0) !== TASKS) throw new Error(`not every task completed: ${JSON.stringify(statuses)}`);
}

/** `--jobs` CPU-bound tasks queued on `front` and run by the worker-only processes started; resolves to tasks/s. */
async function queuedThroughput(front) {
  const round = ++ids;
  const taskIds = await startTasks([front.url], JOBS, 'hash', (n) => ({ text: `r${round}-${n}` }));
  const ended = await untilEnded([front.url], taskIds, 250);
  let first = Infinity;
  let last = 0;
  for (const task of ended.values()) {
    if (task.status !== 'completed') throw new Error(`a hash task ended ${task.status}: ${JSON.stringify(task)}`);
    first = Math.min(first, Date.parse(task.createdAt));
    last = Math.max(last, Date.parse(task.lastUpdatedAt));
  }
  return JOBS / ((last - first) / 1000);
}

async function workerScaling(redis) {
  const front = await startServer(`serve-only+${redis.url}`);
  const results = { 1: [], 3: [] };
  try {
    const run = async (count) => {
      const workers = await Promise.all(Array.from({ length: count }, () => startServer(`worker+${redis.url}`)));
      try {
        return await queuedThroughput(front);
      } finally {
        await Promise.all(workers.map((worker) => worker.stop()));
      }
    };
    await run(1); // warm-up: the front's first calls and Redis's first keys
    for (let round = 0; round < ROUNDS; round++) {
      for (const count of round % 2 === 0 ? [1, 3] : [3, 1]) results[count].push(await run(count));
    }
  } finally {
    await front.stop();
  }
  const sorted = (values) => [...values].sort((a, b) => a - b);
  const median = (values) => sorted(values)[Math.floor(values.length / 2)];
  const ratios = sorted(results[3].map((value, round) => value / results[1][round]));
  console.log(`\nWorkers: ${JOBS} CPU-bound tasks (PBKDF2, ~30 ms of one core each) queued at once on a serve-only instance; ${ROUNDS} rounds\n`);
  console.log('| workers | tasks/s median | min | max |');
  console.log('| ---: | ---: | ---: | ---: |');
  for (const count of [1, 3])
    console.log(`| ${count} | ${median(results[count]).toFixed(1)} | ${Math.min(...results[count]).toFixed(1)} | ${Math.max(...results[count]).toFixed(1)} |`);
  const ratio = median(ratios);
  console.log(
    `\nthree workers / one: median ${ratio.toFixed(2)}x (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)}); target >= 1.5x: ${ratio >= 1.5 ? 'met' : 'not met'} (this machine has ${availableParallelism()} cores: the ceiling is about that many workers' worth, less what the serving instance, Redis and this client use)`,
  );
}

async function bench() {
  if (!have('redis-server')) {
    console.log('SKIPPED: redis-server is not installed (.ci/run installs it: apt-get install -y redis-server); the Redis rows did not run');
    process.exitCode = 1;
    return;
  }
  const redis = await startRedis();
  try {
    if (PARTS.has('trips')) {
      const servers = {
        MemoryStore: await startServer('memory'),
        RedisStore: await startServer(redis.url),
        // Each on a queue of its own: a worker of another variant would take its jobs.
        'BullMQ queue': await startServer(`queue+${redis.url}|trips-queue`),
        // The same queue with taskAnswerWithinMs: the call waits for the task's end and is answered with its result.
        'BullMQ queue, answered within 1 s': await startServer(`answered+queue+${redis.url}|trips-answered`),
        // Its job run by a worker-only process: the end reaches the serving instance on its Redis channel.
        'BullMQ queue, answered within 1 s, a worker-only process': await servedWithWorker(redis),
      };
      try {
        await roundTrips(servers, redis);
      } finally {
        // The servers before Redis, so none sees its store vanish.
        for (const server of Object.values(servers)) await server.stop();
      }
    }
    if (PARTS.has('thousand')) {
      const instances = await Promise.all([1, 2, 3].map(() => startServer(`queue+${redis.url}`)));
      try {
        await thousandTasks(instances, redis);
      } finally {
        await Promise.all(instances.map((instance) => instance.stop()));
      }
    }
    if (PARTS.has('workers')) await workerScaling(redis);
  } finally {
    agent.destroy();
    redis.stop();
  }
}

const kind = arg('--serve', undefined);
if (kind !== undefined) await serve(kind);
else await bench();
