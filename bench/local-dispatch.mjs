// Local dispatch: what a user's tool call and a model turn's definitions cost, against their floors.
//
// The call is what a model's turn gives an agent: a realistic schema (five fields, two with a
// pattern, an enum, bounds, a nested object), 1,024 distinct JSON texts taken in turn, a fresh
// run context every 100 calls (dropped when its calls are done). Its floor is what any framework
// must do with that text: `JSON.parse` + an ajv validator + an awaited call of the function.
//
// Rows, each against its baseline measured in the same process, interleaved (every round runs
// each variant once, in a rotating order, with a quarter of its calls untimed first so that it
// does not pay for its neighbour's garbage), median over rounds, then median and min-max over
// processes:
// - the uniform call, `toolset.invoke(name, json, context)`, and `tool.invoke(context, object)`;
// - the same in processes where an `AsyncLocalStorage` holds a store (what OpenTelemetry's context
//   manager and LangGraph do): how much each call's cost rises there, against the floor's rise
//   (the processes alternate: plain, with the store, plain, ...);
// - heap per call in flight: 1,000 calls of an async tool started and not yet finished, the
//   heap they hold (after a full GC) per call, against the floor's 1,000 awaiting calls; and the
//   same calls as the agent makes them (with a call id and its default time limit);
// - `toolset.definitions(format)` at 10,000 tools: the second call (kept until the toolset
//   changes) against lowering them all (what every call did before it was kept).
// - what the call path's own speed-ups buy, each measured with it and without it in one process:
//   the flat reader (a flat schema's JSON text read in one pass instead of `JSON.parse`, the walk
//   and ajv; flat-arguments.ts), its code made per schema (against its general one-pass reader),
//   the sync returns of the call path (pipeline/maybe-async.ts) and the time limits' one shared timer
//   (pipeline/time-limit.ts; see `speedupVariants` below).
// A sample is the CPU time of the process (GC threads included), not wall time.
//
// Run: npm run bench -- local-dispatch, or node bench/local-dispatch.mjs
//   [--processes 3] [--rounds 15] [--calls 10000] [--tools 10000]
// `--check`: the CI regression check. One process, ratios only (never absolute times): fails when
// the uniform call's ratio to its floor, or the kept definitions' ratio to lowering them, is more
// than twice what it is measured at here (the CHECK_LIMITS below).
import { spawnSync } from 'node:child_process';
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { ExecutionContext, Toolset, tool, lowerDefinitions } from '@anytool/core';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? Number(argv[at + 1]) : Number(process.env[name.toUpperCase()] ?? fallback);
};
const CHECK = argv.includes('--check');
const PROCESSES = option('processes', 3);
const ROUNDS = option('rounds', CHECK ? 9 : 15);
const CALLS = option('calls', CHECK ? 4_000 : 10_000);
const TOOLS = option('tools', CHECK ? 2_000 : 10_000);
const PREROLL = 0.25;
const DISTINCT = 1024;
const RUN_CALLS = 100;
const IN_FLIGHT = 1000;

/*
 * The regression check's limits: twice the ratio measured on a loaded two-core machine
 * (Node 20 and 24), so that only a real regression trips them.
 * - uniform call / floor: measured 1.3-1.6, limit 3.2;
 * - kept definitions at 2,000 tools / lowering them all: measured under 0.01, limit 0.05.
 */
const CHECK_LIMITS = { toFloor: 3.2, definitions: 0.05 };

const FLOOR = 'JSON.parse + ajv + await (floor)';
const TOOLSET = 'toolset.invoke(name, json, ctx)';
const OBJECT_FLOOR = 'ajv + await (object floor)';
const TOOL = 'tool.invoke(ctx, object)';
const LOWER = 'lowering every tool (the uncached path)';
const KEPT = 'toolset.definitions(format), kept';
const SYNC_TOOL = 'realistic schema: a sync tool';
const ASYNC_TOOL = 'realistic schema: the same tool async';
const AGENT_CALL = 'the async tool as the agent calls it (a call id, its default time limit)';
const OWN_TIMER = 'the same, the tool also setting and clearing a timer of its own';
const CALL_ID_ONLY = 'the async tool with a call id only (no time limit)';
/** The flat schemas the reader serves: `add(a, b)` as bench:peers calls it, and five fields of every kind it reads. */
const FLAT_KINDS = ['add(a, b)', 'five fields'];
const MADE = 'the reader made for it (compact text, schema order)';
const ONE_PASS = 'its general one-pass reader (the keys in another order)';
const NO_READER = 'no reader (JSON.parse, the walk, ajv)';
const flatName = (kind, variant) => `flat schema ${kind}: ${variant}`;

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

