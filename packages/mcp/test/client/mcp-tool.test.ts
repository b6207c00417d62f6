// What an MCP server receives of a run's context, read on the wire: the raw body of every request
// that reaches a real v2 SDK server, and the `_meta` its tools/call handler sees.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, ExecutionContext, Toolset, resultText } from '@anytool/core';
import { CONTEXT_META_KEY, McpToolset } from '@anytool/mcp';
import { Server, createMcpHandler } from '@modelcontextprotocol/server';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

interface WireServer {
  url: string;
  /** The raw JSON-RPC bodies of the `tools/call` requests, as they arrived. */
  callBodies: string[];
  /** `params._meta` of each call, as the SDK server's handler saw it. */
  handlerMeta: unknown[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) res.write(read.value);
  }
  res.end();
}

async function startWireServer(): Promise<WireServer> {
  const callBodies: string[] = [];
  const handlerMeta: unknown[] = [];
  const handler = createMcpHandler(() => {
    const server = new Server({ name: 'wire', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'echo', description: 'Echoes the text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }],
    }));
    server.setRequestHandler('tools/call', (request) => {
      handlerMeta.push(request.params._meta);
      return { content: [{ type: 'text', text: String(request.params.arguments?.['text']) }] };
    });
    return server;
  });
  const http = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (body !== undefined && (JSON.parse(body.toString('utf8')) as { method?: string }).method === 'tools/call') callBodies.push(body.toString('utf8'));
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      });
      await send(res, await handler.fetch(request));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    callBodies,
    handlerMeta,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

const SECRETS = ['sk-live-4242', 'hunter2-password'];

/** A run whose state holds secrets, and a tenant that may be sent when asked for. */
function secretRun(): ExecutionContext {
  return new ExecutionContext({
    state: new Map<string, unknown>([
      ['apiKey', SECRETS[0]],
      ['password', SECRETS[1]],
      ['tenant', 'acme'],
      ['plan', { tier: 'gold', seats: 3 }],
    ]),
  });
}

/** `_meta` keys that are not context data: the protocol's own (the era's envelope) and the progress token. */
function contextKeys(meta: unknown): string[] {
  if (meta === undefined) return [];
  return Object.keys(meta as object).filter((key) => key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/'));
}

describe("an MCP tool's requests carry none of the run's context", () => {
  let server: WireServer;
  beforeAll(async () => {
    server = await startWireServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.callBodies.length = 0;
    server.handlerMeta.length = 0;
  });

  it('sends no state in _meta or anywhere in the request, progress token or not', async () => {
    for (const progress of [false, true]) {
      const mcp = await McpToolset.connect({ mcpServers: { wire: { type: 'http', url: server.url, progress } } });
      try {
        const context = secretRun();
        const result = await new Toolset(mcp).invoke('echo', { text: 'hello' }, context);
        expect(resultText(result)).toBe('hello');
      } finally {
        await mcp.close();
      }
    }
    expect(server.callBodies).toHaveLength(2);
    for (const body of server.callBodies) {
      for (const secret of [...SECRETS, 'acme', 'gold']) expect(body).not.toContain(secret);
      expect(contextKeys((JSON.parse(body) as { params: { _meta?: unknown } }).params._meta)).toEqual([]);
    }
    expect(server.handlerMeta.map(contextKeys)).toEqual([[], []]);
    // With progress asked for, the call carried `_meta` (the token): what was allowed in, nothing else.
    expect(server.handlerMeta.some((meta) => meta !== undefined && 'progressToken' in (meta as object))).toBe(true);
  });

  it('sends exactly the state keys its source is configured to send, under one namespaced key', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { wire: { type: 'http', url: server.url } } }, { contextMeta: ['tenant', 'plan', 'region'] });
    try {
      expect(resultText(await new Toolset(mcp).invoke('echo', { text: 'hi' }, secretRun()))).toBe('hi');
    } finally {
      await mcp.close();
    }
    const sent = (JSON.parse(server.callBodies[0]!) as { params: { _meta?: Record<string, unknown> } }).params._meta!;
    expect(contextKeys(sent)).toEqual([CONTEXT_META_KEY]);
    // `region` is not set in this run: it is left out, not sent as null.
    expect(sent[CONTEXT_META_KEY]).toEqual({ tenant: 'acme', plan: { tier: 'gold', seats: 3 } });
    for (const secret of SECRETS) expect(server.callBodies[0]).not.toContain(secret);
    expect((server.handlerMeta[0] as Record<string, unknown>)[CONTEXT_META_KEY]).toEqual({ tenant: 'acme', plan: { tier: 'gold', seats: 3 } });
  });

  it("lets a server's own contextMeta win over the toolset's, and refuses a value JSON cannot carry", async () => {
    const mcp = await McpToolset.connect({ mcpServers: { wire: { type: 'http', url: server.url, contextMeta: ['plan'] } } }, { contextMeta: ['tenant'] });
    try {
      const toolset = new Toolset(mcp);
      expect(resultText(await toolset.invoke('echo', { text: 'a' }, secretRun()))).toBe('a');
      const run = secretRun();
      run.state.set('plan', new Map([['tier', 'gold']]));
      const refused = await toolset.invoke('echo', { text: 'b' }, run);
      expect(refused.isError).toBe(true);
      expect(refused.error?.code).toBe(ErrorCode.InvalidOptions);
      expect(resultText(refused)).toContain('state key "plan" is configured to be sent to the server (contextMeta), but it holds an instance of Map');
    } finally {
      await mcp.close();
    }
    expect(server.callBodies).toHaveLength(1);
    expect((JSON.parse(server.callBodies[0]!) as { params: { _meta: Record<string, unknown> } }).params._meta[CONTEXT_META_KEY]).toEqual({
      plan: { tier: 'gold', seats: 3 },
    });
  });

  it('checks contextMeta in a server configuration', async () => {
    await expect(McpToolset.connect({ mcpServers: { wire: { type: 'http', url: server.url, contextMeta: 'tenant' as unknown as string[] } } })).rejects.toThrow(
      /"contextMeta" must be an array of state keys/,
    );
  });
});
