/** What an event-loop probe saw while work ran. */
export interface EventLoopGaps {
  /** The longest time between two runs of the 10 ms timer. */
  wallMs: number;
  /**
   * The longest time the event loop was held by work of this process: for each gap, the
   * smaller of its length and the CPU time this process used in it. A machine busy with
   * other processes lengthens the gaps, not this.
   */
  blockedMs: number;
}

/**
 * Runs `work` with a timer every 10 ms, and reports the longest gaps between its runs (a
 * regular expression that backtracks holds the event loop, so the timer cannot run).
 */
export async function probeEventLoop<T>(work: () => Promise<T>): Promise<{ value: T; gaps: EventLoopGaps }> {
  const gaps: EventLoopGaps = { wallMs: 0, blockedMs: 0 };
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const tick = (): void => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const wallMs = now - last;
    gaps.wallMs = Math.max(gaps.wallMs, wallMs);
    gaps.blockedMs = Math.max(gaps.blockedMs, Math.min(wallMs, (cpu.user + cpu.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
  };
  const timer = setInterval(tick, 10);
  try {
    const value = await work();
    tick();
    return { value, gaps };
  } finally {
    clearInterval(timer);
  }
}