// The schema a real tool has: what a weather or lookup tool asks for.
const parameters = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'The city, in English.', pattern: '^[A-Za-z][A-Za-z .-]*$', minLength: 1, maxLength: 80 },
    country: { type: 'string', description: 'ISO 3166 country code.', pattern: '^[A-Z]{2}$' },
    days: { type: 'integer', description: 'How many days ahead.', minimum: 1, maximum: 14 },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    options: {
      type: 'object',
      properties: { hourly: { type: 'boolean' }, alerts: { type: 'boolean' }, language: { type: 'string', maxLength: 8 } },
      required: ['hourly'],
      additionalProperties: false,
    },
  },
  required: ['city', 'country', 'days'],
  additionalProperties: false,
};
const CITIES = ['Lisbon', 'Oslo', 'San Jose', 'Kyoto', 'Accra', 'Lima', 'St. Louis', 'Perth'];
const COUNTRIES = ['PT', 'NO', 'US', 'JP', 'GH', 'PE', 'US', 'AU'];
const objects = Array.from({ length: DISTINCT }, (_, i) => ({
  city: `${CITIES[i % 8]} ${'abcdefghij'[i % 10]}`,
  country: COUNTRIES[i % 8],
  days: 1 + (i % 14),
  units: i % 3 === 0 ? 'imperial' : 'metric',
  // The language makes every text distinct.
  options: { hourly: i % 2 === 0, alerts: i % 5 === 0, language: `en-${i}` },
}));
const texts = objects.map((o) => JSON.stringify(o));
const forecast = (args) => `${args.city}, ${args.country}: ${args.days} days`;

const mask = DISTINCT - 1;
/** A fresh run context for every RUN_CALLS calls, as a run creates them. */
const contexts = (calls) => Array.from({ length: Math.ceil(calls / RUN_CALLS) }, () => new ExecutionContext({ signal: new AbortController().signal }));
/** The context of call `i`, dropped from `list` once its RUN_CALLS calls are made. */
const take = (list, i) => {
  const run = list[(i / RUN_CALLS) | 0];
  if (i % RUN_CALLS === RUN_CALLS - 1) list[(i / RUN_CALLS) | 0] = undefined;
  return run;
};

function child(mode) {
  const als = mode === 'als' ? new AsyncLocalStorage() : undefined;
  // A store held for the rest of the process, as a tracing context manager holds one.
  als?.enterWith({ span: 'root' });
  const weather = tool(forecast, { name: 'weather', description: 'The forecast for a city.', parameters });
  const toolset = new Toolset(weather);
  const validate = new Ajv().compile(parameters);
  let sink = 0;
  const check = (value) => {
    if (typeof value !== 'string') throw new Error(`bad result: ${JSON.stringify(value)}`);
    sink += value.length;
  };
  const variants = {
    [FLOOR]: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = JSON.parse(texts[i & mask]);
        if (!validate(args)) throw new Error('invalid');
        check(await forecast(args));
      }
    },
    [TOOLSET]: (calls) => {
      const runs = contexts(calls);
      return async () => {
        for (let i = 0; i < calls; i++) check((await toolset.invoke('weather', texts[i & mask], take(runs, i))).content[0].text);
      };
    },
    [OBJECT_FLOOR]: (calls) => async () => {
      for (let i = 0; i < calls; i++) {
        const args = objects[i & mask];
        if (!validate(args)) throw new Error('invalid');
        check(await forecast(args));
      }
    },
    [TOOL]: (calls) => {
      const runs = contexts(calls);
      return async () => {
        for (let i = 0; i < calls; i++) check((await weather.invoke(take(runs, i), objects[i & mask])).content[0].text);
      };
    },
  };
  return { variants, run: () => rounds(variants, () => sink), toolset, validate, weather };
}

async function rounds(variants, sink) {
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = -3; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round + 3) % names.length];
      await variants[name](Math.ceil((CALLS * PREROLL) / RUN_CALLS) * RUN_CALLS)();
      const run = variants[name](CALLS);
      const start = cpu();
      await run();
      if (round >= 0) samples[name].push(((cpu() - start) * 1000) / CALLS);
    }
  }
  if (sink() === -1) console.log(sink());
  return samples;
}

