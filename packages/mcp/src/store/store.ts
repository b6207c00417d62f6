/**
 * What the processes serving one MCP endpoint share: tasks that outlive the
 * request that started them, the legacy era's resumable event streams, and the
 * messages one instance sends the others (a cancelled task, a changed tool list).
 *
 * One process needs no shared store: the in-memory `MemoryStore` is the default.
 * Several processes behind a load balancer point at one `RedisStore`.
 *
 * Values are strings (JSON, written by the parts that use the store) and every
 * key lives at most `ttlMs`, so nothing a crashed instance wrote stays forever.
 */
export interface McpStore {
  /** The value of a key, or undefined when there is none (or it expired). */
  get(key: string): Promise<string | undefined>;
  /** Writes a value that expires after `ttlMs`. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Reads, changes and writes a key as one step: no other `update` or `set` of the key
   * lands in between (in Redis, an optimistic transaction retried on conflict). `change`
   * returns the new value, or undefined to leave the key as it is; it may run more than
   * once, so it must not have side effects. Resolves with the value now stored.
   * `known` is the value the caller last read or wrote: a store may try its write
   * against it first, saving a read (a stale `known` only costs a retry).
   */
  update(key: string, change: (value: string | undefined) => string | undefined, ttlMs: number, known?: string): Promise<string | undefined>;
  /** Removes a key (nothing happens when there is none). */
  delete(key: string): Promise<void>;
  /**
   * Appends to a list kept under `key`, dropping its oldest entries past `maxLength`, and
   * renews its expiry. Resolves with the number of entries ever appended (a sequence
   * number: the first entry is 1), so a reader can ask for what came after a number it saw.
   */
  append(key: string, value: string, ttlMs: number, maxLength: number): Promise<number>;
  /** The entries of a list with a sequence number above `after`, oldest first, with their numbers. */
  entriesAfter(key: string, after: number): Promise<Array<{ seq: number; value: string }>>;
  /**
   * Adds `member` to every set of `sets` as one step, when each holds fewer than its
   * `limit` live members (a member already in a set counts once); its entry in a set lives
   * `ttlMs` unless renewed. Resolves with -1 when added, else the index in `sets` of the
   * first set that is full (nothing was added). What bounds tasks across the processes
   * of an endpoint: the check and the add cannot be split by another process's claim.
   */
  claim(sets: ReadonlyArray<{ key: string; limit: number; ttlMs: number }>, member: string): Promise<number>;
  /** Gives each member that is still in its set a new life of `ttlMs` from now; members not in their set stay out. */
  renew(entries: ReadonlyArray<{ key: string; member: string; ttlMs: number }>): Promise<void>;
  /** Removes `member` from each set of `keys`. */
  release(keys: readonly string[], member: string): Promise<void>;
  /** Sends a message to every subscriber of `channel`, in this process and in the others. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message published on `channel`; resolves with a function that stops it. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Ends the store's connections and timers. */
  close(): Promise<void>;
}
