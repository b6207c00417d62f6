// Plain JavaScript has no build step: the built package, run by Node, gives the same error
// with the same text as TypeScript code the build step did not compile (see decorators/tool.missing-build-info.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@anytool/core';
import { missingBuildInfoMessage } from './helpers/missing-build-info';
import { scaled } from './helpers/time-scale';

const root = join(__dirname, '..', '..', '..');

beforeAll(() => {
  if (!existsSync(join(root, 'packages', 'core', 'dist', 'esm', 'index.js')))
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'core'], { cwd: root, stdio: 'pipe' });
}, scaled(120_000));

describe('plain JavaScript without the build step', () => {
  it('defineTool, tool(fn) and a BaseTool subclass fail with MISSING_SCHEMA, naming the tool and the fix', () => {
    const out = execFileSync(process.execPath, [join(__dirname, 'smoke', 'missing-build-info.mjs')], { cwd: root, encoding: 'utf8' });
    const missing = (label: string): { code: string; message: string } => ({ code: ErrorCode.MissingSchema, message: missingBuildInfoMessage(label) });
    expect(JSON.parse(out)).toEqual([
      missing('tool "forecast" (Weather.forecast)'),
      missing('tool "search" (function search)'),
      missing('the anonymous function given to tool() ((a, b) => a * b)'),
      missing('tool "Clock" (class Clock)'),
    ]);
  });
});

describe('the docs', () => {
  it('show the message as it is', () => {
    const page = readFileSync(join(root, 'docs', 'build-setup.md'), 'utf8');
    expect(page).toContain(`\n${missingBuildInfoMessage('tool "getWeather" (Weather.getWeather)')}\n`);
  });
});
