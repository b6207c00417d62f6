import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type AnytoolError, ErrorCode, ExecutionContext, Toolset, resultText, type ToolResult } from '@anytool/core';
import { McpToolset, type McpServerConfig } from '@anytool/mcp';
import { limitedFetch } from '../../src/client/http-limits';
import { alive, until, untilAsync } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

const SERVER = join(__dirname, '..', 'fixtures', 'broken-server', 'server.mjs');
const MiB = 2 ** 20;

/** stdio; streamable HTTP answering with SSE streams (the SDK server's default) or with JSON bodies; the old HTTP+SSE transport. */
type Transport = 'stdio' | 'http' | 'http-json' | 'sse';
const ALL: Transport[] = ['stdio', 'http', 'http-json', 'sse'];

interface Case {
  name: string;
  behaviours: string[];
  tool: string;
  args?: Record<string, unknown>;
  transports?: Transport[];
  /** Added to the server's entry. */
  server?: { maxResultBytes?: number; toolTimeouts?: Record<string, number> };
  /** Toolset options. */
  options?: { maxResultBytes?: number };
  /** Abort the run this long after the call starts, with this reason. */
  abort?: { afterMs: number; reason: unknown };
  /** Put a user name, password and API key into the server's URL. */
  credentials?: boolean;
  /** The expected error code; undefined: the call succeeds. */
  code: string | undefined;
  /** What the result's text must say, and must not. */
  says: RegExp[];
  never?: RegExp[];
  /** A diagnostic of the connection must match. */
  diagnostic?: RegExp;
  /** A second call on the same server, retried until its text matches (what the server saw). */
  then?: { tool: string; says: RegExp; never?: RegExp };
  /** The result's text is a pid that must be gone once the toolset is closed. */
  pidGoneAfterClose?: boolean;
  /** Bounds: the call settles within `ms`; the process's RSS and heap grow less than `mb` during it. */
  ms: number;
  mb: number;
}

const SECRET = /p4ssw0rd|sk-live-[0-9a-f]+/;

const cases: Case[] = [
  {
    name: 'a 200 MiB text result',
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 200 },
    code: ErrorCode.ResultTooLarge,
    says: [/"result_big"/, /"main"/, /(200 MiB, )?over the 10 MiB limit \(maxResultBytes: 10485760\)/, /raise "maxResultBytes"/],
    ms: 30_000,
    mb: 150,
    // The size check is the same on every HTTP answer; the 12 MiB case below runs on all four.
    transports: ['stdio', 'http'],
  },
  {
    name: 'a 12 MiB structured result, just over the default limit',
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 12, kind: 'structured' },
    code: ErrorCode.ResultTooLarge,
    says: [/too large: (12 MiB, )?over the 10 MiB limit/, /maxResultBytes/],
    ms: 20_000,
    mb: 150,
  },
  {
    name: 'a 9 MiB result, under the default limit, arrives whole',
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 9 },
    code: undefined,
    says: [/^x{1000}/],
    ms: 20_000,
    mb: 300,
  },
  {
    name: "a 2 MiB result over the server's own 1 MiB limit",
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 2 },
    server: { maxResultBytes: MiB },
    code: ErrorCode.ResultTooLarge,
    says: [/1 MiB/, /maxResultBytes/],
    ms: 20_000,
    mb: 150,
  },
  {
    name: "a 2 MiB result over the toolset's 1 MiB limit",
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 2 },
    options: { maxResultBytes: MiB },
    code: ErrorCode.ResultTooLarge,
    says: [/1 MiB/],
    ms: 20_000,
    mb: 150,
  },
  {
    name: 'a 12 MiB notification during a call is dropped, the result arrives',
    behaviours: ['result-big-notice'],
    tool: 'result_big_notice',
    args: { mb: 12 },
    // A server answering with JSON bodies has no stream to send it on.
    transports: ['stdio', 'http', 'sse'],
    code: undefined,
    says: [/^after the notice$/],
    diagnostic: /dropped a notifications\/result_big_notice message .*maxResultBytes/,
    ms: 20_000,
    mb: 150,
  },
  {
    name: 'an image whose data is not base64',
    behaviours: ['result-bad-content'],
    tool: 'result_bad_base64',
    code: ErrorCode.McpInvalidResult,
    says: [/content\[1\] \(image\)/, /base64/i, /"result_bad_base64"/, /"main"/],
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'twenty bad image and audio parts: a short message, not a validator dump',
    behaviours: ['result-bad-content'],
    tool: 'result_many_bad_parts',
    code: ErrorCode.McpInvalidResult,
    says: [/content\[0\] \(image\)/, /more/],
    never: [/"code":/, /invalid_union/],
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'a part of a type MCP does not define is kept as text with a note',
    behaviours: ['result-bad-content'],
    tool: 'result_unknown_part',
    code: undefined,
    says: [/^kept\n/, /"hologram"/, /"frames":\[1,2,3\]/],
    diagnostic: /"hologram"/,
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'an embedded resource whose blob is not base64',
    behaviours: ['result-bad-content'],
    tool: 'result_bad_blob',
    code: ErrorCode.McpInvalidResult,
    says: [/content\[0\] \(resource\)/, /blob/, /base64/i],
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'content that is not a list',
    behaviours: ['result-bad-content'],
    tool: 'result_not_a_list',
    code: ErrorCode.McpInvalidResult,
    says: [/content/],
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'a JSON-RPC error with a message of 100 000 characters: cut short',
    behaviours: ['result-huge-error'],
    tool: 'result_huge_error',
    code: ErrorCode.McpProtocolError,
    says: [/error -32603: it went wrong: e+… \(\d+ more characters\)/],
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'an abort reason with a secret is not sent to the server',
    behaviours: ['result-cancel-reason'],
    tool: 'result_wait_cancel',
    abort: { afterMs: 300, reason: new Error('api_key=sk-live-0123456789abcdef') },
    code: ErrorCode.Aborted,
    says: [/cancelled/],
    then: { tool: 'result_cancel_reason', says: /^cancelled by the client$/, never: SECRET },
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'a grandchild that outlives its parent ends with close()',
    behaviours: ['result-double-fork'],
    tool: 'result_double_fork',
    transports: ['stdio'],
    code: undefined,
    says: [/^\d+$/],
    pidGoneAfterClose: true,
    ms: 10_000,
    mb: 100,
  },
  {
    name: 'credentials in the URL work and never show',
    behaviours: ['result-big'],
    tool: 'result_big',
    args: { mb: 11 },
    transports: ['http', 'http-json', 'sse'],
    credentials: true,
    code: ErrorCode.ResultTooLarge,
    says: [/maxResultBytes/],
    ms: 20_000,
    mb: 150,
  },
];

