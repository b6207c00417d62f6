import { networkInterfaces } from 'node:os';
import { ErrorCode, Toolset } from '@anytool/core';
import { createMcpServer, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { defaultAllowedHosts } from '../../src/server/host-check';
import { Notes } from '../helpers/notes-tools';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc';
import { scaled } from '../../../core/test/helpers/time-scale';

// An authenticated endpoint with a real identity provider: tokens fetched by client credentials call the
// endpoint in both protocol eras, see only the tools their scopes allow, are refused outside them with 403
// and the challenge a client steps up from, and bad tokens (another issuer, another audience, expired) get 401.
jest.setTimeout(scaled(60_000));

type Era = 'legacy' | 'modern';
const ERAS: Era[] = ['legacy', 'modern'];

/** What the SDK client's requests were answered with: status and challenge, for the assertions on refusals. */
interface Seen {
  status: number;
  challenge: string | null;
}

/** An official SDK client in the given era, sending `token` as its bearer token; records the HTTP answers it gets. */
async function connect(
  url: string,
  era: Era,
  token: string | undefined,
  seen: Seen[] = [],
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; seen: Seen[] }> {
  const record = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    seen.push({ status: response.status, challenge: response.headers.get('www-authenticate') });
    return response;
  };
  const client = new Client({ name: 'auth-test', version: '1' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: record,
    ...(token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  });
  await client.connect(transport);
  return { client, transport, seen };
}

async function toolNames(client: Client): Promise<string[]> {
  const result = await client.request({ method: 'tools/list', params: {} });
  return result.tools.map((tool) => tool.name).sort();
}

async function callText(client: Client, name: string): Promise<string> {
  const result = (await client.request({ method: 'tools/call', params: { name, arguments: {} } })) as { content: { type: string; text?: string }[] };
  return result.content.map((part) => part.text ?? '').join('');
}

let idp: OidcProvider;
let otherIdp: OidcProvider;
let server: McpServerHandle;

const CLIENTS = [
  { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['notes:read'] },
  { clientId: 'writer', clientSecret: 'writer-secret', scopes: ['notes:read', 'notes:write'] },
  { clientId: 'brief', clientSecret: 'brief-secret', scopes: ['notes:read'], accessTokenTtlSeconds: 3 },
];

function token(clientId: string, resource = server.url!, provider = idp): Promise<string> {
  const client = CLIENTS.find((c) => c.clientId === clientId)!;
  return provider.tokenByClientCredentials({ clientId, clientSecret: client.clientSecret, resource, scopes: client.scopes }).then((t) => t.access_token);
}

beforeAll(async () => {
  [idp, otherIdp] = await Promise.all([
    startOidcProvider({ scopes: ['notes:read', 'notes:write'], clients: CLIENTS }),
    startOidcProvider({ scopes: ['notes:read', 'notes:write'], clients: CLIENTS }),
  ]);
  // The keys are found from the issuer's metadata (no jwksUri given), as most setups would.
  server = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { jwt: { issuer: idp.issuer } } });
}, scaled(60_000));

afterAll(async () => {
  await server?.close();
  await Promise.all([idp?.stop(), otherIdp?.stop()]);
});

