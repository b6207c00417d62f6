// Two serveMcp instances of one endpoint sharing a store (MemoryStore in one process; RedisStore
// on a real redis-server, as separate processes would): a tool change on one reaches the clients
// of the other as tools/list_changed, in both eras; 2025-era streams keep their events in the store.
import { Toolset, tool } from '@anytool/core';
import { MemoryStore, RedisStore, StoreEventStore, serveMcp, type McpServerHandle, type McpStore } from '@anytool/mcp';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import { waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const echo = tool(({ text }: { text: string }) => text, {
  name: 'echo',
  description: 'Echoes.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});
const extra = tool(() => 'extra', { name: 'extra', description: 'Added later.', parameters: { type: 'object', properties: {} } });

interface Kind {
  name: string;
  /** The stores of instance A and instance B (one store for MemoryStore, two connections to one Redis otherwise). */
  stores(): Promise<[McpStore, McpStore]>;
  close(): Promise<void>;
}

function memoryKind(): Kind {
  const store = new MemoryStore();
  return { name: 'MemoryStore', stores: async () => [store, store], close: () => store.close() };
}

function redisKind(): Kind {
  let redis: RedisServer | undefined;
  const made: RedisStore[] = [];
  return {
    name: 'RedisStore',
    async stores() {
      redis = await startRedis();
      for (let i = 0; i < 2; i++) made.push(new RedisStore({ url: redis.url }));
      return [made[0]!, made[1]!];
    },
    async close() {
      await Promise.all(made.map((store) => store.close()));
      await redis?.stop();
    },
  };
}

const kinds = [memoryKind(), ...(servicesAvailable('redis-server') ? [redisKind()] : [])];

describe.each(kinds.map((kind) => [kind.name, kind] as const))('serveMcp instances sharing a %s', (_name, kind) => {
  let a: McpServerHandle;
  let b: McpServerHandle;
  let storeA: McpStore;

  beforeAll(async () => {
    const [first, second] = await kind.stores();
    storeA = first;
    a = await serveMcp(new Toolset(echo), { transport: 'http', port: 0, store: first });
    b = await serveMcp(new Toolset(echo), { transport: 'http', port: 0, store: second });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await kind.close();
  });

  it('tells a 2025-era client of instance B that the tools of instance A changed', async () => {
    const client = new V1Client({ name: 'legacy', version: '1' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await client.connect(new V1HttpTransport(new URL(b.url!)));
    try {
      // The client opens its notification stream (GET) on its own after initialize; a change before it is open reaches
      // nobody. So: changes until one is heard (the stream is open), then one more, which must be heard too.
      for (let i = 0; changes === 0 && i < 100; i++) {
        if (a.toolset.has('extra')) a.toolset.remove('extra');
        else a.toolset.add(extra);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await waitFor(() => changes >= 1, 10_000, 'tools/list_changed from the other instance');
      const heard = changes;
      if (a.toolset.has('extra')) a.toolset.remove('extra');
      else a.toolset.add(extra);
      await waitFor(() => changes === heard + 1, 10_000, 'a second tools/list_changed');
    } finally {
      if (a.toolset.has('extra')) a.toolset.remove('extra');
      await client.close();
    }
  });

  it('tells a 2026-07-28 client subscribed on instance B, and a client of A hears its own change once', async () => {
    const onB = new Client({ name: 'modern-b', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const onA = new Client({ name: 'modern-a', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const heard = { a: 0, b: 0 };
    onB.setNotificationHandler('notifications/tools/list_changed', () => void heard.b++);
    onA.setNotificationHandler('notifications/tools/list_changed', () => void heard.a++);
    await onB.connect(new StreamableHTTPClientTransport(new URL(b.url!)));
    await onA.connect(new StreamableHTTPClientTransport(new URL(a.url!)));
    try {
      expect(onB.getProtocolEra()).toBe('modern');
      await onB.listen({ toolsListChanged: true });
      await onA.listen({ toolsListChanged: true });
      a.toolset.add(extra);
      await waitFor(() => heard.b === 1 && heard.a === 1, 10_000, 'tools/list_changed on both instances');
      // Instance A does not hear its own message back: its client is told once.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual({ a: 1, b: 1 });
      expect((await onA.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'extra']);
    } finally {
      a.toolset.remove('extra');
      await Promise.all([onA.close(), onB.close()]);
    }
  });

  it('keeps the events of 2025-era streams in the store, with ids a client resumes from', async () => {
    const post = (body: object, session?: string) =>
      fetch(a.url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const call = await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'kept' } } }, session)).text();
    // The last event is the result (the SDK primes a stream with an empty event first).
    const eventId = [...call.matchAll(/^id: (.+)$/gm)].pop()?.[1];
    expect(eventId).toMatch(new RegExp(`^${session}/.+#\\d+$`));
    // The same store, read as another instance would: the event before it replays this one.
    const events = new StoreEventStore(storeA);
    const inner = eventId!.slice(session.length + 1);
    const before = inner.replace(/#(\d+)$/, (_, seq: string) => `#${Number(seq) - 1}`);
    const replayed: string[] = [];
    await events.replayEventsAfter(before, { send: async (id, message) => void replayed.push(`${id} ${JSON.stringify(message)}`) });
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toContain('"text":"kept"');
  });
});

describe('StoreEventStore', () => {
  it('replays only the events of the stream after the id given, and nothing for an id it did not make', async () => {
    const store = new MemoryStore();
    const events = new StoreEventStore(store, { maxEventsPerStream: 3 });
    const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info' as const, data: n } });
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) ids.push(await events.storeEvent('s1', message(n)));
    await events.storeEvent('s2', message(99));
    expect(await events.getStreamIdForEventId(ids[1]!)).toBe('s1');
    const sent: unknown[] = [];
    const send = async (_id: string, m: unknown) => void sent.push((m as { params: { data: number } }).params.data);
    expect(await events.replayEventsAfter(ids[1]!, { send })).toBe('s1');
    expect(sent).toEqual([3, 4]);
    expect(await events.replayEventsAfter('not-ours', { send })).toBe('');
    expect(await events.getStreamIdForEventId('s1#-1')).toBeUndefined();
    await store.close();
  });
});
