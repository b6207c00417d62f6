// Every package as npm packs it (the packages are built first, as `npm test` does):
// what its README links to or names, and what its shipped code names under docs/ or
// src/, is in the tarball, and every source map carries its sources.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, sep } from 'node:path';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(180_000));

const root = join(__dirname, '..', '..');
// The @anytool/* libraries; create-anytool (a command and its templates, no docs or build) is packed on its own below.
const packageNames = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'package.json')) && name !== 'create-anytool')
  .sort();

/** npm as the test was started with (`npm test`), else the one on the PATH. */
function npm(args: string[], cwd: string): string {
  const cli = process.env['npm_execpath'];
  if (cli !== undefined && /npm-cli\.js$/.test(cli)) return execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });
  return execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** The relative targets of the markdown links in `text` (no URLs, no in-page anchors), without their #fragments. */
function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const match of text.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const href = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href)) continue;
    links.push(href.split('#')[0]!);
  }
  return links;
}

/** The `docs/...`, `src/...`, `dist/...` and `bin/...` paths a README names in code spans. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(/`((?:docs|src|dist|bin)\/[^`\s]*)`/g)].map((match) => match[1]!);
}

/** The docs/... and src/... files shipped code names (in messages, in comments). */
function namedFiles(code: string): string[] {
  return [...code.matchAll(/(?<![\w./-])((?:docs|src)\/[\w./-]*\.(?:md|ts|mts|cts|js|mjs|cjs|json))/g)].map((match) => match[1]!);
}

interface Packed {
  name: string;
  /** The extracted tarball's `package/` folder. */
  dir: string;
  /** Every file in the tarball, relative to `package/`, with forward slashes. */
  files: Set<string>;
}

describe('the packed packages', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'anytool-pack-'));
  const packed: Packed[] = [];

  beforeAll(() => {
    for (const name of packageNames) {
      const out = join(scratch, name);
      mkdirSync(out, { recursive: true });
      // Packed from the repository root, as a user would pack a checkout (the package's prepack runs).
      const [report] = JSON.parse(npm(['pack', `./packages/${name}`, '--json', '--pack-destination', out], root)) as Array<{ filename: string }>;
      execFileSync('tar', ['-xzf', report!.filename], { cwd: out });
      const dir = join(out, 'package');
      packed.push({ name, dir, files: new Set(filesUnder(dir).map((file) => relative(dir, file).split(sep).join('/'))) });
    }
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('packs every package', () => {
    expect(packed.map((p) => p.name)).toEqual(packageNames);
    expect(packageNames).toEqual(expect.arrayContaining(['core', 'schema', 'mcp', 'agent']));
  });

  it('ships what each README links to and names', () => {
    const missing: string[] = [];
    for (const { name, files } of packed) {
      expect(files.has('README.md')).toBe(true);
      const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
      const links = relativeLinks(readme);
      expect(links.length + namedPaths(readme).length).toBeGreaterThan(0);
      for (const link of links) {
        const target = posix.normalize(link);
        if (!files.has(target)) missing.push(`${name}: README links to ${link}`);
      }
      for (const path of namedPaths(readme)) {
        const target = posix.normalize(path).replace(/\/$/, '');
        if (!files.has(target) && ![...files].some((file) => file.startsWith(`${target}/`))) missing.push(`${name}: README names ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships the docs, with links that stay inside the package', () => {
    const missing: string[] = [];
    for (const { name, dir, files } of packed) {
      const docs = [...files].filter((file) => file.startsWith('docs/') && file.endsWith('.md'));
      expect(docs).toEqual(expect.arrayContaining(['docs/build-setup.md', 'docs/getting-started.md']));
      for (const doc of docs) {
        for (const link of relativeLinks(readFileSync(join(dir, doc), 'utf8'))) {
          const target = posix.normalize(posix.join(posix.dirname(doc), link));
          if (!files.has(target)) missing.push(`${name}: ${doc} links to ${link}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('ships every docs/ and src/ file its code names', () => {
    const missing: string[] = [];
    let named = 0;
    for (const { name, dir, files } of packed) {
      const code = [...files].filter((file) => !file.startsWith('src/') && !file.startsWith('docs/') && /\.(?:js|cjs|mjs|d\.ts)$/.test(file));
      expect(code.length).toBeGreaterThan(0);
      for (const file of code) {
        for (const path of namedFiles(readFileSync(join(dir, file), 'utf8'))) {
          named++;
          if (!files.has(path)) missing.push(`${name}: ${file} names ${path}`);
        }
      }
    }
    // The build-step hints name docs/build-setup.md: the check saw them.
    expect(named).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('gives every source map its sources, shipped in src/ (not copied into the map: the install carries them once)', () => {
    const bad: string[] = [];
    let maps = 0;
    for (const { name, dir, files } of packed) {
      for (const file of [...files].filter((f) => f.endsWith('.map'))) {
        maps++;
        const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources?: string[]; sourcesContent?: Array<string | null> };
        const sources = map.sources ?? [];
        if (sources.length === 0) bad.push(`${name}: ${file} names no sources`);
        if (map.sourcesContent !== undefined) bad.push(`${name}: ${file} copies its sources (sourcesContent): they are in src/ already`);
        for (const source of sources) {
          const target = posix.normalize(posix.join(posix.dirname(file), source));
          if (!files.has(target)) bad.push(`${name}: ${file} points at ${source}, not in the package`);
        }
      }
    }
    expect(maps).toBeGreaterThan(0);
    expect(bad).toEqual([]);
  });
});

test('create-anytool packs its command, each template and the files npm would leave out under another name', () => {
  const out = mkdtempSync(join(tmpdir(), 'anytool-pack-create-'));
  try {
    const [report] = JSON.parse(npm(['pack', './packages/create-anytool', '--json', '--pack-destination', out], root)) as Array<{
      files: Array<{ path: string }>;
    }>;
    const files = report!.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(['bin/create-anytool.mjs', 'src/create.mjs', 'README.md', 'templates/shared/_gitignore', 'templates/shared/tsconfig.json']),
    );
    for (const template of ['agent', 'mcp-server', 'tools']) expect(files).toContain(`templates/${template}/package.json`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
