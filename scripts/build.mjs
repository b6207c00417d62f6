// Builds every package to ESM (dist/esm) and CommonJS (dist/cjs), bundles the ES module entries of those whose
// exports point into dist/bundle (scripts/bundle-esm.mjs), then the examples.
// Incremental: the packages with `tsc --build` (project references: a package is rebuilt
// when its sources or the declarations of @anytool/core change), the examples when a hash
// of their inputs (their sources and configs, the packages' declarations, the build
// step's code, the TypeScript version) differs from the one recorded by their last build. With nothing changed,
// nothing is compiled.
//
//   node scripts/build.mjs [package...] [--clean]
//
// Names (core, schema, mcp, agent) build those packages (and what they depend on) and
// skip the examples; --clean deletes the outputs and build info first.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEsm } from './bundle-esm.mjs';
import { markOptionalPeerTypes } from './optional-peer-types.mjs';
import { writeVersionFiles } from './versions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Examples are built with the anytool build command, so their tools get schemas from their types.
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const order = ['core', 'schema', 'mcp', 'agent'];
// Each package compiles twice; the tsconfig, its output folder and its build info.
const flavours = [
  { config: 'tsconfig.json', out: 'esm', buildInfo: 'tsconfig.tsbuildinfo' },
  { config: 'tsconfig.cjs.json', out: 'cjs', buildInfo: 'tsconfig.cjs.tsbuildinfo' },
];
const examplesConfig = join(root, 'examples', 'tsconfig.build.json');
const examplesStamp = join(root, 'examples', 'dist', '.build-inputs');

const args = process.argv.slice(2);
const clean = args.includes('--clean');
const only = args.filter((arg) => arg !== '--clean');
const unknown = only.filter((name) => !order.includes(name));
if (unknown.length > 0) {
  console.error(`build: unknown package ${unknown.join(', ')} (packages: ${order.join(', ')})`);
  process.exit(2);
}

function run(args, command = tsc) {
  try {
    execFileSync(process.execPath, [command, ...args], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error(`build failed: ${command === tsc ? 'tsc' : 'anytool'} ${args.join(' ')}`);
    process.exit(1);
  }
}

function filesUnder(dir, skip = () => false) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (skip(name)) continue;
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, skip));
    else out.push(path);
  }
  return out;
}

/** The source file an output of `out` (dist/esm or dist/cjs) was compiled from, relative to src/. */
function sourceOf(outputRelative) {
  const match = /^(.*)\.(?:js|d\.ts|js\.map|d\.ts\.map)$/.exec(outputRelative);
  return match === null ? undefined : `${match[1]}.ts`;
}

const packages = order.filter((name) => (only.length === 0 || only.includes(name)) && existsSync(join(root, 'packages', name, 'src', 'index.ts')));

for (const name of packages) {
  const dir = join(root, 'packages', name);
  if (clean) rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const sources = filesUnder(join(dir, 'src'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => relative(join(dir, 'src'), file));
  for (const { out, buildInfo } of flavours) {
    // tsc --build trusts its build info: an output deleted since is only rebuilt without it.
    const missing = sources.some((source) => !existsSync(join(dir, 'dist', out, source.replace(/\.ts$/, '.js'))));
    if (clean || missing) rmSync(join(dir, buildInfo), { force: true });
  }
}

// Each package's src/version.ts holds the version of its package.json.
writeVersionFiles(packages);

if (packages.length > 0) {
  run(['--build', ...packages.flatMap((name) => flavours.map(({ config }) => join('packages', name, config)))]);
}

for (const name of packages) {
  const dir = join(root, 'packages', name);
  for (const { out } of flavours) {
    // Outputs of sources deleted or renamed since are removed, so dist holds what src does.
    const outDir = join(dir, 'dist', out);
    for (const file of filesUnder(outDir)) {
      const source = sourceOf(relative(outDir, file));
      if (source !== undefined && !existsSync(join(dir, 'src', source))) rmSync(file);
    }
  }
  mkdirSync(join(dir, 'dist', 'cjs'), { recursive: true });
  const marker = join(dir, 'dist', 'cjs', 'package.json');
  if (!existsSync(marker)) writeFileSync(marker, '{ "type": "commonjs" }\n');
  // A project without an optional peer still type-checks these declarations (skipLibCheck: false).
  markOptionalPeerTypes(dir);
  await bundleEsm(dir);
}

const buildStep = ['schema', 'core'];

/** A hash of everything the examples' build reads: a change to any of it rebuilds them. */
function examplesInputs() {
  const hash = createHash('sha256');
  const files = [
    ...filesUnder(join(root, 'examples'), (name) => name === 'dist' || name === 'node_modules'),
    join(root, 'tsconfig.base.json'),
    join(root, 'node_modules', 'typescript', 'package.json'),
    // The examples compile against every package's declarations; the build step runs schema's code (and core's).
    ...order.flatMap((name) => [
      ...filesUnder(join(root, 'packages', name, 'dist')).filter((file) => buildStep.includes(name) || file.endsWith('.d.ts')),
      join(root, 'packages', name, 'package.json'),
    ]),
    ...filesUnder(join(root, 'packages', 'schema', 'bin')),
  ];
  for (const file of files) {
    if (!existsSync(file)) continue;
    hash.update(relative(root, file).split(sep).join('/')).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

if (only.length === 0 && existsSync(examplesConfig)) {
  const inputs = examplesInputs();
  const recorded = existsSync(examplesStamp) ? readFileSync(examplesStamp, 'utf8').trim() : undefined;
  if (clean || recorded !== inputs) {
    rmSync(join(root, 'examples', 'dist'), { recursive: true, force: true });
    run(['build', '-p', examplesConfig], anytool);
    writeFileSync(examplesStamp, `${inputs}\n`);
  }
}
