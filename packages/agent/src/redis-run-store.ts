import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { RunState } from './run-state.js';
import { DEFAULT_RUN_TTL_MS, checkMaxStateBytes, checkTtl, runStateText, type RunStore, type RunStoreSaveOptions } from './run-store.js';

/**
 * What `RedisRunStore` needs of a client: a node-redis client (`createClient()` of the
 * `redis` package), or a pool of them (`createClientPool()`). A cluster client is not
 * one: its commands take a key first.
 */
export interface RedisRunStoreClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Options of `RedisRunStore`: `url` or `client`. */
export interface RedisRunStoreOptions {
  /**
   * Where Redis is: `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). The
   * store connects on first use with the `redis` package (install it: `npm i redis`) and
   * ends the connection on `close()`.
   */
  url?: string;
  /**
   * A connected client of your own, instead of `url`: the store sends its commands on it
   * and leaves it open on `close()`. Create it with `disableOfflineQueue: true` for a call
   * to fail at once while Redis is down, rather than wait until it is back.
   */
  client?: RedisRunStoreClient;
  /** Put before each run id to make its key. Default `anytool:run:`. */
  keyPrefix?: string;
  /** How long a state is kept, in milliseconds (Redis expires it). A week by default. */
  ttlMs?: number;
  /** The largest state kept, in bytes of its JSON text: a larger one is refused with `RUN_STATE_TOO_LARGE`. 4 MiB by default. */
  maxStateBytes?: number;
  /**
   * Told when the connection the store made from `url` is lost (a `STORE_FAILED` error; it
   * reconnects on its own, and meanwhile calls fail at once) and when it is back (an
   * error whose message says so). Default: a process warning for each.
   */
  onError?: (error: Error) => void;
}

/**
 * Hands a pause's state to one caller: when the value starts with ARGV[1] (the state's
 * first field, `{"pauseId":"…"`, as the store writes it), it is removed and returned;
 * else nothing changes. KEYS: the run's key.
 */
const TAKE_PAUSE_SCRIPT = `
local head = ARGV[1]
if redis.call('GETRANGE', KEYS[1], 0, #head - 1) ~= head then return false end
return redis.call('GETDEL', KEYS[1])
`;

/** How many times a first connection is tried before the store gives up (a running one reconnects forever). */
const FIRST_CONNECT_ATTEMPTS = 3;

interface OwnClient extends RedisRunStoreClient {
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on(event: 'error' | 'ready', listener: (error: Error) => void): unknown;
}
interface RedisModule {
  createClient(options: object): OwnClient;
}

/**
 * A `RunStore` in Redis (6.2 or later), on the official `redis` client: paused runs that
 * any process of an application can resume. A run's state is JSON text under
 * `keyPrefix` + its run id, written with a `PX` expiry; `take` is one atomic command
 * (`GETDEL`, or a script when the pause must match), so of two resumes racing for one
 * pause, one gets it.
 *
 * With `url` it connects on first use (`connect()` does so at once, to fail early), a
 * lost connection comes back on its own, and `close()` ends it. A failed command is a
 * `STORE_FAILED` error naming the store, the operation and where Redis is.
 *
 * @example
 * import { RedisRunStore } from '@anytool/agent/redis';
 * const agent = new Agent({ model, tools, store: new RedisRunStore({ url: 'redis://127.0.0.1:6379' }) });
 */
export class RedisRunStore implements RunStore {
  private readonly url: string | undefined;
  private readonly keyPrefix: string;
  private readonly ttlMs: number;
  private readonly maxStateBytes: number;
  private readonly onError: (error: Error) => void;
  private client: Promise<RedisRunStoreClient> | undefined;
  private own: OwnClient | undefined;
  private closed = false;

