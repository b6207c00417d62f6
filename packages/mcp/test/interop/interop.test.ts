import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { ExecutionContext, Toolset, resultText } from '@anytool/core';
import { McpToolset, type McpServerConfig } from '@anytool/mcp';
import { EVERYTHING } from '../client/helpers';
import { EXAMPLE_TOOLS, MCP_DIST, ROOT, requireBuilt, startHttpChild, stopChild } from '../server/helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

/*
 * The interop matrix: our client against other servers, other clients against our server, over stdio and
 * streamable HTTP, in both protocol eras (2025: `initialize` and sessions; 2026-07-28: `server/discover`,
 * stateless). Every cell is a real process or real HTTP on 127.0.0.1, and does the same thing: list the tools,
 * call one, check the result, call one that fails, check the error result, and check the era that served it.
 *
 * A cell's `era` is where it must land. A cell that cannot pass before @anytool/mcp moves to the v2 SDK says so:
 * - `pending`: it cannot run at all yet (a modern-only peer, a pinned client); it is listed as a todo with the reason.
 * - `today`: it runs, and lands on another era for the reason given (a negotiating peer falls back to 2025).
 * The migration deletes those two fields.
 */

jest.setTimeout(scaled(60_000));

type Era = 'legacy' | 'modern';
type Transport = 'stdio' | 'http';

interface Cell {
  /** Who connects. */
  client: string;
  /** Who serves. */
  server: string;
  transport: Transport;
  era: Era;
  /** The cell cannot run before the migration, for this reason. */
  pending?: string;
  /** The cell runs, but lands on this era before the migration, for this reason. */
  today?: { era: Era; why: string };
}

/** What a cell saw. `era` is undefined where neither side can tell (a peer that hides it and a server that never says). */
interface Outcome {
  tools: string[];
  ok: { isError: boolean; text: string };
  failed: { isError: boolean; text: string };
  era: Era | 'not reported' | undefined;
}

const SERVERS = join(__dirname, '..', 'fixtures', 'interop', 'servers.mjs');
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MODULE = 'examples/dist/mcp-server/tools.js';

function title(cell: Cell): string {
  return `${cell.client} -> ${cell.server}, ${cell.transport}, ${cell.era}${cell.today ? ` (${cell.today.era} until the migration: ${cell.today.why})` : ''}`;
}

function define(cells: Cell[], run: (cell: Cell) => Promise<Outcome>, expected: (cell: Cell) => { ok: RegExp; failed: RegExp; tools: string[] }): void {
  for (const cell of cells) {
    if (cell.pending !== undefined) {
      it.todo(`${title(cell)}: pending, ${cell.pending}`);
      continue;
    }
    it(title(cell), async () => {
      const outcome = await run(cell);
      const want = expected(cell);
      expect(outcome.tools).toEqual(expect.arrayContaining(want.tools));
      expect(outcome.ok).toEqual({ isError: false, text: expect.stringMatching(want.ok) });
      expect(outcome.failed).toEqual({ isError: true, text: expect.stringMatching(want.failed) });
      if (outcome.era !== undefined) expect(outcome.era).toBe(cell.today?.era ?? cell.era);
    });
  }
}

/** The era a server said it served the echo call in (`served <era> echo` on its stderr), if it says. */
function servedEra(stderr: string): Era | undefined {
  return /served (legacy|modern) echo/.exec(stderr)?.[1] as Era | undefined;
}

/** An HTTP server of the matrix, started once per describe block and stopped (exit code 0) after it. */
function httpServer(args: string[]): { url: () => string; stderr: () => string } {
  let server: { child: ChildProcessWithoutNullStreams; url: string; stderr: () => string; exited: Promise<number | null> } | undefined;
  beforeAll(async () => {
    server = await startHttpChild(args);
  });
  afterAll(async () => {
    if (server !== undefined) expect(await stopChild(server.child, server.exited)).toBe(0);
  });
  return { url: () => server!.url, stderr: () => server!.stderr() };
}

