// `npm run bench`: runs every benchmark in turn (the packages are built first), at each one's default size,
// which is chosen so the whole run takes under 10 minutes on a quiet 2-core machine. Each bench takes flags for
// bigger runs (see the comment at its top). `node bench/run.mjs mcp-latency loader` runs only those parts.
// Prints each part's time, then which parts failed; exits non-zero if any did.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = [
  'local-dispatch.mjs',
  'standard-schema.mjs',
  'mcp-latency.mjs',
  'mcp-eras.mjs',
  'mcp-connect.mjs',
  'mcp-server.mjs',
  'mcp-tasks.mjs',
  'mcp-scale.mjs',
  'agent-loop.mjs',
  'long-run.mjs',
  'run-state.mjs',
  'tool-search.mjs',
  'code-mode.mjs',
  'streaming.mjs',
  'build-time.mjs',
  'loader.mjs',
  'bundlers.mjs',
];
const names = benches.map((file) => file.replace(/\.mjs$/, ''));
const unknown = only.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  console.error(`bench/run.mjs: no bench named ${unknown.join(', ')}; the parts are: ${names.join(', ')}`);
  process.exit(2);
}
// CPU seconds of the finished descendants (Linux: cutime + cstime of /proc/self/stat, in clock ticks of 1/100 s). On a
// loaded machine a part's wall time says little of what it takes on a quiet one; its CPU time moves far less, and a
// quiet 2-core machine runs it in about its CPU time or less.
function childCpuSeconds() {
  if (process.platform !== 'linux') return undefined;
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
const times = [];
const failed = [];
const started = Date.now();
for (const file of benches) {
  const name = file.replace(/\.mjs$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  if (!existsSync(join(here, file))) {
    failed.push(`${name} (bench/${file} is missing)`);
    continue;
  }
  console.log(`\n## ${name}\n`);
  const start = Date.now();
  const cpuBefore = childCpuSeconds();
  const run = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit', cwd: join(here, '..') });
  const seconds = (Date.now() - start) / 1000;
  const cpu = cpuBefore === undefined ? undefined : childCpuSeconds() - cpuBefore;
  times.push([name, seconds, cpu]);
  console.log(`\n${name}: ${seconds.toFixed(1)} s${cpu === undefined ? '' : `, ${cpu.toFixed(1)} s of CPU`}`);
  if (run.status !== 0) failed.push(`${name} (${run.signal === null ? `exit code ${run.status}` : `killed by ${run.signal}`})`);
}
console.log('\n## times\n');
const show = (cpu) => (cpu === undefined ? '-' : cpu.toFixed(1));
console.log('| part | wall s | CPU s |');
console.log('|---|---:|---:|');
for (const [name, seconds, cpu] of times) console.log(`| ${name} | ${seconds.toFixed(1)} | ${show(cpu)} |`);
const cpuTotal = times.every(([, , cpu]) => cpu !== undefined) ? times.reduce((sum, [, , cpu]) => sum + cpu, 0) : undefined;
console.log(`| total | ${((Date.now() - started) / 1000).toFixed(1)} | ${show(cpuTotal)} |`);
if (failed.length > 0) {
  console.error(`\nbench: ${failed.length} part(s) failed: ${failed.join('; ')}`);
  process.exit(1);
}
console.log('\nbench: every part ran');
