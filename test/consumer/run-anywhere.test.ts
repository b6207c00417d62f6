// examples/run-anywhere as a user runs it: the packed packages installed into a fresh
// project, the example's files copied in, and each way in run with the documented
// command. Every way prints the same definitions for every provider format (the zod
// tools: the same after key order and the `$schema` marker). Runs on each Node CI runs.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anytool, createProject, ok, packed, removeScratch, root, run, scratch } from './project';

jest.setTimeout(300_000);

let base: string | undefined;
let esm = '';
let cjs = '';

beforeAll(async () => {
  base = scratch();
  const tarballs = await packed(join(base, 'packs'));
  const dev = [tarballs['@anytool/schema']!, 'typescript@~5.9.3', '@types/node@^20', 'tsx@^4.20.0'];
  // The bundler plugins' optional peer: a project that bundles installs it (docs/build-setup.md, Bundlers).
  const bundler = ['esbuild@^0.28.0', 'unplugin@^2.3.11'];
  [esm, cjs] = await Promise.all([
    createProject(base, {
      name: 'run-anywhere',
      type: 'module',
      fixtures: [],
      // @anytool/mcp and the SDK's server too: an app that serves MCP, bundled whole (below).
      dependencies: [tarballs['@anytool/core']!, tarballs['@anytool/mcp']!, '@modelcontextprotocol/server@^2.4.0', 'zod@^4'],
      devDependencies: [...dev, ...bundler],
      tscInit: { types: ['node'] },
    }),
    createProject(base, {
      name: 'loader-cjs',
      fixtures: ['tc39'],
      dependencies: [tarballs['@anytool/core']!],
      devDependencies: dev,
      tscInit: { verbatimModuleSyntax: false },
    }),
  ]);
  mkdirSync(join(esm, 'src'), { recursive: true });
  for (const file of readdirSync(join(root, 'examples', 'run-anywhere'))) {
    if (file.endsWith('.ts')) copyFileSync(join(root, 'examples', 'run-anywhere', file), join(esm, 'src', file));
  }
}, 600_000);

afterAll(() => removeScratch(base));

// The optional peers, not installed here, stay imports: a bundler cannot resolve them, and they load only when used.
const PEERS = [
  '@opentelemetry/api',
  '@modelcontextprotocol/node',
  'redis',
  'bullmq',
  'class-validator',
  'quickjs-emscripten-core',
  '@jitl/quickjs-wasmfile-release-sync',
  'amaro',
];

/** The script that bundles `entry` with its dependencies into one ES module file, as an app deployed whole is. */
function bundleWhole(entry: string, outfile: string): string {
  return [
    "import { build } from 'esbuild';",
    `await build({ entryPoints: [${JSON.stringify(entry)}], bundle: true, platform: 'node', format: 'esm', outfile: ${JSON.stringify(outfile)}, external: ${JSON.stringify(PEERS)}, banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" }, logLevel: 'error' });`,
  ].join('\n');
}

/** The definition lines a run printed, by format. */
function definitions(stdout: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const line of stdout.split('\n')) {
    const match = /^(openai|anthropic|gemini|mcp): (.*)$/.exec(line);
    if (match !== null) found[match[1]!] = JSON.parse(match[2]!);
  }
  expect(Object.keys(found)).toEqual(['openai', 'anthropic', 'gemini', 'mcp']);
  return found;
}

