// Local dispatch: what the uniform call costs over a plain call, measured in one process,
// interleaved (each round runs every variant once, in rotating order), median of rounds.
import { spawnSync } from 'node:child_process';
import Ajv from 'ajv';
import { ExecutionContext, Toolset, tool } from '@anytool/core';

// Each variant starts from a collected heap, so one variant's garbage is not paid for by the next.
if (typeof globalThis.gc !== 'function') {
  const again = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const CALLS = Number(process.env.CALLS ?? 20_000);
// A run's context holds its events; a typical agent run makes tens of tool calls, so each
// context here serves one run of RUN_CALLS calls (the long-run row keeps one for the whole round).
const RUN_CALLS = Number(process.env.RUN_CALLS ?? 100);
const newContext = () => new ExecutionContext({ signal: new AbortController().signal });

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
const add = (a, b) => a + b;
const addTool = tool(add, { name: 'add', description: 'Add two numbers.' }, { parameters, paramNames: ['a', 'b'] });
const toolset = new Toolset(addTool);
const validate = new Ajv().compile(parameters);
const args = { a: 2, b: 3 };

let sink = 0;

const variants = {
  'direct call (awaited)': async () => {
    for (let i = 0; i < CALLS; i++) sink += await add(args.a, args.b);
  },
  'ajv validate + awaited call (floor)': async () => {
    for (let i = 0; i < CALLS; i++) {
      if (!validate(args)) throw new Error('invalid');
      sink += await add(args.a, args.b);
    }
  },
  'FunctionTool.invoke': async (runs) => {
    for (let i = 0; i < CALLS; i++) sink += (await addTool.invoke(runs[(i / RUN_CALLS) | 0], args)).isError ? 0 : 1;
  },
  'toolset.invoke by name': async (runs) => {
    for (let i = 0; i < CALLS; i++) sink += (await toolset.invoke('add', args, runs[(i / RUN_CALLS) | 0])).isError ? 0 : 1;
  },
  'toolset.invoke, one run of all calls': async (runs) => {
    const context = runs[0];
    for (let i = 0; i < CALLS; i++) sink += (await toolset.invoke('add', args, context)).isError ? 0 : 1;
  },
};

const names = Object.keys(variants);
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let round = -3; round < ROUNDS; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round + 3) % names.length];
    // A run's context (with its AbortController) is made before the clock starts: setting up a run is not part of a call.
    const runs = Array.from({ length: Math.ceil(CALLS / RUN_CALLS) }, newContext);
    globalThis.gc();
    const start = process.hrtime.bigint();
    await variants[name](runs);
    const ns = Number(process.hrtime.bigint() - start) / CALLS;
    if (round >= 0) samples[name].push(ns);
  }
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const floor = median(samples['ajv validate + awaited call (floor)']);
console.log(
  `local-dispatch: ${ROUNDS} rounds x ${CALLS} calls, Node ${process.version}; every tool call validated and recorded as events in a context with an abort signal, a fresh context (run) every ${RUN_CALLS} calls unless noted`,
);
console.log('| variant | median ns/call | x floor |');
console.log('|---|---:|---:|');
const results = {};
for (const name of names) {
  const m = median(samples[name]);
  results[name] = m;
  console.log(`| ${name} | ${m.toFixed(0)} | ${(m / floor).toFixed(2)} |`);
}
const ratio = results['toolset.invoke by name'] / floor;
console.log(`target: toolset.invoke <= 5x floor: ${ratio.toFixed(2)}x ${ratio <= 5 ? 'MET' : 'NOT MET'}`);
if (sink === -1) console.log(sink);
