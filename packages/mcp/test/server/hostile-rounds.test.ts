import { tool, Toolset, type ExecutionContext } from '@anytool/core';
import { mcpSession, serveMcp } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// A client that starts many calls at once, each asking for input it never gives (2026-07-28 era, input_required
// rounds): the calls waiting in the server stay at maxParkedCalls, however many arrive together.
jest.setTimeout(scaled(60_000));

const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

describe('the calls waiting for input (maxParkedCalls) under concurrency', () => {
  it('never parks more than maxParkedCalls (20) of 300 calls started at once; the others get the coded "too many calls waiting" error', async () => {
    const MAX = 20;
    const CALLS = 300;
    // The tools ask together (they wait on one thing first, as tools waiting on one resource do): every question
    // then comes before any call has parked, which is when a check apart from the park lets them all in.
    let running = 0;
    let go!: () => void;
    const together = new Promise<void>((resolve) => (go = resolve));
    const ask = tool(
      async function ask(_args: object, context: ExecutionContext) {
        if (++running === CALLS) go();
        await together;
        const answer = await mcpSession(context)!.elicitInput({ message: 'Name?', requestedSchema: NAME });
        return `hello ${String(answer.content?.['name'])}`;
      },
      { description: 'Asks a name.', parameters: { type: 'object', properties: {} }, context: true },
    );
    const server = await serveMcp(new Toolset([ask]), { transport: 'http', port: 0, maxParkedCalls: MAX, inputTtlMs: scaled(60_000) });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Each question a client is shown is an input_required answer: a call parked in the server.
    let parked = 0;
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const client = new Client(
          { name: `flood-${i}`, version: '1' },
          { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        client.setRequestHandler('elicitation/create', async () => {
          parked++;
          await held;
          return { action: 'accept', content: { name: 'late' } };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
        clients.push(client);
      }
      const results: Array<{ text: string; isError: boolean }> = [];
      const failures: unknown[] = [];
      const calls = Array.from({ length: CALLS }, (_, i) =>
        clients[i % clients.length]!.callTool({ name: 'ask', arguments: {} }).then(
          (result) => {
            const content = result.content as Array<{ text?: string }>;
            results.push({ text: content.map((block) => block.text ?? '').join('\n'), isError: result.isError === true });
          },
          (error: unknown) => failures.push(error),
        ),
      );
      await waitFor(() => parked + results.length === CALLS, scaled(30_000), 'every call to be parked or refused');
      expect(parked).toBeLessThanOrEqual(MAX);
      expect(parked).toBe(MAX);
      expect(results).toHaveLength(CALLS - MAX);
      for (const result of results) {
        expect(result).toEqual({
          isError: true,
          text: expect.stringContaining("too many calls are waiting for the client's input (20, the server's maxParkedCalls); retry later"),
        });
      }
      // Once answered, the parked calls end and free their slots: a new call parks again.
      release();
      await Promise.all(calls);
      expect(failures).toEqual([]);
      const again = await clients[0]!.callTool({ name: 'ask', arguments: {} });
      expect(again).toMatchObject({ content: [{ type: 'text', text: 'hello late' }] });
      expect(parked).toBe(MAX + 1);
    } finally {
      go();
      release();
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
    }
  });
});
