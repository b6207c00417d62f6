// What a production install carries: `npm i --omit=dev` of the packed packages into fresh projects outside the
// repository. The sizes are ceilings (the bytes of every installed file, as the measurement in the issue that set
// them): an install that grows past one fails here. What only some programs use (serving MCP, Redis, HTTP serving)
// is an optional peer of @anytool/mcp, so it is not installed, and the first use of it names the `npm i` to run.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createProject, npm, ok, packed, removeScratch, run, scratch, typeScriptCopies } from './project';

jest.setTimeout(300_000);

const MB = 1_000_000;
/**
 * Measured 30.8 MB (31.4 MB while the packages shipped tsc's per-file ES module output beside the bundle; 34.3 MB
 * while the source maps carried copies of the sources shipped in src/; 45.4 MB, 62 MB on disk, while redis and hono
 * were dependencies).
 */
const STDIO_MCP_APP_CEILING = 32 * MB;
/**
 * Measured 23.8 MB (24.4 MB with tsc's per-file ES module output; 27.3 MB with sources in the maps): the serving app
 * without @modelcontextprotocol/server (7 MB). The official SDK client alone, with its own dependencies (zod 6.1 MB),
 * installs 15.4 MB: the floor of any MCP client app on it.
 */
const MCP_CLIENT_APP_CEILING = 25 * MB;
/** Measured 3.9 MB (4.2 MB with tsc's per-file ES module output; 5.6 MB with sources in the maps). */
const CORE_APP_CEILING = 4.5 * MB;

let base: string | undefined;
let tarballs: Record<string, string> = {};
let mcpApp = '';
let clientApp = '';
let coreApp = '';
const typescriptProjects: Record<string, string> = {};
let strictTypesProject = '';