/*
 * What the call path's own speed-ups buy, each against the same call without it, interleaved in one process:
 * - the flat reader, on two flat schemas: `add(a, b)` with the whole numbers bench:peers gives it, and five fields
 *   (a string, an integer, a fraction, a boolean, an enum). Each read from the model's compact text by the code made
 *   for the schema, by the general one-pass reader (the same text with its keys in reverse order, which the made
 *   code hands on), and with no reader (the same schema with a keyword the reader does not serve,
 *   `readOnly: false`, an annotation the validator makes no code for);
 * - the sync returns: the realistic tool sync, and the same tool async. An async tool takes the path every call
 *   would take if each stage returned a promise, at one stage only: the least a path without sync returns costs.
 * - the time limits' one shared timer: the async tool as the agent calls it, and the same call with a timer of
 *   the call's own beside it (set and cleared by the tool), as each call's limit had before.
 */
function speedupVariants(weather) {
  const flat = {
    [FLAT_KINDS[0]]: {
      schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
      objects: objects.map((_, i) => ({ a: i * 3 + 7, b: DISTINCT - i })),
      run: ({ a, b }) => a + b,
    },
    [FLAT_KINDS[1]]: {
      schema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'The city.' },
          days: { type: 'integer', description: 'How many days ahead.' },
          latitude: { type: 'number' },
          hourly: { type: 'boolean' },
          units: { type: 'string', enum: ['metric', 'imperial'] },
        },
        required: ['city', 'days'],
      },
      objects: objects.map((o, i) => ({ city: o.city, days: o.days, latitude: (38700 + i) / 1000, hourly: o.options.hourly, units: o.units })),
      run: (args) => `${args.city}: ${args.days} days`,
    },
  };
  /** Calls of `name` with the texts of `list` in turn, each with the options `options(i)` gives (none by default). */
  const calls =
    (toolset, name, list, options = () => undefined) =>
    (count) => {
      const runs = contexts(count);
      return async () => {
        for (let i = 0; i < count; i++) {
          const result = await toolset.invoke(name, list[i & mask], take(runs, i), options(i));
          if (result.isError) throw new Error(`${name}: ${result.content[0].text}`);
        }
      };
    };
  // Each comparison a group of its own, measured in rounds of its own (interleaving eight tools at once made
  // the engine's optimisations of the shared call path swing from round to round).
  const groups = [];
  for (const [kind, { schema, objects: list, run }] of Object.entries(flat)) {
    const variants = {};
    const read = new Toolset(tool(run, { name: 'flat', description: 'A flat tool.', parameters: schema }));
    const general = new Toolset(tool(run, { name: 'flat', description: 'A flat tool.', parameters: { ...schema, readOnly: false } }));
    const inOrder = list.map((o) => JSON.stringify(o));
    const reversed = list.map((o) => JSON.stringify(Object.fromEntries(Object.entries(o).reverse())));
    variants[flatName(kind, MADE)] = calls(read, 'flat', inOrder);
    variants[flatName(kind, ONE_PASS)] = calls(read, 'flat', reversed);
    variants[flatName(kind, NO_READER)] = calls(general, 'flat', inOrder);
    groups.push(variants);
  }
  const asyncTools = new Toolset(tool(async (args) => forecast(args), { name: 'weather', description: 'The forecast for a city.', parameters }));
  groups.push({ [SYNC_TOOL]: calls(new Toolset(weather), 'weather', texts), [ASYNC_TOOL]: calls(asyncTools, 'weather', texts) });
  // The time limits' one shared timer (pipeline/time-limit.ts): the agent's call, against the same call whose tool
  // also sets and clears a timer of its own (of another duration, so that Node keeps a list of timers for it alone),
  // as each call's time limit did before.
  const noop = () => undefined;
  const ownTimer = tool(
    async (args) => {
      const timer = setTimeout(noop, 45_000);
      try {
        return forecast(args);
      } finally {
        clearTimeout(timer);
      }
    },
    { name: 'weather', description: 'The forecast for a city.', parameters },
  );
  const agent = (i) => ({ callId: `call_${i}`, defaultTimeoutMs: 60_000 });
  groups.push({
    [AGENT_CALL]: calls(asyncTools, 'weather', texts, agent),
    [OWN_TIMER]: calls(new Toolset(ownTimer), 'weather', texts, agent),
    [CALL_ID_ONLY]: calls(asyncTools, 'weather', texts, (i) => ({ callId: `call_${i}` })),
  });
  return groups;
}

