import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Toolset } from '@anytool/core';
import { serveMcp, type McpServerHandle } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { Notes } from '../helpers/notes-tools';
import { scaled } from '../../../core/test/helpers/time-scale';

// JWT checks an identity provider's own test fixture does not reach: tokens without `kid` during a key
// rotation, claims of the wrong type, the principal of a client acting for itself, and where keys may come from.
jest.setTimeout(scaled(30_000));

type Keys = { publicKey: CryptoKey; privateKey: CryptoKey };

let old: Keys;
let current: Keys;
let stranger: Keys;
let issuerServer: Server;
let issuer: string;
let server: McpServerHandle;
const errors: Error[] = [];

beforeAll(async () => {
  [old, current, stranger] = await Promise.all([
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
    generateKeyPair('RS256', { extractable: true }),
  ]);
  // Two keys published at once, as during a key rotation.
  const jwks = {
    keys: [
      { ...(await exportJWK(old.publicKey)), kid: 'old', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(current.publicKey)), kid: 'current', alg: 'RS256', use: 'sig' },
    ],
  };
  issuerServer = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  server = await serveMcp(new Toolset(new Notes()), { transport: 'http', port: 0, auth: { jwt: { issuer } }, onError: (error) => errors.push(error) });
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => issuerServer?.close(resolve));
});

afterEach(() => {
  // Refused tokens are the caller's problem, not the server's: nothing reaches onError.
  expect(errors).toEqual([]);
});

function sign(claims: Record<string, unknown>, key: CryptoKey, kid?: string): Promise<string> {
  return new SignJWT({ scope: 'notes:read', ...claims })
    .setIssuer(issuer)
    .setAudience(server.url!)
    .setExpirationTime('10m')
    .setProtectedHeader(kid === undefined ? { alg: 'RS256' } : { alg: 'RS256', kid })
    .sign(key);
}

/** The HTTP status and challenge a `tools/list` with `token` gets. */
async function answer(token: string): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(server.url!, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'jwt-test', version: '1' } },
    }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

async function whoami(token: string): Promise<string> {
  const client = new Client({ name: 'jwt-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const result = (await client.request({ method: 'tools/call', params: { name: 'whoami', arguments: {} } })) as { content: { text?: string }[] };
    return result.content.map((part) => part.text ?? '').join('');
  } finally {
    await client.close();
  }
}

it('accepts a token without kid signed by any of several published keys', async () => {
  expect((await answer(await sign({ sub: 'alice' }, current.privateKey))).status).toBe(200);
  expect((await answer(await sign({ sub: 'alice' }, old.privateKey))).status).toBe(200);
});

it('refuses a token without kid signed by no published key with 401, not a server error', async () => {
  const refused = await answer(await sign({ sub: 'alice' }, stranger.privateKey));
  expect(refused.status).toBe(401);
  expect(refused.challenge).toMatch(/^Bearer error="invalid_token"/);
});

it('refuses a sub that is not a string', async () => {
  expect((await answer(await sign({ sub: { id: 'alice' } }, current.privateKey, 'current'))).status).toBe(401);
});

it("names a client acting for itself so it cannot pass for a user whose sub is the client's id", async () => {
  expect(await whoami(await sign({ client_id: 'alice' }, current.privateKey, 'current'))).toBe(`client:alice via alice from ${issuer} [notes:read]`);
  expect(await whoami(await sign({ sub: 'alice', client_id: 'app' }, current.privateKey, 'current'))).toBe(`alice via app from ${issuer} [notes:read]`);
});

it('requires https for the issuer and the keys, except on a loopback host', async () => {
  const tools = new Toolset(new Notes());
  await expect(serveMcp(tools, { transport: 'http', port: 0, auth: { jwt: { issuer: 'http://idp.example.com' } } })).rejects.toThrow(
    /jwt\.issuer .*must use https/,
  );
  await expect(
    serveMcp(tools, { transport: 'http', port: 0, auth: { jwt: { issuer: 'https://idp.example.com', jwksUri: 'http://idp.example.com/jwks' } } }),
  ).rejects.toThrow(/jwt\.jwksUri .*must use https/);
  const loopback = await serveMcp(tools, {
    transport: 'http',
    port: 0,
    auth: { jwt: { issuer: 'https://idp.example.com', jwksUri: 'http://127.0.0.1:9/jwks' } },
  });
  await loopback.close();
});
