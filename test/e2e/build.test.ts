// The build is incremental: once built, building again with nothing changed writes
// nothing (no package is compiled, the examples are not rebuilt). `npm test` has just
// built; the first build here only matters when jest was started without it.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(300_000));

const root = join(__dirname, '..', '..');

function build(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, timeout: 280_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, output: stdout + stderr });
    });
  });
}

/** Every output of the build and its modification time. */
function outputs(): Map<string, number> {
  const times = new Map<string, number>();
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else times.set(relative(root, path), stat.mtimeMs);
    }
  };
  for (const name of readdirSync(join(root, 'packages'))) {
    walk(join(root, 'packages', name, 'dist'));
    for (const info of ['tsconfig.tsbuildinfo', 'tsconfig.cjs.tsbuildinfo']) {
      const path = join(root, 'packages', name, info);
      if (existsSync(path)) times.set(relative(root, path), statSync(path).mtimeMs);
    }
  }
  walk(join(root, 'examples', 'dist'));
  return times;
}

describe('scripts/build.mjs', () => {
  it('builds nothing the second time when nothing changed', async () => {
    expect(await build()).toMatchObject({ code: 0 });
    const before = outputs();
    expect([...before.keys()]).toEqual(
      expect.arrayContaining([
        join('packages', 'core', 'dist', 'esm', 'index.js'),
        join('packages', 'core', 'tsconfig.tsbuildinfo'),
        join('examples', 'dist', 'agent', 'main.js'),
      ]),
    );

    const again = await build();
    expect(again).toEqual({ code: 0, output: '' });
    const after = outputs();
    const changed = [...after].filter(([path, time]) => before.get(path) !== time).map(([path]) => path);
    expect(changed).toEqual([]);
    expect(after.size).toBe(before.size);
  });
});