/** Heap held per call while IN_FLIGHT calls of an async tool wait, ours against the floor's, alternating. */
async function heapInFlight() {
  let open;
  let gate = new Promise((resolve) => (open = resolve));
  const slow = async (args) => {
    await gate;
    return forecast(args);
  };
  const slowTool = tool(slow, { name: 'weather', description: 'The forecast for a city.', parameters });
  const toolset = new Toolset(slowTool);
  const validate = new Ajv().compile(parameters);
  const floorCall = async (text) => {
    const args = JSON.parse(text);
    if (!validate(args)) throw new Error('invalid');
    return await slow(args);
  };
  const runs = Array.from({ length: IN_FLIGHT / RUN_CALLS }, () => new ExecutionContext({ signal: new AbortController().signal }));
  const starts = {
    floor: () => texts.slice(0, IN_FLIGHT).map((text) => floorCall(text)),
    ours: () => texts.slice(0, IN_FLIGHT).map((text, i) => toolset.invoke('weather', text, runs[(i / RUN_CALLS) | 0])),
    // As the agent calls a tool: the model's call id, and its default time limit for every call.
    agent: () =>
      texts.slice(0, IN_FLIGHT).map((text, i) => toolset.invoke('weather', text, runs[(i / RUN_CALLS) | 0], { callId: `call_${i}`, defaultTimeoutMs: 60_000 })),
  };
  const held = { floor: [], ours: [], agent: [] };
  const names = Object.keys(held);
  for (let round = -1; round < 9; round++) {
    const rotated = names.map((_, i) => names[(i + round + 3) % names.length]);
    for (const which of round % 2 === 0 ? rotated : rotated.reverse()) {
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      const pending = starts[which]();
      globalThis.gc();
      const after = process.memoryUsage().heapUsed;
      open();
      await Promise.all(pending);
      gate = new Promise((resolve) => (open = resolve));
      if (round >= 0) held[which].push((after - before) / IN_FLIGHT);
    }
  }
  return { floor: median(held.floor), ours: median(held.ours), agent: median(held.agent) };
}

/** `toolset.definitions(format)` at TOOLS tools: kept against lowering every tool, interleaved. */
function definitions() {
  const schema = (i) => ({ ...parameters, properties: { ...parameters.properties, city: { ...parameters.properties.city, description: `City ${i}.` } } });
  const tools = Array.from({ length: TOOLS }, (_, i) => tool(() => i, { name: `tool_${i}`, description: `Tool number ${i}.`, parameters: schema(i) }));
  const toolset = new Toolset(tools);
  const first = cpu();
  toolset.definitions('openai');
  const firstMs = (cpu() - first) / 1000;
  const samples = { [LOWER]: [], [KEPT]: [] };
  const variants = {
    [LOWER]: () => lowerDefinitions('openai', toolset.neutralDefinitions()).tools.length,
    [KEPT]: () => toolset.definitions('openai').length,
  };
  const ratios = [];
  for (let round = -1; round < 7; round++) {
    const order = round % 2 === 0 ? [LOWER, KEPT] : [KEPT, LOWER];
    const pair = {};
    for (const name of order) {
      // The kept call is short: many of them make one sample, longer than the CPU clock's tick.
      const repeat = name === KEPT ? 200 : 1;
      // Each sample starts on a collected heap: the other variant's garbage (a lowering of every tool) is not
      // collected on this one's clock.
      globalThis.gc();
      const start = cpu();
      for (let r = 0; r < repeat; r++) if (variants[name]() !== TOOLS) throw new Error('lost tools');
      pair[name] = (cpu() - start) / 1000 / repeat;
    }
    if (round >= 0) {
      samples[LOWER].push(pair[LOWER]);
      samples[KEPT].push(pair[KEPT]);
      ratios.push(pair[KEPT] / pair[LOWER]);
    }
  }
  return { firstMs, lowerMs: median(samples[LOWER]), keptMs: median(samples[KEPT]), ratio: median(ratios) };
}

