import { andThen, isAsync, isThenable, toPromise, whenSettled } from '../../src/pipeline/maybe-async.js';

describe('maybe-async: the call path stays sync until something is async', () => {
  it('andThen continues a value at once and a promise when it settles', async () => {
    const seen: string[] = [];
    const now = andThen(2, (n) => {
      seen.push('value');
      return n * 10;
    });
    expect(seen).toEqual(['value']);
    expect(now).toBe(20);
    expect(isAsync(now)).toBe(false);

    const later = andThen(Promise.resolve(3), (n) => {
      seen.push('promise');
      return n * 10;
    });
    expect(seen).toEqual(['value']);
    expect(isAsync(later)).toBe(true);
    await expect(later).resolves.toBe(30);
    await expect(andThen(Promise.reject(new Error('no')), () => 1)).rejects.toThrow('no');
  });

  it('toPromise hands out a promise as it is and wraps anything else once', async () => {
    const promise = Promise.resolve(1);
    expect(toPromise(promise)).toBe(promise);
    await expect(toPromise({ done: true })).resolves.toEqual({ done: true });
  });

  it("isThenable finds another library's thenable, and whenSettled adopts it, rejections included", async () => {
    // Thenables as other libraries make them: a then method that calls back and returns nothing.
    const thenable = { then: (resolve: (v: number) => void) => resolve(7) } as unknown as PromiseLike<number>;
    const failing = { then: (_: unknown, reject: (e: Error) => void) => reject(new Error('thenable failed')) } as unknown as PromiseLike<number>;
    expect([isThenable(thenable), isThenable(Promise.resolve()), isThenable({ then: 1 }), isThenable(null), isThenable(5)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    await expect(
      whenSettled(
        thenable,
        (v) => `value ${String(v)}`,
        () => 'error',
      ),
    ).resolves.toBe('value 7');
    await expect(
      whenSettled(
        failing,
        () => 'value',
        (e) => `error ${(e as Error).message}`,
      ),
    ).resolves.toBe('error thenable failed');
  });

  it('isThenable lets a hostile then getter throw, for its caller to catch', () => {
    const hostile = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('no then for you');
      },
    });
    expect(() => isThenable(hostile)).toThrow('no then for you');
  });
});
