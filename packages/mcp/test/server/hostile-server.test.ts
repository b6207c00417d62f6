import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, tool } from '@anytool/core';
import { serveMcp } from '@anytool/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MCP_DIST, ROOT, httpClient, requireBuilt, startHttpChild, stopChild } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// Hostile clients against the anytool MCP server, each case in a server process of its own (its memory is measured
// alone). Every case: a coded outcome, settled within a generous bound (it only catches hangs), the server's peak
// memory bounded, and well-behaved clients served during and after the attack.
jest.setTimeout(scaled(180_000));

const FIXTURE = join(ROOT, 'packages', 'mcp', 'test', 'fixtures', 'attacked-server.mjs');
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MiB = 1024 * 1024;
/** Another address of this machine: a second client, told apart from the well-behaved one (127.0.0.1) by its address. */
const OTHER_CLIENT = '127.0.0.2';
const PROTOCOL = '2025-06-18';
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
};
/** Text that must never reach a client or a log: validator dumps, stack frames, a secret. */
const INTERNALS = /RangeError|TypeError|\n\s+at |"code": "invalid_type"|hunter2/;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const call = (id: number | string, name: string, args: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

async function within<T>(seconds: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`the attack did not settle within ${seconds} s`)), seconds * 1000)),
  );
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- A raw HTTP client: a hostile client may send anything ----

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The socket error (ECONNRESET, EPIPE) when no response arrived. */
  error?: string;
}

interface Send {
  method?: string;
  headers?: Record<string, string>;
  /** Written in these pieces; without a content-length header node sends them chunked. */
  body?: string | Buffer | (string | Buffer)[];
  from?: string | undefined;
}

function send(url: string, { method = 'POST', headers = {}, body, from }: Send): Promise<Reply> {
  const pieces = body === undefined ? [] : Array.isArray(body) ? body : [body];
  const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
  const all: Record<string, string> = body === undefined || Array.isArray(body) ? { ...headers } : { 'content-length': String(length), ...headers };
  return new Promise((resolve) => {
    const req = request(url, { method, headers: all, agent: false, ...(from === undefined ? {} : { localAddress: from }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, error: error.code ?? error.message }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, headers: {}, body: '', error: error.code ?? error.message }));
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

/** The JSON-RPC messages of a reply (a JSON body or an SSE stream). */
function messages(reply: Reply): Record<string, unknown>[] {
  if (String(reply.headers['content-type']).includes('text/event-stream')) {
    return reply.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  try {
    const value = JSON.parse(reply.body) as Record<string, unknown> | Record<string, unknown>[];
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

interface Answer {
  status: number;
  error?: string;
  code?: number;
  id?: unknown;
  isError?: boolean;
  text?: string;
}

/** What a reply amounts to: its status, and the JSON-RPC error code or the tool result's text. Checks it shows no internals. */
function answer(reply: Reply): Answer {
  const out: Answer = { status: reply.status };
  if (reply.error !== undefined) out.error = reply.error;
  const message = messages(reply).find((m) => 'result' in m || 'error' in m);
  if (message === undefined) return out;
  const error = message['error'] as { code: number; message: string; data?: unknown } | undefined;
  const result = message['result'] as { content?: { text?: string }[]; isError?: boolean } | undefined;
  const text = error === undefined ? (result?.content?.[0]?.text ?? '') : `${error.message} ${JSON.stringify(error.data ?? '')}`;
  expect(text).not.toMatch(INTERNALS);
  expect(text.length).toBeLessThan(1000);
  if (error !== undefined) return { ...out, code: error.code, id: message['id'] };
  return { ...out, isError: result?.isError === true, text };
}

/** A session of a raw client: the headers its requests carry. */
async function openSession(url: string, from?: string): Promise<Record<string, string>> {
  const init = await send(url, { headers: POST_HEADERS, body: JSON.stringify(INITIALIZE), from });
  const id = init.headers['mcp-session-id'];
  if (typeof id !== 'string') throw new Error(`initialize was refused: ${init.status} ${init.body.slice(0, 300)}`);
  const headers = { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
  await send(url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), from });
  return headers;
}

/** Opens a GET stream of a session and resolves once its headers arrived; `closed` settles when the server ends it. */
function openStream(url: string, headers: Record<string, string>, from?: string): Promise<{ status: number; closed: Promise<void>; destroy(): void }> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, agent: false, ...(from === undefined ? {} : { localAddress: from }) },
      (res) => {
        const closed = new Promise<void>((done) => res.once('close', () => done()));
        res.resume();
        resolve({ status: res.statusCode ?? 0, closed, destroy: () => req.destroy() });
      },
    );
    req.on('error', () => resolve({ status: 0, closed: Promise.resolve(), destroy: () => undefined }));
    req.end();
  });
}

