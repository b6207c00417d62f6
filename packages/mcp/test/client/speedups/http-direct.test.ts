import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { createBrotliCompress, createDeflate, createGzip, deflateRawSync, gzipSync } from 'node:zlib';
import { ProxyAgent, setGlobalDispatcher } from 'undici';
import { McpConnection } from '@anytool/mcp';
import { getEventListeners } from 'node:events';
import { directRequest } from '../../../src/client/speedups/http-direct';
import { limitedFetch } from '../../../src/client/http-limits';
import { startStreamableServer, type StreamableFixture } from '../../fixtures/http-servers';
import { scaled } from '../../../../core/test/helpers/time-scale';

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

describe('limitedFetch without a fetch of its own', () => {
  it("ends a body stopped mid-stream by the signal with the signal's reason, and lets go of the signal", async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"first"}}\n\n');
    });
    const url = await listen(server);
    try {
      const controller = new AbortController();
      const fetch = limitedFetch(1 << 20, () => undefined);
      const response = await fetch(url, { method: 'GET', redirect: 'manual', signal: controller.signal });
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain('"first"');
      expect(getEventListeners(controller.signal, 'abort').length).toBe(1);
      const reason = new Error('closed by the client');
      setTimeout(() => controller.abort(reason), 20);
      await expect(reader.read()).rejects.toBe(reason);
      expect(getEventListeners(controller.signal, 'abort').length).toBe(0);
    } finally {
      await close(server);
    }
  });

  it('reads a large body to its limit, read late, and refuses one past it', async () => {
    const size = 8 << 20;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.alloc(size, 0x20));
    });
    const url = await listen(server);
    try {
      const fetch = limitedFetch(size, () => undefined);
      const response = await fetch(url, { method: 'POST', body: '{}', redirect: 'manual' });
      // Nothing reads for a while: reading resumes when the body is read.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await response.arrayBuffer()).byteLength).toBe(size);
      const refused = await limitedFetch(size - 1, () => undefined)(url, { method: 'POST', body: '{}', redirect: 'manual' });
      await expect(refused.arrayBuffer()).rejects.toThrow(/over the .* limit|too large/i);
    } finally {
      await close(server);
    }
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
      expect(received[0]).toMatchObject({
        accept: '*/*',
        'accept-encoding': 'gzip, deflate',
        'user-agent': 'node',
        'content-type': 'text/plain;charset=UTF-8',
        'content-length': '2',
      });
      const deleted = await directRequest(`${url}/mcp`, { method: 'DELETE', redirect: 'manual', headers: { accept: 'application/json' } })!;
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeNull();
      expect(received[1]).toMatchObject({ accept: 'application/json' });
    } finally {
      await close(server);
    }
  });

  it('reads header values as fetch does, Latin-1, whatever undici the process has', async () => {
    const server = createServer((req, res) => {
      req.resume();
      // One header in UTF-8 bytes, one Latin-1 byte: what a careless server sends.
      res.writeHead(200, [
        ['content-type', 'text/plain'],
        ['x-utf8', Buffer.from('€ and é', 'utf8').toString('latin1')],
        ['x-latin1', '\xe9t\xe9'],
      ]);
      res.end('ok');
    });
    const url = await listen(server);
    try {
      const theirs = await fetch(url, init());
      const ours = await directRequest(url, init())!;
      expect(ours.headers.get('x-utf8')).toBe(theirs.headers.get('x-utf8'));
      // undici 6 (Node 20, 22) decodes a byte that is not UTF-8 to U+FFFD before anything can read it; undici 7 (Node 24) does not.
      expect([theirs.headers.get('x-latin1'), Buffer.from('\ufffdt\ufffd', 'utf8').toString('latin1')]).toContain(ours.headers.get('x-latin1'));
      let text = '';
      for await (const chunk of ours.body!) text += String(chunk);
      expect(text).toBe(await theirs.text());
    } finally {
      await close(server);
    }
  });

  it('fails a response it cannot give as fetch fails, and leaves nothing of it open', async () => {
    let opened = 0;
    let closed = 0;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(700, { 'content-type': 'text/event-stream' });
      res.write('data: never read\n\n');
      setTimeout(() => res.destroy(), 50);
    });
    server.on('connection', (socket) => {
      opened++;
      socket.on('close', () => closed++);
    });
    const url = await listen(server);
    try {
      const failure = await directRequest(url, init())!.then(
        () => undefined,
        (error: unknown) => error as TypeError,
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect(failure!.message).toBe('fetch failed');
      expect(String((failure!.cause as Error).message)).toContain('status 700');
      // The body is dropped at once: its connection is closed, with no unheard error (jest fails a test on one).
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(opened).toBeGreaterThanOrEqual(1);
      expect(closed).toBeGreaterThanOrEqual(1);
    } finally {
      await close(server);
    }
  });

  it.each([
    ['raw deflate labelled deflate', 'deflate', (text: string) => deflateRawSync(text)],
    ['gzip cut short of its trailer', 'gzip', (text: string) => gzipSync(text).subarray(0, -8)],
  ] as const)('decodes %s as fetch does', async (_, coding, encode) => {
    const text = 'a body '.repeat(200);
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end(encode(text));
    });
    const url = await listen(server);
    try {
      const ours = await directRequest(url, init())!;
      let read = '';
      for await (const chunk of ours.body!) read += String(chunk);
      expect(read).toBe(await (await fetch(url, init())).text());
      expect(read).toBe(text);
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
