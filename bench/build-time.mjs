// Build time of a generated 200-tool project: plain `tsc -p` against `anytool build -p`,
// alternated in one run (the order flips every round). Target: the build command takes at most 1.25x plain tsc's wall time.
// Run: node bench/build-time.mjs [rounds]   (needs the packages built: node scripts/build.mjs)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const rounds = Number(process.argv[2] ?? 4);
const FILES = 40;
const TOOLS_PER_FILE = 5;

// Inside the repo (ignored by git) so the project resolves the workspace packages.
const dir = join(root, '.tmp', 'bench-build-time');
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(dir, 'src'), { recursive: true });

function toolFile(n) {
  return `import { Tool, type ExecutionContext } from '@anytool/core';

export type Mode${n} = 'fast' | 'careful' | 'thorough';

export interface Address${n} {
  /** Street and number. */
  street: string;
  city: string;
  /** @pattern ^[0-9]{4}$ */
  zip?: string;
}

export interface Order${n} {
  id: string;
  /**
   * How many items.
   * @minimum 1
   * @maximum 100
   */
  quantity: number;
  address: Address${n};
  tags: string[];
  due?: Date;
  priority: 1 | 2 | 3;
}

export interface Receipt${n} {
  id: string;
  total: number;
}

export class Tools${n} {
${Array.from({ length: TOOLS_PER_FILE }, (_, i) => {
  const name = `tool${n}_${i}`;
  switch (i % 5) {
    case 0:
      return `  /**
   * Look something up (${name}).
   * @param query What to look for
   * @param limit At most this many
   */
  @Tool()
  ${name}(query: string, limit = 10, mode: Mode${n} = 'fast'): string[] {
    return [query, String(limit), mode];
  }`;
    case 1:
      return `  /** Place an order (${name}). */
  @Tool()
  async ${name}(order: Order${n}, context: ExecutionContext): Promise<Receipt${n}> {
    return { id: order.id + context.runId, total: order.quantity };
  }`;
    case 2:
      return `  /** Update an address (${name}). */
  @Tool()
  ${name}(id: string, patch: Partial<Address${n}>): boolean {
    return id.length > 0 && patch !== undefined;
  }`;
    case 3:
      return `  /** Score things (${name}). */
  @Tool()
  ${name}({ items, weights }: { items: Array<{ name: string; score: number }>; weights?: Record<string, number> }): number {
    return items.length + Object.keys(weights ?? {}).length;
  }`;
    default:
      return `  /** Pick fields (${name}). */
  @Tool()
  ${name}(fields: Array<keyof Address${n}>, address: Pick<Address${n}, 'city' | 'zip'>, flag: boolean | null): string {
    return fields.join(',') + address.city + String(flag);
  }`;
  }
}).join('\n\n')}
}
`;
}

for (let n = 0; n < FILES; n++) writeFileSync(join(dir, 'src', `tools-${n}.ts`), toolFile(n));
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
const compilerOptions = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  skipLibCheck: true,
  declaration: false,
  types: ['node'],
  rootDir: 'src',
};
writeFileSync(join(dir, 'tsconfig.tsc.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, outDir: 'out-tsc' }, include: ['src'] }));
writeFileSync(join(dir, 'tsconfig.anytool.json'), JSON.stringify({ compilerOptions: { ...compilerOptions, outDir: 'out-anytool' }, include: ['src'] }));

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

const cpu = { plain: [], build: [] };
function time(command, args, kind) {
  const cpuBefore = childCpuMs();
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, [command, ...args], { cwd: dir, stdio: 'inherit' });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  const cpuAfter = childCpuMs();
  if (kind !== undefined && cpuBefore !== undefined && cpuAfter !== undefined) cpu[kind].push(cpuAfter - cpuBefore);
  return wall;
}

// One warm-up each (file system caches), then alternate.
time(tsc, ['-p', 'tsconfig.tsc.json']);
time(anytool, ['build', '-p', 'tsconfig.anytool.json']);
const plain = [];
const build = [];
// Alternate which one goes first each round, so neither always runs on a warmer (or busier) machine.
for (let i = 0; i < rounds; i++) {
  const runPlain = () => plain.push(time(tsc, ['-p', 'tsconfig.tsc.json'], 'plain'));
  const runBuild = () => build.push(time(anytool, ['build', '-p', 'tsconfig.anytool.json'], 'build'));
  if (i % 2 === 0) {
    runPlain();
    runBuild();
  } else {
    runBuild();
    runPlain();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;
const ratio = median(build) / median(plain);
console.log(`generated project: ${FILES} files, ${FILES * TOOLS_PER_FILE} @Tool methods; ${rounds} alternated rounds, wall time per build\n`);
console.log('| build | median | min | max |');
console.log('| --- | --- | --- | --- |');
console.log(`| plain tsc -p | ${ms(median(plain))} | ${ms(Math.min(...plain))} | ${ms(Math.max(...plain))} |`);
console.log(`| anytool build -p | ${ms(median(build))} | ${ms(Math.min(...build))} | ${ms(Math.max(...build))} |`);
console.log(`\nratio (median wall time): ${ratio.toFixed(2)}x plain tsc (target <= 1.25x) ${ratio <= 1.25 ? 'OK' : 'OVER TARGET'}`);
if (cpu.plain.length === rounds && rounds > 0) {
  console.log(
    `CPU time (user + system, median): plain tsc ${ms(median(cpu.plain))}, anytool build ${ms(median(cpu.build))}, ratio ${(median(cpu.build) / median(cpu.plain)).toFixed(2)}x`,
  );
}
if (process.env['KEEP_BENCH_PROJECT'] !== '1') rmSync(dir, { recursive: true, force: true });
