// `npm run bench:peers`: the cost of one validated tool call in real use, anytool beside its peers,
// all measured in one process with every peer's package loaded (a library that switches on async
// hooks, as AsyncLocalStorage does, slows every `await` in the process, its neighbours' included).
//
// The same tool, `add(a, b)`, with each framework's own way of calling it from the model's output:
// - anytool: `toolset.invoke(name, json, context)` (the agent's path) and `tool.invoke(context, object)`,
//   with its build-time JSON Schema; also with tracing switched on and no exporter registered.
// - Vercel AI SDK (`ai`): `safeParseJSON({ text, schema })` + `execute(input, options)`, what its
//   `generateText` does with a tool call (zod schema).
// - OpenAI Agents SDK: `FunctionTool.invoke(runContext, json)` (zod schema).
// - LangChain.js: `JSON.parse` + `StructuredTool.invoke(args)` (its messages carry parsed arguments).
// - The floors: a direct awaited call; ajv + an awaited call; `JSON.parse` + ajv + an awaited call.
// - For reading the table: two `performance.now()` reads, what each anytool call spends on its events'
//   times (the cost of a clock read depends on the machine: a virtual machine's clock may be slow).
//
// 1,024 distinct argument objects and their JSON texts, taken in turn; a fresh run context
// (ExecutionContext, RunContext, the AI SDK's messages) every 100 calls, dropped when its 100
// calls are done, as a finished run is. Every variant runs once per round, interleaved in a
// rotating order, and makes a quarter of its calls untimed just before its sample: without
// that, a variant paid for the garbage the one before it left (always the same neighbour in a
// rotating order: swapping the places of two anytool variants moved their ratio from 1.2 to
// 0.9; with the untimed calls, 1.05 either way). The median of rounds is a process's number.
// A sample is the CPU time the process spent (its GC threads included) per call, not wall
// time: other load on a shared machine then shifts it much less. No forced GC between samples:
// a full GC throws away the optimized code that holds weak references, which no real process
// does every 10,000 calls; each sample is long enough to collect its own garbage (the untimed
// calls before it see that the collector is not behind). PROCESSES processes (5 by default)
// run one after the other, and the table gives the median of their medians and the spread
// (slowest median / fastest). Ratios between variants of one process are robust to load on
// the machine; absolute numbers are not.
//
// Run: npm run bench:peers (installs this folder's packages first), or, once installed,
// node bench/peers/run.mjs [--processes 5] [--rounds 20] [--calls 10000] [--preroll 0.25]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : Number(process.env[name.toUpperCase()] ?? fallback);
};
const PROCESSES = option('processes', 5);
const ROUNDS = option('rounds', 20);
const CALLS = option('calls', 10_000);
// The share of a sample's calls each variant makes untimed just before it (see the loop).
const PREROLL = option('preroll', 0.25);
const DISTINCT = 1024;
const RUN_CALLS = 100;

function parent() {
  const runs = [];
  for (let p = 0; p < PROCESSES; p++) {
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...argv], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (run.status !== 0) {
      process.stderr.write(run.stderr);
      process.exit(run.status ?? 1);
    }
    const result = JSON.parse(run.stdout.trim().split('\n').pop());
    runs.push(result);
    process.stderr.write(`process ${p + 1}/${PROCESSES}: toolset.invoke(json) ${result.medians[ANYTOOL_JSON].toFixed(0)} ns\n`);
  }
  report(runs);
}