  constructor(options: RedisRunStoreOptions) {
    const given = options?.client;
    if (given !== undefined && options.url !== undefined)
      throw new AnytoolError(ErrorCode.ConflictingOptions, 'RedisRunStore: give `url` or `client`, not both');
    if (given !== undefined) {
      if (typeof given?.sendCommand !== 'function')
        throw new AnytoolError(
          ErrorCode.InvalidOptions,
          'RedisRunStore: client must be a node-redis client (createClient() of the redis package), with sendCommand()',
        );
      this.client = Promise.resolve(given);
    } else if (typeof options?.url !== 'string' || !/^rediss?:\/\//.test(options.url)) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `RedisRunStore: url must be a redis:// or rediss:// URL (or pass a connected client), got ${typeof options?.url === 'string' ? JSON.stringify(shownUrl(options.url)) : String(options?.url)}`,
      );
    }
    this.url = given === undefined ? options.url : undefined;
    const keyPrefix = options.keyPrefix ?? 'anytool:run:';
    if (typeof keyPrefix !== 'string') throw new AnytoolError(ErrorCode.InvalidOptions, `RedisRunStore: keyPrefix must be a string, got ${typeof keyPrefix}`);
    this.keyPrefix = keyPrefix;
    this.ttlMs = checkTtl(options.ttlMs ?? DEFAULT_RUN_TTL_MS, 'RedisRunStore: ttlMs');
    this.maxStateBytes = checkMaxStateBytes(options.maxStateBytes, 'RedisRunStore');
    this.onError = options.onError ?? ((error) => process.emitWarning(error.message));
  }

  /** Connects now (it would on first use): rejects with `STORE_FAILED`, saying where and why, when Redis cannot be reached. */
  async connect(): Promise<void> {
    await this.connection('connect()');
  }

  async save(state: RunState, options: RunStoreSaveOptions = {}): Promise<void> {
    const ttl = checkTtl(options.ttlMs ?? this.ttlMs, 'RedisRunStore.save(): ttlMs');
    const text = runStateText(state, this.maxStateBytes, 'RedisRunStore.save()');
    await this.command('save()', ['SET', this.keyPrefix + state.runId, text, 'PX', String(ttl)]);
  }

  async load(runId: string): Promise<RunState | undefined> {
    return this.parsed('load()', runId, await this.command('load()', ['GET', this.key('load()', runId)]));
  }

  async take(runId: string, pauseId?: string): Promise<RunState | undefined> {
    const key = this.key('take()', runId);
    if (pauseId !== undefined && typeof pauseId !== 'string')
      throw new AnytoolError(ErrorCode.InvalidOptions, `RedisRunStore.take(): pauseId must be a string (the state's pauseId), got ${typeof pauseId}`);
    const reply =
      pauseId === undefined
        ? await this.command('take()', ['GETDEL', key])
        : await this.command('take()', ['EVAL', TAKE_PAUSE_SCRIPT, '1', key, `{"pauseId":${JSON.stringify(pauseId)}`]);
    return this.parsed('take()', runId, reply);
  }

  async delete(runId: string): Promise<void> {
    await this.command('delete()', ['DEL', this.key('delete()', runId)]);
  }

  /** Ends the connection the store made from `url` (a `client` you gave is left open). Calls after it fail with `STORE_FAILED`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.url === undefined) return;
    // A connection still being made is closed by `open` once it sees the store closed.
    await this.client?.catch(() => undefined);
    const own = this.own;
    await own?.close().catch(() => own.destroy());
  }

  private key(operation: string, runId: string): string {
    if (typeof runId !== 'string' || runId === '')
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `RedisRunStore.${operation}: runId must be a non-empty string, got ${JSON.stringify(runId) ?? String(runId)}`,
      );
    return this.keyPrefix + runId;
  }

  private parsed(operation: string, runId: string, reply: unknown): RunState | undefined {
    if (reply === null || reply === undefined) return undefined;
    try {
      return JSON.parse(String(reply)) as RunState;
    } catch (error) {
      throw new AnytoolError(
        ErrorCode.RunStateInvalid,
        `RedisRunStore.${operation}: the value at ${JSON.stringify(this.keyPrefix + runId.slice(0, 80))} is not JSON (${describeError(error)}); ` +
          'something other than a run store wrote it: give this store a keyPrefix of its own',
        { cause: error },
      );
    }
  }

  /** Sends one command; a failure is a `STORE_FAILED` error naming the operation and where Redis is. */
  private async command(operation: string, args: string[]): Promise<unknown> {
    const client = await this.connection(operation);
    try {
      return await client.sendCommand(args);
    } catch (error) {
      throw new AnytoolError(
        ErrorCode.StoreFailed,
        `RedisRunStore.${operation}: Redis ${this.where()} failed: ${describe(error)}; check that redis-server runs there (6.2 or later), then retry`,
        { cause: error },
      );
    }
  }

  private connection(operation: string): Promise<RedisRunStoreClient> {
    if (this.closed) return Promise.reject(new AnytoolError(ErrorCode.StoreFailed, `RedisRunStore.${operation}: the store (${this.where()}) is closed`));
    return (this.client ??= this.open(operation));
  }

  /**
   * Connects to `url`. Until it first connects it is tried a few times and then given up
   * with an error saying where and why (and forgotten, so the next call tries again);
   * once connected, it reconnects on its own until the store is closed.
   */
  private async open(operation: string): Promise<RedisRunStoreClient> {
    let redis: RedisModule;
    try {
      const loaded = (await import('redis')) as unknown as RedisModule & { default?: RedisModule };
      redis = typeof loaded.createClient === 'function' ? loaded : loaded.default!;
    } catch (error) {
      this.client = undefined;
      throw new AnytoolError(
        ErrorCode.MissingDependency,
        `RedisRunStore.${operation}: cannot load the redis package (${describe(error).split('\n')[0]!}); install it next to @anytool/agent: npm i redis`,
        { cause: error },
      );
    }
    let ready = false;
    let down = false;
    const client = redis.createClient({
      url: this.url,
      // A command while the connection is down fails at once (and says so) rather than waiting in a queue without bound.
      disableOfflineQueue: true,
      socket: {
        // A new Error (not the socket's own, which may come from another realm, e.g. under a test runner): the
        // client stops retrying only when handed an instance of its own realm's Error.
        reconnectStrategy: (retries: number, cause: Error) =>
          !ready && retries >= FIRST_CONNECT_ATTEMPTS ? new Error(cause.message) : Math.min(50 * 2 ** retries, 2000),
      },
    });
    // Every failed reconnect attempt comes here: an outage is reported once, and its end once.
    client.on('error', (error: Error) => {
      if (!ready || down || this.closed) return;
      down = true;
      this.onError(
        new AnytoolError(
          ErrorCode.StoreFailed,
          `RedisRunStore: lost Redis ${this.where()} (${describe(error)}); reconnecting on its own, and until then calls fail`,
          {
            cause: error,
          },
        ),
      );
    });
    client.on('ready', () => {
      if (!down) return;
      down = false;
      this.onError(new Error(`RedisRunStore: Redis ${this.where()} is reachable again`));
    });
    try {
      await client.connect();
    } catch (error) {
      this.client = undefined;
      client.destroy();
      throw new AnytoolError(
        ErrorCode.StoreFailed,
        `RedisRunStore.${operation}: cannot reach Redis ${this.where()} (${describe(error)}); start redis-server there or fix the URL`,
        { cause: error },
      );
    }
    ready = true;
    // Closed while connecting: the connection is not kept.
    if (this.closed) {
      await client.close().catch(() => client.destroy());
      throw new AnytoolError(ErrorCode.StoreFailed, `RedisRunStore.${operation}: the store (${this.where()}) is closed`);
    }
    this.own = client;
    return client;
  }

  /** Where Redis is, for messages: its URL without credentials, or the client's. */
  private where(): string {
    return this.url === undefined ? 'on the client given' : `at ${shownUrl(this.url)}`;
  }
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

/** An error's text, never empty (node-redis has errors without a message). */
function describe(error: unknown): string {
  if (error instanceof Error && error.message === '') return `${error.name}${'code' in error ? ` ${String(error.code)}` : ''}`;
  return describeError(error);
}
