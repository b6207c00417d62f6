import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { anytoolBin, fixtures, repoRoot } from './helpers';
import { scaled } from '../../core/test/helpers/time-scale';
import { early, limiter } from '../../core/test/helpers/concurrency';

// Projects outside the repository with one TypeScript release each installed (5.4 and 7.0
// are not supported by the build step; 5.5, 5.8 and 6.0 are), each with the tsconfig its own
// `tsc --init` writes, unchanged. Built with `anytool build` (any TypeScript: the project's
// when supported, else the shipped one), with tspc (ts-patch), through ts-node and ts-jest,
// the emitted JavaScript is run and must list the tools with their schemas. Every version's
// compilations start once the projects are installed, side by side (`start`); each test awaits
// and checks its own.

// The tests await processes that started with the others in beforeAll: on a busy machine a test can wait minutes for its own.
jest.setTimeout(scaled(300_000));

const run = promisify(execFile);
const versions = ['5.4.5', '5.5.4', '5.8.3', '6.0.3', '7.0.2'] as const;
type Version = (typeof versions)[number];
const supported: readonly Version[] = ['5.5.4', '5.8.3', '6.0.3'];
const root = mkdtempSync(join(tmpdir(), 'anytool-typescript-'));
const dirs = Object.fromEntries(versions.map((v) => [v, join(root, v, 'app')])) as Record<Version, string>;
const nodeModules = (version: Version): string => join(root, version, 'node_modules');

/** npm with the environment of a user's shell (not the npm_* settings of the npm that may have started jest). */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
}

/**
 * <root>/<version>/node_modules holds the release (and ts-patch); app/ is the project `tsc --init`
 * made; cjs/ a CommonJS corner for ts-node and ts-jest, which load modules with require.
 */
async function setUp(version: Version): Promise<void> {
  const base = join(root, version);
  const app = dirs[version];
  const cjs = join(base, 'cjs');
  mkdirSync(app, { recursive: true });
  mkdirSync(cjs);
  writeFileSync(join(base, 'package.json'), '{ "private": true }\n');
  const packages = [`typescript@${version}`, ...(version.startsWith('7.') ? [] : ['ts-patch@3.3.0'])];
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error', ...packages], {
    cwd: base,
    env: npmEnv(),
  });
  mkdirSync(join(base, 'node_modules', '@anytool'), { recursive: true });
  for (const name of ['core', 'schema']) symlinkSync(join(repoRoot, 'packages', name), join(base, 'node_modules', '@anytool', name), 'dir');
  await run(process.execPath, [join(base, 'node_modules', 'typescript', 'bin', 'tsc'), '--init'], { cwd: app });
  // `tsc --init` of 5.x before 5.9 writes "module": "commonjs"; from 5.9 on, "nodenext" (ESM here).
  const commonjs = /^\s*"module":\s*"commonjs"/m.test(readFileSync(join(app, 'tsconfig.json'), 'utf8'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ private: true, type: commonjs ? 'commonjs' : 'module' }));
  copyFileSync(join(fixtures, 'versions', 'tools.ts'), join(app, 'tools.ts'));
  writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
  copyFileSync(join(fixtures, 'versions', 'tools.ts'), join(cjs, 'tools.ts'));
  writeFileSync(
    join(cjs, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, skipLibCheck: true, types: [] }, files: ['tools.ts'] }),
  );
}

beforeAll(async () => {
  await Promise.all(versions.map(setUp));
  for (const version of versions) runs[version] = start(version);
  for (const version of ['5.8.3', '5.4.5'] as const) tsJestRuns[version] = early(tsJest(version));
}, scaled(600_000));

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The compilations and runs below, a few at a time: each is a TypeScript program or a Node start. */
const queue = limiter();

function node(args: string[], cwd: string): Promise<Ran> {
  return queue(
    () =>
      new Promise((resolve) => {
        execFile(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
          resolve({ status, stdout, stderr });
        });
      }),
  );
}

