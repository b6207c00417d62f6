// RedisRunStore against a real redis-server started here (Debian's package; .ci/run installs it).
import { ErrorCode } from '@anytool/core';
import { createClient } from 'redis';
import { servicesAvailable, startRedis, freePort, type RedisServer } from '../../mcp/test/fixtures/services';
import { scaled } from '../../core/test/helpers/time-scale';
import { RedisRunStore, type RedisRunStoreOptions } from '../src/redis-run-store';
import { DEFAULT_RUN_TTL_MS } from '../src/run-store';
import { pausedState, runStoreSuite } from './helpers/run-store-suite';

jest.setTimeout(scaled(30_000));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const withRedis = servicesAvailable('redis-server') ? describe : describe.skip;

async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error & { code?: string },
  );
}

withRedis('RedisRunStore', () => {
  let redis: RedisServer;
  const made: RedisRunStore[] = [];
  const make = (options: Omit<RedisRunStoreOptions, 'url' | 'client'> = {}): RedisRunStore => {
    const store = new RedisRunStore({ url: redis.url, keyPrefix: 'suite:', ...options });
    made.push(store);
    return store;
  };
  /** A client of the test's own, to see what the store wrote. */
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedis();
    raw = createClient({ url: redis.url });
    await raw.connect();
  });
  afterAll(async () => {
    await Promise.all(made.map((store) => store.close()));
    await raw?.close();
    await redis?.stop();
  });

  describe('as a RunStore', () => {
    runStoreSuite({ make: (options) => make(options) });
  });

  it('keeps a state as its JSON text under keyPrefix + run id (anytool:run: by default), expiring after ttlMs', async () => {
    const store = new RedisRunStore({ url: redis.url });
    made.push(store);
    const state = pausedState();
    await store.save(state);
    const text = await raw.get(`anytool:run:${state.runId}`);
    expect(JSON.parse(text!)).toEqual(JSON.parse(JSON.stringify(state)));
    // The pause id comes first, so `take` compares it without parsing the state.
    expect(text!.startsWith(`{"pauseId":${JSON.stringify(state.pauseId)},`)).toBe(true);
    const ttl = await raw.pTTL(`anytool:run:${state.runId}`);
    expect(ttl).toBeGreaterThan(DEFAULT_RUN_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULT_RUN_TTL_MS);

    await store.save(state, { ttlMs: 90_000 });
    expect(await raw.pTTL(`anytool:run:${state.runId}`)).toBeGreaterThan(80_000);
    const prefixed = make({ keyPrefix: 'app-1/runs/', ttlMs: 120_000 });
    await prefixed.save(state);
    expect(await raw.exists(`app-1/runs/${state.runId}`)).toBe(1);
    expect(await raw.pTTL(`app-1/runs/${state.runId}`)).toBeGreaterThan(110_000);
    await prefixed.delete(state.runId);
    expect(await raw.exists(`app-1/runs/${state.runId}`)).toBe(0);
    expect(await raw.exists(`anytool:run:${state.runId}`)).toBe(1);
  });

  it('works on a node-redis client of the application’s own, and leaves it open when closed', async () => {
    const client = createClient({ url: redis.url, disableOfflineQueue: true });
    await client.connect();
    try {
      const store = new RedisRunStore({ client, keyPrefix: 'own:' });
      const state = pausedState();
      await store.save(state);
      expect(await raw.exists(`own:${state.runId}`)).toBe(1);
      expect((await store.take(state.runId, state.pauseId))?.runId).toBe(state.runId);
      await store.close();
      expect(await client.ping()).toBe('PONG');
      await expect(store.load(state.runId)).rejects.toMatchObject({
        code: ErrorCode.StoreFailed,
        message: expect.stringMatching(/^RedisRunStore\.load\(\): the store .* is closed$/),
      });
    } finally {
      await client.close();
    }
  });

  it('a value that is not JSON under its key is RUN_STATE_INVALID, saying what to do', async () => {
    const store = make();
    await raw.set('suite:not-json', 'plain text');
    const error = await failure(store.load('not-json'));
    expect(error.code).toBe(ErrorCode.RunStateInvalid);
    expect(error.message).toMatch(
      /^RedisRunStore\.load\(\): the value at "suite:not-json" is not JSON \(.+\); something other than a run store wrote it: give this store a keyPrefix of its own$/,
    );
  });

  it('an unreachable Redis is STORE_FAILED within a second, naming the store, the operation and the address (without credentials)', async () => {
    const port = await freePort();
    const store = new RedisRunStore({ url: `redis://user:s3cret@127.0.0.1:${port}` });
    made.push(store);
    for (const [operation, call] of [
      ['save()', () => store.save(pausedState())],
      ['load()', () => store.load('r')],
      ['take()', () => store.take('r', 'p')],
      ['delete()', () => store.delete('r')],
      ['connect()', () => store.connect()],
    ] as const) {
      const began = Date.now();
      const error = await failure(call());
      expect(Date.now() - began).toBeLessThan(scaled(1_000));
      expect(error.code).toBe(ErrorCode.StoreFailed);
      expect(error.message).toMatch(
        new RegExp(
          `^RedisRunStore\\.${operation.replace(/[()]/g, '\\$&')}: cannot reach Redis at redis://127\\.0\\.0\\.1:${port} \\(.+\\); start redis-server there or fix the URL$`,
        ),
      );
      expect(error.message).not.toContain('s3cret');
    }
  });

  it('while Redis is down, a call fails at once with STORE_FAILED; the outage and the recovery are told once each; calls work again after', async () => {
    let own: RedisServer | undefined = await startRedis();
    const port = own.port;
    const reports: Error[] = [];
    const store = new RedisRunStore({ url: own.url, onError: (error) => reports.push(error) });
    made.push(store);
    try {
      const state = pausedState();
      await store.save(state);
      await own.stop();
      own = undefined;
      await sleep(500);
      const began = Date.now();
      const error = await failure(store.take(state.runId, state.pauseId));
      expect(Date.now() - began).toBeLessThan(scaled(500));
      expect(error.code).toBe(ErrorCode.StoreFailed);
      expect(error.message).toMatch(
        new RegExp(
          `^RedisRunStore\\.take\\(\\): Redis at redis://127\\.0\\.0\\.1:${port} failed: .+; check that redis-server runs there \\(6\\.2 or later\\), then retry$`,
        ),
      );
      await sleep(1_000);
      expect(reports.map((report) => report.message)).toEqual([
        expect.stringMatching(new RegExp(`^RedisRunStore: lost Redis at redis://127\\.0\\.0\\.1:${port} \\(.+\\); reconnecting on its own`)),
      ]);
      expect(reports[0]).toMatchObject({ code: ErrorCode.StoreFailed });

      // A Redis without persistence comes back empty: the store works again.
      own = await startRedis(port);
      const deadline = Date.now() + scaled(10_000);
      let back = false;
      while (!back && Date.now() < deadline) {
        back = await store.save(state).then(
          () => true,
          () => false,
        );
        if (!back) await sleep(100);
      }
      expect(back).toBe(true);
      expect((await store.take(state.runId, state.pauseId))?.runId).toBe(state.runId);
      expect(reports.map((report) => report.message)[1]).toBe(`RedisRunStore: Redis at redis://127.0.0.1:${port} is reachable again`);
      expect(reports).toHaveLength(2);
    } finally {
      await store.close();
      await own?.stop();
    }
  });

  it('refuses options it cannot use, and calls after close()', async () => {
    const invalid = [
      [{ url: 'http://127.0.0.1:6379' }, ErrorCode.InvalidOptions, /^RedisRunStore: url must be a redis:\/\/ or rediss:\/\/ URL/],
      [{}, ErrorCode.InvalidOptions, /^RedisRunStore: url must be/],
      [{ url: redis.url, client: raw }, ErrorCode.ConflictingOptions, /^RedisRunStore: give `url` or `client`, not both$/],
      [{ client: {} as never }, ErrorCode.InvalidOptions, /^RedisRunStore: client must be a node-redis client/],
      [{ url: redis.url, ttlMs: 0 }, ErrorCode.InvalidOptions, /^RedisRunStore: ttlMs must be a whole number of milliseconds/],
      [{ url: redis.url, maxStateBytes: 1.5 }, ErrorCode.InvalidOptions, /^RedisRunStore: maxStateBytes must be a whole number of bytes/],
      [{ url: redis.url, keyPrefix: 7 as never }, ErrorCode.InvalidOptions, /^RedisRunStore: keyPrefix must be a string/],
    ] as const;
    for (const [options, code, message] of invalid) {
      expect(() => new RedisRunStore(options as RedisRunStoreOptions)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
    }
    const store = new RedisRunStore({ url: redis.url });
    await store.connect();
    await store.close();
    await store.close();
    await expect(store.save(pausedState())).rejects.toMatchObject({
      code: ErrorCode.StoreFailed,
      message: expect.stringMatching(/^RedisRunStore\.save\(\): the store \(at redis:\/\/127\.0\.0\.1:\d+\) is closed$/),
    });
    await expect(make().load('')).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
  });
});
