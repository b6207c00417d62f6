// Long run: what 100,000 tool calls in one run's context leave behind, and whether a call late
// in the run costs what one early in it does. The run log keeps the last `keepEvents` events of a
// run (DEFAULT_KEEP_EVENTS unless the context says otherwise); every event still reaches the
// context's listeners.
//
//   memory   heap used after a full GC, before and after CALLS calls through `toolset.invoke` in one
//            context (kept reachable), with the default log and with `keepEvents: 'all'` (the whole
//            log, what every run kept before the cap); and after an `Agent.run` of CALLS calls (100 a
//            turn), holding only its context (the transcript, `result.messages`, is the application's).
//            Its turns' CPU cost per call too, first tenth against last tenth (one run: not interleaved).
//   cost     batches of BATCH calls in a young run (its calls 0 to 10,000) and an old one (its calls
//            90,000 to 100,000), one batch of each in turn (alternating which goes first), ROUNDS runs
//            of each; CPU ns per call (and wall), median and spread (quartiles, extremes) of the batches,
//            and late / early per pair (the two batches of a pair ran back to back, so a change in the
//            machine's load between pairs cancels out): its median is the target; the ratio of the
//            medians is shown beside it.
import { spawnSync } from 'node:child_process';
import { ExecutionContext, Toolset, tool } from '@anytool/core';
import { Agent } from '@anytool/agent';

if (typeof globalThis.gc !== 'function') {
  const again = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const CALLS = Number(process.env.CALLS ?? 100_000);
const BATCH = Number(process.env.BATCH ?? 1_000);
const ROUNDS = Number(process.env.ROUNDS ?? 10);
/** Where the old run's measured calls start, and how many calls each run's measured stretch has. */
const OLD_FROM = Math.round(CALLS * 0.9);
const STRETCH = CALLS - OLD_FROM;
const MIB = 1024 * 1024;
const HEAP_BOUND_MIB = 16;
const COST_BOUND = 1.1;

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
const addTool = tool(({ a, b }) => a + b, { name: 'add', description: 'Add two numbers.', parameters, annotations: { readOnly: true } });
const toolset = new Toolset(addTool);
let sink = 0;

// Each call's arguments are JSON text of their own, as a model sends them.
async function calls(context, count) {
  for (let i = 0; i < count; i++) sink += (await toolset.invoke('add', `{"a":${i},"b":3}`, context)).isError ? 0 : 1;
}

/** Heap used once garbage collection has nothing left to free. */
async function settledHeap() {
  let used = Infinity;
  for (let i = 0; i < 10; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
    const now = process.memoryUsage().heapUsed;
    if (now >= used - 64 * 1024) return Math.min(now, used);
    used = now;
  }
  return used;
}

/** Retained heap (MiB) of what `run` returns, kept reachable while measured. */
async function retained(run) {
  const before = await settledHeap();
  const kept = await run();
  const after = await settledHeap();
  if (kept === undefined) throw new Error('nothing kept');
  return { mib: (after - before) / MIB, kept };
}

const describe = (context) => `${context.events.length} events kept, ${context.droppedEvents ?? 0} dropped`;

// Warm up the call path (and the agent's) before anything is measured.
await calls(new ExecutionContext(), 20_000);

// CPU time of the process (its GC threads' included), so other processes on the machine do not count;
// wall time beside it for the record.
const cpuNs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
};

const memory = [];
let agentTurns;
{
  const { mib, kept } = await retained(async () => {
    const context = new ExecutionContext();
    await calls(context, CALLS);
    return context;
  });
  memory.push({ name: 'toolset.invoke, default log', mib, note: describe(kept), bounded: true });
}
{
  const { mib, kept } = await retained(async () => {
    const context = new ExecutionContext({ keepEvents: 'all' });
    await calls(context, CALLS);
    return context;
  });
  memory.push({ name: "toolset.invoke, keepEvents: 'all'", mib, note: describe(kept), bounded: false });
}
{
  // A model of the least possible cost (ScriptedModel keeps a copy of every request's conversation, which
  // over a run this long would measure the test double): PER_TURN calls a turn, then an answer.
  const PER_TURN = 100;
  const turns = Math.ceil(CALLS / PER_TURN);
  // The CPU time at the start of each model turn: a turn's cost is the time to the next one.
  const turnStarts = new Float64Array(turns + 1);
  const model = (() => {
    let turn = 0;
    return {
      name: 'bench',
      async generate() {
        turnStarts[turn] = cpuNs();
        turn++;
        const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
        if (turn > turns) return { text: 'done', toolCalls: [], usage, stopReason: 'end' };
        const toolCalls = Array.from({ length: PER_TURN }, (_, i) => ({ id: `t${turn}_${i}`, name: 'add', arguments: `{"a":${i},"b":${turn}}` }));
        return { text: '', toolCalls, usage, stopReason: 'tool_calls' };
      },
    };
  })();
  const agent = new Agent({ model, tools: toolset, maxSteps: turns + 1 });
  const { mib, kept } = await retained(async () => {
    const result = await agent.run('go');
    if (result.stopReason !== 'final_answer') throw new Error(`the agent stopped: ${result.stopReason}`);
    return result.context;
  });
  memory.push({ name: `Agent.run, ${PER_TURN} calls a turn (its context)`, mib, note: describe(kept), bounded: true });
  const turnCost = (from, to) => Array.from({ length: to - from }, (_, i) => (turnStarts[from + i + 1] - turnStarts[from + i]) / PER_TURN);
  const tenth = Math.floor(turns / 10);
  agentTurns = { early: turnCost(0, tenth), late: turnCost(turns - tenth, turns), tenth, turns };
}

