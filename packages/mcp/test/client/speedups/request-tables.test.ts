import { createHash } from 'node:crypto';
import { ErrorCode, Toolset, tool } from '@anytool/core';
import { McpConnection, createMcpServer } from '@anytool/mcp';
import { Client, InMemoryTransport, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { KNOWN_REQUEST_TABLES, RequestTable, requestTablesSource, useRequestTables } from '../../../src/client/speedups/request-tables';
import { fixture } from '../helpers';
import { scaled } from '../../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

/*
 * `useRequestTables` gives the SDK client's tables of requests in flight a `RequestTable` in place
 * of their `Map`. These tests hold the table to a `Map`'s behaviour, and the client that has them
 * to the SDK's own: answers, timeouts, progress and a close with requests in flight.
 */

const TABLES = ['_responseHandlers', '_timeoutInfo', '_progressHandlers'] as const;

const echo = tool(({ text }: { text: string }) => `echo: ${text}`, {
  name: 'echo',
  description: 'Echoes the text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});
const hang = tool(() => new Promise<string>(() => undefined), {
  name: 'hang',
  description: 'Never answers.',
  parameters: { type: 'object', properties: {} },
});

async function connect(client = new Client({ name: 'request-tables', version: '1' })) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(new Toolset(echo, hang)).connect(serverSide);
  await client.connect(clientSide);
  const problems: string[] = [];
  useRequestTables(client, (problem) => problems.push(problem));
  const tables = () => TABLES.map((name) => (client as unknown as Record<string, Map<unknown, unknown>>)[name]!);
  return { client, problems, tables };
}

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('RequestTable (speedups/request-tables.ts)', () => {
  it('is a Map: the same answers as a Map over random operations, for index keys and every other key', () => {
    const object = {};
    const keys: unknown[] = [0, 1, 2, 3, 7, 100, 4_294_967_294, 4_294_967_295, -1, -0, 1.5, Number.NaN, Infinity, '1', 'a', undefined, null, object, true];
    const values = [undefined, null, 0, 'x', { v: 1 }];
    const next = random(7);
    const pick = <T>(from: readonly T[]): T => from[Math.floor(next() * from.length)]!;
    const table = new RequestTable<unknown>();
    const map = new Map<unknown, unknown>();
    expect(table).toBeInstanceOf(Map);
    for (let step = 0; step < 5_000; step++) {
      const key = pick(keys);
      const roll = next();
      if (roll < 0.45) {
        const value = pick(values);
        expect(table.set(key, value)).toBe(table);
        map.set(key, value);
      } else if (roll < 0.9) expect(table.delete(key)).toBe(map.delete(key));
      else if (roll < 0.92) {
        table.clear();
        map.clear();
      }
      expect(table.size).toBe(map.size);
      for (const k of keys) {
        expect(table.has(k)).toBe(map.has(k));
        expect(table.get(k)).toBe(map.get(k));
      }
      // The same entries; the order differs only where index keys and other keys mix.
      const byKey = (entries: Iterable<[unknown, unknown]>) => new Map(entries);
      expect(byKey(table.entries())).toEqual(byKey(map.entries()));
      expect(new Set(table.keys())).toEqual(new Set(map.keys()));
      expect([...table.values()].length).toBe(map.size);
    }
  });

  it('gives request ids, set in ascending order, back in that order, through every way of reading them', () => {
    const table = new RequestTable<string>();
    const map = new Map<number, string>();
    for (let id = 0; id < 300; id++) {
      table.set(id, `request ${id}`);
      map.set(id, `request ${id}`);
      if (id % 3 === 0) {
        table.delete(id - 30);
        map.delete(id - 30);
      }
    }
    expect([...table]).toEqual([...map]);
    expect([...table.keys()]).toEqual([...map.keys()]);
    expect([...table.values()]).toEqual([...map.values()]);
    const seen: Array<[unknown, string]> = [];
    const self = { name: 'this' };
    table.forEach(function (this: unknown, value, key, whole) {
      expect(this).toBe(self);
      expect(whole).toBe(table);
      seen.push([key, value]);
    }, self);
    expect(seen).toEqual([...map]);
    // Deleting while iterating, as a Map allows: what is deleted before it is reached is not given.
    const visited: unknown[] = [];
    for (const [key] of table) {
      visited.push(key);
      table.delete((key as number) + 1);
    }
    expect(visited.length).toBeLessThan(map.size);
    expect(visited).toEqual([...visited].sort((a, b) => (a as number) - (b as number)));
    // Made from a Map, it holds what the Map held.
    expect([...new RequestTable(map)]).toEqual([...map]);
  });
});

describe('useRequestTables (speedups/request-tables.ts)', () => {
  it('gives a connected SDK client request tables that answer calls and leave nothing behind', async () => {
    const { client, problems, tables } = await connect();
    expect(problems).toEqual([]);
    for (const table of tables()) expect(table).toBeInstanceOf(RequestTable);
    const texts = Array.from({ length: 50 }, (_, i) => `call ${i}`);
    const results = await Promise.all(texts.map((text) => client.callTool({ name: 'echo', arguments: { text } })));
    expect(results.map((r) => r.content)).toEqual(texts.map((text) => [{ type: 'text', text: `echo: ${text}` }]));
    expect(tables().map((table) => table.size)).toEqual([0, 0, 0]);
    await client.close();
  });

  it("keeps the SDK's timeouts and its close: a request that times out, and requests in flight when the client closes", async () => {
    const { client, tables } = await connect();
    const timedOut = client.callTool({ name: 'hang', arguments: {} }, { timeout: 50 });
    await expect(timedOut).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout });
    expect(tables().map((table) => table.size)).toEqual([0, 0, 0]);
    const inFlight = [1, 2, 3].map(() => client.callTool({ name: 'hang', arguments: {} }, { onprogress: () => undefined }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(tables().map((table) => table.size)).toEqual([3, 3, 3]);
    await client.close();
    for (const call of inFlight) await expect(call).rejects.toBeInstanceOf(SdkError);
    for (const call of inFlight) await expect(call).rejects.toMatchObject({ code: SdkErrorCode.ConnectionClosed });
  });

  it('leaves the SDK its Maps, with a diagnostic, for a client whose code of the tables is not the one checked', async () => {
    // A subclass whose own method reads a table: code the check has not seen.
    let cleaned = 0;
    class Watching extends Client {
      override _onresponse(response: Parameters<Client['_onresponse']>[0]): void {
        if ((this as unknown as { _timeoutInfo: Map<unknown, unknown> })._timeoutInfo.has(Number(response.id))) cleaned++;
        super._onresponse(response);
      }
    }
    const { client, problems, tables } = await connect(new Watching({ name: 'watching', version: '1' }));
    expect(problems).toEqual([expect.stringContaining('keeps its requests in flight differently')]);
    for (const table of tables()) expect(table).not.toBeInstanceOf(RequestTable);
    const before = cleaned;
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect(cleaned - before).toBe(1);
    await client.close();
  });

  it('the SDK code that uses the tables is the code checked (a new SDK release fails here until checked)', () => {
    const source = requestTablesSource(new Client({ name: 'request-tables', version: '1' }));
    // Every method that reads or writes the tables, and nothing else.
    expect(source.match(/^\w+(?=: )/gm)).toEqual([
      '_setupTimeout',
      '_resetTimeout',
      '_cleanupTimeout',
      '_onclose',
      '_onprogress',
      '_onresponse',
      '_requestWithSchemaViaCodec',
    ]);
    expect(KNOWN_REQUEST_TABLES.has(createHash('sha256').update(source).digest('hex'))).toBe(true);
  });

  it('McpConnection has them: progress that keeps a call alive, a timeout, and calls at once, on a stdio server', async () => {
    const connection = await McpConnection.open('f', fixture());
    try {
      const sdk = (connection as unknown as { client: Record<string, unknown> }).client;
      for (const name of TABLES) expect(sdk[name]).toBeInstanceOf(RequestTable);
      expect(connection.diagnostics.filter((d) => d.includes('MCP SDK version'))).toEqual([]);
      // Four steps of 150 ms, each reported: the progress resets the 400 ms timeout.
      const steps: number[] = [];
      const slow = await connection.callTool('slow', { ms: 600, steps: 4 }, { timeoutMs: 400, onprogress: (p) => steps.push(p.progress) });
      expect(slow.content).toEqual([{ type: 'text', text: 'done' }]);
      // The last step's notification may come in the same read as the result, and the SDK hands notifications on a
      // microtask after results: by then the call has ended and its progress handler is gone (so it is with its Maps).
      expect(steps.slice(0, 3)).toEqual([1, 2, 3]);
      await expect(connection.callTool('hang', {}, { timeoutMs: 100 })).rejects.toMatchObject({ code: ErrorCode.Timeout });
      const messages = Array.from({ length: 50 }, (_, i) => `m${i}`);
      const echoed = await Promise.all(messages.map((message) => connection.callTool('echo', { message })));
      expect(echoed.map((r) => r.content)).toEqual(messages.map((text) => [{ type: 'text', text }]));
      for (const name of TABLES) expect((sdk[name] as Map<unknown, unknown>).size).toBe(0);
    } finally {
      await connection.close();
    }
  });
});