/** Loads the emitted module (CommonJS or ESM) in a fresh Node and returns its definitions. */
async function definitionsOf(file: string, cwd: string): Promise<unknown> {
  const script = `import(${JSON.stringify(file)}).then((m) => process.stdout.write(JSON.stringify(m.definitions ?? m.default.definitions)))`;
  const result = await node(['-e', script], cwd);
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

/** A compilation and, when it succeeded, the definitions its output lists (or the error loading it threw, thrown again by the test). */
async function compiled(run: Promise<Ran>, output: string, cwd: string): Promise<{ result: Ran; definitions: () => unknown }> {
  const result = await run;
  if (result.status !== 0) return { result, definitions: () => undefined };
  const definitions = await definitionsOf(output, cwd).then(
    (value) => () => value,
    (error: unknown) => () => {
      throw error;
    },
  );
  return { result, definitions };
}

interface Runs {
  build: Promise<{ result: Ran; definitions: () => unknown }>;
  /** tspc with the ts-patch plugin (not for 7.x, which has no ts-patch). */
  tspc?: Promise<{ result: Ran; definitions: () => unknown }>;
  /** tspc on the unchanged tsconfig of tsc --init (6.0 only). */
  esnext?: Promise<Ran>;
  /** ts-node with the transformer, in the CommonJS corner (not for 7.x). */
  tsNode?: Promise<Ran>;
}

const runs = {} as Record<Version, Runs>;
const tsJestRuns = {} as Record<'5.8.3' | '5.4.5', Promise<{ status: number | null; output: string }>>;

/** Starts every compilation and run of one version's tests (each test awaits its own and checks it). */
function start(version: Version): Runs {
  const app = dirs[version];
  const tspc = join(nodeModules(version), 'ts-patch', 'bin', 'tspc.js');
  const build = early(compiled(node([anytoolBin, 'build'], app), join(app, 'tools.js'), app));
  const out: Runs = { build };
  if (version.startsWith('7.')) return out;
  // After the build, whose tsconfig takes every file of the project: the tspc runs write their output beside it.
  const built = build.then(
    () => undefined,
    () => undefined,
  );
  writeFileSync(
    join(app, 'tsconfig.tspc.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { target: 'ES2022', outDir: 'tspc-out', plugins: [{ transform: '@anytool/schema/ts-patch', import: 'tspcTransformer' }] },
      files: ['tools.ts'],
    }),
  );
  out.tspc = early(
    built.then(() =>
      supported.includes(version)
        ? compiled(node([tspc, '-p', 'tsconfig.tspc.json'], app), join(app, 'tspc-out', 'tools.js'), app)
        : node([tspc, '-p', 'tsconfig.tspc.json'], app).then((result) => ({ result, definitions: () => undefined })),
    ),
  );
  if (version === '6.0.3') {
    writeFileSync(
      join(app, 'tsconfig.esnext.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { outDir: 'esnext-out', plugins: [{ transform: '@anytool/schema/ts-patch', import: 'tspcTransformer' }] },
        files: ['tools.ts'],
      }),
    );
    out.esnext = early(built.then(() => node([tspc, '-p', 'tsconfig.esnext.json'], app)));
  }
  const cjs = join(root, version, 'cjs');
  const script = `
      const { anytoolTransformer } = require('@anytool/schema');
      require(${JSON.stringify(require.resolve('ts-node'))}).register({
        compiler: require.resolve('typescript', { paths: [${JSON.stringify(cjs)}] }),
        project: 'tsconfig.json',
        transformers: (program) => ({ before: [anytoolTransformer(program)] }),
      });
      try {
        process.stdout.write(JSON.stringify(require('./tools.ts').definitions));
      } catch (error) {
        process.stdout.write(JSON.stringify({ code: error.code, message: error.message }));
      }`;
  out.tsNode = early(node(['-e', script], cjs));
  return out;
}