/** Key order and the JSON Schema dialect marker left out: what the schema says. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.keys(value)
    .filter((k) => k !== '$schema')
    .sort();
  return Object.fromEntries(entries.map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
}

const node = (args: string[], cwd: string) => run(process.execPath, args, cwd);
const LOADER = '@anytool/schema/register';

describe('run-anywhere (ES modules)', () => {
  let loaderCold = '';

  test('the loader runs src/main.ts with no build step, and a second start reads its disk cache', async () => {
    const cold = ok(await node(['--import', LOADER, 'src/main.ts'], esm), 'loader, cold');
    expect(cold.stderr).toBe('');
    expect(readdirSync(join(esm, 'node_modules', '.cache', 'anytool')).filter((f) => f.endsWith('.json')).length).toBeGreaterThanOrEqual(2);
    const warm = ok(await node(['--import', LOADER, 'src/main.ts'], esm), 'loader, warm');
    expect(warm.stdout).toBe(cold.stdout);
    loaderCold = cold.stdout;
    expect(definitions(cold.stdout)['openai']).toContainEqual(
      expect.objectContaining({ function: expect.objectContaining({ name: 'convert', description: 'Convert an amount between two currencies.' }) }),
    );
    expect(cold.stdout).toContain('convert({"amount":10,"from":"EUR","to":"USD"}) -> 10 EUR = 11.00 USD');
    expect(cold.stdout).toContain('- /unit: must be one of ["celsius","fahrenheit"]');
  });

  test('anytool build prints the same definitions and results', async () => {
    const built = await anytool(esm, ['build']);
    expect(built.stderr).toBe('');
    expect(built.code).toBe(0);
    const ran = ok(await node(['src/main.js'], esm), 'built');
    expect(ran.stdout).toBe(loaderCold);
    // Built output beside the sources: the loader still runs the TypeScript (tools.ts wins over tools.js).
    rmSync(join(esm, 'src', 'main.js'));
  });

  test('tsx with the loader after it prints the same; tsx alone has no schemas, and says so', async () => {
    const both = ok(await node(['--import', 'tsx', '--import', LOADER, 'src/main.ts'], esm), 'tsx + loader');
    expect(both.stdout).toBe(loaderCold);
    for (const file of ['tools.js', 'zod-tools.js']) rmSync(join(esm, 'src', file), { force: true });
    const alone = await node(['--import', 'tsx', 'src/main.ts'], esm);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toContain('MISSING_SCHEMA');
  });

  test('esbuild with the anytool plugin bundles it, and the bundle prints the same', async () => {
    const script = [
      "import { build } from 'esbuild';",
      "import { anytool } from '@anytool/schema/esbuild';",
      "await build({ entryPoints: ['src/main.ts'], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: 'out/main.mjs', plugins: [anytool()], logLevel: 'error' });",
    ].join('\n');
    ok(await node(['--input-type=module', '-e', script], esm), 'esbuild');
    const ran = ok(await node(['out/main.mjs'], esm), 'bundle');
    expect(ran.stdout).toBe(loaderCold);
  });

  test('an app that serves MCP, bundled whole by esbuild (dependencies in), creates its server and calls its tool', async () => {
    writeFileSync(
      join(esm, 'src', 'serve.mjs'),
      [
        "import { Toolset, tool } from '@anytool/core';",
        "import { createMcpServer } from '@anytool/mcp';",
        "const add = tool(({ a, b }) => a + b, { name: 'add', description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });",
        'const toolset = new Toolset(add);',
        'const server = createMcpServer(toolset);',
        'const result = await toolset.invoke(\'add\', \'{"a":40,"b":2}\');',
        'console.log(typeof server.connect, result.content[0].text);',
      ].join('\n'),
    );
    ok(await node(['--input-type=module', '-e', bundleWhole('src/serve.mjs', 'out/serve.mjs')], esm), 'esbuild, bundled whole');
    const ran = ok(await node(['out/serve.mjs'], esm), 'the bundled server app');
    expect(ran.stdout.trim()).toBe('function 42');
  });

  test("an app that connects to an MCP server, bundled whole by esbuild, follows the client's dynamic import and calls a tool", async () => {
    writeFileSync(
      join(esm, 'src', 'stdio-server.mjs'),
      [
        "import { Toolset, tool } from '@anytool/core';",
        "import { serveMcp } from '@anytool/mcp';",
        "const add = tool(({ a, b }) => a + b, { name: 'add', description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });",
        "await serveMcp(new Toolset(add), { transport: 'stdio' });",
      ].join('\n'),
    );
    writeFileSync(
      join(esm, 'src', 'connect.mjs'),
      [
        "import { McpConnection } from '@anytool/mcp';",
        "const connection = await McpConnection.open('adder', { command: process.execPath, args: ['src/stdio-server.mjs'] });",
        "const result = await connection.callTool('add', { a: 40, b: 2 });",
        'console.log(connection.tools.map((t) => t.name).join(), result.content[0].text);',
        'await connection.close();',
      ].join('\n'),
    );
    ok(await node(['--input-type=module', '-e', bundleWhole('src/connect.mjs', 'out/connect.mjs')], esm), 'esbuild, bundled whole');
    const ran = ok(await node(['out/connect.mjs'], esm), 'the bundled client app');
    expect(ran.stdout.trim()).toBe('add 42');
  });

  test('the zod tools, under tsx alone, print the same schemas', async () => {
    const zod = ok(await node(['--import', 'tsx', 'src/main.ts', 'zod'], esm), 'zod under tsx');
    expect(canonical(definitions(zod.stdout))).toEqual(canonical(definitions(loaderCold)));
    // Its own words for a bad enum value, the same call failing the same way.
    expect(zod.stdout).toContain('forecast({"city":"Oslo","unit":"kelvin"}) -> Invalid arguments');
  });
});

describe('the loader in a CommonJS project', () => {
  test('--require runs src/main.ts like the build does', async () => {
    const loaded = ok(await node(['--require', LOADER, 'src/main.ts'], cjs), 'loader, CommonJS');
    expect(loaded.stderr).toBe('');
    const built = await anytool(cjs, ['build']);
    expect(built.code).toBe(0);
    const ran = ok(await node(['src/main.js'], cjs), 'built');
    expect(loaded.stdout).toBe(ran.stdout);
  });

  test('without unplugin, importing a bundler plugin works and making one says the npm i to run', async () => {
    const script = "const { anytool } = require('@anytool/schema/esbuild'); console.log(typeof anytool); anytool();";
    const made = await node(['-e', script], cjs);
    expect(made.stdout).toBe('function\n');
    expect(made.code).not.toBe(0);
    expect(made.stderr).toContain(
      'Error: The anytool esbuild plugin (@anytool/schema/esbuild) needs the unplugin package, which is not installed; install it next to @anytool/schema: npm i -D unplugin\n',
    );
  });
});
