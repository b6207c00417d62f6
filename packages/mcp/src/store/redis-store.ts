import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { McpStore } from './store.js';
import { importOptional } from '../shared/optional-dependency.js';
import { crypto } from '../shared/builtins.cjs';

/** Options of `RedisStore`. */
export interface RedisStoreOptions {
  /** Where Redis is: `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /**
   * Put before every key and channel, so several endpoints (or other programs) can share
   * one Redis without meeting. Default `anytool:`.
   */
  prefix?: string;
  /**
   * The connections commands are spread over, in turn. Each sends the commands of one moment
   * together, without waiting for earlier replies (pipelining), so one is what a process
   * needs; more help only when a single socket's throughput is the limit. Default 1.
   */
  poolSize?: number;
  /**
   * Told once when Redis becomes unreachable (a `STORE_FAILED` error saying where, why and since
   * when; the client reconnects on its own, and until then every request that needs the store
   * fails at once with the same kind of error), and once when it is back (an error whose message
   * says so, `cause` undefined). Default: a process warning for each.
   */
  onError?: (error: Error) => void;
}

/** How often `update` retries a transaction another writer got in before. */
const MAX_UPDATE_ATTEMPTS = 50;
/** How many times a first connection is tried before `RedisStore` gives up (a running one reconnects forever). */
const FIRST_CONNECT_ATTEMPTS = 3;

/**
 * Appends to a list: the sequence counter and the entries (a sorted set scored by
 * sequence number) are changed as one step, trimmed to the newest entries, and both
 * get the new expiry. KEYS: list, counter. ARGV: value, ttl ms, max length.
 */
/**
 * Compare-and-set: writes ARGV[2] (expiring after ARGV[3] ms) when the key's
 * value has the SHA-1 ARGV[1] (empty: no value); else answers the value it has
 * (nil: none), so the caller computes again without another read.
 */
const SWAP_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local seen = current and redis.sha1hex(current) or ''
if seen == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return current
`;

const APPEND_SCRIPT = `
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], seq, seq .. ':' .. ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return seq
`;

/**
 * Bounded sets (a sorted set each, scored by when a member's entry expires, epoch ms):
 * drops the expired entries of every set, and when none is full adds ARGV[1] to all,
 * renewing each set's own expiry to outlive its newest entry. KEYS: the sets. ARGV:
 * member, now, then a limit and a ttl (ms) per set. Answers -1, or the 0-based index of
 * the first full set.
 */
const CLAIM_SCRIPT = `
local now = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if not redis.call('ZSCORE', key, ARGV[1]) and redis.call('ZCARD', key) >= tonumber(ARGV[1 + 2 * i]) then return i - 1 end
end
for i, key in ipairs(KEYS) do
  local ttl = tonumber(ARGV[2 + 2 * i])
  redis.call('ZADD', key, now + ttl, ARGV[1])
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
return -1
`;

/** Renews members still in their set. KEYS: the sets. ARGV: now, then a member and a ttl (ms) per set. */
const RENEW_SCRIPT = `
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local ttl = tonumber(ARGV[1 + 2 * i])
  if redis.call('ZADD', key, 'XX', 'CH', now + ttl, ARGV[2 * i]) == 1 and redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
