// The validation off the event loop (`OffloadedValidation`) keeps its deadline when the event loop is too busy to run
// the deadline's timer in time: the worker says how long the validation took, and one past the deadline is refused
// as timed out, whatever came first on the loop.
import { OffloadedValidation } from '../../src/client/offloaded-validation';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

/** Holds the event loop for `ms` (a busy process: the worker's messages and the timers wait). */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

// uniqueItems over objects compares every pair: 6,000 distinct rows take well over 100 ms (4,000 took about 0.6 s on a
// 2-core machine; a faster one validated 5,000 in under half a second), and they are valid.
const schema = { type: 'object', properties: { rows: { type: 'array', uniqueItems: true, items: { type: 'object' } } } };
const rows = Array.from({ length: 6_000 }, (_, i) => ({ i }));

describe('validation off the event loop under a busy loop', () => {
  it('refuses arguments whose validation took longer than the deadline, though the timer could not fire in time', async () => {
    const validation = new OffloadedValidation(schema);
    const checking = validation.check({ rows }, 100);
    // The worker compiles the schema (its deadline is the compile's), says so, validates and answers while the loop is
    // held: once free, the loop reads "compiled" (the 100 ms deadline starts only then) and the answer at once.
    hold(scaled(4_000));
    expect(await checking).toEqual({ timedOut: true });
  });

  it('passes arguments validated within the deadline, defaults filled, after the same busy loop', async () => {
    const validation = new OffloadedValidation({ type: 'object', properties: { n: { type: 'number', default: 7 } } });
    const checking = validation.check({}, 5_000);
    hold(1_000);
    expect(await checking).toEqual({ args: { n: 7 } });
  });
});
