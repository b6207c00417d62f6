import { createHash } from 'node:crypto';
import { Toolset, resultText } from '@anytool/core';
import { ReadBuffer } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { KNOWN_STDIO_STARTS, StdioReadBuffer, useStdioReadBuffer } from '../../src/client/sdk-internals';
import { connectForEachTest, fixture } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

interface LineReader {
  append(chunk: Buffer): void;
  readMessage(): unknown;
}

/** Everything a reader gives for these chunks, in order: each message, or the error it threw (its class and message). */
function readAll(reader: LineReader, chunks: Buffer[]): unknown[] {
  const out: unknown[] = [];
  const failed = (error: unknown) => out.push({ threw: (error as Error).constructor.name, message: (error as Error).message });
  for (const chunk of chunks) {
    try {
      reader.append(chunk);
    } catch (error) {
      failed(error);
      continue;
    }
    // As StdioClientTransport.processReadBuffer does: a bad line is reported and reading goes on.
    for (;;) {
      try {
        const message = reader.readMessage();
        if (message === null) break;
        out.push({ message });
      } catch (error) {
        failed(error);
      }
    }
  }
  return out;
}

/**
 * Our reader's output equals the SDK reader's, key order included (so a logged message reads the same),
 * with one difference on purpose: a line that is not JSON is reported (a SyntaxError, which the transport
 * turns into a diagnostic) where the SDK's reader skips it without a word.
 */
function expectSameAsSdk(chunks: Buffer[], maxBufferSize?: number): unknown[] {
  const ours = readAll(new StdioReadBuffer(maxBufferSize), chunks);
  const sdk = readAll(new ReadBuffer(maxBufferSize === undefined ? {} : { maxBufferSize }), chunks);
  const notJson = (o: unknown) => (o as { threw?: string }).threw === 'SyntaxError';
  expect(ours.filter((o) => !notJson(o))).toEqual(sdk);
  expect(JSON.stringify(ours.filter((o) => !notJson(o)))).toBe(JSON.stringify(sdk));
  return ours;
}

const lines = (...values: unknown[]) => Buffer.from(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)) + '\n').join(''));
const ok = { content: [{ type: 'text', text: 'Echo: hi' }] };

