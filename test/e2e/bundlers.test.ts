// The bundler plugins (@anytool/schema/esbuild, /vite, /rollup, /webpack, /rspack, /bun), as a
// user runs them: one app (an @Tool method, a tool() function and a BaseTool subclass, with their
// types in another file) is bundled for Node by each bundler through the plugin (fixtures/bundle.mjs,
// the bun binary for Bun), the bundle runs in its own process, and what it prints (its definitions
// for OpenAI and Anthropic, the results of calls) must equal what the same app prints built by
// `anytool build`. Without the plugin the same bundle fails at run time with MISSING_SCHEMA.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { early, limiter } from '../../packages/core/test/helpers/concurrency';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures');
const bundleScript = join(fixtures, 'bundle.mjs');
const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
const bunBinary = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.exe' : 'bun');

const bundlers = ['esbuild', 'vite', 'rollup', 'webpack', 'rspack', 'bun'] as const;
type Bundler = (typeof bundlers)[number];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// The builds and runs of every test start in beforeAll, a few processes at a time (most of a bundler's start is
// waiting on the disk and on its own worker threads); each test awaits its own and checks them. The time limit of a
// process counts from its start, not from its wait for a turn.
const queue = limiter();

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return queue(
    () =>
      new Promise((resolve) => {
        execFile(command, args, { cwd, timeout: 100_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
        });
      }),
  );
}

let scratch: string;

beforeAll(() => {
  // Inside the repository (ignored by git), so the apps resolve the workspace packages.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  scratch = mkdtempSync(join(root, '.tmp', 'bundlers-'));
});

afterAll(async () => {
  // The processes a failed test did not wait for end before their folders go.
  if (started !== undefined) {
    const all = [...started.plugin.values(), ...started.without.values(), started.exclude, started.unsupported, started.cache];
    await Promise.all(all.map((work) => work.catch(() => undefined)));
  }
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
}, scaled(600_000));

/** A fresh copy of the app: each build starts with no disk cache. */
function app(name: string): string {
  const dir = join(scratch, name);
  cpSync(join(fixtures, 'bundler-app'), dir, { recursive: true });
  return dir;
}

async function bundle(bundler: Bundler, dir: string, extra: string[] = []): Promise<Run> {
  const command = bundler === 'bun' ? bunBinary : process.execPath;
  return run(command, [bundleScript, bundler, dir, ...extra], dir);
}

function bundleFile(bundler: Bundler, dir: string): string {
  return join(dir, 'dist', bundler, bundler === 'webpack' || bundler === 'rspack' ? 'main.cjs' : 'main.mjs');
}

/** Bundles the app and runs the bundle; its one line of output, parsed. */
async function bundleAndRun(bundler: Bundler, dir: string, extra: string[] = []): Promise<unknown> {
  const built = await bundle(bundler, dir, extra);
  expect({ code: built.code, stderr: built.stderr }).toEqual({ code: 0, stderr: '' });
  const ran = await run(process.execPath, [bundleFile(bundler, dir)], dir);
  expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(ran.stdout);
}

interface Printed {
  openai: Array<{ function: { name: string; parameters: { properties: Record<string, { description?: string }> } } }>;
  anthropic: unknown[];
  calls: string[];
}

let reference: Printed;

/** What the tests check, each started in beforeAll (in the order of the tests) and awaited by its test. */
interface Started {
  plugin: Map<Bundler, Promise<unknown>>;
  without: Map<Bundler, Promise<{ built: Run; ran: Run }>>;
  exclude: Promise<{ built: Run; ran: Run }>;
  unsupported: Promise<Run>;
  cache: Promise<{ first: Printed; cached: number | false; second: Printed }>;
}
let started: Started;

/** The app bundled without the plugin, and its bundle run. */
async function bundleWithout(bundler: Bundler): Promise<{ built: Run; ran: Run }> {
  const dir = app(`${bundler}-without`);
  const built = await bundle(bundler, dir, ['--without']);
  const ran = await run(process.execPath, [bundleFile(bundler, dir)], dir);
  return { built, ran };
}

async function bundleExcluding(): Promise<{ built: Run; ran: Run }> {
  const dir = app('exclude');
  const built = await bundle('esbuild', dir, ['--options', JSON.stringify({ exclude: 'src/tools.ts' })]);
  const ran = await run(process.execPath, [bundleFile('esbuild', dir)], dir);
  return { built, ran };
}

async function bundleUnsupported(): Promise<Run> {
  const dir = app('unsupported');
  const tools = join(dir, 'src', 'tools.ts');
  writeFileSync(
    tools,
    readFileSync(tools, 'utf8').replace('function convert(value: number, to: Unit)', 'function convert(value: number, to: Unit, seen: Set<string>)'),
  );
  return bundle('esbuild', dir);
}

