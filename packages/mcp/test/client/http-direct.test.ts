import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { createBrotliCompress, createDeflate, createGzip } from 'node:zlib';
import { ProxyAgent, setGlobalDispatcher } from 'undici';
import { McpConnection } from '@anytool/mcp';
import { directRequest } from '../../src/client/http-direct';
import { startStreamableServer, type StreamableFixture } from '../fixtures/http-servers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const globals = globalThis as unknown as Record<symbol, unknown>;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Forwards a request to `target` (the same method, headers and body); `answer` writes the upstream response back. */
function forward(req: IncomingMessage, res: ServerResponse, target: string, answer: (upstream: IncomingMessage, res: ServerResponse) => void): void {
  const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (response) => answer(response, res));
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

async function echo(connection: McpConnection, message: string): Promise<string> {
  const result = await connection.callTool('echo', { message });
  return (result.content[0] as { text: string }).text;
}

describe('the requests of an HTTP session, sent without fetch', () => {
  let fixture: StreamableFixture;

  beforeAll(async () => {
    fixture = await startStreamableServer();
  });

  afterAll(async () => {
    await fixture.close();
  });

  it('go through the dispatcher fetch uses, whatever the application registered', async () => {
    const original = globals[GLOBAL_DISPATCHER] as object;
    const seen: string[] = [];
    globals[GLOBAL_DISPATCHER] = new Proxy(original, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (key === 'request') {
          return (options: { method: string; path: string }) => {
            seen.push(`${options.method} ${options.path}`);
            return (value as (o: unknown) => unknown).call(target, options);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      const connection = await McpConnection.open('direct', { url: fixture.url });
      try {
        expect(await echo(connection, 'one')).toBe('one');
        expect(await Promise.all(['two', 'three'].map((m) => echo(connection, m)))).toEqual(['two', 'three']);
      } finally {
        await connection.close();
      }
    } finally {
      globals[GLOBAL_DISPATCHER] = original;
    }
    // Every request of the session: the era probe, initialize, the initialized notification, the calls, the final DELETE.
    expect(seen.filter((s) => s === 'POST /mcp').length).toBeGreaterThanOrEqual(5);
    expect(seen).toContain('DELETE /mcp');
  });

  it("go through a proxy set with undici's setGlobalDispatcher", async () => {
    const tunnels: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, socket, head: Buffer) => {
      tunnels.push(req.url!);
      const [host, port] = req.url!.split(':');
      const upstream = netConnect(Number(port), host!, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    const proxyUrl = await listen(proxy);
    const original = globals[GLOBAL_DISPATCHER];
    const agent = new ProxyAgent(proxyUrl);
    setGlobalDispatcher(agent);
    try {
      const connection = await McpConnection.open('proxied', { url: fixture.url });
      try {
        expect(await echo(connection, 'through the proxy')).toBe('through the proxy');
      } finally {
        await connection.close();
      }
    } finally {
      globals[GLOBAL_DISPATCHER] = original;
      await agent.close();
      await close(proxy);
    }
    expect(tunnels.length).toBeGreaterThanOrEqual(1);
    expect(new Set(tunnels)).toEqual(new Set([new URL(fixture.url).host]));
  });

  it.each([
    ['gzip', createGzip],
    ['deflate', createDeflate],
    ['br', createBrotliCompress],
  ] as const)('read a body in %s, as fetch decodes it', async (coding, compressor) => {
    let compressed = 0;
    const front = createServer((req, res) =>
      forward(req, res, fixture.url, (upstream, out) => {
        const headers = { ...upstream.headers };
        // The answers to POSTed requests end with their last event: those are compressed whole.
        if (req.method === 'POST' && upstream.statusCode === 200) {
          delete headers['content-length'];
          headers['content-encoding'] = coding;
          compressed++;
          out.writeHead(upstream.statusCode, headers);
          upstream.pipe(compressor()).pipe(out);
        } else {
          out.writeHead(upstream.statusCode!, headers);
          upstream.pipe(out);
        }
      }),
    );
    const url = `${await listen(front)}/mcp`;
    try {
      const connection = await McpConnection.open(coding, { url });
      try {
        expect(await echo(connection, `in ${coding} ü€😀`)).toBe(`in ${coding} ü€😀`);
      } finally {
        await connection.close();
      }
    } finally {
      await close(front);
    }
    expect(compressed).toBeGreaterThanOrEqual(2);
  });

  it('give a redirect back to the SDK, which follows it within the origin', async () => {
    let redirected = 0;
    const front = createServer((req, res) => {
      if (req.url === '/old') {
        redirected++;
        req.resume();
        res.writeHead(307, { location: '/mcp' }).end();
        return;
      }
      forward(req, res, fixture.url, (upstream, out) => {
        out.writeHead(upstream.statusCode!, upstream.headers);
        upstream.pipe(out);
      });
    });
    const base = await listen(front);
    try {
      const connection = await McpConnection.open('moved', { url: `${base}/old` });
      try {
        expect(await echo(connection, 'moved')).toBe('moved');
      } finally {
        await connection.close();
      }
    } finally {
      await close(front);
    }
    expect(redirected).toBeGreaterThanOrEqual(2);
  });
});

describe('directRequest', () => {
  const init = (extra: RequestInit = {}): RequestInit => ({ method: 'POST', body: '{}', redirect: 'manual', ...extra });

  it('fails as fetch fails when nothing listens: TypeError "fetch failed" with the cause', async () => {
    const server = createServer();
    const url = await listen(server);
    await close(server);
    const failure = (sent: Promise<unknown>): Promise<TypeError> =>
      sent.then(
        () => {
          throw new Error('it should have failed');
        },
        (error: unknown) => error as TypeError,
      );
    const theirs = await failure(fetch(url, init()));
    const ours = await failure(directRequest(url, init())!);
    expect(ours).toBeInstanceOf(TypeError);
    expect(ours.message).toBe(theirs.message);
    expect((ours.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect((ours.cause as { code?: string }).code).toBe((theirs.cause as { code?: string }).code);
  });

  it("rejects with the signal's reason when aborted, as fetch does", async () => {
    const server = createServer(() => undefined);
    const url = await listen(server);
    try {
      const controller = new AbortController();
      const sent = directRequest(url, init({ signal: controller.signal }))!;
      setTimeout(() => controller.abort(new Error('stop now')), 50);
      await expect(sent).rejects.toThrow('stop now');
    } finally {
      await close(server);
    }
  });

  it('sends what fetch would: default accept and user-agent, a text body typed as text; gives no body for 204', async () => {
    const received: IncomingMessage['headers'][] = [];
    const server = createServer((req, res) => {
      received.push(req.headers);
      req.resume();
      res
        .writeHead(req.method === 'DELETE' ? 204 : 200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] })
        .end(req.method === 'DELETE' ? undefined : '{"ok":true}');
    });
    const url = await listen(server);
    try {
      const posted = await directRequest(`${url}/mcp?x=1`, init())!;
      expect(posted.status).toBe(200);
      expect(posted.statusText).toBe('OK');
      expect(posted.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      let text = '';
      for await (const chunk of posted.body!) text += String(chunk);
      expect(text).toBe('{"ok":true}');
      expect(received[0]).toMatchObject({ accept: '*/*', 'user-agent': 'node', 'content-type': 'text/plain;charset=UTF-8', 'content-length': '2' });
      const deleted = await directRequest(`${url}/mcp`, { method: 'DELETE', redirect: 'manual', headers: { accept: 'application/json' } })!;
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeNull();
      expect(received[1]).toMatchObject({ accept: 'application/json' });
    } finally {
      await close(server);
    }
  });

  it('leaves to fetch what it does not send itself', () => {
    const url = 'http://127.0.0.1:1/mcp';
    expect(directRequest(url, { method: 'POST', body: '{}' })).toBeUndefined();
    expect(directRequest(url, init({ redirect: 'follow' }))).toBeUndefined();
    expect(directRequest(url, init({ body: new URLSearchParams({ a: '1' }) }))).toBeUndefined();
    expect(directRequest(url, init({ method: 'PUT' }))).toBeUndefined();
    expect(directRequest('http://user:secret@127.0.0.1:1/mcp', init())).toBeUndefined();
    expect(directRequest('ftp://127.0.0.1/mcp', init())).toBeUndefined();
  });
});