const expected = [
  {
    name: 'add',
    description: 'Add two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number', description: 'The first' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
  {
    name: 'mul',
    description: 'Multiply two numbers.',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  },
];

describe.each(versions)('a project with TypeScript %s and the tsconfig of its tsc --init', (version) => {
  it('anytool build compiles it, and the JavaScript runs with every schema', async () => {
    const { result, definitions } = await runs[version].build;
    expect(result.stdout).toBe('');
    if (supported.includes(version)) {
      expect(result.stderr).toBe('');
    } else {
      // The project's TypeScript is not supported: one line says which one was used instead.
      const reason = version.startsWith('7.') ? `TypeScript ${version} has no JavaScript compiler API` : `TypeScript ${version} is older than 5.5`;
      expect(result.stderr).toBe(
        `anytool build: this project's ${reason}${version.startsWith('7.') ? ' (from 7.0 on, TypeScript is a native program)' : ''}; compiling with TypeScript 6.0.3, which @anytool/schema ships (the build step supports 5.5 through 6.0)\n`,
      );
    }
    expect(result.status).toBe(0);
    expect(definitions()).toEqual(expected);
  });

  if (version.startsWith('7.')) return;

  it(
    supported.includes(version)
      ? 'tspc with the ts-patch plugin compiles it with the schemas'
      : 'tspc with the ts-patch plugin fails, naming the version, the supported range and the fix',
    async () => {
      const { result, definitions } = await runs[version].tspc!;
      if (supported.includes(version)) {
        expect(result.stdout + result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(definitions()).toEqual(expected);
      } else {
        expect(result.status).not.toBe(0);
        expect(result.stdout).toMatch(
          /error TS91006: anytool \(ts-patch\): TypeScript 5\.4\.5 is older than 5\.5, and the build step supports TypeScript 5\.5 through 6\.0; install a supported one in your project \(npm i -D typescript@~5\.9, or typescript@~6\.0\), or compile with `anytool build`/,
        );
      }
    },
  );

  if (version === '6.0.3') {
    it('tspc with the unchanged tsconfig of tsc --init ("target": "esnext") stops at the decorator, naming the fix', async () => {
      const result = await runs[version].esnext!;
      expect(result.status).not.toBe(0);
      expect(result.stdout).toMatch(
        /tools\.ts\(9,3\): error TS91007: @Tool\(\) on Calc\.add would stay as written in the JavaScript, and Node cannot run decorators: .* set "target": "ES2025" \(or lower\) in tsconfig\.json, or compile with `anytool build`/,
      );
    });
  }

  it(
    supported.includes(version) ? 'ts-node with the transformer loads it with the schemas' : 'ts-node with the transformer refuses it, naming the version',
    async () => {
      const result = await runs[version].tsNode!;
      expect(result.stderr).toBe('');
      const out = JSON.parse(result.stdout) as unknown;
      if (supported.includes(version)) expect(out).toEqual(expected);
      else
        expect(out).toEqual({
          code: 'UNSUPPORTED_TYPESCRIPT',
          message: expect.stringMatching(
            /^anytool \(anytoolTransformer\): TypeScript 5\.4\.5 is older than 5\.5, and the build step supports TypeScript 5\.5 through 6\.0/,
          ),
        });
    },
  );
});

/** The project's tests run by ts-jest with its compiler set to the project's TypeScript (jest in a child process). */
async function tsJest(version: Version): Promise<{ status: number | null; output: string }> {
  const cjs = join(root, version, 'cjs');
  writeFileSync(
    join(cjs, 'tools.test.ts'),
    "import { definitions } from './tools';\ndeclare const test: (name: string, fn: () => void) => void;\ndeclare const expect: (value: unknown) => { toEqual(other: unknown): void };\n" +
      `test('the schemas come from the types', () => {\n  expect(definitions).toEqual(${JSON.stringify(expected)});\n});\n`,
  );
  const config = {
    rootDir: cjs,
    testEnvironment: 'node',
    transform: {
      '^.+\\.ts$': [
        require.resolve('ts-jest'),
        {
          tsconfig: join(cjs, 'tsconfig.json'),
          compiler: join(nodeModules(version), 'typescript'),
          astTransformers: { before: [{ path: '@anytool/schema/ts-jest' }] },
        },
      ],
    },
  };
  const result = await node([require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--ci', '--no-cache', '--colors=false'], cjs);
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('ts-jest with its compiler set to the project TypeScript', () => {
  it('5.8: the tests see the schemas', async () => {
    const { status, output } = await tsJestRuns['5.8.3'];
    expect(output).toMatch(/Tests:\s+1 passed/);
    expect(status).toBe(0);
  });

  it('5.4: the test file fails with the version, the range and the fix', async () => {
    const { status, output } = await tsJestRuns['5.4.5'];
    expect(status).not.toBe(0);
    expect(output).toMatch(/anytool \(ts-jest\): TypeScript 5\.4\.5 is older than 5\.5, and the build step supports TypeScript 5\.5 through 6\.0/);
  });
});
