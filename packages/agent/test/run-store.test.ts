import { ErrorCode } from '@anytool/core';
import { DEFAULT_MAX_STATE_BYTES, DEFAULT_RUN_TTL_MS, MemoryRunStore, type MemoryRunStoreOptions } from '../src/run-store';
import { pausedState, runStoreSuite } from './helpers/run-store-suite';

describe('MemoryRunStore', () => {
  // One store for the default options, as one process shares one; other options get a store of their own.
  let shared: MemoryRunStore | undefined;
  runStoreSuite({ make: (options?: MemoryRunStoreOptions) => (options === undefined ? (shared ??= new MemoryRunStore()) : new MemoryRunStore(options)) });

  it('keeps the newest maxRuns states, dropping the one saved longest ago', async () => {
    const store = new MemoryRunStore({ maxRuns: 3 });
    const states = Array.from({ length: 4 }, () => pausedState());
    for (const state of states.slice(0, 3)) await store.save(state);
    // Saving a run again makes it the newest.
    await store.save(states[0]!);
    await store.save(states[3]!);
    expect(await store.load(states[1]!.runId)).toBeUndefined();
    for (const state of [states[0]!, states[2]!, states[3]!]) expect((await store.load(state.runId))?.runId).toBe(state.runId);
  });

  it('takes a week and 4 MiB by default, and refuses options it cannot use', async () => {
    expect(DEFAULT_RUN_TTL_MS).toBe(7 * 24 * 60 * 60 * 1000);
    expect(DEFAULT_MAX_STATE_BYTES).toBe(4 * 1024 * 1024);
    const store = new MemoryRunStore();
    const large = pausedState({ messages: [{ role: 'user', content: 'x'.repeat(DEFAULT_MAX_STATE_BYTES - 3_000) }] });
    await store.save(large);
    const tooLarge = pausedState({ messages: [{ role: 'user', content: 'x'.repeat(DEFAULT_MAX_STATE_BYTES) }] });
    await expect(store.save(tooLarge)).rejects.toMatchObject({ code: ErrorCode.RunStateTooLarge });
    expect(await store.load(large.runId)).toBeDefined();

    for (const options of [
      { ttlMs: 0 },
      { ttlMs: 1.5 },
      { maxRuns: 0 },
      { maxRuns: 2.5 },
      { maxStateBytes: 0 },
      { maxStateBytes: 513 * 1024 * 1024 },
      { maxStateBytes: Number.NaN },
    ]) {
      expect(() => new MemoryRunStore(options)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringMatching(/^MemoryRunStore: /) }),
      );
    }
  });
});
