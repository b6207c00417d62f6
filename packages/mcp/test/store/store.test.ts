// One suite for every McpStore: the in-process MemoryStore, and RedisStore against a real
// redis-server started here. "Two processes" are two stores on one Redis (for MemoryStore,
// one store seen twice, as one process shares it).
import { ErrorCode } from '@anytool/core';
import { MemoryStore, RedisStore, type McpStore } from '@anytool/mcp';
import { freePort, servicesAvailable, startRedis, type RedisServer } from '../fixtures/services';
import type { ServerContext } from '@modelcontextprotocol/server';
import { TaskManager } from '../../src/server/tasks/task-manager';
import { scaled } from '../../../core/test/helpers/time-scale';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + scaled(timeoutMs);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

interface Kind {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A store; every store made by one kind shares its data (another process of the same endpoint). */
  make(): McpStore;
}

function memory(): Kind {
  let shared: MemoryStore | undefined;
  return {
    name: 'MemoryStore',
    setup: async () => undefined,
    teardown: async () => shared?.close(),
    make: () => (shared ??= new MemoryStore()),
  };
}

function inRedis(): Kind {
  let redis: RedisServer | undefined;
  const made: RedisStore[] = [];
  return {
    name: 'RedisStore',
    async setup() {
      redis = await startRedis();
    },
    async teardown() {
      await Promise.all(made.map((store) => store.close()));
      await redis?.stop();
    },
    make() {
      const store = new RedisStore({ url: redis!.url, prefix: 'suite:' });
      made.push(store);
      return store;
    },
  };
}

const withRedis = servicesAvailable('redis-server');
const kinds = [memory(), ...(withRedis ? [inRedis()] : [])];

describe.each(kinds.map((kind) => [kind.name, kind] as const))('%s', (_name, kind) => {
  let store: McpStore;
  let other: McpStore;
  beforeAll(async () => {
    await kind.setup();
    store = kind.make();
    other = kind.make();
  });
  afterAll(() => kind.teardown());

  it('keeps a value until it expires, and deletes it', async () => {
    await store.set('a', '1', 60_000);
    await store.set('b', '2', 1);
    await sleep(20);
    expect(await other.get('a')).toBe('1');
    expect(await other.get('b')).toBeUndefined();
    await other.delete('a');
    expect(await store.get('a')).toBeUndefined();
    await store.delete('never-there');
  });

  it('update reads, changes and writes in one step, across processes too', async () => {
    const bump = (value: string | undefined): string => String(Number(value ?? '0') + 1);
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? store : other).update('n', bump, 60_000)));
    expect(await store.get('n')).toBe('60');
    expect(await other.update('n', () => undefined, 60_000)).toBe('60');
    expect(await store.update('missing', (value) => (value === undefined ? undefined : 'x'), 60_000)).toBeUndefined();
    expect(await store.get('missing')).toBeUndefined();
  });

  it('update with a known value: a stale one costs a retry, never a lost write', async () => {
    const bump = (value: string | undefined): string => String(Number(value ?? '0') + 1);
    await store.set('k', '5', 60_000);
    expect(await store.update('k', bump, 60_000, '5')).toBe('6');
    // Stale: another writer got in first (or the caller guessed wrong): the change runs on what the key holds.
    expect(await other.update('k', bump, 60_000, '5')).toBe('7');
    expect(await store.update('k', (value) => (value === '7' ? undefined : 'wrong'), 60_000, '6')).toBe('7');
    expect(await store.update('gone', (value) => (value === undefined ? 'new' : `${value}!`), 60_000, 'old')).toBe('new');
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store : other).update('k', bump, 60_000, '7')));
    expect(await store.get('k')).toBe('47');
  });

  it('update passes on an error of the change and leaves the key as it was', async () => {
    await store.set('u', 'kept', 60_000);
    const failing = (): string => {
      throw new Error('no change today');
    };
    await expect(store.update('u', failing, 60_000)).rejects.toThrow('no change today');
    expect(await other.get('u')).toBe('kept');
    // The store still works after the failed change.
    expect(await store.update('u', (value) => `${value}!`, 60_000)).toBe('kept!');
  });

  it('appends with sequence numbers, keeps the newest maxLength and reads after a number', async () => {
    for (let i = 1; i <= 5; i++) expect(await (i % 2 === 0 ? other : store).append('list', `e${i}:with:colons`, 60_000, 3)).toBe(i);
    expect(await other.entriesAfter('list', 0)).toEqual([
      { seq: 3, value: 'e3:with:colons' },
      { seq: 4, value: 'e4:with:colons' },
      { seq: 5, value: 'e5:with:colons' },
    ]);
    expect((await store.entriesAfter('list', 4)).map((entry) => entry.value)).toEqual(['e5:with:colons']);
    expect(await store.entriesAfter('list', 5)).toEqual([]);
    expect(await store.entriesAfter('none', 0)).toEqual([]);
  });

  it('lists expire, and start again from 1; delete removes a list', async () => {
    await store.append('short', 'x', 1, 10);
    await sleep(20);
    expect(await other.entriesAfter('short', 0)).toEqual([]);
    expect(await store.append('short', 'y', 60_000, 10)).toBe(1);
    await other.delete('short');
    expect(await store.entriesAfter('short', 0)).toEqual([]);
  });

  it('delivers published messages to every subscriber, in other processes too, until it unsubscribes', async () => {
    const got: string[] = [];
    const stop = await store.subscribe('ch', (message) => got.push(`1:${message}`));
    await other.subscribe('ch', (message) => got.push(`2:${message}`));
    await other.publish('ch', 'hello');
    await store.publish('other-channel', 'nobody');
    await waitFor(() => got.length === 2);
    await stop();
    await store.publish('ch', 'again');
    await waitFor(() => got.length === 3);
    await sleep(50);
    expect(got.sort()).toEqual(['1:hello', '2:again', '2:hello']);
  });
});

