import { UNDESCRIBABLE, describeError, toError } from '../src/thrown-value.js';

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('toError', () => {
  it('gives an Error back as it is, subclasses included', () => {
    const error = new TypeError('bad');
    expect(toError(error)).toBe(error);
  });

  it('wraps anything else in an Error that says what it was and keeps it as the cause', () => {
    for (const [thrown, message] of [
      ['plain text', 'plain text'],
      [{ code: 7 }, '{"code":7}'],
      [42, '42'],
      [undefined, 'undefined'],
    ] as const) {
      const error = toError(thrown);
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toBe(message);
      expect(error.cause).toBe(thrown);
    }
  });

  it('never throws, even for a value whose every reading throws', () => {
    const proxy = revokedProxy();
    const error = toError(proxy);
    expect(error.message).toBe(UNDESCRIBABLE);
    expect(error.cause).toBe(proxy);
    expect(describeError(proxy)).toBe(UNDESCRIBABLE);
  });
});
