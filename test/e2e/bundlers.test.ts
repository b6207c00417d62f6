// The bundler plugins (@anytool/schema/esbuild, /vite, /rollup, /webpack, /rspack, /bun), as a
// user runs them: one app (an @Tool method, a tool() function and a BaseTool subclass, with their
// types in another file) is bundled for Node by each bundler through the plugin (fixtures/bundle.mjs,
// the bun binary for Bun), the bundle runs in its own process, and what it prints (its definitions
// for OpenAI and Anthropic, the results of calls) must equal what the same app prints built by
// `anytool build`. Without the plugin the same bundle fails at run time with MISSING_SCHEMA.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 100_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

let scratch: string;

beforeAll(() => {
  // Inside the repository (ignored by git), so the apps resolve the workspace packages.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  scratch = mkdtempSync(join(root, '.tmp', 'bundlers-'));
});

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

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

beforeAll(async () => {
  const dir = app('reference');
  const built = await run(process.execPath, [anytool, 'build', '-p', join(dir, 'tsconfig.json')], dir);
  expect({ code: built.code, output: built.stdout + built.stderr }).toEqual({ code: 0, output: '' });
  const ran = await run(process.execPath, [join(dir, 'out', 'main.js')], dir);
  expect(ran.code).toBe(0);
  reference = JSON.parse(ran.stdout) as Printed;
});

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
    expect(await bundleAndRun(bundler, app(`${bundler}-plugin`))).toEqual(reference);
  });

  if (bundler === 'vite') return;
  // Vite 8 (Oxc) leaves standard decorators as written: without the plugin its bundle does not even parse in Node.
  it('without the plugin: the bundle fails at run time with MISSING_SCHEMA', async () => {
    const dir = app(`${bundler}-without`);
    const built = await bundle(bundler, dir, ['--without']);
    expect(built.code).toBe(0);
    const ran = await run(process.execPath, [bundleFile(bundler, dir)], dir);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/has no parameter schema: the anytool build step did not run on its code/);
    expect(ran.stderr).toContain("code: 'MISSING_SCHEMA'");
  });
});

describe('plugin options and errors (esbuild)', () => {
  it('exclude leaves the matching files to the bundler: their tools have no schema', async () => {
    const dir = app('exclude');
    const built = await bundle('esbuild', dir, ['--options', JSON.stringify({ exclude: 'src/tools.ts' })]);
    expect(built.code).toBe(0);
    const ran = await run(process.execPath, [bundleFile('esbuild', dir)], dir);
    expect(ran.stderr).toContain("code: 'MISSING_SCHEMA'");
  });

  it('a parameter type with no JSON form fails the build, naming the file, line, tool and fix', async () => {
    const dir = app('unsupported');
    const tools = join(dir, 'src', 'tools.ts');
    writeFileSync(
      tools,
      readFileSync(tools, 'utf8').replace('function convert(value: number, to: Unit)', 'function convert(value: number, to: Unit, seen: Set<string>)'),
    );
    const built = await bundle('esbuild', dir);
    expect(built.code).toBe(1);
    expect(built.stderr).toMatch(
      /tools\.ts\(\d+,\d+\): error ANYTOOL91001: tool\(convert\): parameter seen has type Set<string>: a Set has no JSON form; use an array/,
    );
  });

  it('with the disk cache, a change to a type in another file changes the schema on the next build', async () => {
    const dir = app('cache');
    const first = (await bundleAndRun('esbuild', dir)) as Printed;
    expect(first).toEqual(reference);
    const cache = join(dir, 'node_modules', '.cache', 'anytool');
    expect(existsSync(cache) && readdirSync(cache).length).toBeGreaterThan(0);

    const types = join(dir, 'src', 'types.ts');
    writeFileSync(types, readFileSync(types, 'utf8').replace('The city name, e.g. "Oslo".', 'The city, as its people write it.'));
    const second = (await bundleAndRun('esbuild', dir)) as Printed;
    const city = (printed: Printed): unknown =>
      (printed.openai[0]!.function.parameters.properties['place'] as { properties: Record<string, unknown> }).properties['city'];
    expect(city(first)).toEqual({ type: 'string', description: 'The city name, e.g. "Oslo".' });
    expect(city(second)).toEqual({ type: 'string', description: 'The city, as its people write it.' });
  });
});