async function childMain(mode) {
  const { run, weather } = child(mode);
  const samples = await run();
  const medians = Object.fromEntries(Object.entries(samples).map(([n, xs]) => [n, median(xs)]));
  const pair = (a, b, from = samples) => median(from[a].map((x, round) => x / from[b][round]));
  const ratios = { toFloor: pair(TOOLSET, FLOOR), toolToFloor: pair(TOOL, OBJECT_FLOOR) };
  let own;
  if (mode === 'plain' && !CHECK) {
    const samplesOwn = {};
    for (const group of speedupVariants(weather)) Object.assign(samplesOwn, await rounds(group, () => 0));
    own = Object.fromEntries(Object.entries(samplesOwn).map(([n, xs]) => [n, median(xs)]));
    for (const kind of FLAT_KINDS) {
      ratios[`reader ${kind}`] = pair(flatName(kind, NO_READER), flatName(kind, MADE), samplesOwn);
      ratios[`made code ${kind}`] = pair(flatName(kind, ONE_PASS), flatName(kind, MADE), samplesOwn);
      ratios[`one pass ${kind}`] = pair(flatName(kind, NO_READER), flatName(kind, ONE_PASS), samplesOwn);
    }
    ratios.syncReturns = pair(ASYNC_TOOL, SYNC_TOOL, samplesOwn);
    ratios.sharedTimer = pair(OWN_TIMER, AGENT_CALL, samplesOwn);
    ratios.timeLimit = pair(AGENT_CALL, CALL_ID_ONLY, samplesOwn);
  }
  const heap = mode === 'plain' && !CHECK ? await heapInFlight() : undefined;
  const defs = mode === 'plain' ? definitions() : undefined;
  console.log(JSON.stringify({ mode, node: process.version, medians, ratios, heap, defs, own }));
}

function spawnChild(mode) {
  const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', mode, ...argv], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    process.exit(run.status ?? 1);
  }
  return JSON.parse(run.stdout.trim().split('\n').pop());
}

