// Start time of a generated 40-file, 200-tool project (bench/project-generator.mjs) run from its
// TypeScript: `node --import @anytool/schema/register` cold (empty disk cache: the type analysis
// runs) and warm (the cache of the start before), against `node --import tsx` on the same files,
// interleaved in one run (the order rotates every round). tsx gives the tools no schemas, so they
// cannot be made under it: each side runs src/load-all.ts, which imports every tool file and stops
// at its first tool (what is measured is starting Node, compiling and loading the files).
// `node out/main.js` after `anytool build` is the floor. Target: warm at most 1.5x tsx; printed,
// not enforced. Each start is its own process, timed from spawn to exit.
// Run: node bench/loader.mjs [rounds]   (needs the packages built: node scripts/build.mjs)
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProject } from './project-generator.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 3);
const TARGET = 1.5;

const dir = join(root, '.tmp', 'bench-loader');
const { files, tools } = generateProject(dir, { files: 40, tools: 200 });
const toolFiles = readdirSync(join(dir, 'src')).filter((f) => /^tools-\d+\.ts$/.test(f));
writeFileSync(
  join(dir, 'src', 'load-all.ts'),
  `let loaded = 0;\nfor (const file of ${JSON.stringify(toolFiles.map((f) => `./${f.replace(/\.ts$/, '.js')}`))}) {\n  try {\n    await import(file);\n  } catch {\n    // tsx: the first tool of the file has no schema\n  }\n  loaded++;\n}\nconsole.log(loaded);\n`,
);
const cache = join(dir, 'node_modules', '.cache', 'anytool');

function start(args, env = {}) {
  const began = process.hrtime.bigint();
  const ran = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  if (ran.status !== 0) throw new Error(`node ${args.join(' ')} failed:\n${ran.stderr}`);
  return { ms, stdout: ran.stdout };
}

const loader = ['--import', '@anytool/schema/register'];
const ways = {
  tsx: () => start(['--import', 'tsx', 'src/load-all.ts']),
  'loader, cold': () => {
    rmSync(cache, { recursive: true, force: true });
    return start([...loader, 'src/load-all.ts']);
  },
  'loader, warm': () => start([...loader, 'src/load-all.ts']),
  // The cold start of the round left main.ts out of the cache: the first start puts it in.
  'loader, warm, whole app': () => (start([...loader, 'src/main.ts']), start([...loader, 'src/main.ts'])),
  'built (floor)': () => start(['out/main.js']),
};

// The floor's output, and the cache the first warm start reads.
const build = spawnSync(process.execPath, [join(root, 'packages', 'schema', 'bin', 'anytool.mjs'), 'build'], { cwd: dir, encoding: 'utf8' });
if (build.status !== 0) throw new Error(`anytool build failed:\n${build.stdout}${build.stderr}`);
const built = start(['out/main.js']).stdout;
const loaded = start([...loader, 'src/main.ts']).stdout;
if (loaded !== built) throw new Error(`the loader's run differs from the build's:\n${loaded}\n${built}`);

const names = Object.keys(ways);
const times = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < rounds; round++) {
  const order = names.map((_, i) => names[(i + round) % names.length]);
  // A warm start needs the cache a cold start leaves: run warm ones after the cold one of the round.
  order.sort((a, b) => Number(a.includes('warm')) - Number(b.includes('warm')));
  for (const name of order) times[name].push(ways[name]().ms);
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = (x) => `${x.toFixed(0)} ms`;
console.log(`${files} files, ${tools} tools, ${rounds} rounds, Node ${process.version}\n`);
console.log('way                        min        median     max        median / tsx');
const tsx = stats(times.tsx).median;
for (const name of names) {
  const s = stats(times[name]);
  console.log(`${name.padEnd(26)} ${fmt(s.min).padEnd(10)} ${fmt(s.median).padEnd(10)} ${fmt(s.max).padEnd(10)} ${(s.median / tsx).toFixed(2)}x`);
}
const ratios = times['loader, warm'].map((t, i) => t / times.tsx[i]);
const r = stats(ratios);
console.log(
  `\nloader warm / tsx, per round: min ${r.min.toFixed(2)}x, median ${r.median.toFixed(2)}x, max ${r.max.toFixed(2)}x (target <= ${TARGET}x): ${r.median <= TARGET ? 'within target' : 'over target'}`,
);
rmSync(dir, { recursive: true, force: true });