/** Bundled twice with esbuild's disk cache, a type in another file changed in between. */
async function bundleTwiceCached(): Promise<{ first: Printed; cached: number | false; second: Printed }> {
  const dir = app('cache');
  const first = (await bundleAndRun('esbuild', dir)) as Printed;
  const cache = join(dir, 'node_modules', '.cache', 'anytool');
  const cached = existsSync(cache) && readdirSync(cache).length;

  const types = join(dir, 'src', 'types.ts');
  writeFileSync(types, readFileSync(types, 'utf8').replace('The city name, e.g. "Oslo".', 'The city, as its people write it.'));
  const second = (await bundleAndRun('esbuild', dir)) as Printed;
  return { first, cached, second };
}

beforeAll(async () => {
  const dir = app('reference');
  const referenceBuilt = run(process.execPath, [anytool, 'build', '-p', join(dir, 'tsconfig.json')], dir);
  started = {
    plugin: new Map(bundlers.map((bundler) => [bundler, early(bundleAndRun(bundler, app(`${bundler}-plugin`)))])),
    without: new Map(bundlers.filter((bundler) => bundler !== 'vite').map((bundler) => [bundler, early(bundleWithout(bundler))])),
    exclude: early(bundleExcluding()),
    unsupported: early(bundleUnsupported()),
    cache: early(bundleTwiceCached()),
  };
  const built = await referenceBuilt;
  expect({ code: built.code, output: built.stdout + built.stderr }).toEqual({ code: 0, output: '' });
  const ran = await run(process.execPath, [join(dir, 'out', 'main.js')], dir);
  expect(ran.code).toBe(0);
  reference = JSON.parse(ran.stdout) as Printed;
}, scaled(600_000));

describe('the reference: the app built by anytool build', () => {
  it('has its three tools with schemas from their types and JSDoc, and their calls ran', () => {
    expect(reference.openai.map((t) => t.function.name)).toEqual(['forecast', 'convert', 'Geocode']);
    expect(reference.openai[0]!.function.parameters.properties['place']).toMatchObject({ description: 'Where' });
    expect(reference.openai[1]!.function.parameters.properties['to']).toMatchObject({ description: 'The unit to convert to' });
    expect(reference.anthropic).toHaveLength(3);
    expect(reference.calls).toEqual([
      expect.stringContaining('"temperatures":[20,21]'),
      '100 C',
      '["Lisbon #1","Lisbon #2"]',
      expect.stringMatching(/^ERROR .*\/limit: must be <= 5/s),
    ]);
  });
});

describe.each(bundlers)('%s', (bundler) => {
  it('through the plugin: the bundle prints the definitions and results of anytool build', async () => {
    expect(await started.plugin.get(bundler)!).toEqual(reference);
  });

  if (bundler === 'vite') return;
  // Vite 8 (Oxc) leaves standard decorators as written: without the plugin its bundle does not even parse in Node.
  it('without the plugin: the bundle fails at run time with MISSING_SCHEMA', async () => {
    const { built, ran } = await started.without.get(bundler)!;
    expect(built.code).toBe(0);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/has no parameter schema: the anytool build step did not run on its code/);
    expect(ran.stderr).toContain("code: 'MISSING_SCHEMA'");
  });
});

describe('plugin options and errors (esbuild)', () => {
  it('exclude leaves the matching files to the bundler: their tools have no schema', async () => {
    const { built, ran } = await started.exclude;
    expect(built.code).toBe(0);
    expect(ran.stderr).toContain("code: 'MISSING_SCHEMA'");
  });

  it('a parameter type with no JSON form fails the build, naming the file, line, tool and fix', async () => {
    const built = await started.unsupported;
    expect(built.code).toBe(1);
    expect(built.stderr).toMatch(
      /tools\.ts\(\d+,\d+\): error ANYTOOL91001: tool\(convert\): parameter seen has type Set<string>: a Set has no JSON form; use an array/,
    );
  });

  it('with the disk cache, a change to a type in another file changes the schema on the next build', async () => {
    const { first, cached, second } = await started.cache;
    expect(first).toEqual(reference);
    expect(cached).toBeGreaterThan(0);
    const city = (printed: Printed): unknown =>
      (printed.openai[0]!.function.parameters.properties['place'] as { properties: Record<string, unknown> }).properties['city'];
    expect(city(first)).toEqual({ type: 'string', description: 'The city name, e.g. "Oslo".' });
    expect(city(second)).toEqual({ type: 'string', description: 'The city, as its people write it.' });
  });
});