/** A running broken server over HTTP (streamable or old SSE), stopped by `stop`. */
interface HttpServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startHttp(transport: Exclude<Transport, 'stdio'>, behaviours: string[]): Promise<HttpServer> {
  const env = { ...process.env, JSON_RESPONSE: transport === 'http-json' ? '1' : '0' };
  const child = spawn(process.execPath, [SERVER, transport === 'sse' ? 'sse' : 'http', ...behaviours], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.resume();
  const stop = async (): Promise<void> => {
    child.kill('SIGKILL');
    await until(() => !running(child.pid!), 5_000, 'the broken server to exit');
  };
  try {
    await until(() => /listening \d+/.test(out), 10_000, 'the broken server to listen');
  } catch (error) {
    await stop();
    throw error;
  }
  const port = /listening (\d+)/.exec(out)![1];
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, child, stop };
}

/**
 * The broken servers over HTTP, one process per transport shared by every case (each case opens its own session, whose
 * URL names its behaviours: /with/<names>/mcp): started on first use, stopped by `stopShared` after the file's cases. A
 * process per case, or per set of behaviours, was a node start each. The cases run one at a time, so a behaviour's state
 * (the last cancel reason) is only ever another case's once that case has ended.
 */
const shared = new Map<string, Promise<HttpServer>>();

async function sharedHttp(transport: Exclude<Transport, 'stdio'>, behaviours: string[]): Promise<string> {
  let server = shared.get(transport);
  if (server === undefined) {
    server = startHttp(transport, []);
    shared.set(transport, server);
  }
  const { origin } = new URL((await server).url);
  return `${origin}/with/${behaviours.join('+')}/${transport === 'sse' ? 'sse' : 'mcp'}`;
}

async function stopShared(): Promise<void> {
  const servers = [...shared.values()];
  shared.clear();
  await Promise.all(
    servers.map((server) =>
      server.then(
        (s) => s.stop(),
        () => undefined,
      ),
    ),
  );
}

/** True while the process runs (a zombie waiting for its parent to read its status does not run). */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return process.platform === 'linux' ? false : true;
  }
}

function withCredentials(url: string): string {
  const out = new URL(url);
  out.username = 'user';
  out.password = 'p4ssw0rd';
  out.searchParams.set('api_key', 'sk-live-0123456789abcdef');
  return out.href;
}

/** Runs `call`, sampling the process's memory every few milliseconds: the time it took and how far RSS and heap rose. */
async function measure<T>(call: () => Promise<T>): Promise<{ value: T; ms: number; rssMb: number; heapMb: number }> {
  const before = process.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const sample = (): void => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss);
    heap = Math.max(heap, now.heapUsed);
  };
  const timer = setInterval(sample, 5);
  const start = performance.now();
  try {
    const value = await call();
    sample();
    return { value, ms: performance.now() - start, rssMb: (rss - before.rss) / MiB, heapMb: (heap - before.heapUsed) / MiB };
  } finally {
    clearInterval(timer);
  }
}

