// Importing @anytool/core changes no global: no reflect-metadata patching Reflect, no
// Symbol.metadata polyfill. Checked on the sources (an isolated module registry) and on the
// built package in a fresh Node process, ES and CommonJS builds and every subpath.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Every own property of Reflect and Symbol with its descriptor, as comparable text. */
const SNAPSHOT = `(() => {
  const describe = (object) => Object.fromEntries(Reflect.ownKeys(object).map((key) => {
    const d = Object.getOwnPropertyDescriptor(object, key);
    return [String(key), { value: typeof d.value === 'symbol' ? String(d.value) : typeof d.value, get: typeof d.get, set: typeof d.set, enumerable: d.enumerable, configurable: d.configurable, writable: d.writable }];
  }));
  return JSON.stringify({ Reflect: describe(Reflect), Symbol: describe(Symbol) });
})()`;

const snapshot = (): string => (0, eval)(SNAPSHOT) as string;

describe('importing @anytool/core', () => {
  it('leaves Reflect and Symbol untouched (sources, in an isolated module registry)', () => {
    const before = snapshot();
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports -- loading the entries now, in the isolated registry, is the point */
      require('@anytool/core');
      require('@anytool/core/internal');
      require('@anytool/core/runtime');
      /* eslint-enable @typescript-eslint/no-require-imports */
    });
    expect(snapshot()).toBe(before);
    expect(typeof (Reflect as { getMetadata?: unknown }).getMetadata).toBe('undefined');
  });

  it('leaves Reflect and Symbol untouched (the built package, in a fresh process)', () => {
    const script = `
      const before = ${SNAPSHOT};
      const { createRequire } = await import('node:module');
      const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
      for (const entry of ['@anytool/core', '@anytool/core/internal', '@anytool/core/runtime']) {
        require(entry);
        await import(entry);
      }
      const after = ${SNAPSHOT};
      process.stdout.write(JSON.stringify({ same: before === after, before, after }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' })) as {
      same: boolean;
      before: string;
      after: string;
    };
    expect(result.after).toBe(result.before);
    expect(result.same).toBe(true);
  });
});