return 0
`;

/** The commands of a node-redis client used here (the `redis` package is loaded only when a store connects). */
interface Commands {
  get(key: string): Promise<string | null>;
  sendCommand(args: string[]): Promise<unknown>;
}
interface Client extends Commands {
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
interface Subscriber {
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
  on(event: 'error' | 'ready', listener: (error: Error) => void): unknown;
}
interface RedisModule {
  createClient(options: object): Client & Subscriber;
}

/** The `redis` package, loaded the first time a store connects: a program that never uses Redis never loads it. */
async function loadRedis(): Promise<RedisModule> {
  const loaded = (await importOptional(() => import('redis'), 'RedisStore', 'redis')) as unknown as RedisModule & { default?: RedisModule };
  return typeof loaded.createClient === 'function' ? loaded : loaded.default!;
}

/** The URL without its credentials, for messages. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * An `McpStore` in Redis, on the official `redis` client: what several processes
 * serving one endpoint share. Values are Redis strings with a `PX` expiry; `update`
 * writes through a compare-and-set script, computed again when another writer got
 * in first; lists are a sorted set scored by sequence number beside a counter,
 * appended by a script; messages go through Redis publish/subscribe, received on a
 * connection of their own.
 *
 * It connects on first use (and `connect()` does so at once, to fail early); a lost
 * connection is re-established on its own. `close()` ends it.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379' });
 * await serveMcp(tools, { transport: 'http', port: 3000, store });
 */
export class RedisStore implements McpStore {
  private readonly url: string;
  private readonly prefix: string;
  private readonly poolSize: number;
  private readonly onError: (error: Error) => void;
  private redis: Promise<RedisModule> | undefined;
  /** The connections for commands, all opened on first use (`commands`), and the one the next command takes. */
  private connections: Promise<Client[]> | undefined;
  private turn = 0;
  private subscriber: Promise<Subscriber> | undefined;
  private closed = false;
  /** When Redis became unreachable (epoch ms), while it is. */
  private downSince: number | undefined;

  constructor(options: RedisStoreOptions) {
    if (typeof options?.url !== 'string' || !/^rediss?:\/\//.test(options.url)) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `RedisStore: url must be a redis:// or rediss:// URL, got ${typeof options?.url === 'string' ? JSON.stringify(shownUrl(options.url)) : String(options?.url)}`,
      );
    }
    this.url = options.url;
    this.prefix = options.prefix ?? 'anytool:';
    this.poolSize = options.poolSize ?? 1;
    if (!Number.isInteger(this.poolSize) || this.poolSize < 1)
      throw new AnytoolError(ErrorCode.InvalidOptions, `RedisStore: poolSize must be a positive integer, got ${String(options.poolSize)}`);
    this.onError = options.onError ?? ((error) => process.emitWarning(error.message));
  }

  /** Connects now (it would on first use): rejects, saying where and why, when Redis cannot be reached. */
  async connect(): Promise<void> {
    await this.commands();
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run((commands) => commands.get(this.prefix + key))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.run((commands) => commands.sendCommand(['SET', this.prefix + key, value, 'PX', ttl(ttlMs)]));
  }

  /**
   * Reads the value (or starts from `known`), computes the next, and writes it
   * with a compare-and-set script: one round trip when `known` is right, two
   * otherwise. When another writer got in first, the script answers the value
   * it found, and the change is computed again from that.
   */
  async update(key: string, change: (value: string | undefined) => string | undefined, ttlMs: number, known?: string): Promise<string | undefined> {
    return this.run((commands) => this.updateOn(commands, key, change, ttlMs, known));
  }

  private async updateOn(
    commands: Commands,
    key: string,
    change: (value: string | undefined) => string | undefined,
    ttlMs: number,
    known: string | undefined,
  ): Promise<string | undefined> {
    const name = this.prefix + key;
    let fresh = known === undefined;
    let current = known;
    if (fresh) current = (await commands.get(name)) ?? undefined;
    for (let attempt = 1; attempt <= MAX_UPDATE_ATTEMPTS; attempt++) {
      const next = change(current);
      if (next === undefined) {
        // Leaving the key as it is is decided on what it holds, not on what the caller thought it held.
        if (fresh) return current;
        current = (await commands.get(name)) ?? undefined;
        fresh = true;
        continue;
      }
      const seen = current === undefined ? '' : crypto().createHash('sha1').update(current).digest('hex');
      const reply = await commands.sendCommand(['EVAL', SWAP_SCRIPT, '1', name, seen, next, ttl(ttlMs)]);
      if (reply === 1) return next;
      current = typeof reply === 'string' ? reply : undefined;
      // A stale `known` is no contest; losing to another writer is: pause a little (random) before the next try.
      if (fresh) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
      fresh = true;
    }
    throw new AnytoolError(
      ErrorCode.StoreFailed,
      `RedisStore: update of "${key}" lost to other writers ${MAX_UPDATE_ATTEMPTS} times in a row; too many processes change this key at once`,
    );
  }

  async delete(key: string): Promise<void> {
    const name = this.prefix + key;
    await this.run((commands) => commands.sendCommand(['DEL', name, `${name}#list`, `${name}#seq`]));
  }

  async append(key: string, value: string, ttlMs: number, maxLength: number): Promise<number> {
    const name = this.prefix + key;
    const keep = Math.max(1, Math.floor(maxLength));
    const seq = await this.run((commands) =>
      commands.sendCommand(['EVAL', APPEND_SCRIPT, '2', `${name}#list`, `${name}#seq`, value, ttl(ttlMs), String(keep)]),
    );
    return Number(seq);
  }

  async entriesAfter(key: string, after: number): Promise<Array<{ seq: number; value: string }>> {
    const members = (await this.run((commands) => commands.sendCommand(['ZRANGE', `${this.prefix + key}#list`, `(${after}`, '+inf', 'BYSCORE']))) as string[];
    return members.map((member) => {
      const colon = member.indexOf(':');
      return { seq: Number(member.slice(0, colon)), value: member.slice(colon + 1) };
    });
  }

  async claim(sets: ReadonlyArray<{ key: string; limit: number; ttlMs: number }>, member: string): Promise<number> {
    if (sets.length === 0) return -1;
    const args = ['EVAL', CLAIM_SCRIPT, String(sets.length), ...sets.map(({ key }) => this.prefix + key), member, String(Date.now())];
    for (const { limit, ttlMs } of sets) args.push(String(Math.max(0, Math.floor(limit))), ttl(ttlMs));
    return Number(await this.run((commands) => commands.sendCommand(args)));
  }

  async renew(entries: ReadonlyArray<{ key: string; member: string; ttlMs: number }>): Promise<void> {
    if (entries.length === 0) return;
    const args = ['EVAL', RENEW_SCRIPT, String(entries.length), ...entries.map(({ key }) => this.prefix + key), String(Date.now())];
    for (const { member, ttlMs } of entries) args.push(member, ttl(ttlMs));
    await this.run((commands) => commands.sendCommand(args));
  }

  async release(keys: readonly string[], member: string): Promise<void> {
    await this.run((commands) => Promise.all(keys.map((key) => commands.sendCommand(['ZREM', this.prefix + key, member]))));
  }

  /**
   * Runs commands; a failure is a `STORE_FAILED` error saying where Redis is, since when it is
   * unreachable and what to do. The first failure of an outage is reported once (`onError`), the
   * first success after it once too.
   */
  private async run<T>(work: (commands: Commands) => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work(await this.commands());
    } catch (error) {
      throw this.failure(error);
    }
    if (this.downSince !== undefined) {
      const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
      this.downSince = undefined;
      this.onError(new Error(`RedisStore: Redis at ${shownUrl(this.url)} is reachable again, after ${seconds} s`));
    }
    return result;
  }

  /** What a failed command tells its caller (and, the first time in an outage, `onError`). */
  private failure(error: unknown): Error {
    if (error instanceof AnytoolError) return error;
    const reason = describe(error);
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      this.onError(
        new AnytoolError(
          ErrorCode.StoreFailed,
          `RedisStore: lost Redis at ${shownUrl(this.url)} (${reason}); reconnecting on its own, and until then requests that need the store fail`,
          { cause: error },
        ),
      );
    }
    return new AnytoolError(
      ErrorCode.StoreFailed,
      `RedisStore: Redis at ${shownUrl(this.url)} is unreachable since ${new Date(this.downSince).toISOString()} (${reason}); ` +
        'the store reconnects on its own: check that redis-server runs there, then retry',
      { cause: error },
    );
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run((commands) => commands.sendCommand(['PUBLISH', this.prefix + channel, message]));
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    const subscriber = await (this.subscriber ??= this.open(
      (redis, options) => redis.createClient(options),
      () => (this.subscriber = undefined),
    ));
    // Each subscription gets its own function, so unsubscribing one leaves the others on the channel.
    const own = (message: string): void => listener(message);
    await subscriber.subscribe(this.prefix + channel, own);
    let active = true;
    return async () => {
      if (!active || this.closed) return;
      active = false;
      await subscriber.unsubscribe(this.prefix + channel, own);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const connections = (await this.connections?.catch(() => undefined)) ?? [];
    const subscriber = await this.subscriber?.catch(() => undefined);
    const ends = [...connections, ...(subscriber === undefined ? [] : [subscriber])].map((client) => client.close().catch(() => client.destroy()));
    await Promise.all(ends);
  }

  private module(): Promise<RedisModule> {
    return (this.redis ??= loadRedis());
  }

  /** The connection the next command goes on. */
  private async commands(): Promise<Client> {
    const connections = await (this.connections ??= this.openConnections());
    const at = this.turn;
    this.turn = (at + 1) % connections.length;
    return connections[at]!;
  }

  /**
   * Opens the `poolSize` connections together: once the store is up, each of them reconnects on
   * its own, so none meets an outage as a first connect. Should one not open, none is kept, and
   * the next command tries again.
   */
  private async openConnections(): Promise<Client[]> {
    const opening = Array.from({ length: this.poolSize }, () =>
      this.open(
        (redis, options) => redis.createClient(options),
        () => undefined,
      ),
    );
    const opened = await Promise.allSettled(opening);
    const failed = opened.find((result) => result.status === 'rejected');
    if (failed === undefined) return opened.map((result) => (result as PromiseFulfilledResult<Client>).value);
    for (const result of opened) if (result.status === 'fulfilled') result.value.destroy();
    this.connections = undefined;
    throw failed.reason;
  }

  /**
   * Opens a connection. Until it first connects it is tried a few times and then
   * given up with an error saying where and why (and forgotten, so the next use tries again);
   * once connected, it reconnects on its own for as long as the store is open.
   */
  private async open<T extends Client | Subscriber>(make: (redis: RedisModule, options: object) => T, forget: () => void): Promise<T> {
    if (this.closed) throw new AnytoolError(ErrorCode.StoreFailed, `RedisStore (${shownUrl(this.url)}) is closed`);
    const redis = await this.module();
    let ready = false;
    const options = {
      url: this.url,
      // A command while the connection is down fails at once (and says so) rather than waiting in a queue without bound.
      disableOfflineQueue: true,
      // node-redis times a command out only until it is written (5 s by default), with a timer for each. With no
      // offline queue a command waits to be written only while the socket is full, and a command written waits for its
      // reply untimed either way: the timers cost CPU for little.
      commandOptions: { timeout: 0 },
      socket: {
        // A new Error (not the socket's own, which may come from another realm, e.g. under a test runner): the
        // client stops retrying only when handed an instance of its own realm's Error.
        reconnectStrategy: (retries: number, cause: Error) =>
          !ready && retries >= FIRST_CONNECT_ATTEMPTS ? new Error(cause.message) : Math.min(50 * 2 ** retries, 2000),
      },
    };
    const client = make(redis, options);
    client.on('error', (error: Error) => {
      // Every failed reconnect attempt comes here: the outage is reported once, as its first one.
      if (ready && !this.closed) this.failure(error);
    });
    try {
      await client.connect();
      ready = true;
      return client;
    } catch (error) {
      forget();
      client.destroy();
      const why = describeError(error);
      throw new AnytoolError(
        ErrorCode.StoreFailed,
        `RedisStore: cannot reach Redis at ${shownUrl(this.url)} (${why}); start redis-server there or fix the URL`,
      );
    }
  }
}

/** An error's text, never empty (node-redis has errors without a message). */
function describe(error: unknown): string {
  if (error instanceof Error) return error.message !== '' ? error.message : `${error.name}${'code' in error ? ` ${String(error.code)}` : ''}`;
  return String(error);
}

/** A TTL as Redis takes it: whole milliseconds, at least 1. */
function ttl(ms: number): string {
  return String(Math.max(1, Math.ceil(ms)));
}
