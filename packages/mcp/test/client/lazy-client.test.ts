// The client's implementation and the SDK's client load on the first McpConnection.open(), not when @anytool/mcp is
// imported: a program that serves, or connects later, does not compile them at its start. Run on the built package in
// child processes, ES module (the bundle a user's import gets) and CommonJS, since what a process loads is the point.
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECORD_RESOLVED, lastJson, runModule } from '../helpers/child-module';
import { ROOT, requireBuilt } from '../server/helpers';

const MCP_BUNDLE = join(ROOT, 'packages', 'mcp', 'dist', 'bundle', 'index.js');
const MCP_CJS = join(ROOT, 'packages', 'mcp', 'dist', 'cjs', 'index.js');
const ERAS = join(__dirname, '..', 'fixtures', 'eras-server.mjs');

const ESM = join(ROOT, 'packages', 'mcp', 'dist', 'esm');
/** The modules of the implementation that the package's entry imports as well: they load with it. */
const SHARED = ['client/auth/token-store', 'client/config', 'client/progress-deadline'];

/** A module of the package (`client/call-path`) and what it imports statically, from tsc's per-file output. */
function staticClosure(module: string, seen = new Set<string>()): Set<string> {
  if (seen.has(module)) return seen;
  seen.add(module);
  const code = readFileSync(join(ESM, `${module}.js`), 'utf8');
  for (const [, from, bare] of code.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)\.js'|^import\s+'(\.[^']+)\.js'/gms))
    staticClosure(posix.join(posix.dirname(module), from ?? bare!), seen);
  return seen;
}

/** What must not load before open(): the implementation and every module it imports, but those the entry shares. */
const LAZY = [...staticClosure('client/implementation')].filter((module) => !SHARED.includes(module)).sort();

/** The package's modules in the bundle files a process loaded, from the path comments esbuild writes before each. */
function bundledModules(urls: string[]): string[] {
  const modules = new Set<string>();
  for (const url of urls.filter((u) => u.startsWith('file:') && u.includes('/packages/mcp/dist/bundle/') && u.endsWith('.js'))) {
    for (const [, module] of readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ packages\/mcp\/dist\/esm\/(.+)\.js$/gm)) modules.add(module!);
  }
  return [...modules].sort();
}

/** Opens a stdio connection, lists its tools and closes it: what `loaded()` gives before and after. */
const OPEN = `const atImport = loaded();
const connection = await mcp.McpConnection.open('eras', { command: process.execPath, args: [${JSON.stringify(ERAS)}, 'stdio'] });
const tools = connection.tools.map((tool) => tool.name);
await connection.close();
console.log(JSON.stringify({ atImport, afterOpen: loaded(), tools }));`;

describe('the MCP client loads on the first open()', () => {
  beforeAll(() => requireBuilt(MCP_BUNDLE, MCP_CJS));

  it('the implementation is the client modules the test looks for', () => {
    expect(LAZY).toEqual(
      expect.arrayContaining(['client/implementation', 'client/call-path', 'client/supervisor', 'client/auth/oauth', 'shared/linear-patterns']),
    );
    // The entry imports those it shares (SHARED), each small; a new one is a choice to make here.
    expect([...staticClosure('index')].filter((module) => LAZY.includes(module))).toEqual([]);
  });

  it("import('@anytool/mcp') loads none of the client's implementation nor the SDK client; open() loads them", () => {
    const ran = runModule(`${RECORD_RESOLVED}
const mcp = await import('@anytool/mcp');
const loaded = () => [...globalThis.resolvedNow()];
${OPEN}`);
    const { atImport, afterOpen, tools } = lastJson(ran) as { atImport: string[]; afterOpen: string[]; tools: string[] };
    const sdkClient = (urls: string[]): boolean => urls.some((url) => url.includes('/@modelcontextprotocol/client/'));
    expect(bundledModules(atImport)).toContain('client/connection');
    expect(bundledModules(atImport).filter((module) => LAZY.includes(module))).toEqual([]);
    expect(sdkClient(atImport)).toBe(false);
    // implementation.ts only re-exports: esbuild writes no code for it, nor its path comment.
    expect(bundledModules(afterOpen)).toEqual(expect.arrayContaining(LAZY.filter((module) => module !== 'client/implementation')));
    expect(sdkClient(afterOpen)).toBe(true);
    expect(tools).toEqual(['echo', 'add_tool']);
  });

  it("a connection opened by the ES module build serves a toolset of the CommonJS build (another copy's)", () => {
    const ran = runModule(`import { createRequire } from 'node:module';
const esm = await import('@anytool/mcp');
const cjs = createRequire(${JSON.stringify(MCP_CJS)})(${JSON.stringify(MCP_CJS)});
const connection = await esm.McpConnection.open('eras', { command: process.execPath, args: [${JSON.stringify(ERAS)}, 'stdio'] });
const toolset = cjs.McpToolset.from([connection]);
const { ExecutionContext } = createRequire(${JSON.stringify(MCP_CJS)})('@anytool/core');
const echo = toolset.tools.find((tool) => tool.remoteName === 'echo');
const result = await echo.invoke(new ExecutionContext(), { message: 'hi' });
const refused = await echo.invoke(new ExecutionContext(), { message: 1 });
await toolset.close();
console.log(JSON.stringify({ text: result.content[0].text, refused: refused.isError && refused.content[0].text.startsWith('Invalid arguments') }));`);
    expect(lastJson(ran)).toEqual({ text: 'echo: hi', refused: true });
  });

  it('require() of the CommonJS build loads none of them either; open() loads them', () => {
    const ran = runModule(`import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(MCP_CJS)});
const mcp = require(${JSON.stringify(MCP_CJS)});
const loaded = () => Object.keys(require.cache).flatMap((path) => {
  const module = /[\\\\/]packages[\\\\/]mcp[\\\\/]dist[\\\\/]cjs[\\\\/](.+)\\.js$/.exec(path);
  if (module !== null) return [module[1].replace(/\\\\/g, '/')];
  return /[\\\\/]@modelcontextprotocol[\\\\/]client[\\\\/]/.test(path) ? ['sdk client'] : [];
}).filter((name, i, all) => all.indexOf(name) === i).sort();
${OPEN}`);
    const { atImport, afterOpen, tools } = lastJson(ran) as { atImport: string[]; afterOpen: string[]; tools: string[] };
    expect(atImport).toContain('client/connection');
    expect(atImport.filter((module) => LAZY.includes(module) || module === 'sdk client')).toEqual([]);
    expect(afterOpen).toEqual(expect.arrayContaining([...LAZY, 'sdk client']));
    expect(tools).toEqual(['echo', 'add_tool']);
  });
});