describe.each(ERAS)('a JWT from the identity provider, %s era', (era) => {
  it('lists only the tools its scopes allow, and calls them', async () => {
    const reader = await connect(server.url!, era, await token('reader'));
    const writer = await connect(server.url!, era, await token('writer'));
    try {
      expect(await toolNames(reader.client)).toEqual(['read', 'whoami']);
      // Lists are cached per scope set: the writer's is its own, and the reader's is still the reader's after it.
      expect(await toolNames(writer.client)).toEqual(['read', 'whoami', 'write']);
      expect(await toolNames(reader.client)).toEqual(['read', 'whoami']);
      expect(await callText(reader.client, 'read')).toBe('note 1');
      expect(await callText(writer.client, 'write')).toBe('written');
      expect(await callText(reader.client, 'whoami')).toBe(`reader via reader from ${idp.issuer} [notes:read]`);
    } finally {
      await Promise.all([reader.client.close(), writer.client.close()]);
    }
  });

  it('refuses a tool outside its scopes with 403 and the insufficient_scope challenge', async () => {
    const reader = await connect(server.url!, era, await token('reader'));
    try {
      await expect(callText(reader.client, 'write')).rejects.toThrow();
      const refusal = reader.seen.at(-1)!;
      expect(refusal.status).toBe(403);
      expect(refusal.challenge).toMatch(/^Bearer error="insufficient_scope"/);
      expect(refusal.challenge).toContain('scope="notes:read notes:write"');
      expect(refusal.challenge).toContain(`resource_metadata="${new URL(server.url!).origin}/.well-known/oauth-protected-resource/mcp"`);
      // The connection is still good for what it may do.
      expect(await callText(reader.client, 'read')).toBe('note 1');
    } finally {
      await reader.client.close();
    }
  });

  it('marks the tool list private to the caller (2026-07-28 cache hint)', async () => {
    const reader = await connect(server.url!, era, await token('reader'));
    try {
      const result = (await reader.client.request({ method: 'tools/list', params: {} })) as { cacheScope?: string };
      expect(result.cacheScope).toBe(era === 'modern' ? 'private' : undefined);
    } finally {
      await reader.client.close();
    }
  });
});

describe('tokens the endpoint refuses with 401', () => {
  async function refused(bearer: string | undefined): Promise<{ status: number; challenge: string | null; body: Record<string, unknown> }> {
    const response = await fetch(server.url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
  }

  it('no token: a challenge pointing to the protected resource metadata, which names the issuer', async () => {
    const answer = await refused(undefined);
    expect(answer.status).toBe(401);
    const metadataUrl = `${new URL(server.url!).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(answer.challenge).toContain(`resource_metadata="${metadataUrl}"`);
    for (const url of [metadataUrl, `${new URL(server.url!).origin}/.well-known/oauth-protected-resource`]) {
      const metadata = (await (await fetch(url)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ resource: server.url, authorization_servers: [idp.issuer], bearer_methods_supported: ['header'] });
      expect((metadata['scopes_supported'] as string[]).sort()).toEqual(['notes:read', 'notes:write']);
    }
  });

  it('a token of another issuer', async () => {
    const answer = await refused(await token('writer', server.url!, otherIdp));
    expect(answer.status).toBe(401);
    expect(answer.body['error_description']).toBe(`The token is from another issuer; this server accepts ${idp.issuer}`);
  });

  it('a token for another audience', async () => {
    const answer = await refused(await token('writer', 'http://127.0.0.1:1/other'));
    expect(answer.status).toBe(401);
    expect(answer.body['error_description']).toBe(`The token is for another audience; this server accepts ${server.url}`);
  });

  it('an expired token', async () => {
    // Three seconds to live: the first call lands well inside them on a busy machine, the second after.
    const brief = await token('brief');
    expect(await callWith(brief)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 4100));
    const answer = await refused(brief);
    expect(answer.status).toBe(401);
    expect(answer.body['error_description']).toBe('The token has expired');
  });

  it('a token that is not one, in both eras through the SDK client', async () => {
    for (const era of ERAS) {
      const seen: Seen[] = [];
      await expect(connect(server.url!, era, 'not-a-token-at-all', seen)).rejects.toThrow();
      expect(seen.at(-1)?.status).toBe(401);
      expect(seen.at(-1)?.challenge).toContain('error_description="The token is not a JWT"');
    }
  });

  async function callWith(bearer: string): Promise<number> {
    const response = await fetch(server.url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        authorization: `Bearer ${bearer}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    await response.body?.cancel();
    return response.status;
  }
});

describe('legacy sessions belong to the principal that opened them', () => {
  it('a second principal with the session id is answered as for an unknown session', async () => {
    const reader = await connect(server.url!, 'legacy', await token('reader'));
    try {
      const sessionId = reader.transport.sessionId!;
      expect(sessionId).toEqual(expect.any(String));
      const listWith = async (bearer: string): Promise<number> => {
        const response = await fetch(server.url!, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
            authorization: `Bearer ${bearer}`,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }),
        });
        await response.body?.cancel();
        return response.status;
      };
      expect(await listWith(await token('writer'))).toBe(404);
      // A new token of the same principal keeps the session (tokens are renewed; the session stays its holder's).
      expect(await listWith(await token('reader'))).toBe(200);
      expect(await toolNames(reader.client)).toEqual(['read', 'whoami']);
    } finally {
      await reader.client.close();
    }
  });
});

