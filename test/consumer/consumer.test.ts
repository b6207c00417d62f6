// anytool as a user has it: every package packed, installed from its tarball into
// fresh projects outside the repository, and driven only with documented commands.
// ESM and CommonJS projects with TC39 decorators on the tsconfig `npx tsc --init`
// writes, a legacy-decorators project, a plain JavaScript project; typescript 5.9 and
// 6.0. Each builds, runs, lists its tools, calls them, serves them over MCP, and runs
// again after a production install.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  anytool,
  anytoolBin,
  createProject,
  lastJson,
  npm,
  ok,
  packed,
  productionInstall,
  removeScratch,
  run,
  scratch,
  type ProjectSpec,
  type Ran,
} from './project';
import { early, limiter } from '../../packages/core/test/helpers/concurrency';

jest.setTimeout(300_000);

interface Case extends ProjectSpec {
  /** The compiled module that exports the tools, and the app's entry point. */
  tools: string;
  main: string;
  /** Files the production install copies. */
  output: string[];
  /** Whether the project has a build step (plain JavaScript has none). */
  build: boolean;
}

let base: string | undefined;
let tarballs: Record<string, string> = {};
const dirs = new Map<string, string>();

/**
 * The commands of a project's tests, started once it is installed and built, side by side with the other projects'
 * (a few processes at a time): each test awaits its own and checks them as it would have run them.
 */
interface Steps {
  build?: Promise<Ran>;
  plainTsc?: Promise<{ compiled: Ran; ran: Ran }>;
  verbatim?: Promise<Ran>;
  main: Promise<Ran>;
  list: Promise<{ table: Ran; formatted: Ran }>;
  call: Promise<{ good: Ran; bad: Ran; broken: Ran }>;
  production: Promise<{ prod: string; ran: Ran; again: Ran }>;
}
const steps = new Map<string, Steps>();
const queue = limiter();
const queued =
  <A extends unknown[], T>(fn: (...args: A) => Promise<T>) =>
  (...args: A): Promise<T> =>
    queue(() => fn(...args));
const runQueued = queued(run);
const anytoolQueued = queued(anytool);

function start(c: Case, dir: string): Steps {
  const build = c.build ? early(anytoolQueued(dir, ['build'])) : undefined;
  // Everything else reads the build's output (or, for the checks with tsc, must not race its writes).
  const after = <T>(fn: () => Promise<T>): Promise<T> => early((build ?? Promise.resolve()).then(fn, fn));
  const node = (args: string[], cwd = dir): Promise<Ran> => runQueued(process.execPath, args, cwd);
  return {
    ...(build === undefined ? {} : { build }),
    ...(c.name === 'esm-ts5.9'
      ? {
          plainTsc: after(async () => ({
            compiled: await node([join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '--outDir', 'plain-tsc']),
            ran: await node(['plain-tsc/main.js']),
          })),
        }
      : {}),
    ...(c.tscInit !== undefined && c.type === undefined ? { verbatim: after(() => anytoolQueued(dir, ['build', '--noEmit', '--verbatimModuleSyntax'])) } : {}),
    main: after(() => node([c.main])),
    list: after(async () => {
      const [table, formatted] = await Promise.all([anytoolQueued(dir, ['list', c.tools]), anytoolQueued(dir, ['list', c.tools, '--format', 'anthropic'])]);
      return { table, formatted };
    }),
    call: after(async () => {
      const [good, bad, broken] = await Promise.all([
        anytoolQueued(dir, ['call', c.tools, 'mul', '{"a":6,"b":7}']),
        anytoolQueued(dir, ['call', c.tools, 'mul', '{"a":"six","b":7}']),
        anytoolQueued(dir, ['call', c.tools, 'mul', '{"a":']),
      ]);
      return { good, bad, broken };
    }),
    production: after(async () => {
      const prod = await queue(() => productionInstall(dir, join(base!, `${c.name}-production`), c.output));
      const [ran, again] = await Promise.all([node([c.main], prod), node([c.main])]);
      return { prod, ran, again };
    }),
  };
}

