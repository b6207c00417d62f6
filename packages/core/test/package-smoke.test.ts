// The built package loads from ESM and from CommonJS through its exports map.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const pkg = join(root, 'packages', 'core');

beforeAll(() => {
  if (!existsSync(join(pkg, 'dist', 'esm', 'index.js')) || !existsSync(join(pkg, 'dist', 'cjs', 'index.js'))) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core'], { cwd: root, stdio: 'pipe' });
  }
}, 120_000);

describe('@anytool/core as a built package', () => {
  it('is imported from an .mjs file', () => {
    const out = execFileSync(process.execPath, [join(__dirname, 'smoke', 'import.mjs')], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ format: 'esm', text: '5' });
  });

  it('is required from a .cjs file', () => {
    const out = execFileSync(process.execPath, [join(__dirname, 'smoke', 'require.cjs')], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ format: 'cjs', text: '5' });
  });

  it('puts types first in every branch of its exports map', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(manifest.exports['./package.json']).toBe('./package.json');
    const root = manifest.exports['.'] as Record<string, Record<string, string>>;
    for (const branch of Object.values(root)) expect(Object.keys(branch)[0]).toBe('types');
    expect(existsSync(join(pkg, root['import']!['types']!))).toBe(true);
    expect(existsSync(join(pkg, root['require']!['types']!))).toBe(true);
  });
});
