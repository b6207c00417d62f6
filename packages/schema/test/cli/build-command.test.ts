import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '@anytool/schema/internal';
import { anytoolBin, fixtures, oneFileTsconfig, removeScratchDirs, repoRoot, scratchDir } from '../helpers';
import { early, limiter } from '../../../core/test/helpers/concurrency';
import { scaled } from '../../../core/test/helpers/time-scale';

// The tests await builds that started together in beforeAll: on a busy machine a test can wait minutes for its own.
jest.setTimeout(scaled(300_000));

afterAll(removeScratchDirs);

/** A small CommonJS project: an interface in one file, a tool using it in another. */
function project(name: string, types: string): string {
  const dir = scratchDir(name);
  writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(join(dir, 'types.ts'), types);
  writeFileSync(
    join(dir, 'tools.ts'),
    `import { Tool, toolsFrom } from '@anytool/core';
import type { Query } from './types';

export class Search {
  /** Search the catalogue. */
  @Tool()
  search(query: Query): string {
    return JSON.stringify(query);
  }
}

export const definitions = toolsFrom(new Search()).map((t) => t.definition);
`,
  );
  const compilerOptions = {
    target: 'ES2022',
    module: 'CommonJS',
    moduleResolution: 'Node10',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    outDir: 'out',
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['tools.ts', 'types.ts'] }));
  return dir;
}