const tc39 = (name: string, type: 'module' | undefined, typescript: string, tscInit: Record<string, unknown>): Case => ({
  name,
  ...(type === undefined ? {} : { type }),
  fixtures: ['tc39'],
  dependencies: [],
  devDependencies: [`typescript@${typescript}`],
  tscInit,
  tools: 'src/tools.js',
  main: 'src/main.js',
  output: ['src/tools.js', 'src/calls.js', 'src/main.js'],
  build: true,
});

const cases: Case[] = [
  // The tsconfig `npx tsc --init` writes, unchanged (target esnext, module nodenext, verbatimModuleSyntax).
  tc39('esm-ts5.9', 'module', '~5.9.3', {}),
  tc39('esm-ts6.0', 'module', '~6.0.3', {}),
  // A CommonJS package: TypeScript's verbatimModuleSyntax forbids import statements in CommonJS files, the one edit.
  tc39('cjs-ts5.9', undefined, '~5.9.3', { verbatimModuleSyntax: false }),
  {
    name: 'legacy-cjs',
    // The same sources, compiled with experimentalDecorators (the fixture adds only its tsconfig).
    fixtures: ['tc39', 'legacy'],
    dependencies: [],
    devDependencies: ['typescript@~5.9.3'],
    tools: 'dist/tools.js',
    main: 'dist/main.js',
    output: ['dist'],
    build: true,
  },
  {
    name: 'plain-js',
    type: 'module',
    fixtures: ['plain'],
    dependencies: [],
    devDependencies: [],
    tools: 'src/tools.js',
    main: 'src/main.js',
    output: ['src'],
    build: false,
  },
];

beforeAll(async () => {
  base = scratch();
  tarballs = await packed(join(base, 'packs'));
  // What the docs tell a user to install: core at run time; the build step and the MCP server (with the SDK's server,
  // an optional peer of @anytool/mcp) as dev dependencies.
  await Promise.all(
    cases.map(async (c) => {
      const spec = {
        ...c,
        dependencies: [tarballs['@anytool/core']!, ...c.dependencies],
        devDependencies: [tarballs['@anytool/schema']!, tarballs['@anytool/mcp']!, '@modelcontextprotocol/server@^2.4.0', ...c.devDependencies],
      };
      const dir = await createProject(base!, spec);
      dirs.set(c.name, dir);
      steps.set(c.name, start(c, dir));
    }),
  );
}, 600_000);

afterAll(() => removeScratch(base));

const dir = (c: Case): string => dirs.get(c.name)!;
const stepsOf = (c: Case): Steps => steps.get(c.name)!;

/** Every installed copy of a package under a node_modules folder, nested ones too. */
function copiesOf(name: string, modules: string): string[] {
  const found: string[] = [];
  const visit = (folder: string): void => {
    if (!existsSync(folder)) return;
    if (existsSync(join(folder, name, 'package.json'))) found.push(join(folder, name));
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith('.')) continue;
      const packages = entry.startsWith('@') ? readdirSync(join(folder, entry)).map((p) => join(folder, entry, p)) : [join(folder, entry)];
      for (const pkg of packages) visit(join(pkg, 'node_modules'));
    }
  };
  visit(modules);
  return found;
}

const FORECAST = 'Oslo: 21 degrees celsius';

describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  test('installs one copy of @anytool/core', () => {
    expect(copiesOf('@anytool/core', join(dir(c), 'node_modules'))).toEqual([join(dir(c), 'node_modules', '@anytool', 'core')]);
  });

  if (c.build) {
    test('builds with `npx anytool build`', async () => {
      const built = await stepsOf(c).build!;
      expect(built.stderr).toBe('');
      expect(built.code).toBe(0);
      expect(existsSync(join(dir(c), c.main))).toBe(true);
    });
  }

  if (c.name === 'esm-ts5.9') {
    test('compiled by plain tsc instead, the decorators stay in the output and Node refuses them', async () => {
      const { compiled, ran } = await stepsOf(c).plainTsc!;
      expect(compiled.code).toBe(0);
      expect(ran.code).not.toBe(0);
      expect(ran.stderr).toContain('SyntaxError: Invalid or unexpected token');
    });
  }

  if (c.tscInit !== undefined && c.type === undefined) {
    test("with tsc --init's verbatimModuleSyntax, TypeScript refuses import statements in a CommonJS package", async () => {
      const built = await stepsOf(c).verbatim!;
      expect(built.code).toBe(1);
      expect(built.stderr).toContain("ECMAScript imports and exports cannot be written in a CommonJS file under 'verbatimModuleSyntax'");
    });
  }

  test('runs, with schemas from the types and calls that validate', async () => {
    const ran = ok(await stepsOf(c).main, `node ${c.main}`);
    const out = lastJson(ran.stdout) as {
      definitions: Array<{ function: { name: string; description?: string; parameters: Record<string, unknown> } }>;
      results: Array<{ name: string; isError: boolean; text: string }>;
    };
    const byName = new Map(out.definitions.map((d) => [d.function.name, d.function]));
    expect(byName.get('forecast')?.description).toBe('Get the weather forecast for a city.');
    expect(byName.get('mul')?.description).toBe('Multiply two numbers.');
    const forecastProps = byName.get('forecast')!.parameters['properties'] as Record<string, Record<string, unknown>>;
    expect(Object.keys(forecastProps).sort()).toEqual(c.build ? ['city', 'days', 'unit'] : ['city', 'unit']);
    const results = out.results;
    const first = (name: string, isError: boolean) => results.find((r) => r.name === name && r.isError === isError);
    expect(first('forecast', false)?.text).toContain(FORECAST);
    expect(first('forecast', true)?.text).toMatch(/unit/);
    expect(first('mul', false)?.text).toBe('42');
    expect(first('mul', true)?.text).toMatch(/\ba\b/);
    if (c.build) {
      expect(byName.get('ReadTickets')?.description).toBe('Read the support tickets of a quarter.');
      expect(first('daysLeft', false)?.text).toBe('1');
      expect(first('ReadTickets', false)?.text).toContain('Q3-1');
      expect(first('nope', true)?.text).toContain('forecast');
    }
  });

  test('`npx anytool list` prints the tools, and their definitions with --format', async () => {
    const { table, formatted } = await stepsOf(c).list;
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/forecast\s+Get the weather forecast for a city\./);
    expect(table.stdout).toMatch(/mul\s+Multiply two numbers\./);
    expect(formatted.code).toBe(0);
    const definitions = JSON.parse(formatted.stdout) as Array<{ name: string; input_schema: Record<string, unknown> }>;
    expect(definitions.map((d) => d.name).sort()).toEqual(c.build ? ['ReadTickets', 'daysLeft', 'forecast', 'mul'] : ['forecast', 'mul']);
  });

  test('`npx anytool call` invokes a tool and prints its result; an error result exits 1', async () => {
    const { good, bad, broken } = await stepsOf(c).call;
    expect(good.code).toBe(0);
    expect(good.stdout.trim().split('\n').pop()).toBe('42');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/\ba\b/);
    expect(broken.code).toBe(2);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
  });

  test('`npx anytool serve` serves the tools over stdio to the official MCP client', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [anytoolBin(dir(c)), 'serve', c.tools], cwd: dir(c), stderr: 'pipe' });
    const client = new Client({ name: 'consumer-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(c.build ? ['ReadTickets', 'daysLeft', 'forecast', 'mul'] : ['forecast', 'mul']);
      const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
      expect(result.isError ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain(FORECAST);
      const refused = await client.callTool({ name: 'mul', arguments: { a: 'six', b: 7 } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  test('runs after a production install (dev dependencies omitted), without TypeScript', async () => {
    const { prod, ran: prodRan, again: againRan } = await stepsOf(c).production;
    expect(existsSync(join(prod, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(prod, 'node_modules', '@anytool', 'schema'))).toBe(false);
    const ran = ok(prodRan, `node ${c.main} (production)`);
    const again = ok(againRan, `node ${c.main}`);
    expect(lastJson(ran.stdout)).toEqual(lastJson(again.stdout));
  });
});

/** Lists the tools of an MCP server started over stdio and calls `forecast`: what an MCP host does. */
async function serveAndCall(command: string, args: string[], cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'pipe' });
  const client = new Client({ name: 'consumer-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    expect(result.isError ?? false).toBe(false);
    expect(JSON.stringify(result.content)).toContain(FORECAST);
    return tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

test('`anytool-mcp serve` serves built tools with only @anytool/core, @anytool/mcp and the SDK server installed', async () => {
  const c = cases.find((k) => k.name === 'esm-ts5.9')!;
  const into = join(base!, 'serve-with-mcp-only');
  mkdirSync(into, { recursive: true });
  writeFileSync(join(into, 'package.json'), JSON.stringify({ name: 'serve-with-mcp-only', version: '1.0.0', private: true, type: 'module' }, null, 2) + '\n');
  for (const file of c.output) cpSync(join(dir(c), file), join(into, file), { recursive: true });
  ok(
    await npm(['install', tarballs['@anytool/core']!, tarballs['@anytool/mcp']!, '@modelcontextprotocol/server@^2.4.0'], into),
    'npm install @anytool/core @anytool/mcp @modelcontextprotocol/server',
  );
  expect(existsSync(join(into, 'node_modules', '@anytool', 'schema'))).toBe(false);
  expect(existsSync(join(into, 'node_modules', 'typescript'))).toBe(false);
  expect(existsSync(join(into, 'node_modules', '.bin', 'anytool'))).toBe(false);
  const bin = join(into, 'node_modules', '.bin', process.platform === 'win32' ? 'anytool-mcp.cmd' : 'anytool-mcp');
  expect(await serveAndCall(process.execPath, [bin, 'serve', c.tools], into)).toEqual(['ReadTickets', 'daysLeft', 'forecast', 'mul']);
  const help = ok(await run(process.execPath, [bin, 'serve', '--help'], into), 'anytool-mcp serve --help');
  expect(help.stdout).toMatch(/^Usage: anytool-mcp serve <module\.js>/);
  const bad = await run(process.execPath, [bin, 'serve'], into);
  expect([bad.code, bad.stderr.trim()]).toEqual([2, 'anytool-mcp serve: name the module to serve; run anytool-mcp serve --help for the usage']);
});

test('with @anytool/schema and @anytool/mcp both installed, `anytool serve` and `anytool-mcp serve` are both there and agree', async () => {
  const c = cases.find((k) => k.name === 'cjs-ts5.9')!;
  const mcpBin = join(dir(c), 'node_modules', '.bin', process.platform === 'win32' ? 'anytool-mcp.cmd' : 'anytool-mcp');
  expect(existsSync(anytoolBin(dir(c)))).toBe(true);
  expect(await serveAndCall(process.execPath, [mcpBin, 'serve', c.tools], dir(c))).toEqual(
    await serveAndCall(process.execPath, [anytoolBin(dir(c)), 'serve', c.tools], dir(c)),
  );
});

test('every TypeScript project gives the model the same definitions', async () => {
  const outputs = await Promise.all(
    cases.filter((c) => c.build).map(async (c) => [c.name, lastJson(ok(await run(process.execPath, [c.main], dir(c)), c.name).stdout)['definitions']] as const),
  );
  for (const [, definitions] of outputs.slice(1)) expect(definitions).toEqual(outputs[0]![1]);
});

test('plain JavaScript: a tool that needs the build step fails with one clear error', async () => {
  const c = cases.find((k) => k.name === 'plain-js')!;
  const out = lastJson(ok(await run(process.execPath, ['src/no-build.js'], dir(c)), 'node src/no-build.js').stdout) as { code?: string; message?: string };
  expect(out.code).toMatch(/^MISSING_/);
  expect(out.message).toContain('add');
  expect(out.message).toMatch(/anytool build/);
  expect(out.message).not.toMatch(/declares \d+ parameters/);
});