/** Counts the values: `{ 200: 3, 503: 97 }`. */
function tally(values: (number | string)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

// ---- The attacks, each made from its inputs ----

interface Target {
  url: string;
  /** The session of the well-behaved client. */
  sessionId: string;
  stderr(): string;
  stats(): Promise<Stats>;
}

interface Stats {
  rss: number;
  peakRss: number;
  sessions: number;
}

type Attack = (target: Target) => Promise<unknown>;

/** A second request with the id of one still in flight in the same session; then the id again once it is free. */
const reuseRequestId =
  ({ id, slowMs }: { id: number; slowMs: number }): Attack =>
  async ({ url }) => {
    const session = await openSession(url);
    const first = send(url, { headers: session, body: call(id, 'ok_slow', { ms: slowMs }) });
    await sleep(slowMs / 4);
    const second = answer(await send(url, { headers: session, body: call(id, 'ok_echo', { message: 'second' }) }));
    const firstAnswer = answer(await first);
    const again = answer(await send(url, { headers: session, body: call(id, 'ok_echo', { message: 'again' }) }));
    return { first: firstAnswer, second, again };
  };

/** Another client uses the well-behaved client's session id. */
const useSessionOf =
  ({ from }: { from: string }): Attack =>
  async ({ url, sessionId }) => {
    const headers = { ...POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL };
    const post = answer(await send(url, { headers, body: call(1, 'ok_echo', { message: 'stolen' }), from }));
    const stream = await openStream(url, headers, from);
    stream.destroy();
    const del = answer(await send(url, { method: 'DELETE', headers, from }));
    return { post, get: stream.status, delete: del };
  };

/** Many large bodies at once, sent as tools/call to a slow tool so the server holds them while it answers. */
const concurrentBodies =
  ({ count, bytes, session }: { count: number; bytes: number; session: 'own' | 'unknown' | 'none' }): Attack =>
  async ({ url }) => {
    const headers =
      session === 'own' ? await openSession(url, OTHER_CLIENT) : session === 'unknown' ? { ...POST_HEADERS, 'mcp-session-id': 'f'.repeat(36) } : POST_HEADERS;
    const prefix = Buffer.from(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ok_slow","arguments":{"ms":1000,"padding":"`);
    const padding = Buffer.alloc(bytes - prefix.length - 40, 'x');
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        send(url, {
          headers: { ...headers, 'content-length': String(prefix.length + padding.length + `"}},"id":${i}}`.length) },
          body: [prefix, padding, `"}},"id":${i}}`],
          from: OTHER_CLIENT,
        }),
      ),
    );
    const answers = replies.map(answer);
    const refused = answers.filter((a) => a.status !== 200);
    return {
      statuses: tally(answers.map((a) => a.status)),
      refusedCodes: [...new Set(refused.map((a) => a.code))],
      errors: replies.filter((r) => r.error !== undefined).length,
      retryAfter: replies.every((r) => r.status !== 503 || r.headers['retry-after'] !== undefined),
    };
  };

/** One body larger than the server takes: declared up front, or sent chunked with no length. */
const oversizedBody =
  ({ bytes, declared }: { bytes: number; declared: boolean }): Attack =>
  async ({ url }) => {
    const session = await openSession(url, OTHER_CLIENT);
    const body = Buffer.alloc(bytes, ' ');
    const pieces = [
      Buffer.from(call(1, 'ok_echo', { message: 'x' })),
      ...Array.from({ length: 8 }, (_, i) => body.subarray((i * bytes) / 8, ((i + 1) * bytes) / 8)),
    ];
    const headers = declared ? { ...session, 'content-length': String(pieces.reduce((sum, p) => sum + p.length, 0)) } : session;
    return answer(await send(url, { headers, body: pieces, from: OTHER_CLIENT }));
  };