const rows = cases.flatMap((c) => (c.transports ?? ALL).map((t) => [c.name, t, c] as const));
const measured: string[] = [];

describe('hostile results: every call settles with a code, memory stays bounded, the other tools keep working', () => {
  /** A second, healthy server in every case's toolset: its tools must keep working whatever the first one sends. */
  let healthy: HttpServer;
  beforeAll(async () => {
    healthy = await startHttp('http', []);
  });

  afterAll(async () => {
    // The numbers behind the bounds, for the record.
    process.stdout.write(`\n${measured.join('\n')}\n`);
    await stopShared();
    await healthy?.stop();
  });

  it.each(rows)('%s (%s)', async (_name, transport, c) => {
    const http = transport === 'stdio' ? undefined : await sharedHttp(transport, c.behaviours);
    let mcp: McpToolset | undefined;
    try {
      const main: McpServerConfig =
        http === undefined
          ? { command: process.execPath, args: [SERVER, 'stdio', ...c.behaviours] }
          : { type: transport === 'sse' ? 'sse' : 'http', url: c.credentials === true ? withCredentials(http) : http };
      const other: McpServerConfig = { type: 'http', url: healthy.url };
      mcp = await McpToolset.connect({ main: { ...main, ...c.server }, other }, { prefix: true, ...c.options });
      const toolset = new Toolset(mcp);
      const connection = mcp.connection('main')!;
      const pid = connection.pid;

      const controller = new AbortController();
      const timer = c.abort === undefined ? undefined : setTimeout(() => controller.abort(c.abort!.reason), c.abort.afterMs);
      const {
        value: result,
        ms,
        rssMb,
        heapMb,
      } = await measure(() => toolset.invoke(`main_${c.tool}`, c.args ?? {}, new ExecutionContext({ signal: controller.signal })));
      clearTimeout(timer);
      measured.push(`${c.name} (${transport}): ${Math.round(ms)} ms, RSS +${rssMb.toFixed(0)} MB, heap +${heapMb.toFixed(0)} MB`);

      const text = resultText(result);
      expect(result.error?.code).toBe(c.code);
      for (const pattern of c.says) expect(text).toMatch(pattern);
      for (const pattern of c.never ?? []) expect(text).not.toMatch(pattern);
      if (c.code !== undefined) expect(text.length).toBeLessThan(1_000);
      expect(ms).toBeLessThan(c.ms);
      expect(rssMb).toBeLessThan(c.mb);
      expect(heapMb).toBeLessThan(c.mb);
      if (c.diagnostic !== undefined) expect(connection.diagnostics.join('\n')).toMatch(c.diagnostic);

      if (c.then !== undefined) {
        const then = c.then;
        let seen = '';
        await untilAsync(
          async () => then.says.test((seen = resultText(await toolset.invoke(`main_${then.tool}`, {})))),
          5_000,
          `${then.tool} to answer ${then.says}`,
        ).catch(() => undefined);
        expect(seen).toMatch(then.says);
        if (then.never !== undefined) expect(seen).not.toMatch(then.never);
      }

      // The healthy tools of this server and of the other server keep working, on the same session and process.
      expect(resultText(await toolset.invoke('main_ok_echo', { message: 'still here' }))).toBe('still here');
      expect(resultText(await toolset.invoke('main_ok_add', { a: 2, b: 3 }))).toBe('5');
      expect(resultText(await toolset.invoke('other_ok_echo', { message: 'me too' }))).toBe('me too');
      expect(connection.starts).toBe(1);
      expect(connection.pid).toBe(pid);
      for (const line of [text, ...connection.diagnostics]) expect(line).not.toMatch(SECRET);

      if (c.pidGoneAfterClose === true) {
        const grandchild = Number(text);
        expect(running(grandchild)).toBe(true);
        await mcp.close();
        await until(() => !running(grandchild), 5_000, `process ${grandchild} to end`);
      }
    } finally {
      await mcp?.close();
    }
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('credentials in a server URL never show in errors or diagnostics', () => {
  it.each(['http', 'sse'] as const)('a server that is not there (%s)', async (type) => {
    const url = withCredentials(`http://127.0.0.1:${await closedPort()}/mcp`);
    const error = await McpToolset.connect({ mcpServers: { gone: { type, url, startTimeoutMs: scaled(5_000) } } }).then(
      () => undefined,
      (e: unknown) => e as AnytoolError,
    );
    expect(error?.code).toBe(ErrorCode.McpConnectFailed);
    // The URL is shown with its credentials masked.
    expect(error?.message).toMatch(/ at http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/mcp\?api_key=\*\*\*: /);
    expect(error?.message).not.toMatch(SECRET);
    expect(String((error?.cause as Error | undefined)?.message)).not.toMatch(SECRET);
  });

  it('a server that goes away after the start', async () => {
    const http = await startHttp('http', []);
    const mcp = await McpToolset.connect({ mcpServers: { main: { type: 'http', url: withCredentials(http.url) } } });
    try {
      await http.stop();
      const result: ToolResult = await new Toolset(mcp).invoke('ok_echo', { message: 'anyone?' });
      expect(result.isError).toBe(true);
      for (const line of [resultText(result), result.error?.message ?? '', ...mcp.connection('main')!.diagnostics]) expect(line).not.toMatch(SECRET);
    } finally {
      await mcp.close();
    }
  });
});

describe('process groups', () => {
  it('a grandchild left by a server that died is ended before the server starts again', async () => {
    const mcp = await McpToolset.connect({ mcpServers: { main: { command: process.execPath, args: [SERVER, 'stdio', 'result-double-fork'] } } });
    try {
      const toolset = new Toolset(mcp);
      const grandchild = Number(resultText(await toolset.invoke('result_double_fork', {})));
      expect(running(grandchild)).toBe(true);
      process.kill(mcp.connection('main')!.pid!, 'SIGKILL');
      await until(() => !mcp.connection('main')!.connected, 5_000, 'the connection to notice');
      expect(resultText(await toolset.invoke('ok_echo', { message: 'back' }))).toBe('back');
      expect(mcp.connection('main')!.starts).toBe(2);
      await until(() => !running(grandchild), 5_000, `process ${grandchild} to end`);
    } finally {
      await mcp.close();
    }
  });
});

/** The SSE bytes `limitedFetch` passes on for a server's stream cut into `chunks`, and the problems it reported. */
async function throughLimiter(chunks: string[], limit: number, requestBody?: string): Promise<{ out: string; problems: string[] }> {
  const problems: string[] = [];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  const base = async (): Promise<Response> => new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  const fetch = limitedFetch(limit, (p) => problems.push(p), base);
  const response = await fetch('http://127.0.0.1:1/mcp', requestBody === undefined ? { method: 'GET' } : { method: 'POST', body: requestBody });
  return { out: await response.text(), problems };
}

const event = (message: object, eol = '\n'): string => `event: message${eol}data: ${JSON.stringify(message)}${eol}${eol}`;
const small = { jsonrpc: '2.0', id: 4, result: { content: [] } };
const big = { result: { content: [{ type: 'text', text: 'x'.repeat(500) }] }, jsonrpc: '2.0', id: 5 };
const bigNotice = { method: 'notifications/message', params: { data: 'y'.repeat(500) }, jsonrpc: '2.0' };
const tooLarge = (id: number, exact: boolean) =>
  expect.objectContaining({ id, error: expect.objectContaining({ code: -32090, data: { resultTooLarge: expect.objectContaining({ exact, limit: 200 }) } }) });

const sseCases: Array<{ name: string; chunks: string[]; request?: string; messages: unknown[]; problem?: RegExp }> = [
  { name: 'small events pass unchanged, split anywhere', chunks: [event(small).slice(0, 7), event(small).slice(7) + event(small)], messages: [small, small] },
  {
    name: 'CRLF line breaks, the blank line split across chunks',
    chunks: [event(small, '\r\n').slice(0, -1), '\n' + event(small, '\r\n')],
    messages: [small, small],
  },
  { name: 'CR line breaks', chunks: [event(small, '\r') + event(small, '\r')], messages: [small, small] },
  {
    name: 'a response over the limit on a GET stream: skipped, answered by its id',
    chunks: [event(small), event(big).slice(0, 300), event(big).slice(300), event(small)],
    messages: [small, tooLarge(5, true), small],
  },
  { name: 'a response over the limit in one chunk', chunks: [event(big) + event(small)], messages: [tooLarge(5, true), small] },
  {
    name: 'a notification over the limit: dropped with a problem',
    chunks: [event(bigNotice), event(small)],
    messages: [small],
    problem: /dropped a notifications\/message message/,
  },
  {
    name: "the answer to a POSTed request over the limit: answered with the request's id, reading stops",
    request: '{"method":"tools/call","params":{"name":"x"},"jsonrpc":"2.0","id":9}',
    chunks: [event(big).slice(0, 250), event(big).slice(250), event(small)],
    messages: [tooLarge(9, false)],
  },
];

describe('limitedFetch on SSE streams', () => {
  it.each(sseCases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { out, problems } = await throughLimiter(c.chunks, 200, c.request);
    const messages = out
      .split(/\r\n|\r|\n/)
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
    expect(messages).toEqual(c.messages);
    if (c.problem === undefined) expect(problems).toEqual([]);
    else expect(problems).toEqual([expect.stringMatching(c.problem)]);
  });
});