/** Bytes of every file under a folder (symbolic links not followed). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

async function app(name: string, packages: string[]): Promise<string> {
  const dir = join(base!, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }, null, 2) + '\n');
  ok(await npm(['install', '--omit=dev', ...packages], dir), `${name}: npm install --omit=dev`);
  return dir;
}

beforeAll(async () => {
  base = scratch();
  tarballs = await packed(join(base, 'packs'));
  // As docs/use-in-your-project.md sets a project up: its TypeScript and the build step as dev dependencies.
  const typescriptProject = (version: string): Promise<string> =>
    createProject(base!, {
      name: `typescript-${version}`,
      type: 'module',
      fixtures: [],
      dependencies: [tarballs['@anytool/core']!],
      devDependencies: [tarballs['@anytool/schema']!, `typescript@~${version}.0`],
    });
  [mcpApp, clientApp, coreApp, typescriptProjects['5.9'], typescriptProjects['6.0'], strictTypesProject] = await Promise.all([
    // Serving takes the SDK's server, as docs/mcp-server.md installs it.
    app('stdio-mcp-app', [tarballs['@anytool/core']!, tarballs['@anytool/mcp']!, '@modelcontextprotocol/server@^2.4.0']),
    app('mcp-client-app', [tarballs['@anytool/core']!, tarballs['@anytool/mcp']!]),
    app('core-app', [tarballs['@anytool/core']!]),
    typescriptProject('5.9'),
    typescriptProject('6.0'),
    // A project that type-checks the declarations of its libraries too, with none of the optional peers installed.
    createProject(base!, {
      name: 'strict-types',
      type: 'module',
      fixtures: [],
      dependencies: [tarballs['@anytool/core']!, tarballs['@anytool/mcp']!, tarballs['@anytool/agent']!],
      devDependencies: ['typescript@~5.9.0', '@types/node@^20.19.0'],
      tscInit: { skipLibCheck: false, types: ['node'], noEmit: true },
    }),
  ]);
  for (const dir of [mcpApp, clientApp]) cpSync(join(__dirname, 'fixtures', 'plain', 'src'), join(dir, 'src'), { recursive: true });
}, 600_000);

afterAll(() => removeScratch(base));

const mcpBin = (dir = mcpApp): string => join(dir, 'node_modules', '.bin', process.platform === 'win32' ? 'anytool-mcp.cmd' : 'anytool-mcp');

test(`a stdio-only MCP app installs at most ${STDIO_MCP_APP_CEILING / MB} MB, without Redis, an HTTP framework or the OpenTelemetry API`, () => {
  const bytes = bytesUnder(join(mcpApp, 'node_modules'));
  expect(bytes).toBeLessThanOrEqual(STDIO_MCP_APP_CEILING);
  for (const absent of ['redis', '@redis/client', 'hono', '@hono/node-server', '@modelcontextprotocol/node', 'typescript', '@opentelemetry/api'])
    expect([absent, existsSync(join(mcpApp, 'node_modules', absent))]).toEqual([absent, false]);
});

test(`an MCP client app installs at most ${MCP_CLIENT_APP_CEILING / MB} MB, without the SDK's server, Redis or an HTTP framework`, () => {
  expect(bytesUnder(join(clientApp, 'node_modules'))).toBeLessThanOrEqual(MCP_CLIENT_APP_CEILING);
  for (const absent of ['@modelcontextprotocol/server', 'redis', 'hono', '@modelcontextprotocol/node', 'typescript'])
    expect([absent, existsSync(join(clientApp, 'node_modules', absent))]).toEqual([absent, false]);
});

test("the client app calls the serving app's tools over stdio; serving, Redis and BullMQ there name their npm i in one line", async () => {
  writeFileSync(
    join(clientApp, 'client.js'),
    `import { BullmqTaskQueue, McpConnection, RedisStore, createMcpServer } from '@anytool/mcp';
import { Toolset } from '@anytool/core';
const connection = await McpConnection.open('tools', { command: process.execPath, args: process.argv.slice(2) });
const names = connection.tools.map((t) => t.name).sort();
await connection.close();
let refused;
try {
  createMcpServer(new Toolset());
} catch (error) {
  refused = { code: error.code, message: error.message };
}
const peers = [];
for (const make of [() => new RedisStore({ url: 'redis://127.0.0.1:1' }), () => new BullmqTaskQueue({ url: 'redis://127.0.0.1:1' })]) {
  await make().connect().catch((error) => peers.push({ code: error.code, message: error.message }));
}
console.log(JSON.stringify({ names, refused, peers }));
`,
  );
  const called = await run(process.execPath, ['client.js', mcpBin(), 'serve', join(mcpApp, 'src', 'tools.js')], clientApp);
  expect([called.code, called.stderr]).toEqual([0, '']);
  const npmI = 'install it next to @anytool/mcp to serve MCP: npm i @modelcontextprotocol/server';
  expect(JSON.parse(called.stdout.trim().split('\n').at(-1)!)).toEqual({
    names: ['forecast', 'mul'],
    refused: { code: 'MISSING_DEPENDENCY', message: `createMcpServer() needs the @modelcontextprotocol/server package, which is not installed; ${npmI}` },
    // Redis and BullMQ, optional peers too, are loaded when a store or queue connects, and name their npm i.
    peers: [
      { code: 'MISSING_DEPENDENCY', message: 'RedisStore needs the redis package, which is not installed; install it next to @anytool/mcp: npm i redis' },
      {
        code: 'MISSING_DEPENDENCY',
        message: 'BullmqTaskQueue needs the bullmq package, which is not installed; install it next to @anytool/mcp: npm i bullmq',
      },
    ],
  });

  const serve = await run(process.execPath, [mcpBin(clientApp), 'serve', 'src/tools.js'], clientApp);
  expect(serve.code).toBe(2);
  // Said before the module runs: the fixture's 'tools module loaded' (what it writes at import) never comes.
  expect(serve.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(new RegExp(`needs the @modelcontextprotocol/server package, which is not installed; ${npmI}$`)),
  ]);
});

test(`a core-only app installs at most ${CORE_APP_CEILING / MB} MB`, () => {
  expect(bytesUnder(join(coreApp, 'node_modules'))).toBeLessThanOrEqual(CORE_APP_CEILING);
});

test.each(['5.9', '6.0'])("a project on TypeScript %s has one TypeScript in its tree: the build step's range takes the project's own", (version) => {
  expect(typeScriptCopies(typescriptProjects[version]!)).toEqual(['node_modules/typescript']);
});

test("a project checking its libraries' declarations (skipLibCheck: false) compiles without the optional peers installed", async () => {
  for (const peer of ['@opentelemetry/api', '@modelcontextprotocol/server', 'openai', '@anthropic-ai/sdk', '@google/genai', 'bullmq', 'redis']) {
    expect({ peer, installed: existsSync(join(strictTypesProject, 'node_modules', ...peer.split('/'))) }).toEqual({ peer, installed: false });
  }
  writeFileSync(
    join(strictTypesProject, 'main.ts'),
    [
      "import { Toolset, tool, type ExecutionContext } from '@anytool/core';",
      "import { McpToolset } from '@anytool/mcp';",
      "import { Agent } from '@anytool/agent';",
      'const add = tool(({ a, b }: { a: number; b: number }, context: ExecutionContext) => (context.signal?.aborted ? 0 : a + b), {',
      "  name: 'add', description: 'Adds.', context: true,",
      "  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },",
      '});',
      'console.log(new Toolset([add]).size, typeof McpToolset, typeof Agent);',
      '',
    ].join('\n'),
  );
  const checked = await run('npx', ['tsc', '-p', '.'], strictTypesProject);
  expect({ code: checked.code, output: checked.stdout + checked.stderr }).toEqual({ code: 0, output: '' });
});

test('the stdio-only app serves its tools over stdio', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [mcpBin(), 'serve', 'src/tools.js'], cwd: mcpApp, stderr: 'pipe' });
  const client = new Client({ name: 'consumer-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['forecast', 'mul']);
  } finally {
    await client.close();
  }
});

test('serving over HTTP without @modelcontextprotocol/node is one line naming the npm i; with it installed, it serves', async () => {
  const refused = await run(process.execPath, [mcpBin(), 'serve', 'src/tools.js', '--http', '--port', '0'], mcpApp);
  expect(refused.code).toBe(2);
  const lines = refused.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /needs the @modelcontextprotocol\/node package, which is not installed; install it next to @anytool\/mcp: npm i @modelcontextprotocol\/node$/,
  );

  ok(await npm(['install', '--omit=dev', '@modelcontextprotocol/node@^2.1.2'], mcpApp), 'npm install @modelcontextprotocol/node');
  const child = spawn(process.execPath, [mcpBin(), 'serve', 'src/tools.js', '--http', '--port', '0'], { cwd: mcpApp, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const read = (chunk: Buffer): void => {
        output += String(chunk);
        const match = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
        if (match !== null) resolve(match[1]!);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => reject(new Error(`anytool-mcp serve --http exited ${code}:\n${output}`)));
    });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'consumer-test', version: '1.0.0' } },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"protocolVersion":"2025-06-18"');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});