/** A request that is wrong before its body is read: its status and code. */
const badRequest =
  (input: { headers: Record<string, string>; method?: string; body?: string }): Attack =>
  async ({ url }) => {
    const session = await openSession(url, OTHER_CLIENT);
    return answer(
      await send(url, {
        method: input.method ?? 'POST',
        headers: { ...session, ...input.headers },
        body: input.body ?? call(1, 'ok_echo', { message: 'x' }),
        from: OTHER_CLIENT,
      }),
    );
  };

/** One client opens many sessions (`holdStreams`: each keeps a GET stream open, so none is idle). */
const sessionFlood =
  ({ count, holdStreams, parallel }: { count: number; holdStreams: boolean; parallel: number }): Attack =>
  async (target) => {
    const statuses: number[] = [];
    const streams: { destroy(): void }[] = [];
    for (let start = 0; start < count; start += parallel) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(parallel, count - start) }, async () => {
          const init = await send(target.url, { headers: POST_HEADERS, body: JSON.stringify(INITIALIZE), from: OTHER_CLIENT });
          const id = init.headers['mcp-session-id'];
          if (holdStreams && typeof id === 'string')
            streams.push(await openStream(target.url, { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL }, OTHER_CLIENT));
          return init;
        }),
      );
      statuses.push(...batch.map((reply) => answer(reply).status));
    }
    const sessions = (await target.stats()).sessions;
    for (const stream of streams) stream.destroy();
    return { statuses: tally(statuses), sessions };
  };

/** Connections that send their request slowly (or nothing): how the server ends them. */
const slowConnections =
  ({ count, sends }: { count: number; sends: 'nothing' | 'headers' | 'body' }): Attack =>
  async ({ url }) => {
    const { hostname, port, pathname } = new URL(url);
    const ended = await Promise.all(
      Array.from({ length: count }, () => {
        const socket: Socket = connect({ host: hostname, port: Number(port), localAddress: OTHER_CLIENT });
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
        socket.on('error', () => undefined);
        const drip = (head: string, byte: string): void => {
          socket.write(head);
          const timer = setInterval(() => socket.write(byte), 200);
          socket.once('close', () => clearInterval(timer));
        };
        if (sends === 'headers') drip(`POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n`, 'X-Slow: 1\r\n');
        if (sends === 'body')
          drip(
            `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000\r\n\r\n`,
            ' ',
          );
        return new Promise<string>((resolve) => socket.once('close', () => resolve(/^HTTP\/1\.1 (\d+)/.exec(received)?.[1] ?? 'closed')));
      }),
    );
    return { ended: tally(ended) };
  };

/** A session's GET stream held open longer than the request timeouts: it stays open. */
const longStream =
  ({ holdMs }: { holdMs: number }): Attack =>
  async ({ url }) => {
    const session = await openSession(url);
    const stream = await openStream(url, session);
    const ended = await Promise.race([stream.closed.then(() => 'closed by the server'), sleep(holdMs).then(() => 'open')]);
    stream.destroy();
    return { status: stream.status, after: ended };
  };

/** A tools/call whose params are malformed, or an arbitrary message. */
const message =
  (body: string): Attack =>
  async ({ url }) => {
    const session = await openSession(url, OTHER_CLIENT);
    return answer(await send(url, { headers: session, body, from: OTHER_CLIENT }));
  };

/** A response to a request the server never sent, carrying a secret; what the server logs of it. */
const unknownResponse =
  ({ id, secret }: { id: number; secret: string }): Attack =>
  async ({ url, stderr }) => {
    const session = await openSession(url, OTHER_CLIENT);
    const reply = await send(url, {
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'accept', content: { password: secret } } }),
      from: OTHER_CLIENT,
    });
    await sleep(200);
    return { status: reply.status, logsId: stderr().includes(`request id ${id}`), leaks: stderr().includes(secret) };
  };

interface HostileCase {
  name: string;
  /** serveMcp options of the server under attack. */
  options?: Record<string, unknown>;
  attack: Attack;
  expected: unknown;
  /** The attack settles within this many seconds. */
  seconds: number;
  /** The server's peak resident memory grows less than this (MiB) over what it had before the attack. */
  growthMiB: number;
  /** Run alone, not beside the other cases: what it checks depends on timing a busier machine could upset. */
  alone?: true;
}

const FAST = { headersTimeoutMs: 1000, requestTimeoutMs: 2000 };

