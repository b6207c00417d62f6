import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { MCP_DIST, ROOT, requireBuilt, stopChild } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// A client of `anytool serve` over stdio that writes requests and stops reading the answers: the server stops
// reading requests while its unread answers are past maxUnreadBytes, so its memory stays bounded, and once the
// client reads again every answer arrives. The client is hand-written: it does what the SDK's never would.
jest.setTimeout(scaled(180_000));

const FIXTURE = join(ROOT, 'packages', 'mcp', 'test', 'fixtures', 'attacked-server.mjs');
const ANYTOOL = join(ROOT, 'packages', 'schema', 'bin', 'anytool.mjs');
const MiB = 1024 * 1024;
const REQUESTS = 100_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The resident memory of a process, in bytes (`ps`, so the server is measured from outside while it cannot answer). */
function rss(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}

describe('anytool serve over stdio against a client that does not read', () => {
  beforeAll(() => requireBuilt(ANYTOOL, MCP_DIST));

  it('100,000 requests, none of the answers read: the server stays under +200 MiB resident, and every answer arrives once the client reads', async () => {
    const child = spawn(process.execPath, [ANYTOOL, 'serve', FIXTURE], { cwd: ROOT, stdio: 'pipe' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.on('error', () => undefined);
    const answered = new Set<number>();
    let buffered = '';
    let initialized!: () => void;
    const ready = new Promise<void>((resolve) => (initialized = resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number; result?: unknown };
        if (message.id === 0) initialized();
        else if (typeof message.id === 'number' && message.result !== undefined) answered.add(message.id);
      }
    });
    const write = (message: object): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
    try {
      write({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'no-reader', version: '1' } },
      });
      await ready;
      write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await sleep(200);
      const before = rss(child.pid!);

      child.stdout.pause();
      for (let id = 1; id <= REQUESTS; id++)
        write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ok_echo', arguments: { message: `answer ${id} ${'x'.repeat(100)}` } } });
      // The server takes what it can; the rest waits in this process (a client's own problem). Watch its memory
      // until it took everything, or for a few seconds while it holds back.
      let peak = before;
      const until = Date.now() + 8_000;
      while (child.stdin.writableLength > 0 && Date.now() < until) {
        peak = Math.max(peak, rss(child.pid!));
        await sleep(100);
      }
      for (let i = 0; i < 20; i++) {
        peak = Math.max(peak, rss(child.pid!));
        await sleep(100);
      }
      const growth = (peak - before) / MiB;
      process.stdout.write(
        `stdio, unread answers: rss ${Math.round(before / MiB)} MiB before, peak ${Math.round(peak / MiB)} MiB (+${growth.toFixed(1)} MiB), ${answered.size} answers read before reading again\n`,
      );
      expect(growth).toBeLessThan(200);

      child.stdout.resume();
      const deadline = Date.now() + scaled(60_000);
      while (answered.size < REQUESTS && Date.now() < deadline) await sleep(100);
      expect(answered.size).toBe(REQUESTS);
      expect(stderr).not.toMatch(/Error|Warning/);
    } finally {
      child.stdout.resume();
      child.stdin.end();
      await stopChild(child, exited);
    }
  });
});
