import { readFileSync } from 'node:fs';

/** What an event-loop probe saw while work ran. */
export interface EventLoopGaps {
  /** The longest time between two runs of the 10 ms timer. */
  wallMs: number;
  /**
   * The longest time the event loop was held by work of this process: for each gap, the
   * smaller of its length and the CPU time the main thread used in it. A machine busy with
   * other processes lengthens the gaps, not this; nor does a worker thread's CPU (a validation
   * worker running a costly schema is the point of some tests).
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
  let lastCpu = mainThreadCpuMs();
  const tick = (): void => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const wallMs = now - last;
    gaps.wallMs = Math.max(gaps.wallMs, wallMs);
    gaps.blockedMs = Math.max(gaps.blockedMs, Math.min(wallMs, cpu - lastCpu));
    last = now;
    lastCpu = cpu;
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

const mainThreadStat = `/proc/self/task/${process.pid}/schedstat`;
let perThread = true;

/**
 * CPU time of this process's main thread in ms: Linux's schedstat for the thread (nanoseconds),
 * else the whole process's (all threads, so a busy worker thread counts as well).
 */
function mainThreadCpuMs(): number {
  if (perThread) {
    try {
      return Number(readFileSync(mainThreadStat, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      perThread = false;
    }
  }
  const cpu = process.cpuUsage();
  return (cpu.user + cpu.system) / 1000;
}
