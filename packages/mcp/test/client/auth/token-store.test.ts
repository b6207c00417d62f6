import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { FileTokenStore, MemoryTokenStore, readMcpServers, startLoopbackRedirect } from '../../../src';

// The token stores and the loopback redirect helper, on their own.

const posix = process.platform !== 'win32';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'anytool-tokens-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const entry = (access: string) => ({ tokens: { access_token: access, token_type: 'Bearer', issuer: 'https://issuer.example' }, expiresAt: 1 });

describe('FileTokenStore', () => {
  it('writes a file only its owner may read, in a directory only its owner may enter, and reads it back', async () => {
    const path = join(dir, 'nested', 'tokens.json');
    const store = new FileTokenStore(path);
    expect(await store.get('a')).toBeUndefined();
    await store.set('a', entry('one'));
    if (posix) {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    }
    expect(await new FileTokenStore(path).get('a')).toEqual(entry('one'));
    await store.clear('a');
    expect(await store.get('a')).toBeUndefined();
  });

  it('keeps every entry of concurrent saves, and leaves no temporary file', async () => {
    const path = join(dir, 'tokens.json');
    const store = new FileTokenStore(path);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`server-${i}`, entry(`token-${i}`))));
    for (let i = 0; i < 20; i++) expect((await store.get(`server-${i}`))?.tokens?.access_token).toBe(`token-${i}`);
    expect(readdirSync(dir)).toEqual(['tokens.json']);
  });

  (posix ? it : it.skip)('refuses a file its group or others may read, saying how to fix it', async () => {
    const path = join(dir, 'tokens.json');
    writeFileSync(path, JSON.stringify({ a: entry('leaked') }));
    chmodSync(path, 0o644);
    const store = new FileTokenStore(path);
    await expect(store.get('a')).rejects.toMatchObject({ code: 'INVALID_TOKEN_FILE', message: expect.stringContaining(`chmod 600 ${path}`) });
    // Nor is it written over.
    await expect(store.set('b', entry('two'))).rejects.toMatchObject({ code: 'INVALID_TOKEN_FILE' });
    chmodSync(path, 0o600);
    expect((await store.get('a'))?.tokens?.access_token).toBe('leaked');
  });

  it('refuses a file that is not a JSON object', async () => {
    const path = join(dir, 'tokens.json');
    writeFileSync(path, '[1, 2]', { mode: 0o600 });
    await expect(new FileTokenStore(path).get('a')).rejects.toMatchObject({
      code: 'INVALID_TOKEN_FILE',
      message: expect.stringContaining('not a JSON object'),
    });
  });
});

describe('MemoryTokenStore', () => {
  it('keeps an entry per key', () => {
    const store = new MemoryTokenStore();
    store.set('a', entry('one'));
    store.set('b', entry('two'));
    store.clear('a');
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')?.tokens?.access_token).toBe('two');
  });
});

