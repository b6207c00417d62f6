// What every RunStore does, as one suite each store's test file runs: MemoryRunStore in
// run-store.test.ts, RedisRunStore against a real redis-server in redis-run-store.test.ts.
import { ErrorCode } from '@anytool/core';
import { RUN_STATE_FORMAT, RUN_STATE_VERSION, type RunState } from '../../src/run-state';
import type { RunStore } from '../../src/run-store';

export interface StoreKind {
  /**
   * A store; every store one kind makes shares its data, as the processes of one
   * application share their Redis (MemoryRunStore: the same store again, as within one
   * process). Stores made with other options get a fresh space of their own.
   */
  make(options?: { ttlMs?: number; maxStateBytes?: number }): RunStore;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;

/** A paused run's state with what a real one holds: a conversation, a paused turn, a pending approval, kept outputs, a trace. */
export function pausedState(overrides: Partial<RunState> = {}): RunState {
  counter += 1;
  const runId = `run-${process.pid}-${counter}-${Math.random().toString(36).slice(2)}`;
  // Arguments that hold a `pauseId` of their own: a store must compare the state's, not these.
  const args = { path: '/tmp/a "quoted" name\\with\nnewline', pauseId: 'p-in-arguments', nested: { pauseId: 'p-deeper' } };
  return {
    format: RUN_STATE_FORMAT,
    version: RUN_STATE_VERSION,
    runId,
    pauseId: `p-${counter}`,
    agent: 'files',
    pausedAt: '2026-01-02T03:04:05.678Z',
    steps: 2,
    messages: [
      { role: 'user', content: 'Delete the old log, please. Ünïcödé, emoji \u{1F30D}, a line separator \u2028 and a lone surrogate \uD800.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call-1', name: 'deleteFile', arguments: JSON.stringify(args) }] },
    ],
    inputLength: 1,
    turn: {
      calls: [
        { id: 'call-1', name: 'deleteFile', arguments: JSON.stringify(args) },
        { id: 'call-2', name: 'stat', arguments: { path: '/tmp' } },
      ],
      results: { 'call-2': { content: [{ type: 'text', text: 'a directory' }], structured: { size: 4096, kind: 'dir' }, isError: false } },
    },
    usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    pending: [
      {
        id: 'item-1',
        kind: 'approval',
        callId: 'call-1',
        tool: 'deleteFile',
        args,
        argsDigest: 'a'.repeat(64),
        reason: 'the approval policy asks for deleteFile',
        approval: { kind: 'call' },
      },
    ],
    trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    tools: { deleteFile: 'b'.repeat(64), stat: 'c'.repeat(64) },
    ...overrides,
  };
}

/** The state as JSON gives it back: what every store must return. */
const asJson = (state: RunState): unknown => JSON.parse(JSON.stringify(state)) as unknown;

