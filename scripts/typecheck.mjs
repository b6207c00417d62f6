// Type-checks the whole repository, each part under the options it is compiled with:
// the packages as they are built (tsc --build, incremental), the tests as jest compiles
// them (tsconfig.json), the legacy-decorator tests and fixtures, the agent adapters
// against the next majors of the official clients, and the examples. The checks
// without output keep their build info under node_modules/.cache/anytool.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const cache = join('node_modules', '.cache', 'anytool');

const checks = [
  [join(root, 'scripts', 'build.mjs'), 'core', 'schema', 'mcp', 'agent'],
  [tsc, '-p', 'tsconfig.json'],
  [tsc, '-p', 'tsconfig.test-legacy.json', '--noEmit', '--incremental', '--tsBuildInfoFile', join(cache, 'tsconfig.test-legacy.tsbuildinfo')],
  [
    tsc,
    '-p',
    join('packages', 'schema', 'test', 'fixtures', 'legacy', 'tsconfig.json'),
    '--noEmit',
    '--incremental',
    '--tsBuildInfoFile',
    join(cache, 'fixtures-legacy.tsbuildinfo'),
  ],
  [tsc, '-p', 'tsconfig.test-sdk-next.json', '--noEmit', '--incremental', '--tsBuildInfoFile', join(cache, 'tsconfig.test-sdk-next.tsbuildinfo')],
  [tsc, '-p', join('examples', 'tsconfig.json'), '--incremental', '--tsBuildInfoFile', join(cache, 'examples.tsbuildinfo')],
];

let failed = 0;
for (const [command, ...args] of checks) {
  try {
    execFileSync(process.execPath, [command, ...args], { cwd: root, stdio: 'inherit' });
  } catch {
    failed++;
    console.error(`typecheck failed: ${command === tsc ? 'tsc' : 'node scripts/build.mjs'} ${args.slice(0, 2).join(' ')}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
