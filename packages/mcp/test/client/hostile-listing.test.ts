// A server whose tools/list never ends (a new cursor with every page), or ends too large, as a real stdio child
// process: the client stops at its limits (tools, pages, bytes, the whole listing's time), does not start the server
// and says which limit and which option raises it, within a bounded time and client heap. The old client read up to
// 1,000 pages whatever they held: 50 tools a page took 17 s and kept 50,000 tools, 1,000 a page ran out of memory.
import { join } from 'node:path';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { McpConnection, McpToolset, readMcpServers, type McpClientOptions, type McpServerConfig } from '@anytool/mcp';
import { alive, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

const SERVER = join(__dirname, '..', 'fixtures', 'broken-server', 'server.mjs');
/** The start settles well within this (a bound that catches the old client's 17 s and anything like a hang). */
const SETTLE_BOUND_MS = 10_000;
/** Growth of the client's heap while it reads the list (the old client ran out of memory on 1,000 tools a page). */
const HEAP_BOUND_BYTES = 150 * 1024 * 1024;

const hostile = (behaviour: string, extra: Partial<McpServerConfig> = {}): McpServerConfig =>
  ({ command: process.execPath, args: [SERVER, 'stdio', behaviour], ...extra }) as McpServerConfig;

interface Outcome {
  error: AnytoolError;
  ms: number;
  heapGrowth: number;
  pids: number[];
}

/** Connects, expecting the start to fail; measures how long it took and the client heap's peak growth meanwhile. */
async function failedStart(config: McpServerConfig, options: McpClientOptions = {}): Promise<Outcome> {
  const pids: number[] = [];
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const started = performance.now();
  try {
    await McpConnection.open('hostile', config, {
      ...options,
      onStderr: (_server, text) => pids.push(...[...text.matchAll(/broken\[(\d+)\]/g)].map((m) => Number(m[1]))),
    }).then(async (connection) => {
      await connection.close();
      throw new Error(`the start succeeded with ${connection.tools.length} tools`);
    });
  } catch (error) {
    if (!(error instanceof AnytoolError)) throw error;
    return { error, ms: performance.now() - started, heapGrowth: peak - before, pids };
  } finally {
    clearInterval(sampler);
  }
  throw new Error('unreachable');
}

async function gone(pids: number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of new Set(pids)) await until(() => !alive(pid), 5_000, `process ${pid} to exit`);
}

