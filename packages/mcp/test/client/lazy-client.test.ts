// The client's implementation and the SDK's client load on the first McpConnection.open(), not when @anytool/mcp is
// imported: a program that serves, or connects later, does not compile them at its start. Run on the built package in
// child processes, ES module (the bundle a user's import gets) and CommonJS, since what a process loads is the point.
import { join } from 'node:path';
import { RECORD_RESOLVED, lastJson, runModule } from '../helpers/child-module';
import { ROOT, requireBuilt } from '../server/helpers';

const MCP_BUNDLE = join(ROOT, 'packages', 'mcp', 'dist', 'bundle', 'index.js');
const MCP_CJS = join(ROOT, 'packages', 'mcp', 'dist', 'cjs', 'index.js');
const ERAS = join(__dirname, '..', 'fixtures', 'eras-server.mjs');

/** Opens a stdio connection, lists its tools and closes it: what `loaded()` reports before and after. */
const OPEN = `const atImport = loaded();
const connection = await mcp.McpConnection.open('eras', { command: process.execPath, args: [${JSON.stringify(ERAS)}, 'stdio'] });
const tools = connection.tools.map((tool) => tool.name);
await connection.close();
await new Promise((resolve) => setTimeout(resolve, 100));
console.log(JSON.stringify({ atImport, afterOpen: loaded(), tools }));`;

const EXPECTED = { atImport: [], afterOpen: ['implementation', 'sdk client'], tools: ['echo', 'add_tool'] };

describe('the MCP client loads on the first open()', () => {
  beforeAll(() => requireBuilt(MCP_BUNDLE, MCP_CJS));

  it("import('@anytool/mcp') loads neither the client's implementation nor the SDK client; open() loads both", () => {
    const ran = runModule(`${RECORD_RESOLVED}
const mcp = await import('@anytool/mcp');
if (!globalThis.resolved.some((url) => url.endsWith('/dist/bundle/index.js'))) await new Promise((resolve) => setTimeout(resolve, 100));
const loaded = () => [...new Set(globalThis.resolved.flatMap((url) =>
  /\\/dist\\/bundle\\/implementation-\\w+\\.js$/.test(url) ? ['implementation'] : url.includes('/@modelcontextprotocol/client/') ? ['sdk client'] : []))].sort();
${OPEN}`);
    expect(lastJson(ran)).toEqual(EXPECTED);
  });

  it('require() of the CommonJS build loads neither either; open() loads both', () => {
    const ran = runModule(`import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(MCP_CJS)});
const mcp = require(${JSON.stringify(MCP_CJS)});
const loaded = () => [...new Set(Object.keys(require.cache).flatMap((path) =>
  /[\\\\/]dist[\\\\/]cjs[\\\\/]client[\\\\/]implementation\\.js$/.test(path) ? ['implementation'] : /[\\\\/]@modelcontextprotocol[\\\\/]client[\\\\/]/.test(path) ? ['sdk client'] : []))].sort();
${OPEN}`);
    expect(lastJson(ran)).toEqual(EXPECTED);
  });
});
