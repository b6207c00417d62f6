import { MemoryStore } from '@anytool/mcp';

describe('MemoryStore', () => {
  let store: MemoryStore;
  beforeEach(() => (store = new MemoryStore()));
  afterEach(() => store.close());

  it('keeps a value until it expires', async () => {
    await store.set('a', '1', 60_000);
    await store.set('b', '2', -1);
    expect(await store.get('a')).toBe('1');
    expect(await store.get('b')).toBeUndefined();
    await store.delete('a');
    expect(await store.get('a')).toBeUndefined();
  });

  it('update reads, changes and writes in one step, and leaves the key when the change says so', async () => {
    await Promise.all(Array.from({ length: 50 }, () => store.update('n', (v) => String(Number(v ?? '0') + 1), 60_000)));
    expect(await store.get('n')).toBe('50');
    expect(await store.update('n', () => undefined, 60_000)).toBe('50');
    expect(await store.update('missing', (v) => (v === undefined ? undefined : 'x'), 60_000)).toBeUndefined();
  });

  it('appends with sequence numbers, keeps the newest maxLength and reads after a number', async () => {
    for (let i = 1; i <= 5; i++) expect(await store.append('list', `e${i}`, 60_000, 3)).toBe(i);
    expect(await store.entriesAfter('list', 0)).toEqual([
      { seq: 3, value: 'e3' },
      { seq: 4, value: 'e4' },
      { seq: 5, value: 'e5' },
    ]);
    expect((await store.entriesAfter('list', 4)).map((e) => e.value)).toEqual(['e5']);
    expect(await store.entriesAfter('none', 0)).toEqual([]);
  });

  it('delivers published messages to every subscriber until it unsubscribes', async () => {
    const got: string[] = [];
    const stop = await store.subscribe('ch', (m) => got.push(`1:${m}`));
    await store.subscribe('ch', (m) => got.push(`2:${m}`));
    await store.publish('ch', 'hello');
    await store.publish('other', 'nobody');
    await new Promise((r) => setImmediate(r));
    await stop();
    await store.publish('ch', 'again');
    await new Promise((r) => setImmediate(r));
    expect(got.sort()).toEqual(['1:hello', '2:again', '2:hello']);
  });
});
