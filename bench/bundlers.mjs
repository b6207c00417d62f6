// Build time of a generated 40-file, 200-tool project (bench/project-generator.mjs) bundled for Node by
// each bundler (test/e2e/fixtures/bundle.mjs): with the anytool plugin against the bundler's usual
// TypeScript handling without it, interleaved in one run (the order rotates every round). The plugin
// builds are measured cold (no disk cache: the type analysis runs) and warm (the disk cache of the build
// before: nothing changed). Target: a plugin build takes at most 1.5x the build without it; printed, not
// enforced. Each build is its own process, timed from start to exit, as `vite build` would be.
// Run: node bench/bundlers.mjs [rounds] [bundler...]   (needs the packages built: node scripts/build.mjs)
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateProject } from './project-generator.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'test', 'e2e', 'fixtures', 'bundle.mjs');
const bun = join(root, 'node_modules', '.bin', 'bun');
const args = process.argv.slice(2);
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
const all = ['esbuild', 'vite', 'rollup', 'webpack', 'rspack', 'bun'];
const chosen = args.filter((a) => all.includes(a));
const bundlers = chosen.length > 0 ? chosen : all;
const TARGET = 1.5;

// Inside the repo (ignored by git) so the project resolves the workspace packages.
const dir = join(root, '.tmp', 'bench-bundlers');
const { files, tools } = generateProject(dir, { files: 40, tools: 200 });
const cache = join(dir, 'node_modules', '.cache', 'anytool');

// CPU time of finished children (Linux: cutime + cstime in /proc/self/stat, in clock ticks of 10 ms):
// steadier than wall time on a busy machine. Undefined elsewhere.
function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function build(bundler, variant) {
  if (variant === 'cold') rmSync(cache, { recursive: true, force: true });
  const command = bundler === 'bun' ? bun : process.execPath;
  const cpuBefore = childCpuMs();
  const started = process.hrtime.bigint();
  const run = spawnSync(command, [bundle, bundler, dir, ...(variant === 'without' ? ['--without'] : [])], { cwd: dir, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const cpuAfter = childCpuMs();
  if (run.status !== 0) throw new Error(`${bundler} (${variant}) failed:\n${run.stdout}${run.stderr}`);
  return { wall, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

/** Runs the bundle just built: with the plugin every tool has its schema; without, the first tool() fails. */
function check(bundler, variant) {
  const file = join(dir, 'dist', bundler, bundler === 'webpack' || bundler === 'rspack' ? 'main.cjs' : 'main.mjs');
  const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  if (variant === 'without')
    return run.status !== 0 ? (/MISSING_SCHEMA/.test(run.stderr) ? 'MISSING_SCHEMA' : (run.stderr.match(/\w*Error\b/)?.[0] ?? 'fails')) : 'runs?!';
  const printed = run.status === 0 ? JSON.parse(run.stdout) : undefined;
  if (printed?.tools !== tools || printed.withParameters !== tools)
    throw new Error(`${bundler}: the plugin's bundle does not give ${tools} tools with schemas:\n${run.stdout}${run.stderr}`);
  return `${tools} tools with schemas`;
}

const variants = ['without', 'cold', 'warm'];
const times = Object.fromEntries(bundlers.map((b) => [b, Object.fromEntries(variants.map((v) => [v, { wall: [], cpu: [] }]))]));
const checks = Object.fromEntries(bundlers.map((b) => [b, {}]));
const started = Date.now();
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round; the first round runs cold before warm, so warm always finds a cache.
  const order = variants.map((_, i) => variants[(i + round) % variants.length]);
  for (const bundler of bundlers) {
    for (const variant of order) {
      const { wall, cpu } = build(bundler, variant);
      times[bundler][variant].wall.push(wall);
      if (cpu !== undefined) times[bundler][variant].cpu.push(cpu);
      if (round === 0 && variant !== 'warm') checks[bundler][variant] = check(bundler, variant);
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)}`;
const spread = (xs) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
const ratio = (a, b) => `${(median(a) / median(b)).toFixed(2)}x`;
console.log(
  `generated project: ${files} files, ${tools} tools; ${rounds} interleaved rounds; wall time per build in ms, median (min–max), process start to exit\n`,
);
console.log('| bundler | without plugin | plugin, cold | plugin, warm | cold / without | warm / without | warm CPU / without CPU |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const bundler of bundlers) {
  const t = times[bundler];
  const cpu = t.warm.cpu.length === rounds && t.without.cpu.length === rounds ? ratio(t.warm.cpu, t.without.cpu) : 'n/a';
  console.log(
    `| ${bundler} | ${spread(t.without.wall)} | ${spread(t.cold.wall)} | ${spread(t.warm.wall)} | ${ratio(t.cold.wall, t.without.wall)} | ${ratio(t.warm.wall, t.without.wall)} | ${cpu} |`,
  );
}
console.log(`\ntarget: plugin build <= ${TARGET}x the build without it`);
for (const bundler of bundlers) {
  const t = times[bundler];
  const cold = median(t.cold.wall) / median(t.without.wall);
  const warm = median(t.warm.wall) / median(t.without.wall);
  const verdict = (r) => (r <= TARGET ? 'OK' : 'OVER TARGET');
  console.log(
    `  ${bundler.padEnd(8)} cold ${cold.toFixed(2)}x ${verdict(cold)}, warm ${warm.toFixed(2)}x ${verdict(warm)}; bundles run: plugin ${checks[bundler].cold}, without ${checks[bundler].without}`,
  );
}
console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
if (process.env['KEEP_BENCH_PROJECT'] !== '1') rmSync(dir, { recursive: true, force: true });
