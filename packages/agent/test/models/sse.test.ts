import { Anthropic } from '@anthropic-ai/sdk';
import type { EventSourceMessage } from 'eventsource-parser';
import { getEventListeners } from 'node:events';
import { NONE, SseEvents, readEvents } from '../../src/models/sse.js';

const encoder = new TextEncoder();

/** A body giving `bytes` in chunks that end at `cuts`. */
function body(bytes: Uint8Array, cuts: readonly number[] = []): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      let from = 0;
      for (const cut of [...cuts, bytes.length]) {
        if (cut > from) controller.enqueue(bytes.slice(from, cut));
        from = Math.max(from, cut);
      }
      controller.close();
    },
  });
}

async function readAll<T>(events: AsyncIterator<T>): Promise<T[]> {
  const out: T[] = [];
  for (let step = await events.next(); step.done !== true; step = await events.next()) out.push(step.value);
  return out;
}

/** JSON of every message that is not a ping, as the Anthropic client's stream yields them. */
const parsed = (message: EventSourceMessage): unknown => (message.event === 'ping' ? undefined : JSON.parse(message.data));

/** A deterministic pseudo-random source (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Line endings of every kind the SSE format allows, comments, a ping, data over several lines,
// text in two- three- and four-byte UTF-8, an id and a retry field, and an event cut off at the end.
const STREAM = [
  'event: message_start\r\ndata: {"type":"message_start","n":1}\r\n\r\n',
  ': keep-alive comment\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: content_block_delta\rdata: {"type":"content_block_delta","text":"h\u00e9llo \u20ac \ud83c\udf0d"}\r\r',
  'id: 7\nretry: 1000\nevent: content_block_delta\ndata: {"type":"content_block_delta",\ndata:  "text":"two lines"}\n\n',
  'event: message_stop\ndata:{"type":"message_stop"}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","cut":true}',
].join('');

describe('SseEvents', () => {
  it('gives the events the official client reads, wherever the chunks of the body are cut', async () => {
    const bytes = encoder.encode(STREAM);
    const client = new Anthropic({
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:9',
      maxRetries: 0,
      fetch: async () => new Response(body(bytes), { headers: { 'content-type': 'text/event-stream' } }),
    });
    const reference: unknown[] = [];
    for await (const event of await client.messages.create({ model: 'm', max_tokens: 1, messages: [], stream: true })) reference.push(event);
    expect(reference).toHaveLength(4);
    expect(reference[1]).toEqual({ type: 'content_block_delta', text: 'h\u00e9llo \u20ac \ud83c\udf0d' });

    // Every byte a chunk of its own: each multi-byte character and each CR LF pair is split.
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    expect(await readAll(new SseEvents(body(bytes, everyByte), parsed))).toEqual(reference);
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const cuts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => Math.floor(next() * bytes.length)).sort((a, b) => a - b);
      const events = await readAll(new SseEvents(body(bytes, cuts), parsed));
      if (JSON.stringify(events) !== JSON.stringify(reference)) throw new Error(`seed ${seed} (cuts ${cuts.join(',')}): got ${JSON.stringify(events)}`);
    }
  });

  it('takes a CR at the very end of the body as the blank line that ends the last event', async () => {
    const text = 'data: 1\r\rdata: 2\r\r';
    expect(await readAll(new SseEvents(body(encoder.encode(text)), (m) => m.data))).toEqual(['1', '2']);
    expect(await readAll(new SseEvents(body(encoder.encode(text), [text.length - 1]), (m) => m.data))).toEqual(['1', '2']);
    // A single CR ends the data line only: the event is still cut off, and dropped.
    expect(await readAll(new SseEvents(body(encoder.encode('data: 1\r\rdata: 2\r')), (m) => m.data))).toEqual(['1']);
  });

  it('hands out the events of a chunk already read without a promise, then reads on', async () => {
    const events = new SseEvents(body(encoder.encode('data: 1\n\ndata: 2\n\ndata: 3\n\n'), [9]), (m) => Number(m.data));
    expect(events.take()).toBe(NONE);
    expect(await events.next()).toEqual({ value: 1, done: false });
    expect(events.take()).toBe(NONE);
    expect(await events.next()).toEqual({ value: 2, done: false });
    expect(events.take()).toBe(3);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });

  it('ends with what decode throws, after the events before it in the same chunk', async () => {
    const failure = new Error('overloaded');
    let cancelled = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: 1\n\nevent: error\ndata: x\n\ndata: 2\n\n'));
      },
      cancel() {
        cancelled++;
      },
    });
    const events = new SseEvents(stream, (m) => {
      if (m.event === 'error') throw failure;
      return Number(m.data);
    });
    expect(await events.next()).toEqual({ value: 1, done: false });
    await expect(events.next()).rejects.toBe(failure);
    expect(await events.next()).toEqual({ value: undefined, done: true });
    expect(cancelled).toBe(1);
  });

  it('cancels the body when the reader stops early, and ends quietly when the request is aborted', async () => {
    let cancelled = 0;
    const open = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: 1\n\n'));
      },
      cancel() {
        cancelled++;
      },
    });
    const early = new SseEvents(open, (m) => m.data);
    expect(await early.next()).toEqual({ value: '1', done: false });
    expect(await early.return()).toEqual({ value: undefined, done: true });
    expect(cancelled).toBe(1);
    expect(await early.next()).toEqual({ value: undefined, done: true });

    let pulls = 0;
    const aborted = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(encoder.encode('data: 1\n\n'));
        else controller.error(new DOMException('This operation was aborted', 'AbortError'));
      },
    });
    const quiet = new SseEvents(aborted, (m) => m.data);
    expect(await readAll(quiet)).toEqual(['1']);

    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.error(new TypeError('terminated'));
      },
    });
    await expect(new SseEvents(broken, (m) => m.data).next()).rejects.toThrow('terminated');
  });

  it('reads a response without a body as an empty stream', async () => {
    expect(await readAll(new SseEvents(null, (m) => m.data))).toEqual([]);
  });

  it("sends each request on a signal of its own that follows the run's, and drops its listener when the stream is over", async () => {
    const run = new AbortController();
    const sent: AbortSignal[] = [];
    const send = (text: string) => (options: { signal: AbortSignal } | undefined) => {
      sent.push(options!.signal);
      return Promise.resolve(new Response(body(encoder.encode(text)), { headers: { 'content-type': 'text/event-stream' } }));
    };
    const decode = () => (m: EventSourceMessage) => m.data;
    // Read to the end, many times over: no listener stays on the run's signal.
    for (let i = 0; i < 20; i++) expect(await readAll(await readEvents(run.signal, send('data: a\n\n'), decode))).toEqual(['a']);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    expect(new Set(sent).size).toBe(20);

    // Stopped early, failed in decode, or failed to send: released too.
    const early = await readEvents(run.signal, send('data: a\n\ndata: b\n\n'), decode);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
    await early.next();
    await early.return();
    const failing = await readEvents(run.signal, send('data: a\n\n'), () => () => {
      throw new Error('bad event');
    });
    await expect(failing.next()).rejects.toThrow('bad event');
    await expect(readEvents(run.signal, () => Promise.reject(new Error('401')), decode)).rejects.toThrow('401');
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);

    // While a stream is open, aborting the run aborts its request.
    const open = await readEvents(run.signal, send('data: a\n\n'), decode);
    run.abort(new Error('stop'));
    expect(sent.at(-1)!.aborted).toBe(true);
    expect(sent.at(-1)!.reason).toEqual(new Error('stop'));
    await readAll(open);
    // A run aborted already: the request's signal is aborted before it is sent.
    await readEvents(run.signal, send(''), decode);
    expect(sent.at(-1)!.aborted).toBe(true);
    // No run signal: the client gets none.
    await readEvents(
      undefined,
      (options) => {
        expect(options).toBeUndefined();
        return Promise.resolve(new Response(null));
      },
      decode,
    );
  });
});
