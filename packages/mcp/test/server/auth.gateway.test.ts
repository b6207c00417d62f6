import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Tool, Toolset } from '@anytool/core';
import { McpToolset, createMcpServer, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';

// A gateway serves the tools of upstream MCP servers to its own callers. The caller's credentials stay at the
// gateway: each upstream gets the credentials configured for it, and nothing of the caller's.
jest.setTimeout(60_000);

class Echo {
  @Tool({ description: 'Echoes a word.', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] } })
  echo({ word }: { word: string }): string {
    return word;
  }
}

/** An upstream MCP server over HTTP that records the Authorization header of every request it gets. */
async function recordingUpstream(): Promise<{ url: string; seen: (string | undefined)[]; close: () => Promise<void> }> {
  const seen: (string | undefined)[] = [];
  const handler = createMcpHandler(() => createMcpServer(new Toolset(new Echo())));
  const node = toNodeHandler(handler);
  const http: HttpServer = createServer((req, res) => {
    seen.push(req.headers.authorization);
    void node(req as Parameters<typeof node>[0], res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    seen,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

const CALLER_TOKEN = 'caller-secret-0123456789';
const UPSTREAM_TOKEN = 'upstream-a-secret-0123456789';

let withCredentials: Awaited<ReturnType<typeof recordingUpstream>>;
let without: Awaited<ReturnType<typeof recordingUpstream>>;
let upstream: McpToolset;
let gateway: McpServerHandle;

beforeAll(async () => {
  [withCredentials, without] = await Promise.all([recordingUpstream(), recordingUpstream()]);
  upstream = await McpToolset.connect(
    {
      mcpServers: {
        a: { url: withCredentials.url, headers: { authorization: `Bearer ${UPSTREAM_TOKEN}` } },
        b: { url: without.url },
      },
    },
    { prefix: true },
  );
  gateway = await serveMcp(upstream, { transport: 'http', port: 0, auth: { tokens: [{ token: CALLER_TOKEN, subject: 'caller' }] } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await Promise.all([withCredentials?.close(), without?.close()]);
});

it.each(['legacy', 'modern'] as const)('sends each upstream its own credentials, never the caller’s (%s era)', async (era) => {
  const client = new Client({ name: 'gateway-caller', version: '1' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url!), { requestInit: { headers: { authorization: `Bearer ${CALLER_TOKEN}` } } }));
  try {
    const before = { a: withCredentials.seen.length, b: without.seen.length };
    for (const name of ['a_echo', 'b_echo']) {
      const result = (await client.request({ method: 'tools/call', params: { name, arguments: { word: 'hi' } } })) as { content: { text: string }[] };
      expect(result.content[0]!.text).toBe('hi');
    }
    const a = withCredentials.seen.slice(before.a);
    const b = without.seen.slice(before.b);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(new Set(a)).toEqual(new Set([`Bearer ${UPSTREAM_TOKEN}`]));
    expect(new Set(b)).toEqual(new Set([undefined]));
  } finally {
    await client.close();
  }
});