const httpCases: HostileCase[] = [
  {
    name: 'a request id reused while the first request is in flight',
    attack: reuseRequestId({ id: 7, slowMs: 800 }),
    // The second request must arrive while the first (800 ms) is still in flight.
    alone: true,
    expected: {
      first: { status: 200, isError: false, text: 'slept 800 ms' },
      second: { status: 400, code: -32600, id: 7 },
      again: { status: 200, isError: false, text: 'again' },
    },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'a session id used from another address (POST, GET, DELETE)',
    attack: useSessionOf({ from: OTHER_CLIENT }),
    expected: { post: { status: 404, code: -32001, id: null }, get: 404, delete: { status: 404, code: -32001, id: null } },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: '100 concurrent 4 MiB bodies in a session',
    attack: concurrentBodies({ count: 100, bytes: 4 * MiB, session: 'own' }),
    // A few fill maxBodyBytesInFlight while the tool holds them; the rest are refused unread. Before: all read, +561 MiB.
    expected: { statuses: { 200: expect.any(Number), 503: expect.any(Number) }, refusedCodes: [-32000], errors: 0, retryAfter: true },
    seconds: 60,
    growthMiB: 200,
  },
  {
    name: '100 concurrent 4 MiB bodies for an unknown session',
    attack: concurrentBodies({ count: 100, bytes: 4 * MiB, session: 'unknown' }),
    expected: { statuses: { 404: 100 }, refusedCodes: [-32001], errors: 0, retryAfter: true },
    seconds: 60,
    growthMiB: 100,
  },
  {
    name: '100 concurrent 4 MiB bodies without a session (only initialize may come without one)',
    attack: concurrentBodies({ count: 100, bytes: 4 * MiB, session: 'none' }),
    expected: { statuses: { 413: 100 }, refusedCodes: [-32600], errors: 0, retryAfter: true },
    seconds: 60,
    growthMiB: 100,
  },
  {
    name: 'a 16 MiB body declared in Content-Length (the limit is 4 MiB)',
    attack: oversizedBody({ bytes: 16 * MiB, declared: true }),
    expected: { status: 413, code: -32600, id: null },
    seconds: 30,
    growthMiB: 100,
  },
  {
    name: 'a 16 MiB chunked body with no length',
    attack: oversizedBody({ bytes: 16 * MiB, declared: false }),
    expected: { status: 413, code: -32600, id: null },
    seconds: 30,
    growthMiB: 100,
  },
  {
    name: 'a POST whose body is not JSON by its content type',
    attack: badRequest({ headers: { 'content-type': 'text/plain' } }),
    expected: { status: 415, code: -32000, id: null },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'one client opening 1,000 sessions',
    attack: sessionFlood({ count: 1000, holdStreams: false, parallel: 20 }),
    // Each new session past the client's 100 ends its least recently used idle one: 100 of its, 1 of the well-behaved client.
    expected: { statuses: { 200: 1000 }, sessions: 101 },
    seconds: 120,
    growthMiB: 200,
  },
  {
    name: 'one client holding more busy sessions than maxSessionsPerClient',
    options: { maxSessionsPerClient: 5 },
    attack: sessionFlood({ count: 8, holdStreams: true, parallel: 1 }),
    expected: { statuses: { 200: 5, 503: 3 }, sessions: 6 },
    seconds: 30,
    growthMiB: 100,
  },
  {
    name: '50 connections that send nothing',
    options: FAST,
    attack: slowConnections({ count: 50, sends: 'nothing' }),
    expected: { ended: { 408: 50 } },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: '50 connections that send their headers a line at a time',
    options: FAST,
    attack: slowConnections({ count: 50, sends: 'headers' }),
    expected: { ended: { 408: 50 } },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: '50 connections that send their body a byte at a time',
    options: FAST,
    attack: slowConnections({ count: 50, sends: 'body' }),
    expected: { ended: { 408: 50 } },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'a GET stream held open past the request timeouts (not an attack: it must survive them)',
    options: FAST,
    attack: longStream({ holdMs: 4000 }),
    expected: { status: 200, after: 'open' },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call without a name',
    attack: message(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } })),
    expected: { status: 200, code: -32602, id: 3 },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call with a number for a name',
    attack: message(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } })),
    expected: { status: 200, code: -32602, id: 3 },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call with a string for arguments',
    attack: message(call(3, 'ok_echo', 'x')),
    expected: { status: 200, isError: true, text: expect.stringContaining('Invalid arguments for tool "ok_echo"') },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call with an array for arguments',
    attack: message(call(3, 'ok_echo', [1])),
    expected: { status: 200, isError: true, text: expect.stringContaining('Invalid arguments for tool "ok_echo"') },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call with arguments nested 500 deep',
    attack: message(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok_echo","arguments":{"message":${nested(500)}}}}`),
    expected: { status: 200, isError: true, text: expect.stringContaining('nested more than 64 levels') },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'tools/call nested 100,000 deep',
    attack: message(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok_echo","arguments":{"message":${nested(100_000)}}}}`),
    expected: { status: 400, code: -32600, id: null },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'a message nested 100,000 deep (a response the server never asked for)',
    attack: message(`{"jsonrpc":"2.0","id":3,"result":${nested(100_000)}}`),
    expected: { status: 400, code: -32600, id: null },
    seconds: 20,
    growthMiB: 100,
  },
  {
    name: 'a response to an unknown id carrying a password',
    attack: unknownResponse({ id: 99, secret: 'hunter2' }),
    // What the server logged is read 200 ms after its answer.
    alone: true,
    expected: { status: 202, logsId: true, leaks: false },
    seconds: 20,
    growthMiB: 100,
  },
];

