import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { AnytoolError, ErrorCode, ExecutionContext, Toolset, resultText, tool, type RunProgressEvent } from '@anytool/core';
import { McpConnection, McpToolset, serveMcp } from '@anytool/mcp';
import { startSseServer, startStreamableServer } from '../fixtures/http-servers';
import { EVERYTHING, alive, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('server-everything over streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await until(() => output.includes('listening on port'), 20_000, 'server-everything to listen');
    url = `http://127.0.0.1:${port}/mcp`;
  });

  afterAll(async () => {
    child.kill();
    await until(() => !alive(child.pid!), 10_000, 'server-everything to exit');
  });

  it('lists and calls tools on a kept session, with progress, next to a local tool', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { web: { type: 'http', url, progress: true } } }, { prefix: true });
    try {
      const shout = tool(({ text }: { text: string }) => text.toUpperCase(), {
        name: 'shout',
        description: 'Upper-cases text.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      });
      const toolset = new Toolset(shout, mcp);
      expect(resultText(await toolset.invoke('shout', { text: 'local' }))).toBe('LOCAL');
      const context = new ExecutionContext();
      expect(resultText(await toolset.invoke('web_echo', { message: 'over http' }, context))).toBe('Echo: over http');
      expect(resultText(await toolset.invoke('web_get-sum', { a: 40, b: 2 }, context))).toBe('The sum of 40 and 2 is 42.');
      const long = await toolset.invoke('web_trigger-long-running-operation', { duration: 0.6, steps: 3 }, context);
      expect(resultText(long)).toContain('completed');
      expect(context.events.filter((e): e is RunProgressEvent => e.type === 'progress').length).toBeGreaterThanOrEqual(1);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => toolset.invoke('web_echo', { message: `#${i}` })));
      results.forEach((r, i) => expect(resultText(r)).toBe(`Echo: #${i}`));
      expect(mcp.connection('web')!.starts).toBe(1);
    } finally {
      await mcp.close();
    }
  });
});

describe('HTTP sessions and old servers', () => {
  it('initializes a new session when the server answers 404 for the old one, and the call goes through', async () => {
    const server = await startStreamableServer();
    const mcp = await McpToolset.connect({ mcpServers: { s: { url: server.url } } });
    try {
      const toolset = new Toolset(mcp);
      expect(resultText(await toolset.invoke('echo', { message: 'one' }))).toBe('one');
      await server.forgetSessions();
      expect(resultText(await toolset.invoke('echo', { message: 'two' }))).toBe('two');
      expect(server.initialized).toBe(2);
      expect(mcp.connection('s')!.diagnostics.join('\n')).toContain('404');
    } finally {
      await mcp.close();
      await server.close();
    }
  });

  it('a run abort while a call is sent again on a new session (after a 404) settles it at once with ABORTED', async () => {
    const server = await startStreamableServer();
    const connection = await McpConnection.open('s', { url: server.url });
    try {
      await server.forgetSessions();
      const controller = new AbortController();
      const started = Date.now();
      const call = connection.callTool('sleep', { ms: 5_000 }, { signal: controller.signal }).then(
        () => 'resolved',
        (error: AnytoolError) => error,
      );
      // The first request gets 404; the call is sent again on a new session and sleeps there.
      await until(() => server.initialized === 2, 5_000, 'the new session');
      controller.abort(new Error('user pressed stop'));
      const error = await call;
      expect(error).toBeInstanceOf(AnytoolError);
      expect((error as AnytoolError).code).toBe(ErrorCode.Aborted);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await connection.close();
      await server.close();
    }
  });

  it('20 concurrent calls when the server forgot the session: all succeed on one new session, even a call whose 404 comes late', async () => {
    const server = await startStreamableServer({ late404Ms: 300 });
    const connection = await McpConnection.open('s', { url: server.url });
    try {
      expect((await connection.callTool('echo', { message: 'one' })).content).toEqual([{ type: 'text', text: 'one' }]);
      await server.forgetSessions();
      // The "late" call's 404 would come after the new session is open; closing the expired client cuts it off,
      // and it must be sent again on the shared new session, not open a third.
      const messages = Array.from({ length: 20 }, (_, i) => (i === 0 ? 'late' : `m${i}`));
      const results = await Promise.allSettled(messages.map((message) => connection.callTool('echo', { message })));
      const failed = results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : []));
      expect(failed).toEqual([]);
      results.forEach((r, i) => expect(r.status === 'fulfilled' && r.value.content).toEqual([{ type: 'text', text: messages[i] }]));
      // One reconnect, shared by every call of the expired session.
      expect(server.initialized).toBe(2);
      expect(connection.starts).toBe(2);
    } finally {
      await connection.close();
      await server.close();
    }
  });

  it("arguments over the server's body limit end the call with PAYLOAD_TOO_LARGE, and smaller ones still go through", async () => {
    const size = tool(({ text }: { text: string }) => text.length, {
      name: 'size',
      description: 'Counts characters.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    const server = await serveMcp(new Toolset(size), { transport: 'http', port: 0, maxBodyBytes: 4_000 });
    const mcp = await McpToolset.connect({ mcpServers: { small: { url: server.url! } } });
    try {
      const toolset = new Toolset(mcp);
      const refused = await toolset.invoke('size', { text: 'x'.repeat(10_000) });
      expect(refused.error?.code).toBe(ErrorCode.PayloadTooLarge);
      expect(resultText(refused)).toMatch(/HTTP 413.*smaller arguments.*maxBodyBytes/s);
      expect(resultText(await toolset.invoke('size', { text: 'x'.repeat(100) }))).toBe('100');
    } finally {
      await mcp.close();
      await server.close();
    }
  });

  it('when neither streamable HTTP nor the SSE fallback works, the error gives both answers', async () => {
    const http = createHttpServer((req, res) => {
      if (req.method === 'POST') res.writeHead(404, { 'content-type': 'text/plain' }).end('no MCP endpoint here');
      else res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as { port: number }).port}/wrong-path`;
    try {
      const error = await McpConnection.open('s', { url, startTimeoutMs: scaled(5_000) }).then(
        async (c) => {
          await c.close();
          throw new Error('expected the connection to fail');
        },
        (e: unknown) => e as AnytoolError,
      );
      expect(error).toBeInstanceOf(AnytoolError);
      expect(error.code).toBe(ErrorCode.McpConnectFailed);
      expect(error.message).toMatch(/streamable HTTP: .*404.*; SSE fallback: .*500/s);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('falls back to the HTTP+SSE transport for a server that only speaks it', async () => {
    const server = await startSseServer();
    const mcp = await McpToolset.connect({ mcpServers: { old: { url: server.url } } });
    try {
      expect(resultText(await new Toolset(mcp).invoke('echo', { message: 'via sse' }))).toBe('via sse');
      expect(mcp.connection('old')!.diagnostics.join('\n')).toContain('trying the HTTP+SSE transport');
    } finally {
      await mcp.close();
      await server.close();
    }
  });
});
