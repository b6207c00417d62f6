import type * as TimeScale from './time-scale';

/** `scaled` under each value of ANYTOOL_TEST_TIME_SCALE, read when the helper is loaded. */
function loadWith(value: string | undefined): typeof TimeScale {
  const saved = process.env['ANYTOOL_TEST_TIME_SCALE'];
  if (value === undefined) delete process.env['ANYTOOL_TEST_TIME_SCALE'];
  else process.env['ANYTOOL_TEST_TIME_SCALE'] = value;
  try {
    let loaded: typeof TimeScale | undefined;
    jest.isolateModules(() => {
      loaded = jest.requireActual<typeof TimeScale>('./time-scale');
    });
    return loaded!;
  } finally {
    if (saved === undefined) delete process.env['ANYTOOL_TEST_TIME_SCALE'];
    else process.env['ANYTOOL_TEST_TIME_SCALE'] = saved;
  }
}

describe('scaled test timeouts', () => {
  it('leave durations as they are by default, and multiply them by ANYTOOL_TEST_TIME_SCALE', () => {
    expect(loadWith(undefined).scaled(3_000)).toBe(3_000);
    expect(loadWith('').scaled(3_000)).toBe(3_000);
    expect(loadWith('3').scaled(3_000)).toBe(9_000);
    expect(loadWith('1.5').scaled(333)).toBe(500);
  });

  it('refuse a scale that would shorten or break them, naming the variable', () => {
    for (const bad of ['0.5', '0', '-2', 'slow', 'Infinity']) {
      expect(() => loadWith(bad)).toThrow(/ANYTOOL_TEST_TIME_SCALE must be a number of 1 or more/);
    }
  });
});
