import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Tool, Toolset, type ExecutionContext } from '@anytool/core';
import { createMcpServer, mcpSession, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { EXAMPLE_TOOLS, ROOT, requireBuilt, waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// One endpoint, both protocol eras: 2025 clients (initialize, sessions, server-to-client requests) and
// 2026-07-28 clients (stateless, input_required rounds) reach the same tools, and a tool that asks the client
// in the middle of its work runs once whatever the era.
jest.setTimeout(scaled(60_000));

const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

/** Tools that ask the client mid-call and count their runs (a side effect that must not repeat). */
class Interview {
  runs = 0;
  aborted = 0;

  @Tool({ description: 'Asks a first name, the model, then a last name.', parameters: { type: 'object', properties: {} }, context: true })
  async interview(_args: object, context: ExecutionContext): Promise<string> {
    this.runs++;
    const session = mcpSession(context)!;
    const first = await session.elicitInput({ message: 'First name?', requestedSchema: NAME });
    const reply = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'a title' } }], maxTokens: 5 });
    const last = await session.elicitInput({ message: 'Last name?', requestedSchema: NAME });
    const title = reply.content.type === 'text' ? reply.content.text : '?';
    return `${session.era}: ${title} ${String(first.content?.['name'])} ${String(last.content?.['name'])}`;
  }

  @Tool({ description: 'Asks a name and waits for it, noting an abort.', parameters: { type: 'object', properties: {} }, context: true })
  async patient(_args: object, context: ExecutionContext): Promise<string> {
    context.signal!.addEventListener('abort', () => this.aborted++, { once: true });
    const answer = await mcpSession(context)!.elicitInput({ message: 'Name?', requestedSchema: NAME });
    return String(answer.content?.['name']);
  }

  @Tool({ description: 'Logs at info and says whether it was sent.', parameters: { type: 'object', properties: {} }, context: true })
  async logs(_args: object, context: ExecutionContext): Promise<string> {
    return String(await mcpSession(context)!.log('info', 'hello'));
  }
}

type Mode = 'v1' | 'legacy' | 'auto' | { pin: string };

/** A client of either SDK line that answers elicitation (names in turn) and sampling ("Dr."). */
async function connect(
  mode: Mode,
  transport: 'http' | 'stdio',
  target: string,
  names = ['Ada', 'Lovelace'],
  capabilities: Record<string, object> = { elicitation: {}, sampling: {} },
): Promise<{
  call: (name: string) => Promise<{ text: string; isError: boolean }>;
  era: string | undefined;
  close: () => Promise<void>;
  raw: Client | V1Client;
}> {
  const answers = [...names];
  const sample = () => ({ role: 'assistant' as const, content: { type: 'text' as const, text: 'Dr.' }, model: 'fake', stopReason: 'endTurn' });
  // Answers each question in the field its form asks for.
  const elicit = (request: { params: unknown }) => {
    const form = (request.params as { requestedSchema?: { properties?: object } }).requestedSchema;
    return { action: 'accept' as const, content: { [Object.keys(form?.properties ?? { name: 1 })[0]!]: answers.shift() ?? '?' } };
  };
  const text = (result: object) => ({
    text: ((result as { content: unknown }).content as Array<{ type: string; text?: string }>).map((block) => block.text ?? `[${block.type}]`).join('\n'),
    isError: (result as { isError?: unknown }).isError === true,
  });
  const stdio = { command: process.execPath, args: [target, 'serve', EXAMPLE_TOOLS], cwd: ROOT, stderr: 'pipe' as const };
  if (mode === 'v1') {
    const client = new V1Client({ name: 'eras-v1', version: '1' }, { capabilities });
    if (capabilities['elicitation']) client.setRequestHandler(ElicitRequestSchema, elicit);
    if (capabilities['sampling']) client.setRequestHandler(CreateMessageRequestSchema, sample);
    await client.connect(transport === 'http' ? new V1HttpTransport(new URL(target)) : new V1StdioClientTransport(stdio));
    return { call: async (name) => text(await client.callTool({ name, arguments: {} })), era: 'legacy', close: () => client.close(), raw: client };
  }
  const client = new Client({ name: 'eras-v2', version: '1' }, { capabilities, versionNegotiation: { mode } });
  if (capabilities['elicitation']) client.setRequestHandler('elicitation/create', elicit);
  if (capabilities['sampling']) client.setRequestHandler('sampling/createMessage', sample);
  await client.connect(transport === 'http' ? new StreamableHTTPClientTransport(new URL(target)) : new StdioClientTransport(stdio));
  return { call: async (name) => text(await client.callTool({ name, arguments: {} })), era: client.getProtocolEra(), close: () => client.close(), raw: client };
}