describe('interop: the servers of the matrix', () => {
  it('the strict stdio server exits on a request before initialize (what the era probe must survive)', async () => {
    const child = spawn(process.execPath, [SERVERS, 'strict', 'stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} })}\n`);
    expect(await exited).toBe(3);
    expect(stderr).toContain('exiting: server/discover before initialize');
  });
});

describe('interop: our client (McpToolset) against other servers', () => {
  interface Peer {
    config: (transport: Transport) => McpServerConfig;
    /** The tool that echoes, its arguments and answer; the call that fails and its message. */
    ok: { tool: string; args: Record<string, unknown>; text: RegExp };
    failed: { tool: string; args: Record<string, unknown>; text: RegExp };
    /** Where the server says which era it served (its stderr), if it says. */
    stderr?: (transport: Transport, connectionStderr: string) => string;
  }

  const v1Http = httpServer([SERVERS, 'v1', 'http']);
  const v2Http = httpServer([SERVERS, 'v2', 'http']);
  const v2ModernHttp = httpServer([SERVERS, 'v2', 'http', 'modern']);
  const everythingHttp = httpServer([SERVERS, 'everything', 'http']);
  const fixtureTools = { ok: { tool: 'echo', args: { message: 'hi' }, text: /^echo: hi$/ }, failed: { tool: 'fail', args: {}, text: /failed on purpose/ } };
  const stdio = (...args: string[]): McpServerConfig => ({ command: process.execPath, args });

  const peers: Record<string, Peer> = {
    'v1 SDK server': {
      config: (t) => (t === 'stdio' ? stdio(SERVERS, 'v1', 'stdio') : { url: v1Http.url() }),
      ...fixtureTools,
      stderr: (t, own) => (t === 'stdio' ? own : v1Http.stderr()),
    },
    'v2 SDK server, both eras (serveStdio, createMcpHandler)': {
      config: (t) => (t === 'stdio' ? stdio(SERVERS, 'v2', 'stdio') : { url: v2Http.url() }),
      ...fixtureTools,
      stderr: (t, own) => (t === 'stdio' ? own : v2Http.stderr()),
    },
    'v2 SDK server, 2026-07-28 only (legacy: reject)': {
      config: (t) => (t === 'stdio' ? stdio(SERVERS, 'v2', 'stdio', 'modern') : { url: v2ModernHttp.url() }),
      ...fixtureTools,
      stderr: (t, own) => (t === 'stdio' ? own : v2ModernHttp.stderr()),
    },
    'server-everything': {
      config: (t) => (t === 'stdio' ? stdio(EVERYTHING, 'stdio') : { url: everythingHttp.url() }),
      ok: { tool: 'echo', args: { message: 'hi' }, text: /^Echo: hi$/ },
      // Valid arguments by its schema that its handler refuses: an error result from the server, not from our validation.
      failed: { tool: 'get-resource-reference', args: { resourceId: 0.5 }, text: /Invalid resourceId: 0\.5/ },
    },
    'a stdio server that exits on any request before initialize': {
      config: () => stdio(SERVERS, 'strict', 'stdio'),
      ...fixtureTools,
      stderr: (_t, own) => own,
    },
  };

  const cells: Cell[] = [
    { client: 'anytool', server: 'v1 SDK server', transport: 'stdio', era: 'legacy' },
    { client: 'anytool', server: 'v1 SDK server', transport: 'http', era: 'legacy' },
    { client: 'anytool', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'stdio', era: 'modern' },
    { client: 'anytool', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'http', era: 'modern' },
    { client: 'anytool pinned to 2025', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'stdio', era: 'legacy' },
    { client: 'anytool pinned to 2025', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'http', era: 'legacy' },
    { client: 'anytool pinned to 2026-07-28', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'stdio', era: 'modern' },
    { client: 'anytool pinned to 2026-07-28', server: 'v2 SDK server, both eras (serveStdio, createMcpHandler)', transport: 'http', era: 'modern' },
    { client: 'anytool', server: 'v2 SDK server, 2026-07-28 only (legacy: reject)', transport: 'stdio', era: 'modern' },
    { client: 'anytool', server: 'v2 SDK server, 2026-07-28 only (legacy: reject)', transport: 'http', era: 'modern' },
    { client: 'anytool', server: 'server-everything', transport: 'stdio', era: 'legacy' },
    { client: 'anytool', server: 'server-everything', transport: 'http', era: 'legacy' },
    { client: 'anytool', server: 'a stdio server that exits on any request before initialize', transport: 'stdio', era: 'legacy' },
  ];

  define(
    cells,
    async (cell) => {
      const peer = peers[cell.server]!;
      // A shared HTTP server's stderr holds every cell's calls: read what this cell added.
      const mark = cell.transport === 'http' ? (peer.stderr?.('http', '').length ?? 0) : 0;
      const pin = cell.client === 'anytool pinned to 2025' ? 'legacy' : cell.client === 'anytool pinned to 2026-07-28' ? 'modern' : undefined;
      const config: McpServerConfig = pin === undefined ? peer.config(cell.transport) : { ...peer.config(cell.transport), protocol: pin };
      const mcp = await McpToolset.connect({ mcpServers: { peer: config } });
      try {
        const connection = mcp.connection('peer');
        expect(connection?.connected).toBe(true);
        const toolset = new Toolset(mcp);
        const context = new ExecutionContext();
        const ok = await toolset.invoke(peer.ok.tool, peer.ok.args, context);
        const failed = await toolset.invoke(peer.failed.tool, peer.failed.args, context);
        // One server process served it all: a probe (or anything else) did not cost the session its child, nor a restart.
        // server-everything lists a tool that runs only as an MCP task: left out by design, with a note.
        // The first diagnostic says which era the server speaks; nothing else went wrong.
        const diagnostics = connection?.diagnostics.filter((d) => !d.includes('it can only run as an MCP task'));
        const speaks = cell.era === 'modern' ? /^speaks the 2026-07-28 protocol \(modern era/ : /^speaks the 2025 protocol \(legacy era/;
        expect({ starts: connection?.starts, era: connection?.era, diagnostics }).toEqual({
          starts: 1,
          era: cell.era,
          diagnostics: [expect.stringMatching(speaks)],
        });
        return {
          tools: toolset.names,
          ok: { isError: ok.isError === true, text: resultText(ok) },
          failed: { isError: failed.isError === true, text: resultText(failed) },
          era: peer.stderr === undefined ? undefined : (servedEra(peer.stderr(cell.transport, connection?.stderr ?? '').slice(mark)) ?? 'not reported'),
        };
      } finally {
        await mcp.close();
      }
    },
    (cell) => {
      const peer = peers[cell.server]!;
      return { ok: peer.ok.text, failed: peer.failed.text, tools: [peer.ok.tool, peer.failed.tool] };
    },
  );
});

describe('interop: other clients against our server (anytool serve)', () => {
  beforeAll(() => requireBuilt(ANYTOOL, MCP_DIST, EXAMPLE_TOOLS));
  const served = httpServer([ANYTOOL, 'serve', MODULE, '--http', '--port', '0']);
  const stdioServer = { command: process.execPath, args: [ANYTOOL, 'serve', MODULE], cwd: ROOT };
  const OK = { tool: 'echo', args: { text: 'hi' } };
  const FAILED = { tool: 'test_error_handling', args: {} };

  /** Runs one peer client; `era` is what the client reports it negotiated, where it can tell. */
  type Run = (transport: Transport, url: string) => Promise<Outcome>;
  const text = (content: unknown): string =>
    Array.isArray(content)
      ? content.map((block: { type?: string; text?: string }) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n')
      : String(content);

  async function officialClient(sdk: 'v1' | 'v2', mode: 'legacy' | 'auto' | { pin: string }, transport: Transport, url: string): Promise<Outcome> {
    if (sdk === 'v1') {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      const client = new Client({ name: 'interop-v1', version: '1.0.0' });
      await client.connect(
        transport === 'stdio' ? new StdioClientTransport({ ...stdioServer, stderr: 'pipe' }) : new StreamableHTTPClientTransport(new URL(url)),
      );
      try {
        const { tools } = await client.listTools();
        const ok = await client.callTool({ name: OK.tool, arguments: OK.args });
        const failed = await client.callTool({ name: FAILED.tool, arguments: FAILED.args });
        return {
          tools: tools.map((t) => t.name),
          ok: { isError: ok.isError === true, text: text(ok.content) },
          failed: { isError: failed.isError === true, text: text(failed.content) },
          era: 'legacy',
        };
      } finally {
        await client.close();
      }
    }
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const client = new Client({ name: 'interop-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(
      transport === 'stdio' ? new StdioClientTransport({ ...stdioServer, stderr: 'pipe' }) : new StreamableHTTPClientTransport(new URL(url)),
    );
    try {
      const { tools } = await client.listTools();
      const ok = await client.callTool({ name: OK.tool, arguments: OK.args });
      const failed = await client.callTool({ name: FAILED.tool, arguments: FAILED.args });
      return {
        tools: tools.map((t) => t.name),
        ok: { isError: ok.isError === true, text: text(ok.content) },
        failed: { isError: failed.isError === true, text: text(failed.content) },
        era: client.getProtocolEra(),
      };
    } finally {
      await client.close();
    }
  }

  const clients: Record<string, Run> = {
    'v1 SDK Client': (t, url) => officialClient('v1', 'legacy', t, url),
    'v2 SDK Client, legacy mode': (t, url) => officialClient('v2', 'legacy', t, url),
    'v2 SDK Client, auto mode': (t, url) => officialClient('v2', 'auto', t, url),
    'v2 SDK Client, pinned to 2026-07-28': (t, url) => officialClient('v2', { pin: '2026-07-28' }, t, url),
    // The Vercel AI SDK's own MCP client (2025 revisions only): tools come as AI SDK tools whose execute returns the MCP result.
    'Vercel AI SDK (@ai-sdk/mcp)': async (t, url) => {
      const { createMCPClient } = await import('@ai-sdk/mcp');
      const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
      const client = await createMCPClient({
        transport: t === 'stdio' ? new Experimental_StdioMCPTransport({ ...stdioServer, stderr: 'pipe' }) : { type: 'http', url },
      });
      try {
        const tools = await client.tools();
        const call = async (name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> => {
          const result = (await tools[name]!.execute!(args, { toolCallId: name, messages: [] })) as { isError?: boolean; content?: unknown };
          return { isError: result.isError === true, text: text(result.content) };
        };
        return { tools: Object.keys(tools), ok: await call(OK.tool, OK.args), failed: await call(FAILED.tool, FAILED.args), era: undefined };
      } finally {
        await client.close();
      }
    },
    // The OpenAI Agents SDK's MCP client (on the v2 SDK client, mode auto).
    'OpenAI Agents SDK (@openai/agents-core)': async (t, url) => {
      const { MCPServerStdio, MCPServerStreamableHttp } = await import('@openai/agents-core');
      const server = t === 'stdio' ? new MCPServerStdio({ ...stdioServer, name: 'anytool' }) : new MCPServerStreamableHttp({ url, name: 'anytool' });
      await server.connect();
      try {
        const tools = await server.listTools();
        const ok = await server.callToolResult(OK.tool, OK.args);
        const failed = await server.callToolResult(FAILED.tool, FAILED.args);
        // The era its SDK client negotiated: not public, read where the package keeps it (undefined if it moved).
        const session = (server as unknown as { underlying?: { session?: { getProtocolEra?: () => Era | undefined } } }).underlying?.session;
        return {
          tools: tools.map((tool) => tool.name),
          ok: { isError: ok.isError === true, text: text(ok.content) },
          failed: { isError: failed.isError === true, text: text(failed.content) },
          era: session?.getProtocolEra?.(),
        };
      } finally {
        await server.close();
      }
    },
    // LangChain's adapters (on the v1 SDK client): a failed call rejects with a ToolException carrying the server's text.
    'LangChain (@langchain/mcp-adapters)': async (t, url) => {
      const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
      const client = new MultiServerMCPClient({
        mcpServers: { anytool: t === 'stdio' ? { transport: 'stdio', ...stdioServer, stderr: 'pipe' } : { transport: 'http', url } },
      });
      try {
        const tools = await client.getTools();
        const find = (name: string) => tools.find((tool) => tool.name === name || tool.name.endsWith(`__${name}`))!;
        const okText: unknown = await find(OK.tool).invoke(OK.args);
        const failed = await find(FAILED.tool)
          .invoke(FAILED.args)
          .then(
            (value: unknown) => ({ isError: false, text: text(value) }),
            (error: Error) => ({ isError: error.name === 'ToolException', text: error.message }),
          );
        return { tools: tools.map((tool) => tool.name.replace(/^.*__/, '')), ok: { isError: false, text: text(okText) }, failed, era: 'legacy' };
      } finally {
        await client.close();
      }
    },
  };

  const both = (client: string, era: Era, extra: Partial<Cell> = {}): Cell[] =>
    (['stdio', 'http'] as const).map((transport) => ({ client, server: 'anytool serve', transport, era, ...extra }));
  const cells: Cell[] = [
    ...both('v1 SDK Client', 'legacy'),
    ...both('v2 SDK Client, legacy mode', 'legacy'),
    ...both('v2 SDK Client, auto mode', 'modern'),
    ...both('v2 SDK Client, pinned to 2026-07-28', 'modern'),
    ...both('Vercel AI SDK (@ai-sdk/mcp)', 'legacy'),
    ...both('OpenAI Agents SDK (@openai/agents-core)', 'modern'),
    ...both('LangChain (@langchain/mcp-adapters)', 'legacy'),
  ];

  define(
    cells,
    (cell) => clients[cell.client]!(cell.transport, cell.transport === 'http' ? served.url() : ''),
    () => ({ ok: /^hi$/, failed: /This tool intentionally returns an error for testing/, tools: [OK.tool, FAILED.tool, 'get_weather'] }),
  );
});
