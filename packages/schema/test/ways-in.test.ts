import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anytoolBin, fixtures, repoRoot, removeScratchDirs, scratchDir } from './helpers';
import { report } from './fixtures/same-tool/weather-tools';

afterAll(removeScratchDirs);

// Acceptance: the same tool class compiled through the build command, ts-jest (this file), ts-node
// and tspc (the ts-patch plugin shape) yields identical definitions, and its Date argument is revived.

const compilerOptions = {
  target: 'ES2022',
  module: 'CommonJS',
  moduleResolution: 'Node10',
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  esModuleInterop: true,
  types: ['node'],
};

function runCompiled(file: string): unknown {
  const script = `require(${JSON.stringify(file)}).report().then((r) => process.stdout.write(JSON.stringify(r)))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' }));
}

/** A scratch project (CommonJS: the package itself is ESM) compiling `sources` into dir/out. */
function tsconfigIn(dir: string, extra: Record<string, unknown> = {}, sources = join(fixtures, 'same-tool')): string {
  writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
  const file = join(dir, 'tsconfig.json');
  writeFileSync(
    file,
    JSON.stringify({
      compilerOptions: { ...compilerOptions, rootDir: sources, outDir: join(dir, 'out'), ...extra },
      files: [join(sources, 'weather-tools.ts')],
    }),
  );
  return file;
}

describe('one tool class, every way in', () => {
  let viaJest: { definitions: unknown[]; call: unknown };

  beforeAll(async () => {
    viaJest = await report();
  });

  it('ts-jest astTransformers: the definitions come from the types, and the Date argument arrives as a Date', () => {
    expect(viaJest.definitions).toHaveLength(4);
    expect(viaJest.definitions[0]).toMatchObject({ name: 'current', description: 'Current weather for a city.', parameters: { required: ['city'] } });
    expect(viaJest.call).toEqual({ city: 'Oslo', days: 3, startsOn: 'true 2026-01-02T00:00:00.000Z true' });
  });

  it('the build command (anytool build -p) gives identical definitions', () => {
    const dir = scratchDir('build');
    execFileSync(process.execPath, [anytoolBin, 'build', '-p', tsconfigIn(dir)], { cwd: repoRoot, encoding: 'utf8' });
    expect(runCompiled(join(dir, 'out', 'weather-tools.js'))).toEqual(viaJest);
  });

  it('ts-node register({ transformers }) gives identical definitions', () => {
    const dir = scratchDir('ts-node');
    for (const name of ['weather-tools.ts', 'forecast-types.ts']) copyFileSync(join(fixtures, 'same-tool', name), join(dir, name));
    const script = `
      const { anytoolTransformer } = require('@anytool/schema');
      require('ts-node').register({ project: ${JSON.stringify(tsconfigIn(dir, {}, dir))}, transformers: (program) => ({ before: [anytoolTransformer(program)] }) });
      require(${JSON.stringify(join(dir, 'weather-tools.ts'))}).report().then((r) => process.stdout.write(JSON.stringify(r)));`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(viaJest);
  });

  it('tspc with the ts-patch plugin gives identical definitions', () => {
    const dir = scratchDir('tspc');
    const tsconfig = tsconfigIn(dir, { plugins: [{ transform: '@anytool/schema/ts-patch', import: 'tspcTransformer' }] });
    execFileSync(process.execPath, [require.resolve('ts-patch/bin/tspc'), '-p', tsconfig], { cwd: repoRoot, encoding: 'utf8' });
    expect(runCompiled(join(dir, 'out', 'weather-tools.js'))).toEqual(viaJest);
  });
});