describe('RedisStore', () => {
  it('refuses a URL that is not redis://', () => {
    expect(() => new RedisStore({ url: 'http://127.0.0.1:6379' })).toThrow(/redis:\/\/ or rediss:\/\//);
  });

  it(
    'says where it could not connect, without the password',
    async () => {
      const port = await freePort();
      const store = new RedisStore({ url: `redis://user:secret@127.0.0.1:${port}` });
      const failure = store.get('x');
      await expect(failure).rejects.toThrow(`cannot reach Redis at redis://127.0.0.1:${port}`);
      await expect(failure).rejects.toMatchObject({ code: ErrorCode.StoreFailed });
      await expect(failure).rejects.not.toThrow('secret');
      await store.close();
    },
    scaled(20_000),
  );
});

(withRedis ? describe : describe.skip)('RedisStore connections', () => {
  /** The other connections Redis has now, each as the last command it ran (this one's own excluded). */
  async function lastCommands(url: string): Promise<string[]> {
    const { createClient } = await import('redis');
    const inspector = createClient({ url });
    await inspector.connect();
    try {
      const list = String(await inspector.sendCommand(['CLIENT', 'LIST']));
      return list
        .trim()
        .split('\n')
        .map((line) => /\bcmd=(\S+)/.exec(line)?.[1] ?? '')
        .filter((command) => command !== 'client|list');
    } finally {
      await inspector.close();
    }
  }

  it.each([
    ['by default', 1, undefined],
    ['with poolSize 3', 3, 3],
  ])(
    '%s: commands go over %i connection(s) in turn, many at once answered each with its own reply',
    async (_label, expected, poolSize) => {
      const redis = await startRedis();
      const store = new RedisStore({ url: redis.url, ...(poolSize === undefined ? {} : { poolSize }) });
      try {
        // 300 commands in one moment: sets, compare-and-set updates and reads, each answered with its own reply.
        await Promise.all(Array.from({ length: 100 }, (_, i) => store.set(`k${i}`, `v${i}`, 60_000)));
        const updated = await Promise.all(Array.from({ length: 100 }, (_, i) => store.update(`k${i}`, (value) => `${value}+${i}`, 60_000)));
        const read = await Promise.all(Array.from({ length: 100 }, (_, i) => store.get(`k${i}`)));
        expect(updated).toEqual(Array.from({ length: 100 }, (_, i) => `v${i}+${i}`));
        expect(read).toEqual(updated);
        // Every connection of the store took some of the reads (they end the run): it has that many, all in use.
        expect(await lastCommands(redis.url)).toEqual(Array.from({ length: expected }, () => 'get'));
      } finally {
        await store.close();
        await redis.stop();
      }
    },
    scaled(20_000),
  );

  it('opens its connections together: with poolSize 3 and Redis down after, every command fails at once as an outage', async () => {
    const redis = await startRedis();
    const reports: Error[] = [];
    const store = new RedisStore({ url: redis.url, poolSize: 3, onError: (error) => reports.push(error) });
    try {
      await store.set('k', 'v', 60_000);
      await redis.stop();
      await sleep(300);
      const failures = await Promise.all(
        Array.from({ length: 6 }, () =>
          store.get('k').then(
            () => undefined,
            (error: Error) => error.message,
          ),
        ),
      );
      for (const failure of failures) expect(failure).toMatch(/is unreachable since/);
    } finally {
      await store.close();
    }
  });

  it('refuses a poolSize that is not a positive whole number', () => {
    expect(() => new RedisStore({ url: 'redis://127.0.0.1:6379', poolSize: 0 })).toThrow('RedisStore: poolSize must be a positive integer, got 0');
  });
});

(withRedis ? describe : describe.skip)('RedisStore keys of the tasks', () => {
  it(
    "puts one prefix before a task's key: the store's, not the tasks' own as well",
    async () => {
      const redis = await startRedis();
      const store = new RedisStore({ url: redis.url });
      const raw = new RedisStore({ url: redis.url, prefix: '' });
      const tasks = new TaskManager(store);
      try {
        const record = await tasks.start({ tool: 'work', owner: undefined, ctx: {} as ServerContext, canAsk: () => undefined }, async () => ({ content: [] }));
        expect(JSON.parse((await raw.get(`anytool:task:${record.taskId}`))!)).toMatchObject({ taskId: record.taskId, tool: 'work' });
        expect(await raw.get(`anytool:anytool:task:${record.taskId}`)).toBeUndefined();
      } finally {
        await tasks.close();
        await Promise.all([store.close(), raw.close()]);
        await redis.stop();
      }
    },
    scaled(20_000),
  );
});