// Each line on its own: result responses the fast path takes, and every near miss it must leave to the SDK's schema.
const corpus: unknown[] = [
  { jsonrpc: '2.0', id: 1, result: ok },
  { jsonrpc: '2.0', id: 0, result: {} },
  { jsonrpc: '2.0', id: -7, result: ok },
  { jsonrpc: '2.0', id: 'req-1', result: ok },
  { jsonrpc: '2.0', id: 1.5, result: ok },
  { jsonrpc: '2.0', id: 2 ** 53, result: ok },
  { jsonrpc: '2.0', id: null, result: ok },
  { jsonrpc: '2.0', id: true, result: ok },
  { jsonrpc: '2.0', result: ok },
  { jsonrpc: '2.0', id: 1, result: { ...ok, _meta: { progressToken: 3 } } },
  { jsonrpc: '2.0', id: 1, result: { ...ok, _meta: 'not an object' } },
  { jsonrpc: '2.0', id: 1, result: { ...ok, _meta: null } },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: 'text' },
  { jsonrpc: '2.0', id: 1, result: ok, extra: true },
  { jsonrpc: '2.0', id: 1, result: ok, error: { code: 1, message: 'both' } },
  { jsonrpc: '1.0', id: 1, result: ok },
  { id: 1, result: ok },
  { jsonrpc: 2, id: 1, result: ok },
  { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', id: 1, error: { code: 'bad', message: 'x' } },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } },
  { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
  { jsonrpc: '2.0', id: 9, method: 'roots/list' },
  { jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
  { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a\u2028b \u00e9 \u{1f600}' }], structuredContent: { n: 1 } } },
  [{ jsonrpc: '2.0', id: 1, result: ok }],
  // Lines as servers write them, which object literals cannot give: the SDK's own server puts `result` first.
  '{"result":{"content":[{"type":"text","text":"Echo: hi"}]},"jsonrpc":"2.0","id":3}',
  '{"jsonrpc":"2.0","id":4,"result":{"__proto__":{"polluted":true},"content":[]}}',
  '{"jsonrpc":"2.0","id":5,"__proto__":{},"result":{}}',
  '{"jsonrpc":"2.0","id":6,"result":{"a":1},"id":7}',
  '{"jsonrpc":"2.0","id":-0,"result":{}}',
  '{"jsonrpc":"2.0","id":1e400,"result":{}}',
  'this is not json',
  '"a string"',
  '42',
  'null',
  '',
];

describe('StdioReadBuffer gives what the SDK ReadBuffer gives', () => {
  it.each(corpus.map((value, i) => [i, value]))('line %i, alone and in CRLF', (_i, value) => {
    const out = expectSameAsSdk([lines(value)]);
    expect(out).toHaveLength(1);
    const crlf = Buffer.from((typeof value === 'string' ? value : JSON.stringify(value)) + '\r\n');
    expectSameAsSdk([crlf]);
  });

  it('gives plain result responses as the schema would, and leaves every near miss to the schema', () => {
    // The first four corpus lines are ones the SDK accepts as they are; a few near misses it rejects.
    const out = expectSameAsSdk([lines(...corpus.slice(0, 4), corpus[4], corpus[15], corpus[9])]);
    expect(out.slice(0, 4)).toEqual(corpus.slice(0, 4).map((message) => ({ message })));
    expect(out[4]).toMatchObject({ threw: 'ZodError' });
    expect(out[5]).toMatchObject({ threw: 'ZodError' });
    expect(out[6]).toEqual({ message: corpus[9] });
  });

  it('the whole corpus in one chunk, and cut into chunks of 1 to 1000 bytes (multi-byte characters, and CR from LF, split across chunks)', () => {
    for (const ending of ['\n', '\r\n']) {
      const all = Buffer.from(corpus.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)) + ending).join(''));
      const whole = expectSameAsSdk([all]);
      expect(whole).toHaveLength(corpus.length);
      for (const size of [1, 2, 3, 7, 64, 1000]) {
        const chunks: Buffer[] = [];
        for (let at = 0; at < all.length; at += size) chunks.push(all.subarray(at, at + size));
        expect(expectSameAsSdk(chunks)).toEqual(whole);
      }
    }
  });

  it('runs the SDK schema only for lines that are not plain result responses', () => {
    const parse = jest.spyOn(JSONRPCMessageSchema, 'parse');
    try {
      const reader = new StdioReadBuffer();
      const plain = readAll(reader, [lines(corpus[0], corpus[3], '{"result":{"content":[]},"jsonrpc":"2.0","id":3}')]);
      expect(plain).toHaveLength(3);
      expect(parse).not.toHaveBeenCalled();
      // An id of 1.5, a result with _meta, an error response, a notification.
      readAll(reader, [lines(corpus[4], corpus[9], corpus[20], corpus[22])]);
      expect(parse).toHaveBeenCalledTimes(4);
    } finally {
      parse.mockRestore();
    }
  });

  it('random envelopes built from the same parts agree with the SDK, 3000 of them', () => {
    // mulberry32, seeded: the same cases every run.
    let seed = 7;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    const absent = Symbol('absent');
    const parts: Record<string, unknown[]> = {
      jsonrpc: ['2.0', '2.0', '2.0', '1.0', 2, null, absent],
      id: [1, 0, 123456, -1, 'x', '', 1.25, 2 ** 53, null, false, {}, absent],
      result: [ok, {}, { _meta: {} }, { _meta: { progressToken: 'p' } }, { _meta: 5 }, null, [], 3, absent],
      error: [absent, absent, { code: -32000, message: 'm' }, { message: 'no code' }],
      method: [absent, absent, absent, 'ping', 7],
      extra: [absent, absent, absent, absent, 'x'],
    };
    const values = Array.from({ length: 3000 }, () => {
      const value: Record<string, unknown> = {};
      for (const [key, options] of Object.entries(parts)) {
        const part = pick(options);
        if (part !== absent) value[key] = part;
      }
      return value;
    });
    const out = expectSameAsSdk([lines(...values)]);
    expect(out).toHaveLength(values.length);
    // Both kinds occur, so the comparison covers the fast path and the schema's.
    expect(out.filter((o) => 'message' in (o as object)).length).toBeGreaterThan(100);
    expect(out.filter((o) => 'threw' in (o as object)).length).toBeGreaterThan(100);
  });

  it('past its size limit a line is skipped, not kept or thrown: a response is answered with RESULT_TOO_LARGE for its id, the rest reads on', () => {
    const problems: string[] = [];
    const big = lines({ result: { content: [{ type: 'text', text: 'x'.repeat(200) }] }, jsonrpc: '2.0', id: 7 });
    const notice = lines({ method: 'notifications/message', params: { data: 'y'.repeat(300) }, jsonrpc: '2.0' });
    const bigFirst = lines({ jsonrpc: '2.0', id: 'first', result: { text: 'z'.repeat(300) } });
    // The big line in small chunks (skipped as it comes), then lines over the limit that end in one chunk.
    const chunks = [
      ...Array.from({ length: Math.ceil(big.length / 50) }, (_, i) => big.subarray(i * 50, i * 50 + 50)),
      Buffer.concat([notice, bigFirst, lines(corpus[0])]),
    ];
    const out = readAll(new StdioReadBuffer(128, (p) => problems.push(p)), chunks);
    const tooLarge = (id: unknown, size: number | undefined) => ({
      message: {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32090,
          message: expect.stringContaining('over the 128 bytes limit (maxResultBytes: 128)'),
          data: { resultTooLarge: { size: size ?? expect.any(Number), exact: true, limit: 128 } },
        },
      },
    });
    expect(out).toEqual([tooLarge(7, big.length - 1), tooLarge('first', bigFirst.length - 1), { message: corpus[0] }]);
    expect(problems).toEqual([
      expect.stringMatching(/^dropped a notifications\/message message from the server, too large: 3\d\d bytes, over the 128 bytes limit/),
    ]);
  });

  it('reads a line of exactly its limit (the line break not counted)', () => {
    const line = lines({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(100) } });
    expect(readAll(new StdioReadBuffer(line.length - 1), [line.subarray(0, 40), line.subarray(40)])).toEqual([{ message: JSON.parse(line.toString()) }]);
    expect(readAll(new StdioReadBuffer(line.length - 2), [line.subarray(0, 40), line.subarray(40)])).toEqual([
      { message: expect.objectContaining({ error: expect.objectContaining({ code: -32090 }) }) },
    ]);
  });

  it('holds no more than its limit of a line it skips', () => {
    const reader = new StdioReadBuffer(1024);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 100; i++) reader.append(chunk);
    const fields = reader as unknown as { buffer: Buffer | undefined; parts: Buffer[] };
    expect(fields.buffer).toBeUndefined();
    expect(fields.parts).toEqual([]);
    reader.append(Buffer.from(',"jsonrpc":"2.0","id":3}\n'));
    expect(reader.readMessage()).toMatchObject({ id: 3, error: { data: { resultTooLarge: { size: 100 * 64 * 1024 + 24, exact: true, limit: 1024 } } } });
  });
});