async function echo(client: Client, message: string): Promise<string> {
  const result = await client.callTool({ name: 'ok_echo', arguments: { message } });
  return (result.content as { text: string }[])[0]!.text;
}

async function statsOf(client: Client): Promise<Stats> {
  return (await client.callTool({ name: 'server_stats', arguments: {} })).structuredContent as unknown as Stats;
}

// Each case has a server process of its own, whose memory it measures: most cases wait (on timeouts, slow tools,
// paused readers), so they run side by side (`it.concurrent`), those marked `alone` one at a time.
const attackHttp = async ({ options, attack, expected, seconds, growthMiB }: HostileCase): Promise<void> => {
  const server = await startHttpChild([FIXTURE, JSON.stringify(options ?? {})]);
  const clients: Client[] = [];
  try {
    const healthy = await httpClient(server.url);
    clients.push(healthy.client);
    const before = await statsOf(healthy.client);
    const target: Target = { url: server.url, sessionId: healthy.transport.sessionId!, stderr: server.stderr, stats: () => statsOf(healthy.client) };
    // A well-behaved client is served while the attack goes on, and after it; so is a newcomer.
    const [outcome, during] = await Promise.all([within(seconds, attack(target)), within(seconds, echo(healthy.client, 'during'))]);
    const after = await within(seconds, echo(healthy.client, 'after'));
    const newcomer = await httpClient(server.url);
    clients.push(newcomer.client);
    const peak = await statsOf(newcomer.client);

    expect(outcome).toEqual(expected);
    expect([during, after, await echo(newcomer.client, 'newcomer')]).toEqual(['during', 'after', 'newcomer']);
    expect((peak.peakRss - before.rss) / MiB).toBeLessThan(growthMiB);
    expect(server.stderr()).not.toMatch(INTERNALS);
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await stopChild(server.child, server.exited);
  }
};

// Before the tests that run side by side start (they start before the hooks of a describe block).
beforeAll(() => requireBuilt(ANYTOOL, MCP_DIST));

describe('the MCP server over HTTP against hostile clients', () => {
  it.concurrent.each(httpCases.filter((c) => c.alone !== true))('$name', attackHttp);
  it.each(httpCases.filter((c) => c.alone === true))('$name', attackHttp);
});

// ---- stdio: the real `anytool serve`, started by a raw client ----

interface StdioServer {
  child: ChildProcessWithoutNullStreams;
  write(message: unknown): void;
  /** Resolves with the answer to this request id. */
  answer(id: number): Promise<Record<string, unknown>>;
  answered(): number;
  stderr(): string;
  exited: Promise<number | null>;
}

function startStdio(): StdioServer {
  const child = spawn(process.execPath, [ANYTOOL, 'serve', FIXTURE], { cwd: ROOT, stdio: 'pipe' });
  let stderr = '';
  let buffered = '';
  const answers = new Map<unknown, Record<string, unknown>>();
  const waiting = new Map<unknown, (message: Record<string, unknown>) => void>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      answers.set(message['id'], message);
      waiting.get(message['id'])?.(message);
    }
  });
  child.stdin.on('error', () => undefined);
  return {
    child,
    write: (message) => child.stdin.write(typeof message === 'string' ? `${message}\n` : `${JSON.stringify(message)}\n`),
    answer: (id) => (answers.has(id) ? Promise.resolve(answers.get(id)!) : new Promise((resolve) => waiting.set(id, resolve))),
    answered: () => answers.size,
    stderr: () => stderr,
    exited,
  };
}

