import type { McpStore } from './store.js';

interface Entry {
  value: string;
  expiresAt: number;
}

interface List {
  entries: Array<{ seq: number; value: string }>;
  seq: number;
  expiresAt: number;
}

/**
 * The store of one process: a map with expiry. Expired keys are dropped when read
 * and by a sweep that runs at most once a minute (an unref'd timer, so it never
 * keeps a process alive).
 */
export class MemoryStore implements McpStore {
  private readonly values = new Map<string, Entry>();
  private readonly lists = new Map<string, List>();
  /** Bounded sets (`claim`): member to the time its entry expires. */
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  private readonly sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => this.dropExpired(), 60_000);
    this.sweep.unref();
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.values.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  async update(key: string, change: (value: string | undefined) => string | undefined, ttlMs: number): Promise<string | undefined> {
    // One process, no await between the read and the write: nothing can land in between.
    const current = this.live(key)?.value;
    const next = change(current);
    if (next === undefined) return current;
    this.values.set(key, { value: next, expiresAt: Date.now() + ttlMs });
    return next;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
    this.lists.delete(key);
    this.sets.delete(key);
  }

  async append(key: string, value: string, ttlMs: number, maxLength: number): Promise<number> {
    let list = this.lists.get(key);
    if (list === undefined || list.expiresAt <= Date.now()) {
      list = { entries: [], seq: 0, expiresAt: 0 };
      this.lists.set(key, list);
    }
    list.seq += 1;
    list.entries.push({ seq: list.seq, value });
    if (list.entries.length > maxLength) list.entries.splice(0, list.entries.length - maxLength);
    list.expiresAt = Date.now() + ttlMs;
    return list.seq;
  }

  async entriesAfter(key: string, after: number): Promise<Array<{ seq: number; value: string }>> {
    const list = this.lists.get(key);
    if (list === undefined || list.expiresAt <= Date.now()) return [];
    return list.entries.filter((entry) => entry.seq > after);
  }

  async claim(sets: ReadonlyArray<{ key: string; limit: number; ttlMs: number }>, member: string): Promise<number> {
    const now = Date.now();
    for (const [index, { key, limit }] of sets.entries()) {
      const set = this.sets.get(key);
      if (set === undefined || set.has(member) || set.size < limit) continue;
      for (const [other, expiresAt] of set) if (expiresAt <= now) set.delete(other);
      if (set.size >= limit) return index;
    }
    for (const { key, ttlMs } of sets) {
      let set = this.sets.get(key);
      if (set === undefined) this.sets.set(key, (set = new Map()));
      set.set(member, now + ttlMs);
    }
    return -1;
  }

  async renew(entries: ReadonlyArray<{ key: string; member: string; ttlMs: number }>): Promise<void> {
    const now = Date.now();
    for (const { key, member, ttlMs } of entries) {
      const set = this.sets.get(key);
      if (set?.has(member) === true) set.set(member, now + ttlMs);
    }
  }

  async release(keys: readonly string[], member: string): Promise<void> {
    for (const key of keys) {
      const set = this.sets.get(key);
      if (set === undefined) continue;
      set.delete(member);
      if (set.size === 0) this.sets.delete(key);
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    // Delivered on a later tick, as a message from another process would be.
    const listeners = this.channels.get(channel);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) queueMicrotask(() => listener(message));
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    let listeners = this.channels.get(channel);
    if (listeners === undefined) this.channels.set(channel, (listeners = new Set()));
    listeners.add(listener);
    return async () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.channels.delete(channel);
    };
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.channels.clear();
  }

  private live(key: string): Entry | undefined {
    const entry = this.values.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > Date.now()) return entry;
    this.values.delete(key);
    return undefined;
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.values) if (entry.expiresAt <= now) this.values.delete(key);
    for (const [key, list] of this.lists) if (list.expiresAt <= now) this.lists.delete(key);
    for (const [key, set] of this.sets) {
      for (const [member, expiresAt] of set) if (expiresAt <= now) set.delete(member);
      if (set.size === 0) this.sets.delete(key);
    }
  }
}
