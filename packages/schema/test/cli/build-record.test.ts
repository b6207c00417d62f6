// `anytool build` skips a build whose inputs and outputs are as the last passing build left them, and builds
// again when any of them changes: a source, a file added where the tsconfig's globs look, an output, a tsconfig it
// extends, a dependency's declarations. The bin runs in a child process, as `npm start` runs it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anytoolBin, removeScratchDirs, scratchDir } from '../helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

afterAll(removeScratchDirs);

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

function build(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Ran {
  const ran = spawnSync(process.execPath, [anytoolBin, 'build', ...extra], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

const mtime = (file: string): number => statSync(file).mtimeMs;

/**
 * An ES module project: a tool whose parameter type comes from another file, and one from a dependency's
 * declarations (a package in node_modules, as a library's types would be). One parameter is `unknown`, so the
 * build prints a warning that a skipped build prints again.
 */
function project(): string {
  const dir = scratchDir('build-record');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'types.ts'), 'export interface Query {\n  /** The words to look for. */\n  text: string;\n}\n');
  writeFileSync(
    join(dir, 'src', 'tools.ts'),
    `import { tool } from '@anytool/core';
import type { Query } from './types.js';
import type { Unit } from 'units';

/** Search the catalogue. */
function search(query: Query, unit: Unit, extra: unknown): string {
  return JSON.stringify({ query, unit, extra });
}

export const definition = tool(search).definition;
`,
  );
  mkdirSync(join(dir, 'node_modules', 'units'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'units', 'package.json'), '{ "name": "units", "version": "1.0.0", "types": "index.d.ts" }\n');
  writeFileSync(join(dir, 'node_modules', 'units', 'index.d.ts'), "export type Unit = 'km' | 'mi';\n");
  // @anytool/core resolves from the repository's node_modules, above the scratch folder.
  writeFileSync(
    join(dir, 'tsconfig.base.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: [],
      },
    }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: './tsconfig.base.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }),
  );
  return dir;
}

/** The schema the last build inlined for `search`, read from its output. */
function inlined(dir: string): string {
  return readFileSync(join(dir, 'dist', 'tools.js'), 'utf8');
}