async function stdioStats(server: StdioServer, id: number): Promise<Stats> {
  server.write(call(id, 'server_stats', {}));
  return ((await server.answer(id))['result'] as { structuredContent: Stats }).structuredContent;
}

type StdioAttack = (server: StdioServer) => Promise<unknown>;

/** Many calls with large answers while the client does not read: the server's writes wait for the pipe. */
const burst =
  ({ calls, bytes, pauseMs }: { calls: number; bytes: number; pauseMs: number }): StdioAttack =>
  async (server) => {
    server.child.stdout.pause();
    for (let i = 1; i <= calls; i++) server.write(call(1000 + i, 'ok_echo', { message: 'x'.repeat(bytes) }));
    await sleep(pauseMs);
    server.child.stdout.resume();
    await Promise.all(Array.from({ length: calls }, (_, i) => server.answer(1000 + i + 1)));
    return { answered: server.answered() - 2, warnings: /Warning/.test(server.stderr()) };
  };

/** The client closes the server's stdout while answers are being written, then waits for the server to exit. */
const closeStdout =
  ({ calls }: { calls: number }): StdioAttack =>
  async (server) => {
    server.child.stdout.pause();
    for (let i = 1; i <= calls; i++) server.write(call(1000 + i, 'ok_echo', { message: 'x'.repeat(1024) }));
    await sleep(300);
    server.child.stdout.destroy();
    const code = await server.exited;
    return { code, crashed: /Error|EPIPE|Warning/.test(server.stderr()) };
  };

const stdioMessage =
  (text: string, id: number): StdioAttack =>
  async (server) => {
    server.write(text);
    const reply = await server.answer(id);
    const error = reply['error'] as { code: number; message: string } | undefined;
    const result = reply['result'] as { isError?: boolean; content: { text: string }[] } | undefined;
    const said = error?.message ?? result?.content[0]?.text ?? '';
    return { code: error?.code, isError: result?.isError, internals: INTERNALS.test(said) };
  };

const stdioUnknownResponse =
  ({ id, secret }: { id: number; secret: string }): StdioAttack =>
  async (server) => {
    server.write({ jsonrpc: '2.0', id, result: { action: 'accept', content: { password: secret } } });
    await sleep(300);
    return { logsId: server.stderr().includes(`request id ${id}`), leaks: server.stderr().includes(secret) };
  };

interface StdioCase {
  name: string;
  attack: StdioAttack;
  expected: unknown;
  seconds: number;
  growthMiB: number;
  /** Whether the server is expected to serve on after it (not when the client closed its stdout). */
  servesOn: boolean;
  /** Run alone, not beside the other cases: what it checks depends on timing a busier machine could upset. */
  alone?: true;
}

const stdioCases: StdioCase[] = [
  {
    name: '1,000 calls with 4 KiB answers while the client does not read for a second',
    attack: burst({ calls: 1000, bytes: 4096, pauseMs: 1000 }),
    expected: { answered: 1000, warnings: false },
    seconds: 60,
    growthMiB: 200,
    servesOn: true,
  },
  {
    name: 'the client closing the server’s stdout while answers are written',
    attack: closeStdout({ calls: 1000 }),
    expected: { code: 0, crashed: false },
    seconds: 30,
    growthMiB: 200,
    servesOn: false,
  },
  {
    name: 'tools/call without a name',
    attack: stdioMessage(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: {} }), 5),
    expected: { code: -32602, isError: undefined, internals: false },
    seconds: 20,
    growthMiB: 100,
    servesOn: true,
  },
  {
    name: 'tools/call with arguments nested 100,000 deep',
    attack: stdioMessage(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ok_echo","arguments":{"message":${nested(100_000)}}}}`, 5),
    expected: { code: undefined, isError: true, internals: false },
    seconds: 20,
    growthMiB: 100,
    servesOn: true,
  },
  {
    name: 'a response to an unknown id carrying a password',
    attack: stdioUnknownResponse({ id: 99, secret: 'hunter2' }),
    // What the server logged is read 300 ms after the message was written.
    alone: true,
    expected: { logsId: true, leaks: false },
    seconds: 20,
    growthMiB: 100,
    servesOn: true,
  },
];

