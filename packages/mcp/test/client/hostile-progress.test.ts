// A server that never answers but reports progress as fast as the client reads it: the call
// must end within its total time (and the server be told), and what the flood adds to the
// run's events must stay bounded however many notifications arrive.
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, Toolset, resultText, type RunProgressEvent } from '@anytool/core';
import { McpToolset, type McpToolsetOptions } from '@anytool/mcp';
import { connectForEachTest, untilAsync } from './helpers';
import { PROGRESS_BURST } from '../../src/client/progress-events';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const SERVER = join(__dirname, '..', 'fixtures', 'broken-server', 'server.mjs');

/** What the server's last `progress_flood` call saw. */
interface Seen {
  sent: number;
  ended: string;
  reason: string;
}

const connect = connectForEachTest();

async function flood(options: McpToolsetOptions, args: Record<string, unknown>) {
  const mcp = await connect({ main: { command: process.execPath, args: [SERVER, 'stdio', 'progress-flood'] } }, { prefix: true, progress: true, ...options });
  const toolset = new Toolset(mcp);
  const context = new ExecutionContext();
  const started = performance.now();
  const result = await toolset.invoke('main_progress_flood', args, context);
  const ms = performance.now() - started;
  let seen: Seen = { sent: 0, ended: 'unknown', reason: '' };
  // The server learns of the cancellation when the notification reaches it: read until it has.
  await untilAsync(
    async () => (seen = JSON.parse(resultText(await toolset.invoke('main_progress_flood_seen', {}))) as Seen).ended !== 'running',
    5_000,
    'the server to see the cancellation',
  ).catch(() => undefined);
  return { result, ms, seen, context, mcp };
}

describe('hostile progress: a server that floods progress and never answers', () => {
  it('ends by maxTotalTimeoutMs (1.5 s, bound 1.5 s + one timeout + 3 s), with TIMEOUT, and the server is told to cancel', async () => {
    const { result, ms, seen, mcp } = await flood({ maxTotalTimeoutMs: 1_500, timeoutMs: 500 }, { burst: 20 });
    process.stdout.write(`progress flood, maxTotalTimeoutMs 1500: settled in ${Math.round(ms)} ms; the server sent ${seen.sent} notifications\n`);
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(resultText(result)).toMatch(/"progress_flood" on MCP server "main" ran for 1500 ms, the longest a call may run while it reports progress/);
    expect(resultText(result)).toMatch(/raise "maxTotalTimeoutMs"/);
    // Progress kept it alive past its 500 ms timeout, but not past its total time.
    expect(ms).toBeGreaterThanOrEqual(1_500);
    expect(ms).toBeLessThan(1_500 + 500 + scaled(3_000));
    expect(seen.sent).toBeGreaterThan(100);
    expect(seen.ended).toBe('cancelled');
    expect(seen.reason).toBe('the call ran past the longest time the client gives it');
    // The session is still good for the next call.
    expect(resultText(await new Toolset(mcp).invoke('main_ok_echo', { message: 'still here' }))).toBe('still here');
    expect(mcp.connection('main')!.starts).toBe(1);
  });

  it('adds at most one progress event per 100 ms and 1,000 a call, each under 1.2 KB, while tens of thousands of notifications arrive', async () => {
    // Heap after a collection when jest runs under `node --expose-gc`; for the record only, the events are what is bounded.
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const { result, ms, seen, context } = await flood({ maxTotalTimeoutMs: 8_000, timeoutMs: 1_000 }, { burst: 200, messageChars: 4_000 });
    const progress = context.events.filter((e): e is RunProgressEvent => e.type === 'progress');
    const bytes = Buffer.byteLength(JSON.stringify(context.events));
    gc?.();
    const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    process.stdout.write(
      `progress flood, 8 s: ${seen.sent} notifications sent, ${progress.length} progress events held (${bytes} bytes of events), heap +${heapMb.toFixed(1)} MB${gc === undefined ? '' : ' after GC'}, settled in ${Math.round(ms)} ms\n`,
    );
    expect(result.error?.code).toBe(ErrorCode.Timeout);
    expect(seen.sent).toBeGreaterThan(20_000);
    // A first burst, then one event per 100 ms over the call's time, and the last value at its end.
    expect(progress.length).toBeLessThanOrEqual(PROGRESS_BURST + Math.ceil(ms / 100) + 2);
    expect(progress.length).toBeGreaterThan(10);
    for (const event of progress) expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(1_200);
    expect(bytes).toBeLessThan(200 * 1_024);
    // The values go up, the messages are cut short with a note.
    const values = progress.map((e) => e.progress);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    expect(progress[0]!.message).toMatch(/^step \d+ p+… \(\d+ more characters\)$/);
    expect(progress.every((e) => e.tool === 'main_progress_flood' && e.callId === progress[0]!.callId)).toBe(true);
  });

  it('maxPerCall caps the events of a call, the last value recorded at its end', async () => {
    const { progress, seen } = await (async () => {
      const run = await flood({ maxTotalTimeoutMs: 1_500, timeoutMs: 500, progressEvents: { minIntervalMs: 0, maxPerCall: 50 } }, { burst: 20 });
      return { progress: run.context.events.filter((e): e is RunProgressEvent => e.type === 'progress'), seen: run.seen };
    })();
    expect(seen.sent).toBeGreaterThan(50);
    expect(progress).toHaveLength(50);
    expect(progress[48]!.progress).toBe(49);
    // The 50th is the latest value the call received, not the 50th notification.
    expect(progress[49]!.progress).toBeGreaterThan(50);
  });

  it('refuses progressEvents and maxTotalTimeoutMs that are not fitting numbers, before starting any server', async () => {
    const config = { main: { command: process.execPath, args: [SERVER, 'stdio'] } };
    const bad: McpToolsetOptions[] = [
      { maxTotalTimeoutMs: 0 },
      { maxTotalTimeoutMs: -5 },
      { maxTotalTimeoutMs: Number.NaN },
      { maxTotalTimeoutMs: '100' as unknown as number },
      { progressEvents: { minIntervalMs: -1 } },
      { progressEvents: { maxPerCall: 0 } },
      { progressEvents: { maxPerCall: 1.5 } },
      { progressEvents: { maxMessageChars: Number.POSITIVE_INFINITY } },
      { progressEvents: null as unknown as object },
    ];
    for (const options of bad) {
      const field = 'maxTotalTimeoutMs' in options ? 'maxTotalTimeoutMs' : 'progressEvents';
      await expect(McpToolset.connect(config, options)).rejects.toMatchObject({ code: ErrorCode.InvalidOptions, message: expect.stringContaining(field) });
    }
  });
});
