// `prepack` copies docs/ into each package. `npm pack` may run twice at once in one checkout
// (two test files packing, a user's script beside an editor's task): every run must end well
// and leave whole pages.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const script = join(root, 'scripts', 'pack-docs.mjs');

function packDocs(cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { cwd }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: unknown }).code ?? 1), stderr: String(stderr) });
    });
  });
}

describe('pack-docs (prepack)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'anytool-pack-docs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('six runs at once all exit 0 and leave the same whole pages, stale ones removed', async () => {
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'gone-page.md'), 'a page that left docs/');
    writeFileSync(join(dir, 'docs', 'agent.md.4242.tmp'), 'what a killed run left');
    const runs = await Promise.all(Array.from({ length: 6 }, () => packDocs(dir)));
    for (const run of runs) expect(run).toEqual({ code: 0, stderr: '' });
    // Nothing of the runs' own is left, in docs/ or beside it.
    expect(readdirSync(dir).sort()).toEqual(['LICENSE', 'docs']);

    const expected = readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .sort();
    expect(readdirSync(join(dir, 'docs')).sort()).toEqual(expected);
    for (const name of expected) {
      const page = readFileSync(join(dir, 'docs', name), 'utf8');
      expect(page.length).toBeGreaterThan(0);
      // Links that leave docs/ are rewritten; the rest of the page is the repository's text.
      expect(page.split('\n').length).toBe(readFileSync(join(root, 'docs', name), 'utf8').split('\n').length);
    }
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(root, 'LICENSE'), 'utf8'));
  });
});
