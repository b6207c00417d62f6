// Standard Schema tools: what a call through a zod schema costs next to the same tool
// with a plain JSON Schema (validated by ajv), measured in one process, interleaved
// (each round runs every variant once, in rotating order), with the spread over rounds.
// The arguments are many distinct objects sent as JSON text, as a model sends them.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { ExecutionContext, Toolset, tool } from '@anytool/core';

// Each variant starts from a collected heap, so one variant's garbage is not paid for by the next.
if (typeof globalThis.gc !== 'function') {
  const again = spawnSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const ROUNDS = Number(process.env.ROUNDS ?? 40);
const CALLS = Number(process.env.CALLS ?? 20_000);
const DISTINCT = Number(process.env.DISTINCT ?? 2_000);
const RUN_CALLS = 100;
const TARGET = 1.3;

// A search tool as a model would call it: strings, a bounded integer with a default, an enum, a nested optional object.
const schema = z.object({
  query: z.string().min(1).describe('What to look for'),
  limit: z.number().int().min(1).max(50).default(10),
  sort: z.enum(['relevance', 'newest', 'oldest']),
  filters: z.object({ tags: z.array(z.string()), minScore: z.number().min(0).max(1).optional() }).optional(),
});
const jsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    sort: { type: 'string', enum: ['relevance', 'newest', 'oldest'] },
    filters: {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' } }, minScore: { type: 'number', minimum: 0, maximum: 1 } },
      required: ['tags'],
      additionalProperties: false,
    },
  },
  required: ['query', 'sort'],
  additionalProperties: false,
};

let sink = 0;
const search = (args) => {
  sink += args.limit + args.query.length;
  return args.query;
};
const zodTool = tool(search, { name: 'search', description: 'Search the catalogue.', parameters: schema });
const jsonTool = tool(search, { name: 'search', description: 'Search the catalogue.', parameters: jsonSchema });
const zodSet = new Toolset(zodTool);
const jsonSet = new Toolset(jsonTool);

// Distinct arguments, as JSON text.
const sorts = ['relevance', 'newest', 'oldest'];
const texts = Array.from({ length: DISTINCT }, (_, i) => {
  const args = { query: `item ${i} ${'x'.repeat(i % 17)}`, sort: sorts[i % 3] };
  if (i % 2 === 0) args.limit = 1 + (i % 50);
  if (i % 3 !== 0) args.filters = { tags: Array.from({ length: i % 5 }, (_, k) => `tag${(i + k) % 23}`), ...(i % 4 === 0 ? { minScore: (i % 10) / 10 } : {}) };
  return JSON.stringify(args);
});
const objects = () => texts.map((t) => JSON.parse(t));

// Both tools accept every sample, and return the same.
for (const text of texts.slice(0, 50)) {
  const [a, b] = await Promise.all([zodSet.invoke('search', text), jsonSet.invoke('search', text)]);
  if (a.isError || b.isError || JSON.stringify(a.content) !== JSON.stringify(b.content)) throw new Error(`the two tools differ on ${text}`);
}

const variants = {
  'zod safeParse (floor: validation alone)': async (_runs, parsed) => {
    for (let i = 0; i < CALLS; i++) if (schema.safeParse(parsed[i % DISTINCT]).success) sink++;
  },
  'JSON.parse + zod safeParse': async () => {
    for (let i = 0; i < CALLS; i++) if (schema.safeParse(JSON.parse(texts[i % DISTINCT])).success) sink++;
  },
  'toolset.invoke, JSON Schema tool (ajv)': async (runs) => {
    for (let i = 0; i < CALLS; i++) sink += (await jsonSet.invoke('search', texts[i % DISTINCT], runs[(i / RUN_CALLS) | 0])).isError ? 0 : 1;
  },
  'toolset.invoke, zod tool (Standard Schema)': async (runs) => {
    for (let i = 0; i < CALLS; i++) sink += (await zodSet.invoke('search', texts[i % DISTINCT], runs[(i / RUN_CALLS) | 0])).isError ? 0 : 1;
  },
};

const names = Object.keys(variants);
const samples = Object.fromEntries(names.map((n) => [n, []]));
const ratios = [];
const started = Date.now();
for (let round = -3; round < ROUNDS; round++) {
  const ns = {};
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round + 3) % names.length];
    const runs = Array.from({ length: Math.ceil(CALLS / RUN_CALLS) }, () => new ExecutionContext());
    const parsed = objects();
    globalThis.gc();
    const start = process.hrtime.bigint();
    await variants[name](runs, parsed);
    ns[name] = Number(process.hrtime.bigint() - start) / CALLS;
  }
  if (round < 0) continue;
  for (const name of names) samples[name].push(ns[name]);
  ratios.push(ns['toolset.invoke, zod tool (Standard Schema)'] / ns['toolset.invoke, JSON Schema tool (ajv)']);
}

const sorted = (xs) => [...xs].sort((x, y) => x - y);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const spread = (xs, digits = 0) => `${sorted(xs)[0].toFixed(digits)} / ${median(xs).toFixed(digits)} / ${sorted(xs)[xs.length - 1].toFixed(digits)}`;
console.log(
  `standard-schema: ${ROUNDS} rounds x ${CALLS} calls over ${DISTINCT} distinct argument objects sent as JSON text, Node ${process.version}, zod ${createRequire(import.meta.url)('zod/package.json').version}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
console.log('| variant | ns/call min / median / max |');
console.log('|---|---:|');
for (const name of names) console.log(`| ${name} | ${spread(samples[name])} |`);
const ratio = median(ratios);
console.log(`zod tool / JSON Schema tool, per round: min / median / max = ${spread(ratios, 2)}`);
console.log(
  `zod tool over its floor (JSON.parse + safeParse): ${(median(samples['toolset.invoke, zod tool (Standard Schema)']) - median(samples['JSON.parse + zod safeParse'])).toFixed(0)} ns/call`,
);
console.log(`target: zod tool <= ${TARGET}x the JSON Schema tool: ${ratio.toFixed(2)}x ${ratio <= TARGET ? 'PASS' : 'OVER TARGET'}`);
if (sink === -1) console.log(sink);