describe('hostile tools/list', () => {
  const figures: string[] = [];
  afterAll(() => console.log(`hostile tools/list:\n${figures.join('\n')}`));

  it.each([
    ['50 tools a page, forever', 'endless-pages-50'],
    ['1,000 tools a page, forever', 'endless-pages-1000'],
  ])(
    `%s: the start fails with MCP_TOOL_LIST_LIMIT at 1,000 tools, in under ${SETTLE_BOUND_MS / 1000} s and ${HEAP_BOUND_BYTES / 2 ** 20} MiB of client heap`,
    async (_name, behaviour) => {
      const outcome = await failedStart(hostile(behaviour));
      figures.push(`${behaviour}: ${Math.round(outcome.ms)} ms, client heap +${(outcome.heapGrowth / 2 ** 20).toFixed(1)} MiB`);
      expect(outcome.error.code).toBe(ErrorCode.McpToolListLimit);
      expect(outcome.error.message).toMatch(
        /^Could not start MCP server "hostile" \(.*\): MCP server "hostile" lists more than 1000 tools in tools\/list, past the limit \(maxTools\); if it really lists that much, raise "maxTools" on its entry or in the options\.$/,
      );
      expect(outcome.ms).toBeLessThan(SETTLE_BOUND_MS);
      expect(outcome.heapGrowth).toBeLessThan(HEAP_BOUND_BYTES);
      await gone(outcome.pids);
    },
  );

  it(`empty pages forever: the start fails past 1,001 pages, in under ${SETTLE_BOUND_MS / 1000} s`, async () => {
    const outcome = await failedStart(hostile('endless-empty-pages'));
    figures.push(`endless-empty-pages: ${Math.round(outcome.ms)} ms`);
    expect(outcome.error.code).toBe(ErrorCode.McpToolListLimit);
    expect(outcome.error.message).toContain('went on past 1001 pages of tools/list (pages are limited to one more than maxTools), past the limit (maxTools)');
    expect(outcome.ms).toBeLessThan(SETTLE_BOUND_MS);
    await gone(outcome.pids);
  });

  it('a page every 100 ms forever: startTimeoutMs bounds the whole listing (2 s here, settled in under 2 s + 3 s)', async () => {
    const outcome = await failedStart(hostile('slow-endless-pages', { startTimeoutMs: 2_000 }));
    figures.push(`slow-endless-pages (startTimeoutMs 2000): ${Math.round(outcome.ms)} ms`);
    expect(outcome.error.code).toBe(ErrorCode.McpToolListLimit);
    expect(outcome.error.message).toMatch(
      /MCP server "hostile" took over 2000 ms to list its tools \(the whole tools\/list; \d+ pages and \d+ tools read\), past the limit \(startTimeoutMs\); if it is only slow, raise "startTimeoutMs"/,
    );
    // The start's own steps (spawning, initialize) come on top of the listing's 2 s; not scaled: the limit is what is tested.
    expect(outcome.ms).toBeLessThan(2_000 + scaled(3_000));
    await gone(outcome.pids);
  });

  it(`4 MB pages forever: the start fails at maxToolListBytes (16 MiB), in under ${SETTLE_BOUND_MS / 1000} s and ${HEAP_BOUND_BYTES / 2 ** 20} MiB of client heap`, async () => {
    const outcome = await failedStart(hostile('fat-endless-pages'));
    figures.push(`fat-endless-pages: ${Math.round(outcome.ms)} ms, client heap +${(outcome.heapGrowth / 2 ** 20).toFixed(1)} MiB`);
    expect(outcome.error.code).toBe(ErrorCode.McpToolListLimit);
    expect(outcome.error.message).toContain('lists over 16777216 bytes of JSON in tools/list, past the limit (maxToolListBytes)');
    expect(outcome.ms).toBeLessThan(SETTLE_BOUND_MS);
    expect(outcome.heapGrowth).toBeLessThan(HEAP_BOUND_BYTES);
    await gone(outcome.pids);
  });

  it('the limits are options: a server entry raises maxTools, and nonsense is refused with a code', async () => {
    const outcome = await failedStart(hostile('endless-pages-50', { maxTools: 2_000 }));
    expect(outcome.error.message).toContain('lists more than 2000 tools in tools/list');
    await gone(outcome.pids);
    expect(() => readMcpServers({ mcpServers: { h: hostile('endless-pages-50', { maxTools: 0 }) } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidMcpConfig, message: 'MCP server "h": "maxTools" must be a positive whole number (got 0)' }),
    );
    expect(() => readMcpServers({ mcpServers: { h: hostile('endless-pages-50', { maxToolListBytes: 1.5 }) } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidMcpConfig }),
    );
    await expect(McpToolset.connect({ mcpServers: { h: hostile('endless-pages-50') } }, { maxTools: -1 })).rejects.toMatchObject({
      code: ErrorCode.InvalidOptions,
      message: 'MCP client options: "maxTools" must be a positive whole number (got -1)',
    });
  });

  it('every other limit among the client options is checked too: nonsense is refused, never replaced by the default', async () => {
    const bad: Array<[string, McpClientOptions]> = [
      ['timeoutMs', { timeoutMs: 0 }],
      ['startTimeoutMs', { startTimeoutMs: -1 }],
      ['maxResultBytes', { maxResultBytes: Number.NaN }],
      ['maxToolBytes', { maxToolBytes: 0 }],
      ['maxToolDepth', { maxToolDepth: '5' as unknown as number }],
      ['maxTaskPollIntervalMs', { maxTaskPollIntervalMs: 0 }],
      ['restart.maxAttempts', { restart: { maxAttempts: 0 } }],
      ['restart.maxAttempts', { restart: { maxAttempts: 1.5 } }],
      ['restart.initialDelayMs', { restart: { initialDelayMs: -1 } }],
      ['restart.maxDelayMs', { restart: { maxDelayMs: 0 } }],
    ];
    for (const [option, options] of bad)
      await expect(McpToolset.connect({ mcpServers: { h: hostile('endless-pages-50') } }, options)).rejects.toMatchObject({
        code: ErrorCode.InvalidOptions,
        message: expect.stringContaining(`"${option}" must be`),
      });
  });
});