const spread = (xs, digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;

function parent() {
  if (CHECK) return check();
  const plain = [];
  const als = [];
  for (let p = 0; p < PROCESSES; p++) {
    // Alternating, so the two kinds of process see the same load on the machine.
    for (const mode of p % 2 === 0 ? ['plain', 'als'] : ['als', 'plain']) {
      const result = spawnChild(mode);
      (mode === 'plain' ? plain : als).push(result);
      process.stderr.write(
        `process ${p + 1}/${PROCESSES} (${mode}): ${TOOLSET} ${result.medians[TOOLSET].toFixed(0)} ns, x${result.ratios.toFloor.toFixed(2)} floor\n`,
      );
    }
  }
  const node = plain[0].node;
  console.log(
    `local-dispatch: ${PROCESSES} processes of each kind x ${ROUNDS} rounds x ${CALLS} calls, Node ${node}; ${DISTINCT} distinct argument texts of a 5-field schema with patterns and a nested object; a fresh context every ${RUN_CALLS} calls. Median (min-max) over processes.`,
  );
  console.log('');
  console.log('| variant | ns/call | ns/call, AsyncLocalStorage active | rise with the store |');
  console.log('|---|---:|---:|---:|');
  const rises = {};
  for (const name of Object.keys(plain[0].medians)) {
    const xs = plain.map((r) => r.medians[name]);
    const ys = als.map((r) => r.medians[name]);
    // Each plain process against the store process run beside it.
    rises[name] = ys.map((y, i) => y / xs[i]);
    console.log(`| ${name} | ${spread(xs)} | ${spread(ys)} | ${spread(rises[name], 2)}x |`);
  }
  const verdict = (ok) => (ok ? 'MET' : 'NOT MET');
  const toFloor = plain.map((r) => r.ratios.toFloor);
  const toFloorAls = als.map((r) => r.ratios.toFloor);
  const toolToFloor = plain.map((r) => r.ratios.toolToFloor);
  const riseRatio = rises[TOOLSET].map((r, i) => r / rises[FLOOR][i]);
  console.log('');
  console.log('Ratios: per process, the median over rounds of two variants measured in the same round; then median (min-max) over processes.');
  console.log(`toolset.invoke(name, json, ctx) / floor: ${spread(toFloor, 2)}x (target <= 1.5x): ${verdict(median(toFloor) <= 1.5)}`);
  console.log(`the same, AsyncLocalStorage active: ${spread(toFloorAls, 2)}x`);
  console.log(`tool.invoke(ctx, object) / ajv + await: ${spread(toolToFloor, 2)}x`);
  console.log(
    `rise of toolset.invoke with the store / rise of the floor: ${spread(riseRatio, 2)}x (target <= 1.1x, no more than the floor's rise; bench:peers has the peers'): ${verdict(median(riseRatio) <= 1.1)}`,
  );
  const heaps = plain.map((r) => r.heap);
  const oursKb = heaps.map((h) => h.ours / 1024);
  const floorKb = heaps.map((h) => h.floor / 1024);
  console.log(
    `heap per call in flight (${IN_FLIGHT} concurrent calls of an async tool): ours ${spread(oursKb, 2)} KB, floor ${spread(floorKb, 2)} KB (target <= 1.0 KB): ${verdict(median(oursKb) <= 1.0)}`,
  );
  console.log(
    `the same as the agent calls (a call id and a default time limit): ${spread(
      heaps.map((h) => h.agent / 1024),
      2,
    )} KB`,
  );
  const defs = plain.map((r) => r.defs);
  const keptMs = defs.map((d) => d.keptMs);
  console.log(
    `toolset.definitions('openai') at ${TOOLS} tools: first call ${spread(
      defs.map((d) => d.firstMs),
      0,
    )} ms, lowering all (uncached) ${spread(
      defs.map((d) => d.lowerMs),
      0,
    )} ms, kept ${spread(keptMs, 3)} ms (target <= 1 ms): ${verdict(median(keptMs) <= 1)}; kept / lowering ${spread(
      defs.map((d) => d.ratio),
      4,
    )}x`,
  );
  console.log('');
  console.log("What the call path's own speed-ups buy: each call without it / with it, in one process, interleaved (a speed-up stays while it buys >= 10%).");
  console.log('');
  console.log('| variant | ns/call |');
  console.log('|---|---:|');
  for (const name of Object.keys(plain[0].own)) console.log(`| ${name} | ${spread(plain.map((r) => r.own[name]))} |`);
  console.log('');
  // A speed-up stays while it buys >= 10% on one of its figures (the median over processes).
  const buys = (what, keys) => {
    const figures = keys.map(([key, label]) => {
      const xs = plain.map((r) => r.ratios[key]);
      return { label, xs, text: `${label} ${spread(xs, 2)}x` };
    });
    const best = Math.max(...figures.map((f) => median(f.xs)));
    console.log(`${what}: ${figures.map((f) => f.text).join('; ')}: ${best >= 1.1 ? 'buys >= 10%' : 'buys < 10% on every figure: REMOVE'}`);
  };
  buys(
    'the flat reader (no reader / the reader made for the schema)',
    FLAT_KINDS.map((kind) => [`reader ${kind}`, kind]),
  );
  buys(
    'its code made per schema (its general one-pass reader / the made code)',
    FLAT_KINDS.map((kind) => [`made code ${kind}`, kind]),
  );
  buys(
    'its general one-pass reader (no reader / the one-pass reader)',
    FLAT_KINDS.map((kind) => [`one pass ${kind}`, kind]),
  );
  buys('the sync returns of the call path, at the least (the tool async / the tool sync)', [['syncReturns', 'realistic schema']]);
  buys("the time limits' one shared timer (the agent's call, a timer of the call's own beside it / the agent's call)", [['sharedTimer', 'async tool']]);
  console.log(
    `what the time limit adds to an async call (the agent's call / the same with a call id only): ${spread(
      plain.map((r) => r.ratios.timeLimit),
      2,
    )}x`,
  );
}

function check() {
  const result = spawnChild('plain');
  const failures = [];
  const { toFloor } = result.ratios;
  const defs = result.defs.ratio;
  console.log(`local-dispatch --check (Node ${result.node}): toolset.invoke / floor ${toFloor.toFixed(2)}x (limit ${CHECK_LIMITS.toFloor}x)`);
  console.log(`local-dispatch --check: kept definitions / lowering at ${TOOLS} tools ${defs.toFixed(4)}x (limit ${CHECK_LIMITS.definitions}x)`);
  if (toFloor > CHECK_LIMITS.toFloor) failures.push(`the uniform call costs ${toFloor.toFixed(2)}x its floor, past ${CHECK_LIMITS.toFloor}x`);
  if (defs > CHECK_LIMITS.definitions)
    failures.push(`a kept definitions() call costs ${defs.toFixed(4)}x lowering every tool, past ${CHECK_LIMITS.definitions}x`);
  for (const failure of failures) console.log(`REGRESSION: ${failure}`);
  process.exit(failures.length === 0 ? 0 : 1);
}

const at = argv.indexOf('--child');
if (at >= 0) await childMain(argv[at + 1]);
else parent();