describe('static bearer tokens', () => {
  const TOKENS = [
    { token: 'alpha-0123456789abcdef', subject: 'ci-bot', scopes: ['notes:read'] },
    { token: 'omega-0123456789abcdef', subject: 'admin', scopes: ['notes:read', 'notes:write'] },
  ];
  let tokenServer: McpServerHandle;
  beforeAll(async () => {
    tokenServer = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { tokens: TOKENS } });
  });
  afterAll(() => tokenServer?.close());

  it.each(ERAS)('name their holder and scopes (%s era)', async (era) => {
    const bot = await connect(tokenServer.url!, era, TOKENS[0]!.token);
    try {
      expect(await toolNames(bot.client)).toEqual(['read', 'whoami']);
      expect(await callText(bot.client, 'whoami')).toBe('ci-bot via ci-bot from undefined [notes:read]');
      await expect(callText(bot.client, 'write')).rejects.toThrow();
      expect(bot.seen.at(-1)).toMatchObject({ status: 403 });
    } finally {
      await bot.client.close();
    }
    const seen: Seen[] = [];
    await expect(connect(tokenServer.url!, era, 'wrong-0123456789abcdef', seen)).rejects.toThrow();
    expect(seen.at(-1)).toMatchObject({ status: 401 });
  });

  it.each(ERAS)('an unknown tool names only the tools the caller sees (%s era)', async (era) => {
    const bot = await connect(tokenServer.url!, era, TOKENS[0]!.token);
    const admin = await connect(tokenServer.url!, era, TOKENS[1]!.token);
    try {
      // The bot is not told that "write" exists: the answer is the one for any name it does not know.
      const unknown = await callText(bot.client, 'nope');
      expect(unknown).toBe('Unknown tool "nope"; the available tools are: read, whoami. Call one of those.');
      expect(await callText(admin.client, 'nope')).toBe('Unknown tool "nope"; the available tools are: read, write, whoami. Call one of those.');
    } finally {
      await Promise.all([bot.client.close(), admin.client.close()]);
    }
  });

  it.each(ERAS)('takes only a cursor it can have given out: each page start it caches is one of its own (%s era)', async (era) => {
    const pages = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, pageSize: 2, auth: { tokens: TOKENS } });
    const admin = await connect(pages.url!, era, TOKENS[1]!.token);
    const cursor = (start: number): string => Buffer.from(`o:${start}`).toString('base64url');
    try {
      const first = await admin.client.request({ method: 'tools/list', params: {} });
      expect(first.nextCursor).toBe(cursor(2));
      expect((await admin.client.request({ method: 'tools/list', params: { cursor: cursor(2) } })).tools).toHaveLength(1);
      // Between page starts, or past the end of the list: not a page this server would point to.
      for (const start of [1, 4, 1_000_000]) {
        await expect(admin.client.request({ method: 'tools/list', params: { cursor: cursor(start) } })).rejects.toMatchObject({ code: -32602 });
      }
    } finally {
      await admin.client.close();
      await pages.close();
    }
  });

  it('with requiredScopes, a token without them gets 403 for any request', async () => {
    const strict = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { tokens: TOKENS, requiredScopes: ['notes:write'] } });
    try {
      const seen: Seen[] = [];
      await expect(connect(strict.url!, 'legacy', TOKENS[0]!.token, seen)).rejects.toThrow();
      expect(seen.at(-1)?.status).toBe(403);
      expect(seen.at(-1)?.challenge).toContain('error="insufficient_scope"');
      expect(seen.at(-1)?.challenge).toContain('scope="notes:write"');
      const admin = await connect(strict.url!, 'legacy', TOKENS[1]!.token);
      expect(await toolNames(admin.client)).toEqual(['read', 'whoami', 'write']);
      await admin.client.close();
    } finally {
      await strict.close();
    }
  });

  it('refuses a short token at start', async () => {
    await expect(serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { tokens: [{ token: 'short', subject: 'x' }] } })).rejects.toThrow(
      /at least 16 characters/,
    );
  });

  it('publishes metadata with no authorization server', async () => {
    const metadata = (await (await fetch(`${new URL(tokenServer.url!).origin}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(metadata['resource']).toBe(tokenServer.url);
    expect(metadata['authorization_servers']).toBeUndefined();
  });
});

describe('safe by default: a non-loopback bind without auth does not start', () => {
  // 0.0.0.0 is every interface: what people bind to be reached from the network. The refusal comes before any
  // socket is opened, so the test binds nothing.
  it('refuses 0.0.0.0 without auth, naming the option that allows it', async () => {
    const refused = serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, host: '0.0.0.0' });
    await expect(refused).rejects.toThrow(
      /refusing to serve without authentication on 0\.0\.0\.0, which is not a loopback address.*allowUnauthenticated: true/,
    );
    await expect(refused).rejects.toMatchObject({ code: ErrorCode.InsecureServer });
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;
  // A machine with no network interface but loopback has no such address to test with.
  (external === undefined ? it.skip : it)(`refuses this machine's network address (${external ?? 'none'}) without auth`, async () => {
    await expect(serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, host: external! })).rejects.toThrow(/allowUnauthenticated/);
  });

  it('accepts Host: localhost on loopback only; elsewhere only the names given, or the address itself', () => {
    expect(defaultAllowedHosts('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(defaultAllowedHosts('192.0.2.7')).toEqual(['192.0.2.7']);
    expect(defaultAllowedHosts('0.0.0.0')).toEqual([]);
    expect(defaultAllowedHosts('::')).toEqual([]);
  });

  it('a wildcard bind with auth but no allowed host names is refused too: it would accept any Host', async () => {
    await expect(
      serveMcp(new Toolset(new Notes()), {
        transport: 'http',
        port: 0,
        host: '0.0.0.0',
        auth: { tokens: [{ token: 'alpha-0123456789abcdef', subject: 'a' }] },
      }),
    ).rejects.toMatchObject({
      code: ErrorCode.InsecureServer,
      message: expect.stringContaining('allowedHosts'),
    });
  });

  it.each(['0.0.0.0', '::'])('JWT auth on the wildcard %s needs the resource: the audience would be an address no token names', async (host) => {
    const jwt = { issuer: idp.issuer };
    await expect(serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, host, allowedHosts: ['mcp.example.com'], auth: { jwt } })).rejects.toThrow(
      /needs auth\.resource, the URL clients reach the endpoint at/,
    );
  });
});

