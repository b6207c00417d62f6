import { isPlainObject, isRecord } from '../src/is-record.js';

class Point {
  x = 1;
}

describe('isRecord', () => {
  it('takes any object with string keys and refuses null, arrays and primitives', () => {
    for (const value of [{}, { a: 1 }, Object.create(null), new Point(), new Map(), new Date(0)]) expect(isRecord(value)).toBe(true);
    for (const value of [null, undefined, [], [1], 'text', 1, true, () => 1, Symbol('s')]) expect(isRecord(value)).toBe(false);
  });
});

describe('isPlainObject', () => {
  it('takes a literal or a prototype-less object, never a class instance or an array', () => {
    for (const value of [{}, { a: 1 }, Object.create(null), JSON.parse('{"__proto__": {"x": 1}}')]) expect(isPlainObject(value)).toBe(true);
    for (const value of [new Point(), new Map(), Object.create({ inherited: true }), [], null, 'text']) expect(isPlainObject(value)).toBe(false);
  });
});