const DIRECT = 'direct call (awaited)';
const AJV = 'ajv + await (floor)';
const PARSE_AJV = 'JSON.parse + ajv + await (floor)';
const ANYTOOL_JSON = 'anytool toolset.invoke(name, json, ctx)';
const ANYTOOL_TRACED = 'anytool toolset.invoke, tracing on, no exporter';
const ANYTOOL_TOOL = 'anytool tool.invoke(ctx, object)';
const AI_SDK = 'AI SDK safeParseJSON + execute';
const AGENTS = 'OpenAI Agents SDK tool.invoke(runContext, json)';
const LANGCHAIN = 'LangChain.js JSON.parse + tool.invoke(args)';
// Not a framework: what the two clock reads every anytool call makes for its events' times cost on this machine.
const CLOCK = 'two clock reads (performance.now)';

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function report(runs) {
  const first = runs[0];
  const names = Object.keys(first.medians);
  const of = (name) => runs.map((r) => r.medians[name]);
  const floor = median(of(PARSE_AJV));
  console.log(
    `peers: ${runs.length} processes x ${ROUNDS} rounds x ${CALLS} calls (LangChain.js ${first.langchainCalls}), ${DISTINCT} distinct arguments, a fresh context every ${RUN_CALLS} calls; Node ${first.node}`,
  );
  console.log(
    `versions: ${Object.entries(first.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log('');
  console.log('| variant | median ns/call | min-max over processes | spread | x JSON.parse+ajv floor |');
  console.log('|---|---:|---:|---:|---:|');
  for (const name of names) {
    const xs = of(name);
    const m = median(xs);
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    console.log(`| ${name} | ${m.toFixed(0)} | ${lo.toFixed(0)}-${hi.toFixed(0)} | ${(hi / lo).toFixed(2)}x | ${(m / floor).toFixed(2)} |`);
  }
  // Each process's ratios are taken round by round within the process (robust to load), then the median over processes.
  const ratio = (key) => median(runs.map((r) => r.ratios[key]));
  const toFloor = ratio('toFloor');
  const vsAiSdk = ratio('aiSdk');
  const xs = of(ANYTOOL_JSON);
  const spread = Math.max(...xs) / Math.min(...xs);
  const tracing = ratio('tracing');
  const verdict = (ok) => (ok ? 'MET' : 'NOT MET');
  console.log('');
  console.log("Ratios: per process, the median over rounds of the two variants' ratio in the same round; then the median over processes.");
  console.log(`toolset.invoke(name, json, ctx) / (JSON.parse + ajv + await): ${toFloor.toFixed(2)}x (target <= 2x): ${verdict(toFloor <= 2)}`);
  console.log(`AI SDK safeParseJSON + execute / toolset.invoke: ${vsAiSdk.toFixed(2)}x (target >= 5x): ${verdict(vsAiSdk >= 5)}`);
  console.log(`spread of toolset.invoke medians over ${runs.length} processes: ${spread.toFixed(2)}x (target <= 1.5x): ${verdict(spread <= 1.5)}`);
  console.log(`tracing on, no exporter / tracing off: ${tracing.toFixed(3)}x (target <= 1.1x): ${verdict(tracing <= 1.1)}`);
}

async function child() {
  const [{ default: Ajv }, { z }, core, ai, providerUtils, agents, lcTools] = await Promise.all([
    import('ajv'),
    import('zod'),
    import('@anytool/core'),
    import('ai'),
    import('@ai-sdk/provider-utils'),
    import('@openai/agents'),
    import('@langchain/core/tools'),
  ]);
  const { ExecutionContext, Toolset, tool, tracing } = core;
  const { readFileSync } = await import('node:fs');
  const version = (name) => JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  const versions = {
    ai: version('ai'),
    '@openai/agents': version('@openai/agents'),
    '@langchain/core': version('@langchain/core'),
    zod: version('zod'),
    ajv: version('ajv'),
  };
  agents.setTracingDisabled(true);

  const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };
  const zodParameters = z.object({ a: z.number(), b: z.number() });
  const add = (a, b) => a + b;
  const addTool = tool(add, { name: 'add', description: 'Add two numbers.' }, { parameters, paramNames: ['a', 'b'] });
  const toolset = new Toolset(addTool);
  const traced = new Toolset(addTool).use(tracing());
  const validate = new Ajv().compile(parameters);
  // The same plain function in every framework: the AI SDK takes a sync `execute` as well (its
  // generateText awaits whatever comes back), so no async wrapper adds a promise to its side only.
  const aiTool = ai.tool({ description: 'Add two numbers.', inputSchema: zodParameters, execute: ({ a, b }) => add(a, b) });
  const agentsTool = agents.tool({ name: 'add', description: 'Add two numbers.', parameters: zodParameters, execute: ({ a, b }) => add(a, b) });
  const lcTool = lcTools.tool(({ a, b }) => add(a, b), { name: 'add', description: 'Add two numbers.', schema: zodParameters });

  // Whole numbers, as most numeric arguments are: V8 turns a non-integer number into text about five
  // times slower, and anytool writes the text part of every result where the peers leave that for later.
  const objects = Array.from({ length: DISTINCT }, (_, i) => ({ a: i * 3 + 7, b: DISTINCT - i }));
  const texts = objects.map((o) => JSON.stringify(o));
  // The model's tool call ids come with its output: made before the clock starts, as the texts are.
  const callIds = objects.map((_, i) => `call_${i}`);
  const mask = DISTINCT - 1;
  // The runs' contexts are made before the clock starts (setting up a run is not part of a call);
  // `take` hands out the one for call i and drops it from the list, so a finished run is garbage.
  const runs = (make, calls) => Array.from({ length: Math.ceil(calls / RUN_CALLS) }, make);
  const anytoolRuns = (calls) => runs(() => new ExecutionContext({ signal: new AbortController().signal }), calls);
  const take = (list, i) => {
    const run = list[(i / RUN_CALLS) | 0];
    if (i % RUN_CALLS === RUN_CALLS - 1) list[(i / RUN_CALLS) | 0] = undefined;
    return run;
  };
  let sink = 0;
  const check = (n) => {
    if (n !== n) throw new Error('bad result');
    sink += n;
  };

  // Each variant: (calls) => { setup (untimed), run (timed) }.
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
    [PARSE_AJV]: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = JSON.parse(texts[i & mask]);
        if (!validate(args)) throw new Error('invalid');
        check(await add(args.a, args.b));
      }
    },
    [ANYTOOL_JSON]: (calls) => {
      const contexts = anytoolRuns(calls);
      return async () => {
        for (let i = 0; i < calls; i++) check((await toolset.invoke('add', texts[i & mask], take(contexts, i))).structured);
      };
    },
    [ANYTOOL_TRACED]: (calls) => {
      const contexts = anytoolRuns(calls);
      return async () => {
        for (let i = 0; i < calls; i++) check((await traced.invoke('add', texts[i & mask], take(contexts, i))).structured);
      };
    },
    [ANYTOOL_TOOL]: (calls) => {
      const contexts = anytoolRuns(calls);
      return async () => {
        for (let i = 0; i < calls; i++) check((await addTool.invoke(take(contexts, i), objects[i & mask])).structured);
      };
    },
    [AI_SDK]: (calls) => async () => {
      let messages = [];
      for (let i = 0; i < calls; i++) {
        if (i % RUN_CALLS === 0) messages = [];
        const parsed = await providerUtils.safeParseJSON({ text: texts[i & mask], schema: aiTool.inputSchema });
        if (!parsed.success) throw parsed.error;
        check(await aiTool.execute(parsed.value, { toolCallId: callIds[i & mask], messages }));
      }
    },
    [AGENTS]: (calls) => {
      const contexts = runs(() => new agents.RunContext(), calls);
      return async () => {
        for (let i = 0; i < calls; i++) check(Number(await agentsTool.invoke(take(contexts, i), texts[i & mask])));
      };
    },
    [CLOCK]: (calls) => async () => {
      const clock = globalThis.performance;
      for (let i = 0; i < calls; i++) {
        const started = clock.now();
        check(clock.now() - started >= 0 ? 1 : 0);
      }
    },
    [LANGCHAIN]: (calls) => async () => {
      for (let i = 0; i < calls; i++) check(await lcTool.invoke(JSON.parse(texts[i & mask])));
    },
  };

  // LangChain.js is two orders of magnitude slower: fewer calls keep its rounds as short as the others'.
  const langchainCalls = Math.max(100, Math.round(CALLS / 50));
  const callsOf = (name) => (name === LANGCHAIN ? langchainCalls : CALLS);
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const WARMUP = 3;
  for (let round = -WARMUP; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round + WARMUP) % names.length];
      const calls = callsOf(name);
      // Untimed first: the collector's work left by the variant before (sweeping, marking) is
      // done while this one runs on, so the sample is this variant's own steady state.
      if (PREROLL > 0) await variants[name](Math.ceil((calls * PREROLL) / RUN_CALLS) * RUN_CALLS)();
      const run = variants[name](calls);
      const start = process.cpuUsage();
      await run();
      const spent = process.cpuUsage(start);
      const ns = ((spent.user + spent.system) * 1000) / calls;
      if (round >= 0) samples[name].push(ns);
    }
  }
  const medians = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
  // Ratios of two variants in the same round (a few milliseconds apart, under the same load), then their median.
  const pair = (a, b) => median(samples[a].map((x, round) => x / samples[b][round]));
  const ratios = { toFloor: pair(ANYTOOL_JSON, PARSE_AJV), aiSdk: pair(AI_SDK, ANYTOOL_JSON), tracing: pair(ANYTOOL_TRACED, ANYTOOL_JSON) };
  console.log(JSON.stringify({ node: process.version, versions, langchainCalls, medians, ratios, sink: sink === -1 ? sink : 0 }));
}

if (argv.includes('--child')) await child();
else parent();
