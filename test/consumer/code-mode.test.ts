// Code mode as a user installs it: the packed packages, and the sandbox's libraries from npm (optional peers of
// @anytool/core), in a fresh project built with `npx anytool build`; its ES module and CommonJS entries. And a
// project without those libraries: the entry loads, and a program says what to install.
import { join } from 'node:path';
import { anytool, createProject, lastJson, ok, packed, removeScratch, run, scratch } from './project';

jest.setTimeout(300_000);

const SANDBOX = ['quickjs-emscripten-core@^0.32.0', '@jitl/quickjs-wasmfile-release-sync@^0.32.0', 'amaro@^1.2.1'];

let base: string | undefined;
let withSandbox = '';
let without = '';

beforeAll(async () => {
  base = scratch();
  const tarballs = await packed(join(base, 'packs'));
  withSandbox = await createProject(base, {
    name: 'code-mode-app',
    type: 'module',
    fixtures: ['code-mode'],
    dependencies: [tarballs['@anytool/core']!, tarballs['@anytool/agent']!, ...SANDBOX],
    devDependencies: [tarballs['@anytool/schema']!, 'typescript@~5.9.3'],
    tscInit: {},
  });
  without = await createProject(base, {
    name: 'no-sandbox-app',
    type: 'module',
    fixtures: ['code-mode-absent'],
    dependencies: [tarballs['@anytool/core']!],
    devDependencies: [tarballs['@anytool/schema']!, 'typescript@~5.9.3'],
    tscInit: {},
  });
  for (const project of [withSandbox, without]) {
    const built = await anytool(project, ['build']);
    expect({ code: built.code, stderr: built.stderr }).toEqual({ code: 0, stderr: '' });
  }
}, 600_000);

afterAll(() => removeScratch(base));

test('an agent in code mode runs its program in the sandbox, with the types the build step gave the tools', async () => {
  const ran = ok(await run(process.execPath, ['src/main.js'], withSandbox), 'node src/main.js');
  const out = lastJson(ran.stdout);
  expect(out).toEqual({
    declarations: expect.stringContaining("function stock(args: {\n sku: string // The product's code.\n}): Promise<{ sku: string; units: number }>;"),
    offered: ['run_code'],
    text: 'checked 2\n50',
    loop: 'CODE_TIME_LIMIT',
  });
});

test('the CommonJS entry of code mode loads with require() and runs a TypeScript program', async () => {
  const ran = ok(await run(process.execPath, ['src/require.cjs'], withSandbox), 'node src/require.cjs');
  expect(JSON.parse(ran.stdout.trim())).toEqual({ text: '9', isError: false });
});

test('without the sandbox libraries, the entry loads and a program answers MISSING_DEPENDENCY with the install command', async () => {
  const ran = ok(await run(process.execPath, ['src/main.js'], without), 'node src/main.js');
  expect(lastJson(ran.stdout)).toEqual({
    code: 'MISSING_DEPENDENCY',
    message: expect.stringContaining('npm i quickjs-emscripten-core @jitl/quickjs-wasmfile-release-sync amaro'),
    ready: 'MISSING_DEPENDENCY',
  });
});
