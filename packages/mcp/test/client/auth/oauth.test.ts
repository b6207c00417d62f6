import { ExecutionContext, Toolset, resultText } from '@anytool/core';
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { McpToolset, MemoryTokenStore, startLoopbackRedirect, type LoopbackRedirect, type McpServerConfig } from '../../../src';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc';
import { startResourceServer, type ResourceServer } from '../../helpers/client-resource-server';
import { scaled } from '../../../../core/test/helpers/time-scale';

// OAuth from the client's side against a real OpenID provider (oidc-provider on 127.0.0.1) and a resource server
// that verifies its JWTs: client credentials, authorization code + PKCE through the loopback helper (the browser
// step driven over HTTP), one refresh for ten concurrent calls, step-up on 403 insufficient_scope, issuer checks.

/** Every request to a token endpoint that leaves this process, with its grant and refresh token. */
const tokenRequests: Array<{ url: string; grant: string | null; refreshToken: string | null }> = [];
const realFetch = globalThis.fetch;
let tokenEndpoints: string[] = [];

beforeAll(() => {
  // The transports capture fetch when they are made: installed before any connection.
  globalThis.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (tokenEndpoints.includes(url) && typeof init?.body !== 'undefined') {
      const body = new URLSearchParams(String(init.body));
      tokenRequests.push({ url, grant: body.get('grant_type'), refreshToken: body.get('refresh_token') });
    }
    return realFetch(input, init);
  };
});

afterAll(() => {
  globalThis.fetch = realFetch;
});

const SCOPES = ['mcp:read', 'mcp:write'];
let oidc: OidcProvider;
let other: OidcProvider;
let api: ResourceServer;
let loopback: LoopbackRedirect;

beforeAll(async () => {
  [oidc, other] = await Promise.all([
    startOidcProvider({
      scopes: SCOPES,
      clients: [
        { clientId: 'machine', clientSecret: 'machine-secret' },
        { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['mcp:read'] },
        // offline_access: a refresh token comes with the sign-in.
        { clientId: 'cli', redirectUris: ['http://127.0.0.1/callback'], scopes: [...SCOPES, 'offline_access'] },
        { clientId: 'cli-short', redirectUris: ['http://127.0.0.1/callback'], scopes: [...SCOPES, 'offline_access'], accessTokenTtlSeconds: 3 },
      ],
    }),
    startOidcProvider({ scopes: SCOPES, clients: [{ clientId: 'machine', clientSecret: 'machine-secret' }] }),
  ]);
  tokenEndpoints = [oidc.tokenEndpoint, other.tokenEndpoint];
  api = await startResourceServer({ issuer: oidc, requiredScopes: ['mcp:read'], toolScopes: { write: ['mcp:write'] } });
  loopback = await startLoopbackRedirect({ timeoutMs: 20_000 });
}, scaled(60_000));

afterAll(async () => {
  await Promise.all([api?.close(), loopback?.close(), oidc?.stop(), other?.stop()]);
});

beforeEach(() => {
  tokenRequests.length = 0;
});

/** The browser: it follows the authorization URL through login and consent and comes back to the loopback listener. */
async function browser(authorizationUrl: URL): Promise<void> {
  const back = await oidc.authorize(authorizationUrl);
  const response = await realFetch(back);
  await response.body?.cancel();
}

async function connect(server: McpServerConfig): Promise<{ mcp: McpToolset; toolset: Toolset }> {
  const mcp = await McpToolset.connect({ mcpServers: { api: server } });
  return { mcp, toolset: new Toolset(mcp) };
}

async function call(toolset: Toolset, name: string): Promise<{ text: string; code: string | undefined }> {
  const result = await toolset.invoke(name, {}, new ExecutionContext());
  return { text: resultText(result), code: result.error?.code };
}

