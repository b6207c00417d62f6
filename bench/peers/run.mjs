// `npm run bench:peers`: the cost of one validated tool call in real use, anytool beside its peers,
// all measured in one process with every peer's package loaded (a library that switches on async
// hooks, as AsyncLocalStorage does on Node 20, slows every `await` in the process, its neighbours' included).
//
// Two tools, each written in every framework's own way and called as that framework calls it from the
// model's output:
// - flat: `add(a, b)`, two numbers.
// - realistic: `file_issue`, five fields (a bounded title, an enum, an e-mail and a date checked by
//   patterns, a nested object with a pattern and a positive integer), as tools in real use look.
// The calls:
// - anytool: `toolset.invoke(name, json, context)` (the agent's path), with its build-time JSON Schema;
//   for the flat tool also `tool.invoke(context, object)` and tracing switched on with no exporter.
//   (These rows are named `anytool ...`; the names are the constants ANYTOOL_* below.)
// - Vercel AI SDK (`ai`): `safeParseJSON({ text, schema })` + `execute(input, options)`, what its
//   `generateText` does with a tool call (zod schema).
// - OpenAI Agents SDK: `FunctionTool.invoke(runContext, json)` (zod schema).
// - LangChain.js: `JSON.parse` + `StructuredTool.invoke(args)` (its messages carry parsed arguments).
// - Mastra: `JSON.parse` + `createTool(...).execute(input, { requestContext })` (its execute checks the input).
// - The floors: a direct awaited call; ajv + an awaited call; `JSON.parse` + ajv + an awaited call.
// - For reading the table: two `performance.now()` reads, what each anytool call spends on its events'
//   times (the cost of a clock read depends on the machine: a virtual machine's clock may be slow).
//
// 1,024 distinct argument objects and their JSON texts per tool, taken in turn. Each framework's run
// context is made inside the timed loop every 100 calls, as a run makes it (anytool: an ExecutionContext
// with the run's timeout signal and a random run id, as Agent.run makes it; the Agents SDK: a RunContext;
// the AI SDK: its messages; Mastra: a RequestContext), and dropped when its 100 calls are done.
//
// Two modes, in separate processes (an AsyncLocalStorage once used stays in force in its process):
// - plain: no AsyncLocalStorage.
// - ALS: an AsyncLocalStorage is active around every call (`als.run(store, ...)`), as OpenTelemetry's
//   context manager does in a traced service. On Node 20 that switches on promise hooks; Node 24 keeps
//   the context without them.
//
// Every variant runs once per round, interleaved in a rotating order, and makes a quarter of its calls
// untimed just before its sample: without that, a variant paid for the garbage the one before it left.
// The median of rounds is a process's number. A sample is the CPU time the process spent (its GC
// threads included) per call, not wall time: other load on a shared machine then shifts it much less.
// No forced GC between samples. PROCESSES processes per mode (3 by default) run one after the other,
// and the table gives the median of their medians and the spread (slowest median / fastest). Ratios
// between variants of one process are robust to load on the machine; absolute numbers are not.
//
// The whole table is made on the running Node (20 is the floor), then on Node 24, brought from npm
// as CI brings it (`npx -y -p node@24`); `--this-node-only` skips the second.
//
// Run: npm run bench:peers (installs this folder's packages first), or, once installed,
// node bench/peers/run.mjs [--processes 3] [--rounds 20] [--calls 10000] [--preroll 0.25] [--this-node-only]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : Number(process.env[name.toUpperCase()] ?? fallback);
};
const PROCESSES = option('processes', 3);
const ROUNDS = option('rounds', 20);
const CALLS = option('calls', 10_000);
// The share of a sample's calls each variant makes untimed just before it (see the loop).
const PREROLL = option('preroll', 0.25);
const DISTINCT = 1024;
const RUN_CALLS = 100;
const MODES = ['plain', 'ALS'];
// The Node brought from npm for the second table (CI brings it the same way).
const SECOND_NODE = 'node@24';

