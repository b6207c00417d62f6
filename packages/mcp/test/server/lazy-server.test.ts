// @modelcontextprotocol/server is an optional peer: importing @anytool/mcp (to call MCP servers) loads none of the
// server, and serving loads it on first use, or says in one line which package to install. Run on the built package
// in child processes, ES module and CommonJS, since what a process loads is the point.
import { join } from 'node:path';
import { MCP_DIST, ROOT, requireBuilt } from './helpers';
import { RECORD_RESOLVED, lastJson, runModule } from '../helpers/child-module';

const MCP_CJS = join(ROOT, 'packages', 'mcp', 'dist', 'cjs', 'index.js');

// A resolver that finds no @modelcontextprotocol/server, as in a project that did not install it. It sees import()
// only (require() of an ES module, as createMcpServer loads the server, resolves without it): the consumer test
// (test/consumer/install-size.test.ts) calls createMcpServer in a project without the package.
const HIDE_SERVER_SDK = `
import { register } from 'node:module';
const hooks = "export async function resolve(specifier, context, next) {" +
  " if (/^@modelcontextprotocol\\\\/server(\\\\/|$)/.test(specifier)) throw Object.assign(new Error(\\"Cannot find package '\\" + specifier + \\"' imported from \\" + context.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });" +
  " return next(specifier, context); }";
register('data:text/javascript,' + encodeURIComponent(hooks));
`;

const TOOLSET = `const { Toolset, tool } = await import('@anytool/core');
const toolset = new Toolset(tool(() => 'one', { name: 'one', description: 'One.', parameters: { type: 'object', properties: {} } }));`;

describe('@modelcontextprotocol/server loads on first use', () => {
  beforeAll(() => requireBuilt(MCP_DIST, MCP_CJS));

  it('importing @anytool/mcp (ES module) loads no server module, and createMcpServer then loads the same SDK import() gives', () => {
    const ran = runModule(`${RECORD_RESOLVED}
${TOOLSET}
const mcp = await import(${JSON.stringify(MCP_DIST)});
await new Promise((resolve) => setTimeout(resolve, 100));
const atImport = globalThis.resolved.filter((url) => /@modelcontextprotocol\\/server|\\/jose\\/|\\/dist\\/esm\\/server\\/(tool-server|serve-mcp|auth)\\.js/.test(url));
const server = mcp.createMcpServer(toolset, { name: 'lazy' });
const { Server } = await import('@modelcontextprotocol/server');
await new Promise((resolve) => setTimeout(resolve, 100));
const afterCreate = globalThis.resolved.some((url) => url.includes('@modelcontextprotocol/server'));
console.log(JSON.stringify({ atImport, afterCreate, sameSdk: server instanceof Server }));`);
    expect(lastJson(ran)).toEqual({ atImport: [], afterCreate: true, sameSdk: true });
  });

  it('requiring @anytool/mcp (CommonJS) loads no server module either, and createMcpServer then loads it', () => {
    const ran = runModule(`import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(MCP_CJS)});
${TOOLSET.replace("await import('@anytool/core')", "require('@anytool/core')")}
const loaded = () => Object.keys(require.cache).filter((path) => /@modelcontextprotocol[\\\\/]server|[\\\\/]jose[\\\\/]/.test(path));
const mcp = require(${JSON.stringify(MCP_CJS)});
const atImport = loaded();
const server = mcp.createMcpServer(toolset, { name: 'lazy' });
console.log(JSON.stringify({ atImport, afterCreate: loaded().length > 0, sameSdk: server instanceof require('@modelcontextprotocol/server').Server }));`);
    expect(lastJson(ran)).toEqual({ atImport: [], afterCreate: true, sameSdk: true });
  });

  it('without @modelcontextprotocol/server installed, serving is a MISSING_DEPENDENCY error naming the npm i, in one line', () => {
    const ran = runModule(`${HIDE_SERVER_SDK}
${TOOLSET}
const mcp = await import(${JSON.stringify(MCP_DIST)});
const failure = (error) => ({ code: error.code, message: error.message });
const failures = [];
await mcp.serveMcp(toolset, { transport: 'stdio' }).catch((error) => failures.push(failure(error)));
await mcp.runTaskWorker(toolset, {}).catch((error) => failures.push(failure(error)));
console.log(JSON.stringify(failures));`);
    const line = (owner: string): { code: string; message: string } => ({
      code: 'MISSING_DEPENDENCY',
      message: `${owner} needs the @modelcontextprotocol/server package, which is not installed; install it next to @anytool/mcp to serve MCP: npm i @modelcontextprotocol/server`,
    });
    expect(lastJson(ran)).toEqual([line('serveMcp()'), line('runTaskWorker()')]);
  });
});
