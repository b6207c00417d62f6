// The built package loads from ESM and from CommonJS through its exports map.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scaled } from './helpers/time-scale';

const root = join(__dirname, '..', '..', '..');
const pkg = join(root, 'packages', 'core');

beforeAll(() => {
  if (!existsSync(join(pkg, 'dist', 'esm', 'index.js')) || !existsSync(join(pkg, 'dist', 'cjs', 'index.js'))) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core'], { cwd: root, stdio: 'pipe' });
  }
}, scaled(120_000));

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageName = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('@anytool/core as a built package', () => {
  it('is imported from an .mjs file', () => {
    const out = execFileSync(process.execPath, [join(__dirname, 'smoke', 'import.mjs')], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ format: 'esm', text: '5', runtime: ['revive', 'validateClass'] });
  });

  it('is required from a .cjs file', () => {
    const out = execFileSync(process.execPath, [join(__dirname, 'smoke', 'require.cjs')], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ format: 'cjs', text: '5', runtime: ['revive', 'validateClass'] });
  });

  it('puts types first in every branch of its exports map', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(manifest.exports['./package.json']).toBe('./package.json');
    for (const subpath of ['.', './runtime']) {
      const entry = manifest.exports[subpath] as Record<string, Record<string, string>>;
      for (const branch of Object.values(entry)) {
        expect([subpath, Object.keys(branch)[0]]).toEqual([subpath, 'types']);
        expect(existsSync(join(pkg, branch['types']!))).toBe(true);
        expect(existsSync(join(pkg, branch['default']!))).toBe(true);
      }
    }
  });

  it('runs compiled code with nothing of the build step: the runtime imports only core itself and its dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const allowed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    expect(allowed.has('typescript')).toBe(false);
    for (const format of ['esm', 'cjs']) {
      const seen = new Set<string>();
      const walk = (file: string): void => {
        if (seen.has(file)) return;
        seen.add(file);
        const text = readFileSync(file, 'utf8');
        for (const [, specifier] of text.matchAll(/(?:from\s*|import\(\s*|require\(\s*)['"]([^'"]+)['"]/g)) {
          if (specifier!.startsWith('.')) walk(join(dirname(file), specifier!));
          else expect([file, specifier!.startsWith('node:') || allowed.has(packageName(specifier!))]).toEqual([file, true]);
        }
      };
      walk(join(pkg, 'dist', format, 'runtime.js'));
      expect(seen.size).toBeGreaterThan(1);
    }
  });
});
