import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as mcp from '@anytool/mcp';
import * as internal from '@anytool/mcp/internal';
import { domGlobals, exportedNames } from '../../../test/helpers/export-names';

const entry = (name: string): string => join(__dirname, '..', 'src', `${name}.ts`);

describe('the public surface of @anytool/mcp', () => {
  it('exports exactly the intended names', () => {
    expect(Object.keys(mcp).sort()).toEqual(
      [
        'CONTEXT_META_KEY',
        'MCP_AUTH_KEY',
        'MCP_SESSION_KEY',
        'McpConnection',
        'McpTool',
        'McpToolset',
        'MemoryEventStore',
        'createMcpServer',
        'mcpAuth',
        'mcpSession',
        'mcpToolName',
        'readMcpServers',
        'serveMcp',
        'toCallToolResult',
        'FileTokenStore',
        'MemoryTokenStore',
        'startLoopbackRedirect',
        'MemoryStore',
        'RedisStore',
        'StoreEventStore',
        'BullmqTaskQueue',
        'runTaskWorker',
      ].sort(),
    );
    expect(exportedNames(entry('index')).values).toEqual(Object.keys(mcp).sort());
  });

  it('exports exactly the intended types', () => {
    expect(exportedNames(entry('index')).types).toEqual(
      [
        'ElicitationHandler',
        'ElicitationOption',
        'HttpServeOptions',
        'JwtAuthOptions',
        'LoopbackRedirect',
        'LoopbackRedirectOptions',
        'McpAskOptions',
        'McpAuth',
        'McpAuthOptions',
        'McpAuthorizationCodeAuth',
        'McpAuthorizeInfo',
        'McpCallOptions',
        'McpClientCredentialsAuth',
        'McpClientOptions',
        'McpHttpServerConfig',
        'McpOAuthCommon',
        'McpOAuthConfig',
        'McpProviderAuth',
        'McpRestartOptions',
        'McpRoot',
        'McpServerConfig',
        'McpServerHandle',
        'McpServerOptions',
        'McpServerTuning',
        'McpServersConfig',
        'McpSession',
        'McpStdioServerConfig',
        'McpStore',
        'McpStoredAuth',
        'McpTaskHandle',
        'McpTaskStatus',
        'McpTaskStatusName',
        'McpTokenStore',
        'McpToolsetOptions',
        'RedisStoreOptions',
        'ResultSizeHints',
        'SamplingHandler',
        'ServeMcpOptions',
        'StaticToken',
        'StdioServeOptions',
        'StoreEventStoreOptions',
        'TaskRecord',
        'TaskStatus',
        'BullmqTaskQueueOptions',
        'TaskWorkerHandle',
        'TaskWorkerOptions',
      ].sort(),
    );
  });

  it('shares the serve command with @anytool/schema through @anytool/mcp/internal only', () => {
    expect(Object.keys(internal).sort()).toEqual(['mcpMain', 'runServeCommand']);
    expect(exportedNames(entry('internal'))).toEqual({ values: ['mcpMain', 'runServeCommand'], types: [] });
    for (const name of Object.keys(internal)) expect([name, name in mcp]).toEqual([name, false]);
    expect(readFileSync(entry('internal'), 'utf8')).toMatch(/Not public API[\s\S]*any release/);
  });

  it('exports no name that shadows a DOM global', () => {
    const dom = domGlobals();
    const names = ['index', 'internal'].flatMap((file) => Object.values(exportedNames(entry(file))).flat());
    expect(names.filter((name) => dom.has(name))).toEqual([]);
  });

  it('declares the anytool-mcp bin and the internal subpath for ES modules, CommonJS and old TypeScript resolution', () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      exports: Record<string, unknown>;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    // Not `anytool`: that is @anytool/schema's command, and both packages are often installed together.
    expect(manifest.bin).toEqual({ 'anytool-mcp': './bin/anytool-mcp.mjs' });
    expect(Object.keys(manifest.exports)).toEqual(['.', './internal', './package.json']);
    expect(manifest.exports['./internal']).toEqual({
      import: { types: './dist/esm/internal.d.ts', default: './dist/bundle/internal.js' },
      require: { types: './dist/cjs/internal.d.ts', default: './dist/cjs/internal.js' },
    });
    expect(manifest.typesVersions['*']).toEqual({ internal: ['./dist/cjs/internal.d.ts'] });
  });

  it('exports no error class of its own: every error is an AnytoolError with a code', () => {
    const errorClasses = (Object.values(mcp) as unknown[]).filter((v) => typeof v === 'function' && (v as Function).prototype instanceof Error);
    expect(errorClasses).toEqual([]);
  });

  it('keeps its internals private', () => {
    for (const name of ['mapCallResult', 'CallSession', 'checkHost', 'encodeCursor', 'runServeCommand']) expect(name in mcp).toBe(false);
  });
});
