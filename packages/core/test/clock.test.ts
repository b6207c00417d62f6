// core's clock (clock.ts): epoch milliseconds, from the first `performance` it reads, also when that one is the
// fake of a test's fake timers (whose `timeOrigin` is not a number under Jest).
import { ExecutionContext, Toolset, tool } from '@anytool/core';

describe('the clock of run events', () => {
  afterEach(() => jest.useRealTimers());

  it('gives epoch times and durations under fake timers installed before its first read', async () => {
    const start = Date.parse('2026-01-02T03:04:05Z');
    jest.useFakeTimers({ now: start });
    let now!: () => number;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module, read first here
      ({ now } = require('../src/clock') as { now: () => number });
    });
    const first = now();
    expect(typeof first).toBe('number');
    expect(Math.abs(first - start)).toBeLessThan(1_000);
    jest.advanceTimersByTime(500);
    expect(now() - first).toBeCloseTo(500, 0);
  });

  it("times a call's events as numbers under fake timers", async () => {
    jest.useFakeTimers();
    const quick = tool(async () => 'ok', { name: 'quick', description: 'Answers.', parameters: { type: 'object', properties: {} } });
    const context = new ExecutionContext();
    await new Toolset(quick).invoke('quick', {}, context);
    for (const event of context.events) expect(typeof event.time).toBe('number');
    const end = context.events.find((event) => event.type === 'tool_result') as { durationMs: number };
    expect(end.durationMs).toBeGreaterThanOrEqual(0);
  });
});