export function runStoreSuite(kind: StoreKind): void {
  it('saves a state, loads it (leaving it there), takes it (removing it) and deletes one', async () => {
    const store = kind.make();
    const other = kind.make();
    const state = pausedState();
    await store.save(state);
    expect(await other.load(state.runId)).toEqual(asJson(state));
    expect(await other.load(state.runId)).toEqual(asJson(state));
    expect(await other.take(state.runId)).toEqual(asJson(state));
    expect(await store.load(state.runId)).toBeUndefined();
    expect(await store.take(state.runId)).toBeUndefined();

    const second = pausedState();
    await store.save(second);
    await other.delete(second.runId);
    expect(await store.load(second.runId)).toBeUndefined();
    await store.delete('never-saved');
    expect(await store.load('never-saved')).toBeUndefined();
    expect(await store.take('never-saved', 'p')).toBeUndefined();
  });

  it('gives back what JSON gives back: a copy, with every character as it was', async () => {
    const store = kind.make();
    const state = pausedState();
    await store.save(state);
    state.messages.push({ role: 'user', content: 'changed after saving' });
    (state.pending[0]!.args as { path: string }).path = 'changed';
    const loaded = (await store.load(state.runId))!;
    expect(loaded.messages).toHaveLength(2);
    expect((loaded.pending[0]!.args as { path: string }).path).toBe('/tmp/a "quoted" name\\with\nnewline');
    expect(loaded.messages[0]).toEqual({
      role: 'user',
      content: 'Delete the old log, please. Ünïcödé, emoji \u{1F30D}, a line separator \u2028 and a lone surrogate \uD800.',
    });
    expect(loaded.turn.results['call-2']).toEqual({
      content: [{ type: 'text', text: 'a directory' }],
      structured: { size: 4096, kind: 'dir' },
      isError: false,
    });
    // Two reads are two objects: changing one leaves the store's copy as it was.
    loaded.steps = 99;
    expect((await store.load(state.runId))!.steps).toBe(2);
    // Fields JSON drops are dropped; the order of fields is no part of the state.
    const withUndefined = pausedState({ agent: undefined as unknown as string });
    await store.save(withUndefined);
    const back = (await store.take(withUndefined.runId))!;
    expect('agent' in back).toBe(false);
    expect(back).toEqual(asJson(withUndefined));
  });

  it('replaces a run’s state when the run saves again: the older pause can no longer be taken', async () => {
    const store = kind.make();
    const first = pausedState();
    const next = { ...pausedState(), runId: first.runId, pauseId: `${first.pauseId}-next`, steps: 5 };
    await store.save(first);
    await store.save(next);
    expect(await store.load(first.runId)).toEqual(asJson(next));
    expect(await store.take(first.runId, first.pauseId)).toBeUndefined();
    expect(await store.take(first.runId, next.pauseId)).toEqual(asJson(next));
  });

  it('takes a state only for its own pause id: another leaves it in the store, a pause id found in the arguments included', async () => {
    const store = kind.make();
    const state = pausedState();
    await store.save(state);
    for (const wrong of ['p-in-arguments', 'p-deeper', `${state.pauseId}x`, state.pauseId.slice(0, -1), '', `"${state.pauseId}"`]) {
      expect(await store.take(state.runId, wrong)).toBeUndefined();
    }
    expect(await store.load(state.runId)).toEqual(asJson(state));
    expect(await store.take(state.runId, state.pauseId)).toEqual(asJson(state));
    expect(await store.take(state.runId, state.pauseId)).toBeUndefined();

    // A pause id with quotes, backslashes and non-ASCII characters is compared as it is.
    const odd = pausedState({ pauseId: 'p "\\ é \u{1F30D}' });
    await store.save(odd);
    expect(await store.take(odd.runId, 'p "\\ é')).toBeUndefined();
    expect(await store.take(odd.runId, 'p "\\ é \u{1F30D}')).toEqual(asJson(odd));
  });

  it('of 20 concurrent takers of one pause, exactly one gets the state (with and without a pause id)', async () => {
    const stores = Array.from({ length: 4 }, () => kind.make());
    for (const withPause of [true, false]) {
      for (let round = 0; round < 5; round++) {
        const state = pausedState();
        await stores[0]!.save(state);
        const taken = await Promise.all(
          Array.from({ length: 20 }, (_, i) => stores[i % stores.length]!.take(state.runId, withPause ? state.pauseId : undefined)),
        );
        const winners = taken.filter((value) => value !== undefined);
        expect(winners).toEqual([asJson(state)]);
        expect(await stores[1]!.load(state.runId)).toBeUndefined();
      }
    }
  });

  it('forgets a state once its time is up: the store’s ttlMs, or the one given to save', async () => {
    const short = kind.make({ ttlMs: 60 });
    const state = pausedState();
    await short.save(state);
    expect(await short.load(state.runId)).toEqual(asJson(state));
    await sleep(150);
    expect(await short.load(state.runId)).toBeUndefined();
    expect(await short.take(state.runId, state.pauseId)).toBeUndefined();

    const store = kind.make();
    const brief = pausedState();
    const kept = pausedState();
    await store.save(brief, { ttlMs: 60 });
    await store.save(kept);
    await sleep(150);
    expect(await store.load(brief.runId)).toBeUndefined();
    expect(await store.load(kept.runId)).toEqual(asJson(kept));
  });

  it('refuses a state larger than maxStateBytes (bytes of its JSON text, not characters), and keeps nothing of it', async () => {
    const store = kind.make({ maxStateBytes: 4_000 });
    const fits = pausedState();
    const size = Buffer.byteLength(JSON.stringify(fits));
    expect(size).toBeLessThan(3_000);
    await store.save(fits);

    // Fewer characters than the bound, more bytes: 1,000 characters of 4 bytes each (2 UTF-16 units).
    const wide = pausedState({ messages: [{ role: 'user', content: '\u{1F30D}'.repeat(1_000) }] });
    expect(JSON.stringify(wide).length).toBeLessThan(4_000);
    const bytes = Buffer.byteLength(JSON.stringify(wide));
    expect(bytes).toBeGreaterThan(4_000);
    const refused = await store.save(wide).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: ErrorCode.RunStateTooLarge });
    expect((refused as Error).message).toMatch(
      new RegExp(`\\.save\\(\\): the state of run "${wide.runId}" is ${bytes} bytes of JSON, over maxStateBytes \\(4000\\); it was not saved: raise`),
    );
    expect(await store.load(wide.runId)).toBeUndefined();
    expect(await store.load(fits.runId)).toEqual(asJson(fits));

    // A refused save of a run that has a state leaves that state as it was.
    await expect(store.save({ ...wide, runId: fits.runId })).rejects.toMatchObject({ code: ErrorCode.RunStateTooLarge });
    expect(await store.load(fits.runId)).toEqual(asJson(fits));
  });

  it('refuses a state without a run id or pause id, and a ttlMs that is not a whole number of milliseconds', async () => {
    const store = kind.make();
    await expect(store.save({ ...pausedState(), runId: '' })).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    await expect(store.save({ ...pausedState(), pauseId: undefined as unknown as string })).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    for (const ttlMs of [0, -1, 1.5, Number.NaN, Infinity]) {
      await expect(store.save(pausedState(), { ttlMs })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
    }
  });
}
