import { Toolset, tool } from '@anytool/core';
import { MemoryEventStore, serveMcp, type McpServerHandle } from '@anytool/mcp';
import { scaled } from '../../../core/test/helpers/time-scale';

// One event store serves every legacy session; each session must replay only its own events, whatever
// `Last-Event-ID` it sends (every session's GET stream has the same stream id in the SDK).
jest.setTimeout(scaled(30_000));

const EMPTY = { type: 'object' as const, properties: {} };
const ALICE = 'token-of-alice-0123456789';
const BOB = 'token-of-bob-0123456789';
const VERSION = '2025-06-18';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let toolset: Toolset;
let server: McpServerHandle;

beforeAll(async () => {
  toolset = new Toolset([tool(() => 'pub', { name: 'pub', description: 'Public.', parameters: EMPTY })]);
  server = await serveMcp(toolset, {
    transport: 'http',
    port: 0,
    eventStore: new MemoryEventStore(),
    auth: {
      tokens: [
        { token: ALICE, subject: 'alice' },
        { token: BOB, subject: 'bob' },
      ],
    },
  });
});

afterAll(async () => {
  await server.close();
});

function headers(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
}

/** Opens a legacy session for `token`; returns the headers that address it. */
async function openSession(token: string): Promise<Record<string, string>> {
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'replay-test', version: '1' } },
  };
  const response = await fetch(server.url!, { method: 'POST', headers: headers(token), body: JSON.stringify(init) });
  await response.text();
  const session = { 'mcp-session-id': response.headers.get('mcp-session-id')!, 'mcp-protocol-version': VERSION };
  await (
    await fetch(server.url!, {
      method: 'POST',
      headers: headers(token, session),
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return session;
}

/** Listens on the session's GET stream (resuming after `lastEventId` if given), collecting the event ids and data. */
function listen(token: string, session: Record<string, string>, lastEventId?: string): { ids: string[]; data: string[]; stop: () => Promise<void> } {
  const ids: string[] = [];
  const data: string[] = [];
  const abort = new AbortController();
  const done = fetch(server.url!, {
    method: 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...session,
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
    signal: abort.signal,
  })
    .then(async (response) => {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(event)?.[1];
          if (id !== undefined) ids.push(id);
          const line = /^data: (.*)$/m.exec(event)?.[1];
          if (line !== undefined && line !== '') data.push(line);
        }
      }
    })
    .catch(() => undefined);
  return {
    ids,
    data,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

it('replays to a session only its own events, even when its GET stream shares the stream id of another', async () => {
  const aliceSession = await openSession(ALICE);
  const bobSession = await openSession(BOB);
  const alice = listen(ALICE, aliceSession);
  const bob = listen(BOB, bobSession);
  let replay: ReturnType<typeof listen> | undefined;
  try {
    await sleep(300);
    // A change both sessions hear of; bob then goes away, and the next change reaches both sessions meanwhile.
    toolset.add(tool(() => 'x', { name: 'first', description: 'Added.', parameters: EMPTY }));
    await sleep(300);
    expect(bob.ids).toHaveLength(1);
    await bob.stop();
    toolset.add(tool(() => 'x', { name: 'second', description: 'Added.', parameters: EMPTY }));
    await sleep(300);
    expect(alice.ids).toHaveLength(2);

    replay = listen(BOB, bobSession, bob.ids[0]);
    await sleep(500);
    // Bob gets what his own session missed, and nothing of alice's.
    expect(replay.data.filter((line) => line.includes('notifications/tools/list_changed'))).toHaveLength(1);
    expect(replay.ids.filter((id) => alice.ids.includes(id))).toEqual([]);

    // An event id of alice's session is not bob's to resume from.
    const foreign = await fetch(server.url!, {
      method: 'GET',
      headers: { authorization: `Bearer ${BOB}`, accept: 'text/event-stream', ...bobSession, 'last-event-id': alice.ids[0]! },
    });
    await foreign.body?.cancel();
    expect(foreign.status).toBe(400);
  } finally {
    await Promise.all([alice.stop(), bob.stop(), replay?.stop()]);
  }
});
