// The check every test file runs under (test/helpers/process-leak-environment.cjs): a file that leaves a process
// running fails, naming the process, and the process is killed; a file that stops what it starts passes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(120_000));

const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, 'fixtures', 'process-leaks');

interface FileResult {
  name: string;
  status: string;
  message: string;
}

function runJest(): { status: number | null; files: FileResult[] } {
  const config = {
    rootDir: fixtures,
    testMatch: ['<rootDir>/*.check.js'],
    testEnvironment: join(root, 'test', 'helpers', 'process-leak-environment.cjs'),
  };
  const run = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', JSON.stringify(config), '--json', '--maxWorkers=3'],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: scaled(90_000),
    },
  );
  const report = JSON.parse(run.stdout) as { testResults: Array<{ name: string; status: string; message: string }> };
  return { status: run.status, files: report.testResults.map(({ name, status, message }) => ({ name, status, message })) };
}

/** Whether the process runs: a killed orphan may stay a zombie until its new parent reaps it, which is not running. */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
};

const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;

describeOnLinux('a test file that leaves a process running', () => {
  let result: ReturnType<typeof runJest>;
  beforeAll(() => {
    result = runJest();
  });
  const file = (name: string): FileResult => {
    const found = result.files.find((f) => f.name.endsWith(name));
    if (found === undefined) throw new Error(`jest ran no ${name}`);
    return found;
  };
  const leakedPids = (message: string): number[] => [...message.matchAll(/pid (\d+): /g)].map((m) => Number(m[1]));

  test('fails the run', () => {
    expect(result.status).not.toBe(0);
  });

  test('a child it forgot fails the file, named with its command, and is killed', () => {
    const leaks = file('leaves-child.check.js');
    expect(leaks.status).toBe('failed');
    expect(leaks.message).toMatch(/left 1 process\(es\) running/);
    expect(leaks.message).toMatch(/setInterval/);
    const pids = leakedPids(leaks.message);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  test('an orphan (its parent exited, so it is no longer a descendant) is found by the marker it inherited', () => {
    const leaks = file('leaves-orphan.check.js');
    expect(leaks.status).toBe('failed');
    expect(leaks.message).toMatch(/setInterval/);
    const pids = leakedPids(leaks.message);
    expect(pids).toHaveLength(1);
    expect(pids.filter(alive)).toEqual([]);
  });

  test('a file that stops its child passes', () => {
    const clean = file('stops-child.check.js');
    expect(clean.status).toBe('passed');
    expect(clean.message).toBe('');
  });
});