describe('createMcpServer behind a gate of your own (the SDK handler given authInfo)', () => {
  it('lists by the scopes, refuses other tools with an isError result, and gives tools the caller', async () => {
    const handler = createMcpHandler(() => createMcpServer(new Toolset(new Notes())));
    const authInfo: AuthInfo = { token: 'opaque', clientId: 'gatekeeper-client', scopes: ['notes:read'], expiresAt: Math.floor(Date.now() / 1000) + 60 };
    const client = new Client({ name: 'own-gate', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), { fetch: (input, init) => handler.fetch(new Request(input, init), { authInfo }) }),
    );
    try {
      const list = (await client.request({ method: 'tools/list', params: {} })) as { tools: { name: string }[]; cacheScope?: string };
      expect(list.tools.map((tool) => tool.name).sort()).toEqual(['read', 'whoami']);
      // Tools that ask for scopes make the list depend on the caller: private to it.
      expect(list.cacheScope).toBe('private');
      const refused = (await client.request({ method: 'tools/call', params: { name: 'write', arguments: {} } })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toBe('insufficient_scope: tool "write" needs the scope notes:write');
      expect(await callText(client, 'whoami')).toBe('gatekeeper-client via gatekeeper-client from undefined [notes:read]');
    } finally {
      await client.close();
      await handler.close();
    }
  });
});
