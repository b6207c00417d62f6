import { ErrorCode, ExecutionContext, ToolOutputStore } from '@anytool/core';

describe('ToolOutputStore', () => {
  it('is one per run, shared by every view of its context, and gone once released', () => {
    const context = new ExecutionContext();
    const store = ToolOutputStore.of(context);
    expect(ToolOutputStore.of(context.forCall('call_1', 'tool'))).toBe(store);
    expect(ToolOutputStore.peek(new ExecutionContext())).toBeUndefined();
    const handle = store.put('kept', 'tool', 'call_1')!;
    ToolOutputStore.release(context);
    expect(ToolOutputStore.peek(context)).toBeUndefined();
    expect(() => store.read(handle, 0, 10)).toThrow(expect.objectContaining({ code: ErrorCode.OutputHandleUnknown }));
  });

  it('evicts the oldest outputs to stay within maxBytes (2 bytes a character), and keeps none larger than itself', () => {
    const store = new ToolOutputStore({ maxBytes: 100 });
    const a = store.put('a'.repeat(20), 't', 'c1')!;
    const b = store.put('b'.repeat(20), 't', 'c2')!;
    expect(store.usedBytes).toBe(80);
    const c = store.put('c'.repeat(20), 't', 'c3')!;
    expect([store.size, store.usedBytes, store.stored]).toEqual([2, 80, 3]);
    expect(() => store.get(a)).toThrow(expect.objectContaining({ code: ErrorCode.OutputEvicted }));
    expect(store.get(b).text).toBe('b'.repeat(20));
    expect(store.read(c, 5, 10)).toEqual({ handle: c, text: 'c'.repeat(10), offset: 5, end: 15, total: 20 });
    expect(store.put('d'.repeat(51), 't', 'c4')).toBeUndefined();
    expect(store.size).toBe(2);
    expect(() => new ToolOutputStore({ maxBytes: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });

  it('gives pages that never end inside a surrogate pair, and are equal copies of the text', () => {
    const store = new ToolOutputStore();
    const text = `${'x'.repeat(99)}😀${'é'.repeat(100)}`;
    const handle = store.put(text, 't', 'c')!;
    expect(store.read(handle, 0, 100)).toMatchObject({ text: 'x'.repeat(99), end: 99 });
    expect(store.read(handle, 99, 50).text).toBe(text.slice(99, 149));
    expect(store.read(handle, 101, 1000).text).toBe('é'.repeat(100));
  });
});
