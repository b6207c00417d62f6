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

/** The default `maxStateBytes` of the stores: 4 MiB of JSON text. */
export const DEFAULT_MAX_STATE_BYTES = 4 * 1024 * 1024;

export interface MemoryRunStoreOptions {
  /** How long a state is kept, in milliseconds: a week by default. */
  ttlMs?: number;
  /** The most states kept; past it the oldest is dropped. 10,000 by default. */
  maxRuns?: number;
  /** The largest state kept, in bytes of its JSON text: a larger one is refused with `RUN_STATE_TOO_LARGE`. 4 MiB by default. */
  maxStateBytes?: number;
}

/**
 * Paused runs in this process's memory: for tests, and for one process that
 * does not restart. States are kept as JSON text, so what comes back is a copy
 * a later change to the object cannot reach, as from any other store.
 */
export class MemoryRunStore implements RunStore {
  private readonly ttlMs: number;
  private readonly maxRuns: number;
  private readonly maxStateBytes: number;
  private readonly runs = new Map<string, { text: string; pauseId: string; expires: number }>();

  constructor(options: MemoryRunStoreOptions = {}) {
    this.ttlMs = checkTtl(options.ttlMs ?? DEFAULT_RUN_TTL_MS, 'MemoryRunStore: ttlMs');
    const maxRuns = options.maxRuns ?? 10_000;
    if (!Number.isSafeInteger(maxRuns) || maxRuns < 1)
      throw new AnytoolError(ErrorCode.InvalidOptions, `MemoryRunStore: maxRuns must be a whole number from 1, got ${String(maxRuns)}`);
    this.maxRuns = maxRuns;
    this.maxStateBytes = checkMaxStateBytes(options.maxStateBytes, 'MemoryRunStore');
  }

  // Async, so that a refused state or option rejects the promise as any store's would, rather than throwing.
  async save(state: RunState, options: RunStoreSaveOptions = {}): Promise<void> {
    const ttl = checkTtl(options.ttlMs ?? this.ttlMs, 'MemoryRunStore.save(): ttlMs');
    const text = runStateText(state, this.maxStateBytes, 'MemoryRunStore.save()');
    this.runs.delete(state.runId);
    this.runs.set(state.runId, { text, pauseId: state.pauseId, expires: Date.now() + ttl });
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
  }

  async load(runId: string): Promise<RunState | undefined> {
    const entry = this.live(runId);
    return entry === undefined ? undefined : (JSON.parse(entry.text) as RunState);
  }

  // No await before the entry is removed: of callers racing for it, the first one gets it.
  async take(runId: string, pauseId?: string): Promise<RunState | undefined> {
    const entry = this.live(runId);
    if (entry === undefined || (pauseId !== undefined && entry.pauseId !== pauseId)) return undefined;
    this.runs.delete(runId);
    return JSON.parse(entry.text) as RunState;
  }

  async delete(runId: string): Promise<void> {
    this.runs.delete(runId);
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

/** The largest `maxStateBytes` a store takes: 512 MiB, the most a Redis string holds. */
const MAX_STATE_BYTES_LIMIT = 512 * 1024 * 1024;

export function checkMaxStateBytes(value: unknown, owner: string): number {
  if (value === undefined) return DEFAULT_MAX_STATE_BYTES;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_STATE_BYTES_LIMIT) return value;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `${owner}: maxStateBytes must be a whole number of bytes from 1 to ${MAX_STATE_BYTES_LIMIT}, got ${String(value)}`,
  );
}

/**
 * The state as the stores keep it: JSON text with `pauseId` as its first field (so a
 * store can compare a pause without parsing the whole state), refused when it has no
 * run id or pause id, or is larger than `maxStateBytes`.
 */
export function runStateText(state: RunState, maxStateBytes: number, owner: string): string {
  if (typeof state !== 'object' || state === null || typeof state.runId !== 'string' || state.runId === '' || typeof state.pauseId !== 'string') {
    throw new AnytoolError(ErrorCode.RunStateInvalid, `${owner}: the state has no runId or pauseId; save the \`state\` a paused run returned`);
  }
  const { pauseId, ...rest } = state;
  const text = JSON.stringify({ pauseId, ...rest });
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxStateBytes) {
    throw new AnytoolError(
      ErrorCode.RunStateTooLarge,
      `${owner}: the state of run ${JSON.stringify(state.runId.slice(0, 80))} is ${bytes} bytes of JSON, over maxStateBytes (${maxStateBytes}); ` +
        "it was not saved: raise the store's maxStateBytes, or keep the run smaller (fewer or shorter messages, fewer kept outputs)",
    );
  }
  return text;
}

export function checkTtl(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `${what} must be a whole number of milliseconds from 1, got ${String(value)}`);
}