function build(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [anytoolBin, 'build', '-p', join(dir, 'tsconfig.json')], { cwd: repoRoot, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

const queue = limiter();

/** `node <args>` in the repository, a few at a time. */
function nodeLater(args: string[]): Promise<Ran> {
  return queue(
    () =>
      new Promise((resolve) => {
        execFile(process.execPath, args, { cwd: repoRoot, encoding: 'utf8' }, (error, stdout, stderr) => {
          resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
        });
      }),
  );
}

/**
 * The builds of the tests below that need nothing before them, started together once the file loads its tests (each
 * in its own project): each test awaits its own and checks it.
 */
let later: {
  errors: Promise<Ran>;
  check: Promise<Ran>;
  runtime: Promise<{ dir: string; built: Ran; ran?: Ran }>;
};

beforeAll(() => {
  const errors = project('errors', 'export interface Query {\n  ids: Set<string>;\n}\nexport const wrong: number = "x";\n');
  const check = project('check', 'export interface Query {\n  at: bigint;\n}\n');
  const runtime = project('runtime-import', 'export interface Query {\n  since: Date;\n}\n');
  const script = `const { Search } = require(${JSON.stringify(join(runtime, 'out', 'tools.js'))}); const { Toolset } = require('@anytool/core');
      new Toolset(new Search()).invoke('search', { query: { since: '2026-01-02T00:00:00Z' } }).then((r) => process.stdout.write(r.content[0].text));`;
  later = {
    errors: early(nodeLater([anytoolBin, 'build', '-p', join(errors, 'tsconfig.json')])),
    check: early(nodeLater([anytoolBin, 'build', '-p', join(check, 'tsconfig.json'), '--noEmit'])),
    runtime: early(
      nodeLater([anytoolBin, 'build', '-p', join(runtime, 'tsconfig.json')]).then(async (built) => ({
        dir: runtime,
        built,
        ...(built.status === 0 ? { ran: await nodeLater(['-e', script]) } : {}),
      })),
    ),
  };
});

function definitions(dir: string): Array<{ parameters: { properties: { query: { properties: Record<string, unknown> } } } }> {
  const script = `process.stdout.write(JSON.stringify(require(${JSON.stringify(join(dir, 'out', 'tools.js'))}).definitions))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' }));
}

describe('anytool build', () => {
  it('editing an interface in another file changes the emitted schema on the next build', () => {
    const dir = project('rebuild', 'export interface Query {\n  text: string;\n}\n');
    expect(build(dir).status).toBe(0);
    expect(Object.keys(definitions(dir)[0]!.parameters.properties.query.properties)).toEqual(['text']);

    writeFileSync(join(dir, 'types.ts'), 'export interface Query {\n  text: string;\n  /** At most this many. */\n  limit?: number;\n}\n');
    expect(build(dir).status).toBe(0);
    const query = definitions(dir)[0]!.parameters.properties.query;
    expect(query.properties).toEqual({ text: { type: 'string' }, limit: { type: 'number', description: 'At most this many.' } });
    expect(readFileSync(join(dir, 'out', 'tools.js'), 'utf8')).toContain('At most this many.');
  });

  it("reports tsc's own diagnostics and the build step's, and fails on errors", async () => {
    const { status, stdout, stderr } = await later.errors;
    const output = stdout + stderr;
    expect(status).toBe(1);
    expect(output).toMatch(/types\.ts\(4,14\): error TS2322/);
    expect(output).toMatch(
      /tools\.ts\(7,10\): error ANYTOOL91001: Search\.search: parameter query\.ids has type Set<string>: a Set has no JSON form; use an array/,
    );
    expect(output).toMatch(/Found 2 errors\./);
  });

  it('with noEmit it only checks', async () => {
    const run = await later.check;
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/ANYTOOL91001: Search\.search: parameter query\.at has type bigint/);
  });

  it('emits code whose run-time helpers come from @anytool/core/runtime, never from @anytool/schema', async () => {
    const { dir, built, ran } = await later.runtime;
    expect(built.status).toBe(0);
    const emitted = readFileSync(join(dir, 'out', 'tools.js'), 'utf8');
    expect(emitted).toContain('require("@anytool/core/runtime")');
    expect(emitted).not.toContain('@anytool/schema');
    // What execFileSync would have thrown: the script failed.
    expect({ status: ran!.status, stderr: ran!.status === 0 ? '' : ran!.stderr }).toEqual({ status: 0, stderr: '' });
    expect(ran!.stdout).toBe('{"since":"2026-01-02T00:00:00.000Z"}');
  });
});

describe('anytool schema <file>', () => {
  it('prints the definitions it would inline', async () => {
    let out = '';
    let err = '';
    const code = await main(['schema', join(fixtures, 'corpus', 'shapes.ts'), '-p', oneFileTsconfig], { out: (t) => (out += t), err: (t) => (err += t) });
    expect(err).toBe('');
    expect(code).toBe(0);
    const tools = JSON.parse(out) as Array<{ name: string; source: string; description?: string; paramNames?: string[] }>;
    expect(tools.map((t) => [t.name, t.source])).toEqual([
      ['searchWeb', 'tool(searchWeb)'],
      ['add', 'tool(add)'],
      ['save', 'Notes.save'],
      ['Clock', 'class Clock'],
      ['multiply', 'Calculator.multiply'],
      ['describeValue', 'tool(describeValue)'],
    ]);
    expect(tools[2]).toMatchObject({ description: 'Save a note.', paramNames: ['text', 'tags'], contextIndex: 1 });
  });
});

describe('anytool schema <file> in its project', () => {
  it("compiles the tsconfig's files with the file, like the build (a global declaration file is seen)", async () => {
    const dir = scratchDir('schema-project');
    writeFileSync(join(dir, 'globals.d.ts'), 'interface AmbientPoint {\n  x: number;\n  y: number;\n}\n');
    writeFileSync(
      join(dir, 'tools.ts'),
      "import { tool } from '@anytool/core';\n\n/** Move to a point. */\nexport const move = tool(function move(to: AmbientPoint): string {\n  return `${to.x},${to.y}`;\n});\n",
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, noEmit: true },
        include: ['*.ts'],
      }),
    );
    let out = '';
    let err = '';
    const code = await main(['schema', join(dir, 'tools.ts'), '-p', join(dir, 'tsconfig.json')], { out: (t) => (out += t), err: (t) => (err += t) });
    expect(err).toBe('');
    expect(code).toBe(0);
    const [move] = JSON.parse(out) as Array<{ parameters: { properties: Record<string, unknown> } }>;
    expect(move!.parameters.properties['to']).toEqual({
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' } },
      required: ['x', 'y'],
      additionalProperties: false,
    });
  });
});

describe('the anytool command line', () => {
  it('prints usage for help and rejects unknown commands', async () => {
    let out = '';
    let err = '';
    const output = { out: (t: string) => (out += t), err: (t: string) => (err += t) };
    expect(await main(['--help'], output)).toBe(0);
    expect(out).toMatch(/anytool build \[-p tsconfig\.json\]/);
    expect(out).toMatch(/anytool serve <module\.js>/);
    expect(await main(['frobnicate'], output)).toBe(2);
    expect(err).toMatch(/unknown command "frobnicate"/);
  });

  it('dispatches serve to @anytool/mcp (loaded only when asked for)', () => {
    const run = spawnSync(process.execPath, [anytoolBin, 'serve', '--help'], { cwd: repoRoot, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/anytool serve <module/);
  });
});

describe('the quickstart example', () => {
  it('writes no parameter schema by hand: all four kinds of tool get theirs from the build step', async () => {
    const file = join(repoRoot, 'examples', 'quickstart', 'tools.ts');
    expect(readFileSync(file, 'utf8')).not.toMatch(/parameters\s*:/);
    let out = '';
    const code = await main(['schema', file, '-p', join(repoRoot, 'examples', 'tsconfig.json')], { out: (t) => (out += t), err: () => undefined });
    expect(code).toBe(0);
    const tools = JSON.parse(out) as Array<{ name: string; source: string; parameters: { properties: Record<string, unknown> }; contextIndex?: number }>;
    expect(tools.map((t) => [t.source, Object.keys(t.parameters.properties), t.contextIndex])).toEqual([
      ['tool(calculator)', ['expression'], undefined],
      ['tool(searchWeb)', ['query', 'maxResults'], undefined],
      ['class Clock', ['timeZone'], undefined],
      ['Notes.save', ['text'], 1],
      ['Notes.history', [], 0],
    ]);
  });
});
