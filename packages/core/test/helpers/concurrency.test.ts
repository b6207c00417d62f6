import { early, limiter } from './concurrency';

describe('limiter', () => {
  it('runs at most `limit` functions at once, starting them in the order given, and passes on what each returns or throws', async () => {
    const run = limiter(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const results = Array.from({ length: 5 }, (_, i) =>
      run(async () => {
        started.push(i);
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        if (i === 3) throw new Error('four');
        return i;
      }),
    );
    const settled = Promise.allSettled(results);
    for (let released = 0; released < 5; released++) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(running).toBeLessThanOrEqual(2);
      releases.shift()!();
    }
    expect(await settled).toEqual([
      { status: 'fulfilled', value: 0 },
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('four') },
      { status: 'fulfilled', value: 4 },
    ]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });
});

describe('early', () => {
  it('gives the rejection to the test that awaits it, with no unhandled rejection before', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const work = early(Promise.reject(new Error('the build failed')));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
      await expect(work).rejects.toThrow('the build failed');
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
