import { ExecutionContext, Toolset, resultText } from '@anytool/core';
import { McpConnection, McpToolset, serveMcp, startLoopbackRedirect, type LoopbackRedirect, type McpServerHandle } from '../../../src';
import { Notes } from '../../helpers/notes-tools';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc';
import { scaled } from '../../../../core/test/helpers/time-scale';

// End to end: this package's client, authorized by OAuth at a real identity provider, against this package's
// served endpoint with scopes per tool, in both protocol eras. It sees only the tools its scopes allow, is refused
// outside them (403 insufficient_scope; one step-up where the provider may grant more, a clear failure where not).
jest.setTimeout(scaled(60_000));

let idp: OidcProvider;
let server: McpServerHandle;
let loopback: LoopbackRedirect;

beforeAll(async () => {
  idp = await startOidcProvider({
    scopes: ['notes:read', 'notes:write'],
    clients: [
      { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['notes:read'] },
      { clientId: 'writer', clientSecret: 'writer-secret', scopes: ['notes:read', 'notes:write'] },
      { clientId: 'cli', redirectUris: ['http://127.0.0.1/callback'], scopes: ['notes:read', 'offline_access'] },
    ],
    account: 'ada',
  });
  server = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { jwt: { issuer: idp.issuer } } });
  loopback = await startLoopbackRedirect({ timeoutMs: 20_000 });
}, scaled(60_000));

afterAll(async () => {
  await Promise.all([server?.close(), loopback?.close()]);
  await idp?.stop();
});

const ERAS = ['legacy', 'modern'] as const;

describe.each(ERAS)('client credentials against serveMcp, %s era', (protocol) => {
  it('sees only the tools its scopes allow, and is refused outside them', async () => {
    const mcp = await McpToolset.connect({
      mcpServers: {
        notes: {
          url: server.url!,
          protocol,
          auth: { type: 'client_credentials', issuer: idp.issuer, clientId: 'reader', clientSecret: 'reader-secret', scope: 'notes:read' },
        },
      },
    });
    try {
      expect(mcp.connection('notes')!.era).toBe(protocol);
      expect(mcp.names.sort()).toEqual(['read', 'whoami']);
      const toolset = new Toolset(mcp);
      expect(resultText(await toolset.invoke('read', {}, new ExecutionContext()))).toBe('note 1');
      expect(resultText(await toolset.invoke('whoami', {}, new ExecutionContext()))).toBe(`reader via reader from ${idp.issuer} [notes:read]`);
      // Called anyway (it is not listed): the endpoint answers 403, the provider will not grant the scope.
      const refused = await mcp
        .connection('notes')!
        .callTool('write', {})
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'MCP_AUTH_FAILED' });
      expect((refused as Error).message).toContain('MCP server "notes"');
      expect((refused as Error).message).toContain('notes:write');
    } finally {
      await mcp.close();
    }
  });

  it('steps up to a scope the provider grants, and then lists the tool it unlocks', async () => {
    const connection = await McpConnection.open('notes', {
      url: server.url!,
      protocol,
      auth: { type: 'client_credentials', issuer: idp.issuer, clientId: 'writer', clientSecret: 'writer-secret', scope: 'notes:read' },
    });
    try {
      expect(connection.tools.map((t) => t.name).sort()).toEqual(['read', 'whoami']);
      const written = await connection.callTool('write', {});
      expect(written.content).toEqual([{ type: 'text', text: 'written' }]);
      await connection.refreshTools();
      expect(connection.tools.map((t) => t.name).sort()).toEqual(['read', 'whoami', 'write']);
    } finally {
      await connection.close();
    }
  });
});

it('a user signs in (code + PKCE, loopback redirect) and calls the endpoint as themselves', async () => {
  const mcp = await McpToolset.connect({
    mcpServers: {
      notes: {
        url: server.url!,
        auth: {
          type: 'authorization_code',
          clientId: 'cli',
          redirectUrl: loopback.redirectUrl,
          scope: 'notes:read',
          authorize: loopback.authorize(async (url) => {
            const back = await idp.authorize(url);
            await (await fetch(back)).text();
          }),
        },
      },
    },
  });
  try {
    expect(mcp.names.sort()).toEqual(['read', 'whoami']);
    expect(resultText(await new Toolset(mcp).invoke('whoami', {}, new ExecutionContext()))).toMatch(/^ada via cli from .* \[notes:read/);
  } finally {
    await mcp.close();
  }
});
