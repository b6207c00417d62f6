// Each package's tests mirror its src/: the tests of src/<folder>/<file>.ts are in test/<folder>/, named
// <file>.test.ts, or <file>.<aspect>.test.ts when one source file has several. A test in a folder src/ does
// not have fails here, and so does a test at the root of test/ that names no source file at the root of src/,
// unless it is one of the few below: tests about a package as a whole, each with the reason it has no source
// file of its own. Helpers and fixtures live in test/helpers and test/fixtures and hold no tests of the package.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
const packagesDir = join(root, 'packages');

/** Test files with no source file of their own, by path from the repository root, and why. */
const exceptions: Record<string, string> = {
  'packages/core/test/package-smoke.test.ts': 'imports the built package from Node, as an ES module and as CommonJS',
  'packages/agent/test/package-smoke.test.ts': 'imports the built package from Node, as an ES module and as CommonJS',
  'packages/schema/test/ways-in.test.ts': 'one tool class through every way in at once (build, tspc, ts-jest, register, bundlers)',
  'packages/mcp/test/interop/interop.test.ts': 'our client and server against other MCP implementations, both ways',
  'packages/mcp/test/helpers/oidc.test.ts': 'the OpenID provider the auth tests run against, a test helper',
  'packages/core/test/helpers/time-scale.test.ts': 'how much longer the tests wait on a slow machine, a test helper',
  'packages/core/test/helpers/concurrency.test.ts': 'how many processes a test starts at once, a test helper',
};

/** Every `*.test.ts` under `dir`, fixtures left out (they are inputs, not tests of the package). */
function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' || name === 'node_modules' ? [] : testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Why `file` (a test of the package in `packageDir`) is out of place, or undefined when it mirrors a source. */
function misplacement(packageDir: string, file: string): string | undefined {
  const folder = relative(join(packageDir, 'test'), dirname(file));
  const sourceFolder = join(packageDir, 'src', folder);
  if (!existsSync(sourceFolder)) return `src/${folder}/ does not exist: move the test to the folder of the source it tests`;
  if (folder !== '') return undefined;
  const source = file.slice(dirname(file).length + 1).split('.')[0];
  const named = ['.ts', '.cts'].some((extension) => existsSync(join(sourceFolder, source + extension)));
  return named ? undefined : `src/${source}.ts does not exist: name the test after the source it tests, or list it here with the reason`;
}

/** The out-of-place tests of every package, as `path: reason`. */
function misplacedTests(): string[] {
  return readdirSync(packagesDir).flatMap((name) => {
    const packageDir = join(packagesDir, name);
    if (!existsSync(join(packageDir, 'test'))) return [];
    return testFiles(join(packageDir, 'test')).flatMap((file) => {
      const path = relative(root, file).split('\\').join('/');
      const reason = path in exceptions ? undefined : misplacement(packageDir, file);
      return reason === undefined ? [] : [`${path}: ${reason}`];
    });
  });
}

describe('the tests of each package mirror its src/', () => {
  test('every test sits in the folder of the source it tests', () => {
    expect(misplacedTests()).toEqual([]);
  });

  test('every exception still exists', () => {
    expect(Object.keys(exceptions).filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });
});