describe('client credentials', () => {
  it('gets a token for the server (audience-bound) and calls its tools with it', async () => {
    const { mcp, toolset } = await connect({
      url: api.url,
      auth: { type: 'client_credentials', issuer: oidc.issuer, clientId: 'machine', clientSecret: 'machine-secret', scope: 'mcp:read' },
    });
    try {
      expect(toolset.names.sort()).toEqual(['whoami', 'write']);
      expect(await call(toolset, 'whoami')).toEqual({ text: 'machine [mcp:read]', code: undefined });
      expect(tokenRequests.map((r) => r.grant)).toEqual(['client_credentials']);
    } finally {
      await mcp.close();
    }
  });

  it('steps up once on 403 insufficient_scope, with the union of the scopes', async () => {
    const { mcp, toolset } = await connect({
      url: api.url,
      auth: { type: 'client_credentials', issuer: oidc.issuer, clientId: 'machine', clientSecret: 'machine-secret', scope: 'mcp:read' },
    });
    try {
      expect(await call(toolset, 'write')).toEqual({ text: 'written', code: undefined });
      expect(await call(toolset, 'whoami')).toEqual({ text: 'machine [mcp:read mcp:write]', code: undefined });
      expect(tokenRequests.map((r) => r.grant)).toEqual(['client_credentials', 'client_credentials']);
      expect(mcp.connection('api')!.diagnostics.some((d) => d.includes('re-authorizing once'))).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('fails clearly when the scope is never granted, without a loop, and the server stays usable', async () => {
    const { mcp, toolset } = await connect({
      url: api.url,
      auth: { type: 'client_credentials', issuer: oidc.issuer, clientId: 'reader', clientSecret: 'reader-secret' },
    });
    try {
      const first = await call(toolset, 'write');
      expect(first.code).toBe('MCP_AUTH_FAILED');
      expect(first.text).toContain('MCP server "api"');
      const requestsAfterFirst = tokenRequests.length;
      const second = await call(toolset, 'write');
      expect(second.code).toBe('MCP_AUTH_FAILED');
      expect(second.text).toMatch(/tried once already|insufficient_scope/);
      // No second re-authorization for the same scopes.
      expect(tokenRequests.length).toBe(requestsAfterFirst);
      expect(mcp.warnings.some((w) => w.includes('MCP server "api" is failing authorization'))).toBe(true);
      expect((await call(toolset, 'whoami')).text).toBe('reader [mcp:read]');
    } finally {
      await mcp.close();
    }
  });

  it('names the server and the fix when the client secret is wrong', async () => {
    const failed = await McpToolset.connect({
      mcpServers: { api: { url: api.url, auth: { type: 'client_credentials', issuer: oidc.issuer, clientId: 'machine', clientSecret: 'wrong' } } },
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'MCP_AUTH_FAILED' });
    expect((failed as Error).message).toContain('MCP server "api"');
    expect((failed as Error).message).toContain('invalid_client');
    expect((failed as Error).message).toContain('"clientSecret"');
  });
});

describe('a provider of the SDK, passed through', () => {
  it("connects with the SDK's ClientCredentialsProvider as it is", async () => {
    const provider = new ClientCredentialsProvider({ clientId: 'machine', clientSecret: 'machine-secret', scope: 'mcp:read' });
    const { mcp, toolset } = await connect({ url: api.url, auth: { type: 'provider', provider } });
    try {
      expect(await call(toolset, 'whoami')).toEqual({ text: 'machine [mcp:read]', code: undefined });
      expect(provider.tokens()?.issuer).toBe(oidc.issuer);
    } finally {
      await mcp.close();
    }
  });
});

describe('authorization code with PKCE, through the loopback helper', () => {
  it('signs the user in (browser step over HTTP) and keeps the tokens in the store', async () => {
    const store = new MemoryTokenStore();
    const opened: URL[] = [];
    const { mcp, toolset } = await connect({
      url: api.url,
      auth: {
        type: 'authorization_code',
        clientId: 'cli',
        redirectUrl: loopback.redirectUrl,
        store,
        authorize: loopback.authorize(async (url) => {
          opened.push(url);
          await browser(url);
        }),
      },
    });
    try {
      expect(opened).toHaveLength(1);
      expect(opened[0]!.searchParams.get('code_challenge_method')).toBe('S256');
      expect(opened[0]!.searchParams.get('resource')).toBe(api.url);
      // The server's challenge names mcp:read: that is what is asked for.
      expect(await call(toolset, 'whoami')).toEqual({ text: 'cli [mcp:read]', code: undefined });
      const key = new URL(api.url);
      const kept = store.get(`${key.origin}${key.pathname}`);
      expect(kept?.tokens?.issuer).toBe(oidc.issuer);
      expect(typeof kept?.tokens?.refresh_token).toBe('string');
      expect(tokenRequests.map((r) => r.grant)).toEqual(['authorization_code']);
    } finally {
      await mcp.close();
    }
  });

  it('refuses a sign-in response from another issuer (iss) before redeeming its code', async () => {
    const failed = await McpToolset.connect({
      mcpServers: {
        api: {
          url: api.url,
          auth: {
            type: 'authorization_code',
            clientId: 'cli',
            redirectUrl: loopback.redirectUrl,
            authorize: async (url) => {
              const back = await oidc.authorize(url);
              back.searchParams.set('iss', other.issuer);
              return back;
            },
          },
        },
      },
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'MCP_AUTH_FAILED' });
    expect((failed as Error).message).toContain('another issuer');
    expect(tokenRequests).toEqual([]);
  });

  it('refuses a sign-in response whose state is not the one sent', async () => {
    const failed = await McpToolset.connect({
      mcpServers: {
        api: {
          url: api.url,
          auth: {
            type: 'authorization_code',
            clientId: 'cli',
            redirectUrl: loopback.redirectUrl,
            authorize: async (url) => {
              const back = await oidc.authorize(url);
              back.searchParams.set('state', 'forged');
              return back;
            },
          },
        },
      },
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'MCP_AUTH_FAILED' });
    expect((failed as Error).message).toContain('"state"');
    expect(tokenRequests).toEqual([]);
  });
});

describe('refresh', () => {
  async function signedIn(store: MemoryTokenStore): Promise<{ mcp: McpToolset; toolset: Toolset }> {
    return connect({
      url: api.url,
      auth: { type: 'authorization_code', clientId: 'cli-short', redirectUrl: loopback.redirectUrl, store, authorize: loopback.authorize(browser) },
    });
  }

  it(
    'refreshes an expired token once for ten concurrent calls',
    async () => {
      const store = new MemoryTokenStore();
      const { mcp, toolset } = await signedIn(store);
      try {
        await new Promise((resolve) => setTimeout(resolve, 3_200));
        tokenRequests.length = 0;
        const results = await Promise.all(Array.from({ length: 10 }, () => call(toolset, 'whoami')));
        expect(results.map((r) => r.code)).toEqual(Array(10).fill(undefined));
        expect(tokenRequests.map((r) => r.grant)).toEqual(['refresh_token']);
      } finally {
        await mcp.close();
      }
    },
    scaled(30_000),
  );

  it(
    'renews once when the server refuses a token the client thought valid, and never sends a refresh token twice',
    async () => {
      const store = new MemoryTokenStore();
      const { mcp, toolset } = await signedIn(store);
      try {
        const key = new URL(api.url);
        const storeKey = `${key.origin}${key.pathname}`;
        // The client's record says nothing of expiry: only the server's 401 tells it.
        const { expiresAt: _dropped, ...entry } = store.get(storeKey)!;
        store.set(storeKey, entry);
        await new Promise((resolve) => setTimeout(resolve, 3_200));
        tokenRequests.length = 0;
        const results = await Promise.all(Array.from({ length: 10 }, () => call(toolset, 'whoami')));
        expect(results.map((r) => r.code)).toEqual(Array(10).fill(undefined));
        expect(tokenRequests.map((r) => r.grant)).toEqual(['refresh_token']);
        // A second expiry: a new refresh token (rotated), used once.
        await new Promise((resolve) => setTimeout(resolve, 3_200));
        const again = await Promise.all(Array.from({ length: 10 }, () => call(toolset, 'whoami')));
        expect(again.map((r) => r.code)).toEqual(Array(10).fill(undefined));
        const used = tokenRequests.map((r) => r.refreshToken);
        expect(used).toHaveLength(2);
        expect(new Set(used).size).toBe(2);
      } finally {
        await mcp.close();
      }
    },
    scaled(30_000),
  );
});

describe('issuer checks', () => {
  it('refuses authorization server metadata that names another issuer, and sends no credential', async () => {
    // A resource server that names itself as the authorization server, and serves the provider's document there:
    // its issuer is not the URL it was discovered at.
    const proxy = await startResourceServer({ issuer: oidc, requiredScopes: ['mcp:read'], authorizationServer: 'self' });
    try {
      const failed = await McpToolset.connect({
        mcpServers: { api: { url: proxy.url, auth: { type: 'client_credentials', issuer: oidc.issuer, clientId: 'machine', clientSecret: 'machine-secret' } } },
      }).catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: 'MCP_AUTH_FAILED' });
      expect((failed as Error).message).toContain('MCP server "api"');
      expect((failed as Error).message).toContain('names another issuer');
      expect(tokenRequests).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('refuses to send a client pinned to one issuer to another', async () => {
    const failed = await McpToolset.connect({
      mcpServers: { api: { url: api.url, auth: { type: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret', issuer: other.issuer } } },
    }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'MCP_AUTH_FAILED' });
    expect((failed as Error).message).toContain('another authorization server');
    expect(tokenRequests).toEqual([]);
  });
});