const sample = () => ({ cpu: [], wall: [], pairs: [] });
const early = sample();
const late = sample();
for (let round = 0; round < ROUNDS; round++) {
  const young = new ExecutionContext();
  const old = new ExecutionContext();
  await calls(old, OLD_FROM);
  for (let b = 0; b < STRETCH / BATCH; b++) {
    const order = (round + b) % 2 === 0 ? [young, old] : [old, young];
    const took = new Map();
    for (const context of order) {
      const wall = process.hrtime.bigint();
      const cpu = cpuNs();
      await calls(context, BATCH);
      took.set(context, { cpu: (cpuNs() - cpu) / BATCH, wall: Number(process.hrtime.bigint() - wall) / BATCH });
    }
    for (const [context, into] of [
      [young, early],
      [old, late],
    ]) {
      into.cpu.push(took.get(context).cpu);
      into.wall.push(took.get(context).wall);
    }
    late.pairs.push(took.get(old).cpu / took.get(young).cpu);
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
};
const median = (xs) => quantile(xs, 0.5);
// A GC pause lands in some batches and not others: the quartiles say more than the extremes.
const spread = (xs, digits = 0) =>
  `${quantile(xs, 0.25).toFixed(digits)}-${quantile(xs, 0.75).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;

console.log(
  `long-run: ${CALLS.toLocaleString('en')} tool calls in one context, Node ${process.version}; default keepEvents ${ExecutionContext.DEFAULT_KEEP_EVENTS ?? '(none: every event kept)'}`,
);
console.log('| run | retained heap after GC, MiB | run log |');
console.log('|---|---:|---|');
for (const row of memory) console.log(`| ${row.name} | ${row.mib.toFixed(1)} | ${row.note} |`);
console.log('');
console.log(`${ROUNDS} rounds x ${STRETCH / BATCH} batches of ${BATCH} calls, young run (calls 0-${STRETCH}) and old run (calls ${OLD_FROM}-${CALLS}) in turn`);
console.log('| calls | CPU ns/call, median | p25-p75 (min-max) | wall ns/call, median | p25-p75 (min-max) |');
console.log('|---|---:|---:|---:|---:|');
console.log(`| early (0-${STRETCH}) | ${median(early.cpu).toFixed(0)} | ${spread(early.cpu)} | ${median(early.wall).toFixed(0)} | ${spread(early.wall)} |`);
console.log(`| late (${OLD_FROM}-${CALLS}) | ${median(late.cpu).toFixed(0)} | ${spread(late.cpu)} | ${median(late.wall).toFixed(0)} | ${spread(late.wall)} |`);
const ratio = median(late.pairs);
console.log(
  `late / early, CPU, per pair: median ${ratio.toFixed(3)}, p25-p75 (min-max) ${spread(late.pairs, 2)}; ratio of the medians ${(median(late.cpu) / median(early.cpu)).toFixed(3)}`,
);

console.log(
  `Agent.run (one run, not interleaved), CPU ns per call of a turn, median: its first ${agentTurns.tenth} turns ${median(agentTurns.early).toFixed(0)}, p25-p75 (min-max) ${spread(agentTurns.early)}; its last ${agentTurns.tenth} ${median(agentTurns.late).toFixed(0)}, ${spread(agentTurns.late)}; late / early: ${(median(agentTurns.late) / median(agentTurns.early)).toFixed(3)}x`,
);

const heap = memory.filter((row) => row.bounded);
const worst = Math.max(...heap.map((row) => row.mib));
console.log(
  `target: ${CALLS.toLocaleString('en')} calls retain <= ${HEAP_BOUND_MIB} MiB: ${worst.toFixed(1)} MiB ${worst <= HEAP_BOUND_MIB ? 'MET' : 'NOT MET'}`,
);
console.log(`target: a late call costs <= ${COST_BOUND}x an early one (CPU, median of pairs): ${ratio.toFixed(3)}x ${ratio <= COST_BOUND ? 'MET' : 'NOT MET'}`);
if (sink === -1) console.log(sink);
