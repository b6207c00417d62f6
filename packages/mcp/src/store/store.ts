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
  /** Sends a message to every subscriber of `channel`, in this process and in the others. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message published on `channel`; resolves with a function that stops it. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Ends the store's connections and timers. */
  close(): Promise<void>;
}
