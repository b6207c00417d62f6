import { AnytoolError, ErrorCode } from '@anytool/core';
import type { RunState } from './run-state.js';

export interface RunStoreSaveOptions {
  /** How long the state is kept, in milliseconds: the store's `ttlMs` by default. */
  ttlMs?: number;
}

/**
 * Where paused runs wait for their answers, keyed by run id. An agent with a
 * store saves each paused run's state, and `agent.resume(runId, answers)` takes
 * it back: `take` hands a pause's state to one caller only, so a run resumed
 * twice (two clicks, two servers) runs nothing twice. The state is plain JSON:
 * any database can be a store.
 */
export interface RunStore {
  /** Saves the state under its `runId`, replacing what the run saved before; it expires after `ttlMs`. */
  save(state: RunState, options?: RunStoreSaveOptions): Promise<void>;
  /** The state saved under `runId`, left in the store; undefined when there is none (or it expired). */
  load(runId: string): Promise<RunState | undefined>;
  /**
   * Removes and returns the state saved under `runId`, atomically: of callers
   * racing for it, one gets it. With `pauseId`, only the state of that pause
   * (an older copy of the state cannot take a newer pause's).
   */
  take(runId: string, pauseId?: string): Promise<RunState | undefined>;
  delete(runId: string): Promise<void>;
}

/** The default `ttlMs` of the stores: a week. */
export const DEFAULT_RUN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface MemoryRunStoreOptions {
  /** How long a state is kept, in milliseconds: a week by default. */
  ttlMs?: number;
  /** The most states kept; past it the oldest is dropped. 10,000 by default. */
  maxRuns?: number;
}

/**
 * Paused runs in this process's memory: for tests, and for one process that
 * does not restart. States are kept as JSON text, so what comes back is a copy
 * a later change to the object cannot reach, as from any other store.
 */
export class MemoryRunStore implements RunStore {
  private readonly ttlMs: number;
  private readonly maxRuns: number;
  private readonly runs = new Map<string, { text: string; pauseId: string; expires: number }>();

  constructor(options: MemoryRunStoreOptions = {}) {
    this.ttlMs = checkTtl(options.ttlMs ?? DEFAULT_RUN_TTL_MS, 'MemoryRunStore: ttlMs');
    const maxRuns = options.maxRuns ?? 10_000;
    if (!Number.isSafeInteger(maxRuns) || maxRuns < 1)
      throw new AnytoolError(ErrorCode.InvalidOptions, `MemoryRunStore: maxRuns must be a whole number from 1, got ${String(maxRuns)}`);
    this.maxRuns = maxRuns;
  }

  save(state: RunState, options: RunStoreSaveOptions = {}): Promise<void> {
    const ttl = checkTtl(options.ttlMs ?? this.ttlMs, 'MemoryRunStore.save(): ttlMs');
    this.runs.delete(state.runId);
    this.runs.set(state.runId, { text: JSON.stringify(state), pauseId: state.pauseId, expires: Date.now() + ttl });
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
    return Promise.resolve();
  }

  load(runId: string): Promise<RunState | undefined> {
    const entry = this.live(runId);
    return Promise.resolve(entry === undefined ? undefined : (JSON.parse(entry.text) as RunState));
  }

  take(runId: string, pauseId?: string): Promise<RunState | undefined> {
    const entry = this.live(runId);
    if (entry === undefined || (pauseId !== undefined && entry.pauseId !== pauseId)) return Promise.resolve(undefined);
    this.runs.delete(runId);
    return Promise.resolve(JSON.parse(entry.text) as RunState);
  }

  delete(runId: string): Promise<void> {
    this.runs.delete(runId);
    return Promise.resolve();
  }

  private live(runId: string): { text: string; pauseId: string; expires: number } | undefined {
    const entry = this.runs.get(runId);
    if (entry !== undefined && entry.expires <= Date.now()) {
      this.runs.delete(runId);
      return undefined;
    }
    return entry;
  }
}

export function checkTtl(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `${what} must be a whole number of milliseconds from 1, got ${String(value)}`);
}
