import { compileValidator } from '@anytool/core/internal';
import fc from 'fast-check';
import { fullFormats } from 'ajv-formats/dist/formats';
import { linearPatterns } from '../../src/shared/linear-patterns';

/** ajv-formats' own url check (a regular expression). */
const nativeUrl = fullFormats.url as RegExp;

// Random nested-quantifier patterns and random strings: each validation stays far under the
// 100 ms the event loop may be held, where JavaScript's engine takes exponential time.
const VALIDATION_BOUND_MS = 100;

const atom = fc.constantFrom('a', 'b', '.', '\\s', '\\S', '[ab]', '\\d', '(?:a|aa)', '(a|b)');
const quantifier = fc.constantFrom('+', '*', '?', '{1,3}', '{2,}');
const pattern = fc
  .array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([a, q]) => `(${a}${q})`).join(''))
  .chain((inner) => fc.constantFrom(`^(${inner})+$`, `^(${inner})*b$`, `(${inner}){2,}$`));
const text = fc.tuple(fc.constantFrom('a', 'ab', 'aab', ' a', '1a'), fc.integer({ min: 20, max: 5_000 }), fc.constantFrom('!', '', 'c', '\n'));

describe('patterns on the linear-time engine', () => {
  it(`random nested-quantifier patterns on random strings: every validation under ${VALIDATION_BOUND_MS} ms, same verdict as JavaScript on short strings`, () => {
    let slowest = 0;
    fc.assert(
      fc.property(pattern, text, (source, [unit, count, end]) => {
        const validate = compileValidator(
          { type: 'object', properties: { s: { type: 'string', pattern: source } }, patternProperties: { [source]: { type: 'string', pattern: source } } },
          'tool "random"',
          linearPatterns,
        );
        const long = unit.repeat(count) + end;
        const started = performance.now();
        validate({ s: long, [long]: long });
        slowest = Math.max(slowest, performance.now() - started);
        // A string short enough for JavaScript's engine: the same answer.
        const short = unit.repeat(3) + end;
        expect(validate({ s: short })).toBe(new RegExp(source, 'u').test(short));
      }),
      { numRuns: 200 },
    );
    expect(slowest).toBeLessThan(VALIDATION_BOUND_MS);
  });

  it('the url format answers as ajv-formats on short strings, and in linear time on long ones', () => {
    const validate = compileValidator({ type: 'string', format: 'url' }, 'tool "url"', linearPatterns);
    const part = fc.constantFrom(
      'http://',
      'https://',
      'ftp://',
      'a',
      'Z',
      '1',
      '0',
      '10',
      '127',
      '169',
      '172',
      '192',
      '254',
      '168',
      '16',
      '31',
      '.',
      ':',
      '@',
      '/',
      '-',
      ' ',
      'é',
      'com',
      'xn--',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => validate(parts.join('')) === nativeUrl.test(parts.join(''))),
      { numRuns: 5_000 },
    );
    for (const url of [
      'http://10.1.2.3',
      'http://127.0.0.1',
      'http://169.254.1.1',
      'http://192.168.1.1',
      'http://172.16.0.1',
      'http://172.32.0.1',
      'http://8.8.8.8:80/x',
      'https://example.com',
    ])
      expect(validate(url)).toBe(nativeUrl.test(url));
    const started = performance.now();
    expect(validate(`http://${':@'.repeat(50_000)}`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(VALIDATION_BOUND_MS);
  });
});
