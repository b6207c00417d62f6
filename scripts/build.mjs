// Builds every package to ESM (dist/esm) and CommonJS (dist/cjs), in dependency order.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Examples are built with the anytool build command, so their tools get schemas from their types.
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const order = ['core', 'schema', 'mcp', 'agent'];
const only = process.argv.slice(2);

function run(args, command = tsc) {
  try {
    execFileSync(process.execPath, [command, ...args], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error(`build failed: ${command === tsc ? 'tsc' : 'anytool'} ${args.join(' ')}`);
    process.exit(1);
  }
}

for (const name of order) {
  if (only.length > 0 && !only.includes(name)) continue;
  const dir = join(root, 'packages', name);
  if (!existsSync(join(dir, 'src', 'index.ts'))) continue;
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  run(['-p', join(dir, 'tsconfig.json')]);
  run(['-p', join(dir, 'tsconfig.cjs.json')]);
  mkdirSync(join(dir, 'dist', 'cjs'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
}

const examples = join(root, 'examples', 'tsconfig.build.json');
if (only.length === 0 && existsSync(examples)) run(['build', '-p', examples], anytool);