// As over HTTP: each case has a process of its own, and they run side by side but those marked `alone`.
const attackStdio = async ({ attack, expected, seconds, growthMiB, servesOn }: StdioCase): Promise<void> => {
  const server = startStdio();
  try {
    server.write(INITIALIZE);
    await within(20, server.answer(0));
    server.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const before = await stdioStats(server, 1);
    const outcome = await within(seconds, attack(server));
    expect(outcome).toEqual(expected);
    if (servesOn) {
      server.write(call(2, 'ok_echo', { message: 'after' }));
      expect(await within(20, server.answer(2))).toMatchObject({ result: { content: [{ type: 'text', text: 'after' }] } });
      const peak = await stdioStats(server, 3);
      expect((peak.peakRss - before.rss) / MiB).toBeLessThan(growthMiB);
    }
  } finally {
    server.child.stdin.end();
    await stopChild(server.child, server.exited);
  }
};

describe('anytool serve over stdio against a hostile client', () => {
  it.concurrent.each(stdioCases.filter((c) => c.alone !== true))('$name', attackStdio);
  it.each(stdioCases.filter((c) => c.alone === true))('$name', attackStdio);
});

describe('clientIdentity and the new limits as options', () => {
  const echoTool = tool(({ message }: { message: string }) => message, {
    name: 'ok_echo',
    description: 'Echoes the message.',
    parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  });
  const echoCall = (id: number): string => call(id, 'ok_echo', { message: `call ${id}` });

  it("with clientIdentity: 'none', a session answers whoever has its id", async () => {
    const server = await serveMcp(echoTool, { transport: 'http', port: 0, clientIdentity: 'none' });
    try {
      const session = await openSession(server.url!);
      expect(answer(await send(server.url!, { headers: session, body: echoCall(1), from: OTHER_CLIENT }))).toEqual({
        status: 200,
        isError: false,
        text: 'call 1',
      });
    } finally {
      await server.close();
    }
  });

  it('with a clientIdentity function, sessions belong to the principal it returns, and are counted per principal', async () => {
    const server = await serveMcp(echoTool, {
      transport: 'http',
      port: 0,
      maxSessionsPerClient: 1,
      clientIdentity: (req) => req.headers['x-user'] as string | undefined,
    });
    try {
      const init = (user: string): Promise<Reply> => send(server.url!, { headers: { ...POST_HEADERS, 'x-user': user }, body: JSON.stringify(INITIALIZE) });
      const first = await init('bob');
      const bob = { ...POST_HEADERS, 'x-user': 'bob', 'mcp-session-id': String(first.headers['mcp-session-id']), 'mcp-protocol-version': PROTOCOL };
      expect(answer(await send(server.url!, { headers: bob, body: echoCall(3) }))).toEqual({ status: 200, isError: false, text: 'call 3' });
      expect(answer(await send(server.url!, { headers: { ...bob, 'x-user': 'eve' }, body: echoCall(4) }))).toEqual({ status: 404, code: -32001, id: null });
      const { 'x-user': _user, ...anonymous } = bob;
      expect(answer(await send(server.url!, { headers: anonymous, body: echoCall(4) }))).toEqual({ status: 404, code: -32001, id: null });
      // bob's second session ends his idle first one; carol's is her own.
      expect((await init('bob')).status).toBe(200);
      expect(answer(await send(server.url!, { headers: bob, body: echoCall(5) }))).toEqual({ status: 404, code: -32001, id: null });
      expect((await init('carol')).status).toBe(200);
      expect(server.sessionCount).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('refuses bad limits with coded errors naming the option', async () => {
    for (const [option, value] of [
      ['maxSessionsPerClient', 0],
      ['maxBodyBytesInFlight', 1.5],
      ['maxBodyBytes', -1],
      ['headersTimeoutMs', 0],
      ['requestTimeoutMs', Number.NaN],
    ] as const) {
      await expect(serveMcp(echoTool, { transport: 'http', port: 0, [option]: value })).rejects.toMatchObject({
        code: ErrorCode.InvalidOptions,
        message: expect.stringContaining(option),
      });
    }
    const unlimited = await serveMcp(echoTool, { transport: 'http', port: 0, headersTimeoutMs: Infinity, requestTimeoutMs: Infinity });
    await unlimited.close();
  });
});