describe('anytool build skips an unchanged project', () => {
  let dir = '';
  let first: Ran;

  beforeAll(() => {
    dir = project();
    first = build(dir);
  });

  test('the first build compiles, warns, and leaves a record beside the disk cache', () => {
    expect(first.stderr).toMatch(/warning ANYTOOL\d+: .*extra has type unknown/);
    expect(first.status).toBe(0);
    expect(inlined(dir)).toContain('"km"');
    expect(readdirSync(join(dir, 'node_modules', '.cache', 'anytool')).filter((f) => f.startsWith('build-'))).toHaveLength(1);
  });

  test('a second build writes nothing and prints the same', () => {
    const before = mtime(join(dir, 'dist', 'tools.js'));
    const again = build(dir);
    expect(again).toEqual(first);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBe(before);
  });

  test('an edit to a type in another file builds again, and the schema follows', () => {
    writeFileSync(join(dir, 'src', 'types.ts'), 'export interface Query {\n  /** The words to look for. */\n  text: string;\n  limit: number;\n}\n');
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('"limit"');
    const before = mtime(join(dir, 'dist', 'tools.js'));
    expect(build(dir).status).toBe(0);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBe(before);
  });

  test("a dependency's declarations changed in place build again", () => {
    writeFileSync(join(dir, 'node_modules', 'units', 'index.d.ts'), "export type Unit = 'km' | 'mi' | 'nmi';\n");
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('"nmi"');
  });

  test('a file added where the globs look, and a deleted output, build again', () => {
    writeFileSync(join(dir, 'src', 'extra.ts'), 'export const extra = 1;\n');
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'extra.js'))).toBe(true);
    rmSync(join(dir, 'dist', 'extra.js'));
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'extra.js'))).toBe(true);
  });

  test('an edit to the tsconfig it extends builds again', () => {
    const base = JSON.parse(readFileSync(join(dir, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    base.compilerOptions['sourceMap'] = true;
    writeFileSync(join(dir, 'tsconfig.base.json'), JSON.stringify(base));
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'tools.js.map'))).toBe(true);
  });

  test('a failed build is never skipped, and the fixed one is', () => {
    const source = readFileSync(join(dir, 'src', 'extra.ts'), 'utf8');
    writeFileSync(join(dir, 'src', 'extra.ts'), 'export const extra: string = 1;\n');
    for (let i = 0; i < 2; i++) {
      const failed = build(dir);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain("error TS2322: Type 'number' is not assignable to type 'string'.");
    }
    writeFileSync(join(dir, 'src', 'extra.ts'), source);
    expect(build(dir).status).toBe(0);
    const before = mtime(join(dir, 'dist', 'extra.js'));
    expect(build(dir).status).toBe(0);
    expect(mtime(join(dir, 'dist', 'extra.js'))).toBe(before);
  });

  test("the package.json's module type changed builds again: the output follows it", () => {
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('exports.definition');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('export const definition');
  });

  test('a declaration put where module resolution looked first builds again', () => {
    // src/node_modules is never listed (globs skip it), but resolving `units` from src/tools.ts looked there.
    mkdirSync(join(dir, 'src', 'node_modules', 'units'), { recursive: true });
    writeFileSync(join(dir, 'src', 'node_modules', 'units', 'package.json'), '{ "name": "units", "version": "2.0.0", "types": "index.d.ts" }\n');
    writeFileSync(join(dir, 'src', 'node_modules', 'units', 'index.d.ts'), "export type Unit = 'ly';\n");
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('"ly"');
    rmSync(join(dir, 'src', 'node_modules'), { recursive: true });
    expect(build(dir).status).toBe(0);
    expect(inlined(dir)).toContain('"nmi"');
  });

  test('a file added in a folder linked into the sources builds again', () => {
    mkdirSync(join(dir, 'shared'));
    writeFileSync(join(dir, 'shared', 'one.ts'), 'export const one = 1;\n');
    symlinkSync(join(dir, 'shared'), join(dir, 'src', 'linked'), 'dir');
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'linked', 'one.js'))).toBe(true);
    writeFileSync(join(dir, 'shared', 'two.ts'), 'export const two = 2;\n');
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'linked', 'two.js'))).toBe(true);
  });

  test('a JSON file the globs do not match, dropped among the sources, is no reason to build', () => {
    const before = mtime(join(dir, 'dist', 'tools.js'));
    writeFileSync(join(dir, 'src', 'report.json'), '{ "passed": 1 }\n');
    expect(build(dir).status).toBe(0);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBe(before);
  });

  test('a record of another shape is a reason to build, not an error', () => {
    const folder = join(dir, 'node_modules', '.cache', 'anytool');
    const record = readdirSync(folder).find((f) => f.startsWith('build-'))!;
    writeFileSync(join(folder, record), 'null');
    const before = mtime(join(dir, 'dist', 'tools.js'));
    expect(build(dir).status).toBe(0);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBeGreaterThan(before);
  });

  test('an output that cannot be written is an error of the build, and leaves no record', () => {
    rmSync(join(dir, 'dist', 'extra.js'));
    mkdirSync(join(dir, 'dist', 'extra.js'));
    for (let i = 0; i < 2; i++) {
      const failed = build(dir);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toMatch(/error TS5033: Could not write file '.*extra\.js'/);
    }
    rmSync(join(dir, 'dist', 'extra.js'), { recursive: true });
    expect(build(dir).status).toBe(0);
    expect(existsSync(join(dir, 'dist', 'extra.js'))).toBe(true);
  });

  test('--force and ANYTOOL_CACHE=0 build anyway', () => {
    let before = mtime(join(dir, 'dist', 'tools.js'));
    const forced = build(dir, ['--force']);
    expect(forced.status).toBe(0);
    expect(forced.stderr).toMatch(/extra has type unknown/);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBeGreaterThan(before);
    before = mtime(join(dir, 'dist', 'tools.js'));
    expect(build(dir, [], { ANYTOOL_CACHE: '0' }).status).toBe(0);
    expect(mtime(join(dir, 'dist', 'tools.js'))).toBeGreaterThan(before);
  });
});

test("a workspace's lockfile, at its root, counts: an install there builds again", () => {
  const root = scratchDir('build-record-workspace');
  writeFileSync(join(root, 'package.json'), '{ "private": true, "workspaces": ["app"] }\n');
  writeFileSync(join(root, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
  const app = join(root, 'app');
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "type": "module" }\n');
  // A package hoisted to the workspace's root: resolving it looks in app/node_modules first.
  mkdirSync(join(root, 'node_modules', 'units'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'units', 'package.json'), '{ "name": "units", "version": "1.0.0", "types": "index.d.ts" }\n');
  writeFileSync(join(root, 'node_modules', 'units', 'index.d.ts'), "export type Unit = 'km';\n");
  writeFileSync(join(app, 'src', 'main.ts'), "import type { Unit } from 'units';\nexport const main: Unit = 'km';\n");
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', strict: true, types: [], rootDir: 'src', outDir: 'dist' }, include: ['src'] }),
  );
  expect(build(app).status).toBe(0);
  const before = mtime(join(app, 'dist', 'main.js'));
  expect(build(app).status).toBe(0);
  expect(mtime(join(app, 'dist', 'main.js'))).toBe(before);
  writeFileSync(join(root, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n');
  expect(build(app).status).toBe(0);
  expect(mtime(join(app, 'dist', 'main.js'))).toBeGreaterThan(before);
});

test('a tsconfig put nearer the working directory than the one found builds again, with it', () => {
  const dir = scratchDir('build-record-nearer');
  mkdirSync(join(dir, 'app', 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'app', 'src', 'main.ts'), 'export const main = 1;\n');
  const options = { module: 'NodeNext', strict: true, types: [], rootDir: 'app/src', outDir: 'dist' };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['app/src'] }));
  const app = join(dir, 'app');
  expect(build(app).status).toBe(0);
  expect(existsSync(join(dir, 'dist', 'main.js'))).toBe(true);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...options, rootDir: 'src', outDir: 'out' }, include: ['src'] }));
  expect(build(app).status).toBe(0);
  expect(existsSync(join(app, 'out', 'main.js'))).toBe(true);
});