describe('startLoopbackRedirect', () => {
  it('listens on 127.0.0.1 and resolves with the redirect whose state matches, refusing others', async () => {
    const loopback = await startLoopbackRedirect({ timeoutMs: 10_000 });
    try {
      expect(loopback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const authorizationUrl = new URL('https://issuer.example/authorize?state=right&client_id=x');
      let forged = 0;
      const back = await loopback.authorize(async (url) => {
        expect(url).toBe(authorizationUrl);
        forged = (await fetch(`${loopback.redirectUrl}?code=evil&state=wrong`)).status;
        const ok = await fetch(`${loopback.redirectUrl}?code=good&state=right&iss=https%3A%2F%2Fissuer.example`);
        expect(ok.status).toBe(200);
        await ok.text();
      })(authorizationUrl);
      expect(forged).toBe(400);
      expect(new URL(back).searchParams.get('code')).toBe('good');
      expect(new URL(back).searchParams.get('iss')).toBe('https://issuer.example');
    } finally {
      await loopback.close();
    }
  });

  it('answers a malformed request with 400 and keeps waiting for the real redirect', async () => {
    const loopback = await startLoopbackRedirect({ timeoutMs: 10_000 });
    const port = Number(new URL(loopback.redirectUrl).port);
    /** Sends `request` as it is (a fetch would refuse to) and resolves with the status line of the answer. */
    const raw = (request: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(received.split('\r\n')[0]!));
      });
    try {
      const back = await loopback.authorize(async () => {
        expect(await raw('GET /callback?state=wrong&code=evil HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 (400|404)/);
        expect(await raw('GET // HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 (400|404)/);
        await (await fetch(`${loopback.redirectUrl}?code=good&state=right`)).text();
      })(new URL('https://issuer.example/authorize?state=right'));
      expect(new URL(back).searchParams.get('code')).toBe('good');
    } finally {
      await loopback.close();
    }
  });

  it('rejects on an error redirect, on time out and on close', async () => {
    const loopback = await startLoopbackRedirect({ timeoutMs: 300 });
    try {
      const refused = loopback.authorize(async () => {
        await (await fetch(`${loopback.redirectUrl}?error=access_denied&state=s1`)).text();
      })(new URL('https://issuer.example/authorize?state=s1'));
      await expect(refused).rejects.toMatchObject({ code: 'MCP_AUTH_FAILED', message: expect.stringContaining('access_denied') });
      await expect(loopback.authorize(() => undefined)(new URL('https://issuer.example/authorize?state=s2'))).rejects.toMatchObject({
        message: expect.stringContaining('within 300 ms'),
      });
    } finally {
      await loopback.close();
    }
    await expect(loopback.authorize(() => undefined)(new URL('https://issuer.example/authorize?state=s3'))).rejects.toMatchObject({
      message: expect.stringContaining('was closed'),
    });
    expect(existsSync(dir)).toBe(true);
  });
});

describe('auth settings of an mcpServers entry', () => {
  const read = (auth: unknown, extra: object = {}): unknown => {
    try {
      return readMcpServers({ mcpServers: { api: { url: 'https://mcp.example/mcp', auth, ...extra } as never } }).get('api');
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('takes each kind, and refuses what a kind lacks with the field named', () => {
    expect(read({ type: 'client_credentials', issuer: 'https://id.example', clientId: 'job', clientSecret: 's' })).toMatchObject({
      auth: { type: 'client_credentials' },
    });
    expect(read({ type: 'authorization_code', redirectUrl: 'http://127.0.0.1:1/callback', authorize: () => 'code' })).toMatchObject({
      auth: { type: 'authorization_code' },
    });
    expect(read({ type: 'provider', provider: { token: async () => 't' } })).toMatchObject({ auth: { type: 'provider' } });
    expect(read({ type: 'client_credentials', clientId: 'job' })).toBe('MCP server "api": "client_credentials" needs "auth.clientSecret" or "auth.privateKey"');
    expect(read({ type: 'authorization_code', redirectUrl: 'http://127.0.0.1:1/callback' })).toMatch(/"auth.authorize" must be a function/);
    expect(read({ type: 'authorization_code', redirectUrl: 'x', authorize: () => 'c', clientMetadataUrl: 'http://insecure.example/c.json' })).toMatch(
      /"auth.clientMetadataUrl" must be an https URL/,
    );
    expect(read({ type: 'password' })).toMatch(/"auth.type" must be/);
    expect(read({ type: 'client_credentials', issuer: 'https://id.example', clientId: 'job', clientSecret: 's', store: {} })).toMatch(
      /"auth.store" must be a token store/,
    );
  });

  it('requires the issuer wherever a client secret or private key is configured, so it is sent to no other server', () => {
    const needed =
      'MCP server "api": "auth.issuer" is needed with a client secret or private key: the issuer URL of the authorization server the credentials belong to (they are sent nowhere else)';
    expect(read({ type: 'client_credentials', clientId: 'job', clientSecret: 's' })).toBe(needed);
    expect(read({ type: 'client_credentials', clientId: 'job', privateKey: { kty: 'RSA' } })).toBe(needed);
    expect(read({ type: 'authorization_code', redirectUrl: 'http://127.0.0.1:1/callback', authorize: () => 'code', clientId: 'app', clientSecret: 's' })).toBe(
      needed,
    );
    // A public client has no secret to lose: its issuer is optional.
    expect(read({ type: 'authorization_code', redirectUrl: 'http://127.0.0.1:1/callback', authorize: () => 'code', clientId: 'app' })).toMatchObject({
      auth: { type: 'authorization_code' },
    });
  });

  it('refuses auth on a command, and auth next to an Authorization header', () => {
    expect(() =>
      readMcpServers({
        mcpServers: {
          local: { command: 'node', auth: { type: 'client_credentials', issuer: 'https://id.example', clientId: 'a', clientSecret: 'b' } } as never,
        },
      }),
    ).toThrow(/applies to a server reached over HTTP/);
    expect(
      read({ type: 'client_credentials', issuer: 'https://id.example', clientId: 'a', clientSecret: 'b' }, { headers: { Authorization: 'Bearer x' } }),
    ).toMatch(/either "auth" \(OAuth\) or an "Authorization" header/);
  });
});
