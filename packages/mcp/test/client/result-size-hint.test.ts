import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, ExecutionContext, Toolset, outputBudget, resultText } from '@anytool/core';
import { McpToolset } from '@anytool/mcp';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';

// A server on the official v2 SDK marks some tools with the size hint Claude Code honours,
// `_meta["anthropic/maxResultSizeChars"]`, over real streamable HTTP on 127.0.0.1.

const HINT = 'anthropic/maxResultSizeChars';
const text = (n: number): string => 'z'.repeat(n);

function hintServer(): McpServer {
  const server = new McpServer({ name: 'hints', version: '1.0.0' });
  const add = (name: string, size: number, meta?: Record<string, unknown>): void => {
    server.registerTool(name, { description: `Returns ${size} characters.`, ...(meta === undefined ? {} : { _meta: meta }) }, () => ({
      content: [{ type: 'text', text: text(size) }],
    }));
  };
  add('schema', 150_000, { [HINT]: 200_000 }); // raises the budget
  add('terse', 5_000, { [HINT]: 1_000 }); // lowers it
  add('greedy', 600_000, { [HINT]: 10_000_000 }); // asks for more than any client allows
  add('plain', 150_000);
  add('odd', 150_000, { [HINT]: 'lots' });
  return server;
}

describe('MCP per-tool result size hints (_meta["anthropic/maxResultSizeChars"])', () => {
  let http: HttpServer;
  let url: string;
  let closeHandler: () => Promise<void>;
  const open: McpToolset[] = [];
  beforeAll(async () => {
    const handler = createMcpHandler(() => hintServer());
    closeHandler = () => handler.close();
    const serve = toNodeHandler(handler);
    http = createServer((req, res) => void serve(req as typeof req & { method: string; url: string }, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
  });
  afterAll(async () => {
    await closeHandler();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const connect = async (options?: Parameters<typeof McpToolset.connect>[1]): Promise<McpToolset> => {
    const mcp = await McpToolset.connect({ mcpServers: { hints: { type: 'http', url } } }, options);
    open.push(mcp);
    return mcp;
  };
  /** What the model would read of each tool, under the agent's default budget (80,000 characters). */
  const seen = async (toolset: Toolset, name: string): Promise<number> => resultText(await toolset.invoke(name, {}, new ExecutionContext())).length;

  it("a trusted server's hint sets the tool's budget in place of the toolset's, higher or lower, never above 500,000 characters; a bad hint is ignored and said", async () => {
    const mcp = await connect({ trusted: true });
    const toolset = new Toolset(mcp).use(outputBudget());
    expect(await seen(toolset, 'schema')).toBe(150_000);
    expect(await seen(toolset, 'terse')).toBeLessThanOrEqual(1_000);
    const greedy = await seen(toolset, 'greedy');
    expect(greedy).toBeLessThanOrEqual(500_000);
    expect(greedy).toBeGreaterThan(400_000);
    expect(await seen(toolset, 'plain')).toBeLessThanOrEqual(80_000);
    expect(await seen(toolset, 'odd')).toBeLessThanOrEqual(80_000);
    expect(mcp.warnings).toContainEqual(expect.stringMatching(/tool "odd": its _meta\["anthropic\/maxResultSizeChars"\] is "lots", not a whole number/));
  });

  it("an untrusted server's hint (the default) only lowers the toolset's budget, never raises it", async () => {
    const mcp = await connect();
    const toolset = new Toolset(mcp).use(outputBudget());
    expect(await seen(toolset, 'terse')).toBeLessThanOrEqual(1_000);
    const schema = await seen(toolset, 'schema');
    expect(schema).toBeLessThanOrEqual(80_000);
    expect(schema).toBeGreaterThan(70_000);
    // Over its own hint as well: cut to the lower of the two, the toolset's.
    expect(await seen(toolset, 'greedy')).toBeLessThanOrEqual(80_000);
    expect(await seen(toolset, 'plain')).toBeLessThanOrEqual(80_000);
    // Alone, with no budget further out, the hint is the only one.
    expect(await seen(new Toolset(mcp), 'greedy')).toBeLessThanOrEqual(500_000);
    expect(await seen(new Toolset(mcp), 'schema')).toBe(150_000);
    // The server's own setting wins over the toolset's, either way.
    const trustedServer = await McpToolset.connect({ mcpServers: { hints: { type: 'http', url, trusted: true } } }, { trusted: false });
    const untrustedServer = await McpToolset.connect({ mcpServers: { hints: { type: 'http', url, trusted: false } } }, { trusted: true });
    open.push(trustedServer, untrustedServer);
    expect(await seen(new Toolset(trustedServer).use(outputBudget()), 'schema')).toBe(150_000);
    expect(await seen(new Toolset(untrustedServer).use(outputBudget()), 'schema')).toBeLessThanOrEqual(80_000);
  });

  it('a lower ceiling caps the hints, and resultSizeHints: false leaves the budget to the toolset', async () => {
    const capped = new Toolset(await connect({ resultSizeHints: { maxChars: 100_000 }, trusted: true })).use(outputBudget());
    expect(await seen(capped, 'schema')).toBeLessThanOrEqual(100_000);
    expect(await seen(capped, 'schema')).toBeGreaterThan(80_000);
    const off = new Toolset(await connect({ resultSizeHints: false })).use(outputBudget());
    expect(await seen(off, 'schema')).toBeLessThanOrEqual(80_000);
    expect(await seen(off, 'terse')).toBe(5_000);
    await expect(connect({ resultSizeHints: { maxChars: 0 } })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
  });
});
