import { createRemoteJWKSet, jwtVerify } from 'jose';
import { OidcTokenError, startOidcProvider, type OidcProvider } from './oidc';
import { scaled } from '../../../core/test/helpers/time-scale';

// The OpenID provider fixture itself: the server and client auth tests rely on what it issues.

const RESOURCE = 'http://127.0.0.1:1/mcp';

let idp: OidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider({
    scopes: ['tools:read', 'tools:write'],
    clients: [
      { clientId: 'machine', clientSecret: 'machine-secret', scopes: ['tools:read'] },
      { clientId: 'app', redirectUris: ['http://127.0.0.1/callback'] },
    ],
    account: 'ada',
  });
}, scaled(30_000));

afterAll(() => idp?.stop());

test('client credentials give a JWT access token for the named resource, verifiable with the JWKS', async () => {
  const token = await idp.tokenByClientCredentials({ clientId: 'machine', clientSecret: 'machine-secret', resource: RESOURCE, scopes: ['tools:read'] });
  expect(token.token_type).toBe('Bearer');
  const { payload, protectedHeader } = await jwtVerify(token.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), {
    issuer: idp.issuer,
    audience: RESOURCE,
  });
  expect(protectedHeader.typ).toBe('at+jwt');
  expect(payload).toMatchObject({ sub: 'machine', client_id: 'machine', scope: 'tools:read' });
  expect(payload.exp! - payload.iat!).toBe(600);
});

test('client credentials refuse a scope the client was not given', async () => {
  await expect(
    idp.tokenByClientCredentials({ clientId: 'machine', clientSecret: 'machine-secret', resource: RESOURCE, scopes: ['tools:write'] }),
  ).rejects.toThrow(OidcTokenError);
});

test('the code flow with PKCE logs the account in, and a refresh token works once', async () => {
  // Any port on the loopback redirect URI: a native client's registered URI matches whatever port a CLI listens on.
  const token = await idp.codeFlow({
    clientId: 'app',
    redirectUri: 'http://127.0.0.1:45678/callback',
    resource: RESOURCE,
    scopes: ['tools:read', 'tools:write'],
    account: 'grace',
  });
  const { payload } = await jwtVerify(token.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), { issuer: idp.issuer, audience: RESOURCE });
  expect(payload).toMatchObject({ sub: 'grace', client_id: 'app', scope: 'tools:read tools:write' });
  expect(token.refresh_token).toEqual(expect.any(String));

  const refreshed = await idp.refresh({ clientId: 'app', refreshToken: token.refresh_token! });
  expect(refreshed.refresh_token).not.toBe(token.refresh_token);
  const again = await jwtVerify(refreshed.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), { issuer: idp.issuer, audience: RESOURCE });
  expect(again.payload).toMatchObject({ sub: 'grace', client_id: 'app' });
  // Rotation: the first refresh token was spent.
  await expect(idp.refresh({ clientId: 'app', refreshToken: token.refresh_token! })).rejects.toMatchObject({ error: 'invalid_grant' });
});

test(
  'two providers are two issuers with their own keys',
  async () => {
    const other = await startOidcProvider({ scopes: ['tools:read'], clients: [{ clientId: 'machine', clientSecret: 'machine-secret' }] });
    try {
      expect(other.issuer).not.toBe(idp.issuer);
      const token = await other.tokenByClientCredentials({ clientId: 'machine', clientSecret: 'machine-secret', resource: RESOURCE, scopes: ['tools:read'] });
      await expect(jwtVerify(token.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), { audience: RESOURCE })).rejects.toThrow();
    } finally {
      await other.stop();
    }
  },
  scaled(30_000),
);