function parent() {
  const byMode = {};
  for (const mode of MODES) {
    const runs = [];
    for (let p = 0; p < PROCESSES; p++) {
      const childArgs = [fileURLToPath(import.meta.url), '--child', '--mode', mode, ...argv];
      const run = spawnSync(process.execPath, childArgs, { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (run.status !== 0) {
        process.stderr.write(run.stderr);
        process.exit(run.status ?? 1);
      }
      const result = JSON.parse(run.stdout.trim().split('\n').pop());
      runs.push(result);
      process.stderr.write(
        `Node ${process.version}, ${mode}, process ${p + 1}/${PROCESSES}: toolset.invoke(json) ${result.medians[ANYTOOL_JSON].toFixed(0)} ns\n`,
      );
    }
    byMode[mode] = runs;
  }
  report(byMode);
  if (!argv.includes('--this-node-only') && Number(process.versions.node.split('.')[0]) < 24) {
    console.log('');
    const self = JSON.stringify(fileURLToPath(import.meta.url));
    const rest = argv.map((a) => JSON.stringify(a)).join(' ');
    const second = spawnSync('npx', ['-y', '-p', SECOND_NODE, '-c', `node ${self} --this-node-only ${rest}`], { stdio: 'inherit' });
    if (second.status !== 0) {
      console.error(`bench:peers: the run on ${SECOND_NODE} (npx -y -p ${SECOND_NODE}) failed with exit code ${second.status}`);
      process.exit(second.status ?? 1);
    }
  }
}

const DIRECT = 'direct call (awaited)';
const AJV = 'ajv + await (floor)';
const PARSE_AJV = 'JSON.parse + ajv + await (floor)';
// anytool's own variants: every row whose name starts with `anytool`.
const ANYTOOL_JSON = 'anytool toolset.invoke(name, json, ctx)';
const ANYTOOL_TRACED = 'anytool toolset.invoke, tracing on, no exporter';
const ANYTOOL_TOOL = 'anytool tool.invoke(ctx, object)';
const AI_SDK = 'AI SDK safeParseJSON + execute';
const AGENTS = 'OpenAI Agents SDK tool.invoke(runContext, json)';
const LANGCHAIN = 'LangChain.js JSON.parse + tool.invoke(args)';
const MASTRA = 'Mastra JSON.parse + createTool execute';
// Not a framework: what the two clock reads every anytool call makes for its events' times cost on this machine.
const CLOCK = 'two clock reads (performance.now)';
// The realistic tool's rows: the same callers, suffixed.
const REAL = ', realistic schema';
const real = (name) => `${name}${REAL}`;

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function report(byMode) {
  const first = byMode.plain[0];
  console.log(
    `\npeers on Node ${first.node}: ${PROCESSES} processes per mode x ${ROUNDS} rounds x ${CALLS} calls (LangChain.js ${first.langchainCalls}), ${DISTINCT} distinct arguments per tool, a context made every ${RUN_CALLS} calls`,
  );
  console.log(
    `versions: ${Object.entries(first.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log('');
  console.log(
    'ns per call: the median over processes of their medians (min-max over processes); x floor: / JSON.parse + ajv + await of the same schema and mode',
  );
  console.log('');
  console.log('| variant | flat, plain | x floor | flat, ALS | x floor | realistic, plain | x floor | realistic, ALS | x floor |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const cell = (mode, name, floorName) => {
    const xs = byMode[mode].map((r) => r.medians[name]);
    if (xs.some((x) => x === undefined)) return ['-', '-'];
    const m = median(xs);
    const floor = median(byMode[mode].map((r) => r.medians[floorName]));
    return [`${m.toFixed(0)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`, (m / floor).toFixed(2)];
  };
  const flatNames = Object.keys(first.medians).filter((n) => !n.endsWith(REAL));
  for (const name of flatNames) {
    const cells = [
      ...cell('plain', name, PARSE_AJV),
      ...cell('ALS', name, PARSE_AJV),
      ...cell('plain', real(name), real(PARSE_AJV)),
      ...cell('ALS', real(name), real(PARSE_AJV)),
    ];
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  // Each process's ratios are taken round by round within the process (robust to load), then the median over processes.
  const ratio = (mode, key) => median(byMode[mode].map((r) => r.ratios[key]));
  const verdict = (ok) => (ok ? 'MET' : 'NOT MET');
  console.log('');
  console.log("Ratios: per process, the median over rounds of the two variants' ratio in the same round; then the median over processes.");
  for (const mode of MODES) {
    const xs = byMode[mode].map((r) => r.medians[ANYTOOL_JSON]);
    const spread = Math.max(...xs) / Math.min(...xs);
    const toFloor = ratio(mode, 'toFloor');
    const vsAiSdk = ratio(mode, 'aiSdk');
    console.log(`${mode}: toolset.invoke(name, json, ctx) / (JSON.parse + ajv + await): ${toFloor.toFixed(2)}x (target <= 2x): ${verdict(toFloor <= 2)}`);
    console.log(`${mode}: AI SDK safeParseJSON + execute / toolset.invoke: ${vsAiSdk.toFixed(2)}x (target >= 5x): ${verdict(vsAiSdk >= 5)}`);
    console.log(
      `${mode}: realistic schema: toolset.invoke / floor ${ratio(mode, 'realToFloor').toFixed(2)}x; AI SDK / toolset.invoke ${ratio(mode, 'realAiSdk').toFixed(2)}x; Agents SDK / toolset.invoke ${ratio(mode, 'realAgents').toFixed(2)}x; Mastra / toolset.invoke ${ratio(mode, 'realMastra').toFixed(2)}x`,
    );
    console.log(`${mode}: spread of toolset.invoke medians over ${xs.length} processes: ${spread.toFixed(2)}x (target <= 1.5x): ${verdict(spread <= 1.5)}`);
    console.log(
      `${mode}: tracing on, no exporter / tracing off: ${ratio(mode, 'tracing').toFixed(3)}x (target <= 1.1x): ${verdict(ratio(mode, 'tracing') <= 1.1)}`,
    );
  }
  const acrossModes = (name) => median(byMode.ALS.map((r) => r.medians[name])) / median(byMode.plain.map((r) => r.medians[name]));
  console.log(
    `ALS / plain (medians of separate processes, so load moves it more than the ratios above): toolset.invoke ${acrossModes(ANYTOOL_JSON).toFixed(2)}x, the floor ${acrossModes(PARSE_AJV).toFixed(2)}x, AI SDK ${acrossModes(AI_SDK).toFixed(2)}x`,
  );
}

async function child() {
  const [{ default: Ajv }, { z }, core, ai, providerUtils, agents, lcTools, mastraTools, mastraContext, { AsyncLocalStorage }, { randomUUID }] =
    await Promise.all([
      import('ajv'),
      import('zod'),
      import('@anytool/core'),
      import('ai'),
      import('@ai-sdk/provider-utils'),
      import('@openai/agents'),
      import('@langchain/core/tools'),
      import('@mastra/core/tools'),
      import('@mastra/core/request-context'),
      import('node:async_hooks'),
      import('node:crypto'),
    ]);
  const { ExecutionContext, Toolset, tool, tracing } = core;
  const { readFileSync } = await import('node:fs');
  const version = (name) => JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  const versions = {
    ai: version('ai'),
    '@openai/agents': version('@openai/agents'),
    '@langchain/core': version('@langchain/core'),
    '@mastra/core': version('@mastra/core'),
    zod: version('zod'),
    ajv: version('ajv'),
  };
  agents.setTracingDisabled(true);
  const mode = argv[argv.indexOf('--mode') + 1];
  const als = mode === 'ALS' ? new AsyncLocalStorage() : undefined;

  // The flat tool.
  const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };
  const zodParameters = z.object({ a: z.number(), b: z.number() });
  const add = (a, b) => a + b;
  const addTool = tool(add, { name: 'add', description: 'Add two numbers.' }, { parameters, paramNames: ['a', 'b'] });

  // The realistic tool: what anytool's build step writes for `fileIssue(title, priority, assignee, due, location)`.
  const EMAIL = '^[a-z][a-z0-9._-]*@[a-z0-9-]+(\\.[a-z0-9-]+)+$';
  const DATE = '^\\d{4}-\\d{2}-\\d{2}$';
  const REPO = '^[a-z0-9-]+/[a-z0-9._-]+$';
  const issueParameters = {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 200 },
      priority: { type: 'string', enum: ['low', 'medium', 'high', 'urgent'] },
      assignee: { type: 'string', pattern: EMAIL },
      due: { type: 'string', pattern: DATE },
      location: {
        type: 'object',
        properties: { repo: { type: 'string', pattern: REPO }, line: { type: 'integer', minimum: 1 } },
        required: ['repo', 'line'],
        additionalProperties: false,
      },
    },
    required: ['title', 'priority', 'assignee', 'due', 'location'],
    additionalProperties: false,
  };
  const zodIssue = z.object({
    title: z.string().min(1).max(200),
    priority: z.enum(['low', 'medium', 'high', 'urgent']),
    assignee: z.string().regex(new RegExp(EMAIL)),
    due: z.string().regex(new RegExp(DATE)),
    location: z.object({ repo: z.string().regex(new RegExp(REPO)), line: z.number().int().min(1) }),
  });
  const fileIssue = (title, priority, assignee, due, location) => title.length + location.line;
  const fileIssueArgs = ({ title, priority, assignee, due, location }) => fileIssue(title, priority, assignee, due, location);
  const issueTool = tool(
    fileIssue,
    { name: 'file_issue', description: 'File an issue.' },
    { parameters: issueParameters, paramNames: ['title', 'priority', 'assignee', 'due', 'location'] },
  );

  const toolset = new Toolset(addTool, issueTool);
  const traced = new Toolset(addTool).use(tracing());
  const ajv = new Ajv();
  const validate = ajv.compile(parameters);
  const validateIssue = ajv.compile(issueParameters);
  // The same plain function in every framework: the AI SDK takes a sync `execute` as well (its
  // generateText awaits whatever comes back), so no async wrapper adds a promise to its side only.
  const peers = (name, description, schema, fn) => ({
    ai: ai.tool({ description, inputSchema: schema, execute: fn }),
    agents: agents.tool({ name, description, parameters: schema, execute: fn }),
    lc: lcTools.tool(fn, { name, description, schema }),
    mastra: mastraTools.createTool({ id: name, description, inputSchema: schema, execute: fn }),
  });
  const flatPeers = peers('add', 'Add two numbers.', zodParameters, ({ a, b }) => add(a, b));
  const issuePeers = peers('file_issue', 'File an issue.', zodIssue, fileIssueArgs);

  // Whole numbers, as most numeric arguments are: V8 turns a non-integer number into text about five
  // times slower, and anytool writes the text part of every result where the peers leave that for later.
  const objects = Array.from({ length: DISTINCT }, (_, i) => ({ a: i * 3 + 7, b: DISTINCT - i }));
  const priorities = ['low', 'medium', 'high', 'urgent'];
  const issues = Array.from({ length: DISTINCT }, (_, i) => ({
    title: `Crash ${i} when the cache holds ${i * 7} entries`,
    priority: priorities[i % 4],
    assignee: `dev${i % 37}.team${i % 5}@example${i % 3}.org`,
    due: `2027-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    location: { repo: `org${i % 11}/service-${i % 13}`, line: i + 1 },
  }));
  const flatTexts = objects.map((o) => JSON.stringify(o));
  const issueTexts = issues.map((o) => JSON.stringify(o));
  // The model's tool call ids come with its output: made before the clock starts, as the texts are.
  const callIds = objects.map((_, i) => `call_${i}`);
  const mask = DISTINCT - 1;
  // A run's context, made as each framework's run makes it, inside the timed loop.
  const RUN_TIMEOUT_MS = 10 * 60_000;
  const anytoolRun = () => new ExecutionContext({ signal: AbortSignal.timeout(RUN_TIMEOUT_MS), runId: `run_${randomUUID()}` });
  let sink = 0;
  const check = (n) => {
    if (n !== n) throw new Error('bad result');
    sink += n;
  };
  const checkMastra = (n) => {
    if (typeof n !== 'number') throw new Error(`Mastra answered ${JSON.stringify(n)}`);
    check(n);
  };

  // Each variant: (calls) => async () => { the timed calls }; `texts`/`values` pick the tool.
  const forTool = (toolName, texts, values, validateArgs, call, peer) => ({
    parseAjv: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = JSON.parse(texts[i & mask]);
        if (!validateArgs(args)) throw new Error('invalid');
        check(await call(args));
      }
    },
    anytool: (calls) => async () => {
      let context;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) context = anytoolRun();
        check((await toolset.invoke(toolName, texts[i & mask], context)).structured);
      }
    },
    aiSdk: (calls) => async () => {
      let messages;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) messages = [];
        const parsed = await providerUtils.safeParseJSON({ text: texts[i & mask], schema: peer.ai.inputSchema });
        if (!parsed.success) throw parsed.error;
        check(await peer.ai.execute(parsed.value, { toolCallId: callIds[i & mask], messages }));
      }
    },
    agents: (calls) => async () => {
      let context;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) context = new agents.RunContext();
        check(Number(await peer.agents.invoke(context, texts[i & mask])));
      }
    },
    langchain: (calls) => async () => {
      for (let i = 0; i < calls; i++) check(await peer.lc.invoke(JSON.parse(texts[i & mask])));
    },
    mastra: (calls) => async () => {
      let requestContext;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) requestContext = new mastraContext.RequestContext();
        checkMastra(await peer.mastra.execute(JSON.parse(texts[i & mask]), { requestContext }));
      }
    },
  });
  const flat = forTool('add', flatTexts, objects, validate, (args) => add(args.a, args.b), flatPeers);
  const issue = forTool('file_issue', issueTexts, issues, validateIssue, fileIssueArgs, issuePeers);

  const variants = {
    [DIRECT]: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = objects[i & mask];
        check(await add(args.a, args.b));
      }
    },
    [AJV]: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = objects[i & mask];
        if (!validate(args)) throw new Error('invalid');
        check(await add(args.a, args.b));
      }
    },
    [PARSE_AJV]: flat.parseAjv,
    [ANYTOOL_JSON]: flat.anytool,
    [ANYTOOL_TRACED]: (calls) => async () => {
      let context;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) context = anytoolRun();
        check((await traced.invoke('add', flatTexts[i & mask], context)).structured);
      }
    },
    [ANYTOOL_TOOL]: (calls) => async () => {
      let context;
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) context = anytoolRun();
        check((await addTool.invoke(context, objects[i & mask])).structured);
      }
    },
    [AI_SDK]: flat.aiSdk,
    [AGENTS]: flat.agents,
    [MASTRA]: flat.mastra,
    [CLOCK]: (calls) => async () => {
      const clock = globalThis.performance;
      for (let i = 0; i < calls; i++) {
        const started = clock.now();
        check(clock.now() - started >= 0 ? 1 : 0);
      }
    },
    [LANGCHAIN]: flat.langchain,
    [real(PARSE_AJV)]: issue.parseAjv,
    [real(ANYTOOL_JSON)]: issue.anytool,
    [real(AI_SDK)]: issue.aiSdk,
    [real(AGENTS)]: issue.agents,
    [real(MASTRA)]: issue.mastra,
    [real(LANGCHAIN)]: issue.langchain,
  };

  // LangChain.js is two orders of magnitude slower: fewer calls keep its rounds as short as the others'.
  const langchainCalls = Math.max(100, Math.round(CALLS / 50));
  const callsOf = (name) => (name.startsWith(LANGCHAIN) ? langchainCalls : CALLS);
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  // In the ALS mode every call runs with a store active, as under OpenTelemetry's context manager.
  const timed = als === undefined ? (run) => run() : (run) => als.run({ span: 'bench' }, run);
  const WARMUP = 3;
  for (let round = -WARMUP; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round + WARMUP) % names.length];
      const calls = callsOf(name);
      // Untimed first: the collector's work left by the variant before (sweeping, marking) is
      // done while this one runs on, so the sample is this variant's own steady state.
      if (PREROLL > 0) await timed(variants[name](Math.ceil((calls * PREROLL) / RUN_CALLS) * RUN_CALLS));
      const run = variants[name](calls);
      const start = process.cpuUsage();
      await timed(run);
      const spent = process.cpuUsage(start);
      const ns = ((spent.user + spent.system) * 1000) / calls;
      if (round >= 0) samples[name].push(ns);
    }
  }
  const medians = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
  // Ratios of two variants in the same round (a few milliseconds apart, under the same load), then their median.
  const pair = (a, b) => median(samples[a].map((x, round) => x / samples[b][round]));
  const ratios = {
    toFloor: pair(ANYTOOL_JSON, PARSE_AJV),
    aiSdk: pair(AI_SDK, ANYTOOL_JSON),
    tracing: pair(ANYTOOL_TRACED, ANYTOOL_JSON),
    realToFloor: pair(real(ANYTOOL_JSON), real(PARSE_AJV)),
    realAiSdk: pair(real(AI_SDK), real(ANYTOOL_JSON)),
    realAgents: pair(real(AGENTS), real(ANYTOOL_JSON)),
    realMastra: pair(real(MASTRA), real(ANYTOOL_JSON)),
  };
  console.log(JSON.stringify({ node: process.version, mode, versions, langchainCalls, medians, ratios, sink: sink === -1 ? sink : 0 }));
}

if (argv.includes('--child')) await child();
else parent();
