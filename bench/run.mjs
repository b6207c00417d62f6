// `npm run bench`: runs every benchmark in turn (the packages are built first), at each one's default size,
// which is chosen so the whole run takes under 10 minutes on a quiet 2-core machine. Each bench takes flags for
// bigger runs (see the comment at its top). `node bench/run.mjs mcp-latency loader` runs only those parts.
// Prints each part's time, then which parts failed; exits non-zero if any did.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  const run = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit', cwd: join(here, '..') });
  const seconds = (Date.now() - start) / 1000;
  times.push([name, seconds]);
  console.log(`\n${name}: ${seconds.toFixed(1)} s`);
  if (run.status !== 0) failed.push(`${name} (${run.signal === null ? `exit code ${run.status}` : `killed by ${run.signal}`})`);
}
console.log('\n## times\n');
console.log('| part | seconds |');
console.log('|---|---:|');
for (const [name, seconds] of times) console.log(`| ${name} | ${seconds.toFixed(1)} |`);
console.log(`| total | ${((Date.now() - started) / 1000).toFixed(1)} |`);
if (failed.length > 0) {
  console.error(`\nbench: ${failed.length} part(s) failed: ${failed.join('; ')}`);
  process.exit(1);
}
console.log('\nbench: every part ran');
