// A paused run outlives its process: its state is written to disk, the process exits, and a new process
// resumes it with the same tools: the approved call runs once, and the outputs kept before the pause still page.
// The processes run the built packages: `npm test` builds them first (alone: `node scripts/build.mjs core agent`).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from '../../core/test/helpers/time-scale';

const root = join(__dirname, '..', '..', '..');
const fixture = join(__dirname, 'fixtures', 'paused-run.mjs');

function half(mode: 'pause' | 'resume', dir: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [fixture, mode, dir], { cwd: root, encoding: 'utf8', timeout: scaled(30_000) }, (error, stdout, stderr) =>
      error === null ? resolve(JSON.parse(stdout) as Record<string, unknown>) : reject(new Error(`${mode} failed: ${stderr}`)),
    ),
  );
}

describe('a paused run in another process', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'anytool-paused-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is written to disk, and a new process resumes it and finishes', async () => {
    const paused = await half('pause', dir);
    expect(paused).toMatchObject({ stopReason: 'interrupted', items: [{ kind: 'approval', tool: 'pay', args: { amount: 70 } }] });
    // The first process has exited without paying.
    expect(existsSync(join(dir, 'ledger.txt'))).toBe(false);

    const resumed = await half('resume', dir);
    expect(resumed).toMatchObject({ stopReason: 'final_answer', text: 'Paid, and read the report.', runId: paused['runId'], steps: 3 });
    expect(readFileSync(join(dir, 'ledger.txt'), 'utf8')).toBe('70\n');
    // The report was cut before the pause; its kept whole text came along in the state.
    expect(resumed['page']).toContain('line of the quarterly report');
  });
});
