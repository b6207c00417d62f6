// `npm run bench`: runs every benchmark in turn (the packages are built first).
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
let failed = false;
for (const file of benches) {
  const name = file.replace(/\.mjs$/, '');
  if (only.length > 0 && !only.includes(name)) continue;
  if (!existsSync(join(here, file))) continue;
  console.log(`\n## ${name}\n`);
  const run = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit', cwd: join(here, '..') });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