describe('serveMcp over HTTP, both eras on one endpoint', () => {
  let interview: Interview;
  let server: McpServerHandle;

  beforeAll(async () => {
    interview = new Interview();
    server = await serveMcp(new Toolset(interview), { transport: 'http', port: 0, inputTtlMs: 500, maxParkedCalls: 1 });
  });
  afterAll(() => server.close());

  const modes: Array<[Mode, 'legacy' | 'modern']> = [
    ['v1', 'legacy'],
    ['legacy', 'legacy'],
    ['auto', 'modern'],
    [{ pin: '2026-07-28' }, 'modern'],
  ];

  it.each(modes)('a tool that asks the client three times runs once, for a %p client (%s era)', async (mode, era) => {
    const sessions = server.sessionCount;
    const client = await connect(mode, 'http', server.url!);
    try {
      expect(client.era).toBe(era);
      const before = interview.runs;
      expect(await client.call('interview')).toEqual({ text: `${era}: Dr. Ada Lovelace`, isError: false });
      expect(interview.runs).toBe(before + 1);
      // The 2026-07-28 era keeps no session; the 2025 one does.
      expect(server.sessionCount - sessions).toBe(era === 'legacy' ? 1 : 0);
    } finally {
      await client.close();
    }
  });

  it('puts cache hints on tools/list for the 2026-07-28 era only', async () => {
    for (const [mode, hints] of [
      [{ pin: '2026-07-28' }, { ttlMs: 60_000, cacheScope: 'public' }],
      ['legacy', { ttlMs: undefined, cacheScope: undefined }],
    ] as const) {
      const client = await connect(mode, 'http', server.url!);
      try {
        const list = (await (client.raw as Client).request({ method: 'tools/list', params: {} })) as { ttlMs?: number; cacheScope?: string; tools: unknown[] };
        expect({ ttlMs: list.ttlMs, cacheScope: list.cacheScope, tools: list.tools.length }).toEqual({ ...hints, tools: 3 });
      } finally {
        await client.close();
      }
    }
  });

  it('sends logs on the 2026-07-28 era only when the request asks for them', async () => {
    const modern = await connect({ pin: '2026-07-28' }, 'http', server.url!);
    const legacy = await connect('legacy', 'http', server.url!);
    try {
      expect(await modern.call('logs')).toEqual({ text: 'false', isError: false });
      expect(await legacy.call('logs')).toEqual({ text: 'true', isError: false });
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('answers a 2026-07-28 call that asks what the client did not declare with -32021; a 2025 one gets an isError result', async () => {
    const modern = await connect({ pin: '2026-07-28' }, 'http', server.url!, [], {});
    const legacy = await connect('legacy', 'http', server.url!, [], {});
    try {
      await expect(modern.call('patient')).rejects.toMatchObject({ code: -32021 });
      expect(await legacy.call('patient')).toEqual({ text: expect.stringContaining('needs the client\'s "elicitation" capability'), isError: true });
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('ends a call whose client does not answer within inputTtlMs (its tool sees the abort), and holds at most maxParkedCalls', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = false;
    const slow = new Client({ name: 'slow', version: '1' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    slow.setRequestHandler('elicitation/create', async () => {
      asked = true;
      await held;
      return { action: 'accept', content: { name: 'late' } };
    });
    await slow.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
    const other = await connect({ pin: '2026-07-28' }, 'http', server.url!);
    try {
      const aborted = interview.aborted;
      const late = slow.callTool({ name: 'patient', arguments: {} });
      // While the first call waits for its answer, a second call cannot park (maxParkedCalls: 1).
      await waitFor(() => asked, 5_000, 'the first call to ask');
      expect(await other.call('patient')).toEqual({ text: expect.stringContaining('too many calls are waiting for the client'), isError: true });
      await waitFor(() => interview.aborted === aborted + 1, 5_000, 'the parked tool to see its abort');
      release();
      // Its next round comes too late: the state it carries names no call any more.
      await expect(late).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Invalid or expired requestState') });
    } finally {
      release();
      await slow.close();
      await other.close();
    }
  });
});

describe('serveMcp over HTTP: tools/list of the 2026-07-28 era from prepared text', () => {
  it('answers every page as the SDK answers it from the same server, cursors included', async () => {
    const options = { pageSize: 2, name: 'lists', version: '1.2.3', toolsListTtlMs: 5_000 };
    const toolset = new Toolset(new Interview());
    const server = await serveMcp(toolset, { transport: 'http', port: 0, ...options });
    const sdk = createMcpHandler(() => createMcpServer(toolset, options), { legacy: 'reject' });
    const list = async (fetchIt: (request: Request) => Promise<Response>, cursor?: string) => {
      const params = {
        ...(cursor === undefined ? {} : { cursor }),
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      };
      const request = new Request(server.url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params }),
      });
      const response = await fetchIt(request);
      return { status: response.status, body: (await response.json()) as { result?: { nextCursor?: string } } };
    };
    try {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const ours = await list((request) => fetch(request), cursor);
        expect(ours).toEqual(await list((request) => sdk.fetch(request), cursor));
        cursor = ours.body.result?.nextCursor;
        pages++;
      } while (cursor !== undefined);
      expect(pages).toBe(2);
      // A cursor it did not give out: the SDK's error, from either path.
      expect(await list((request) => fetch(request), 'bogus')).toEqual(await list((request) => sdk.fetch(request), 'bogus'));
    } finally {
      await sdk.close();
      await server.close();
    }
  });
});

describe("createMcpServer as the factory of the SDK's stateless handler", () => {
  it('keeps a call that asks the client across rounds, though each round gets a new server instance', async () => {
    const interview = new Interview();
    const toolset = new Toolset(interview);
    const handler = createMcpHandler(() => createMcpServer(toolset));
    const serve = toNodeHandler(handler);
    const http = createServer((req, res) => void serve(req as typeof req & { method: string; url: string }, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = await connect({ pin: '2026-07-28' }, 'http', `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    try {
      expect(await client.call('interview')).toEqual({ text: 'modern: Dr. Ada Lovelace', isError: false });
      expect(interview.runs).toBe(1);
    } finally {
      await client.close();
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});

describe('anytool serve over stdio, both eras', () => {
  const ANYTOOL = `${ROOT}/packages/schema/bin/anytool.mjs`;
  beforeAll(() => requireBuilt(EXAMPLE_TOOLS, ANYTOOL));

  it.each<[Mode, 'legacy' | 'modern']>([
    ['v1', 'legacy'],
    ['legacy', 'legacy'],
    [{ pin: '2026-07-28' }, 'modern'],
  ])('runs a two-question tool for a %p client (%s era)', async (mode, era) => {
    const client = await connect(mode, 'stdio', ANYTOOL, ['Ada', 'blue']);
    try {
      expect(client.era).toBe(era);
      expect(await client.call('test_input_required_result_multi_round')).toEqual({ text: 'Multi-round complete: Ada likes blue', isError: false });
    } finally {
      await client.close();
    }
  });
});