describe('an McpConnection over stdio', () => {
  const connect = connectForEachTest();

  it("reads its server's stdout with a StdioReadBuffer", async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    expect(resultText(await new Toolset(mcp).invoke('echo', { message: 'fast path' }))).toBe('fast path');
    const transport = (mcp.connection('f') as unknown as { transport: { _readBuffer: unknown } }).transport;
    expect(transport._readBuffer).toBeInstanceOf(StdioReadBuffer);
  });

  it('writes the messages of one turn to the server in one write, in order, large ones included', async () => {
    const mcp = await connect({ mcpServers: { f: fixture() } });
    const toolset = new Toolset(mcp);
    expect(resultText(await toolset.invoke('echo', { message: 'warm' }))).toBe('warm');
    const stdin = (mcp.connection('f') as unknown as { transport: { _process: { stdin: Record<string, (...args: unknown[]) => unknown> } } }).transport._process
      .stdin;
    const writes: number[] = [];
    for (const method of ['_write', '_writev']) {
      const original = stdin[method]!;
      stdin[method] = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
        writes.push(Array.isArray(chunk) ? chunk.length : 1);
        return original.call(this, chunk, ...rest);
      };
    }
    const messages = Array.from({ length: 50 }, (_, i) => (i % 10 === 9 ? `large ${i} ${'x'.repeat(100_000)}` : `call ${i}`));
    const results = await Promise.all(messages.map((message) => toolset.invoke('echo', { message })));
    expect(results.map(resultText)).toEqual(messages);
    // Without batching each of the 50 requests is a write (a system call) of its own.
    expect(writes.reduce((a, b) => a + b, 0)).toBe(50);
    expect(writes.length).toBeLessThanOrEqual(5);
    // A lone call still goes out at once.
    writes.length = 0;
    expect(resultText(await toolset.invoke('echo', { message: 'alone' }))).toBe('alone');
    expect(writes).toEqual([1]);
  });

  it('useStdioReadBuffer keeps a configured limit, and records a diagnostic instead of throwing when the field is missing or a line is over the limit', () => {
    const transport = new StdioClientTransport({ command: process.execPath, maxBufferSize: 1234 });
    const problems: string[] = [];
    useStdioReadBuffer(transport, (p) => problems.push(p));
    const reader = (transport as unknown as { _readBuffer: StdioReadBuffer })._readBuffer;
    expect(reader).toBeInstanceOf(StdioReadBuffer);
    reader.append(Buffer.from(`${'x'.repeat(1235)}\n`));
    expect(reader.readMessage()).toBeNull();
    expect(problems).toEqual([expect.stringContaining('1.2 KiB, over the 1.2 KiB limit (maxResultBytes: 1234)')]);
    problems.length = 0;
    useStdioReadBuffer({} as StdioClientTransport, (p) => problems.push(p));
    expect(problems).toEqual([expect.stringContaining('no _readBuffer')]);
  });
});

describe('the SDK behaviour the private accesses replace (sdk-internals.ts)', () => {
  it("the SDK's reader still skips a line that is not JSON without a word: ours reports it", () => {
    const chunk = lines('not json at all', corpus[0]);
    expect(readAll(new ReadBuffer(), [chunk])).toEqual([{ message: corpus[0] }]);
    expect(readAll(new StdioReadBuffer(), [chunk])).toEqual([{ threw: 'SyntaxError', message: expect.any(String) }, { message: corpus[0] }]);
  });

  it("the SDK's StdioClientTransport.start is the one startInOwnGroup repeats (a new SDK release fails here until checked)", () => {
    const source = StdioClientTransport.prototype.start.toString();
    expect(KNOWN_STDIO_STARTS.has(createHash('sha256').update(source).digest('hex'))).toBe(true);
  });
});
