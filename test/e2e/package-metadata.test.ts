// What npm shows of every package, and what a release reads: each package.json carries the
// metadata a registry page needs, is published publicly, ships its changelog, and names its
// version in one place (the build writes src/version.ts from package.json).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const root = join(__dirname, '..', '..');
const REPOSITORY = 'git+https://github.com/anytool/anytool.git';
// The @anytool/* libraries; create-anytool (a command with no build) is checked on its own below.
const packageNames = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'package.json')) && name !== 'create-anytool')
  .sort();

interface Manifest {
  name: string;
  version: string;
  description?: string;
  keywords?: string[];
  homepage?: string;
  bugs?: { url?: string };
  repository?: { type?: string; url?: string; directory?: string };
  license?: string;
  files?: string[];
  sideEffects?: boolean | string[];
  publishConfig?: { access?: string };
}

const manifest = (name: string): Manifest => JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as Manifest;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('package metadata', () => {
  it('covers the four packages', () => {
    expect(packageNames).toEqual(['agent', 'core', 'mcp', 'schema']);
  });

  it.each(packageNames)('%s has a description, keywords, links, a license and public access', (name) => {
    const pkg = manifest(name);
    expect(pkg.name).toBe(`@anytool/${name}`);
    expect(pkg.description?.length).toBeGreaterThan(20);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['ai', 'tools']));
    expect(pkg.homepage).toBe(`https://github.com/anytool/anytool/tree/main/packages/${name}#readme`);
    expect(pkg.bugs).toEqual({ url: 'https://github.com/anytool/anytool/issues' });
    expect(pkg.repository).toEqual({ type: 'git', url: REPOSITORY, directory: `packages/${name}` });
    expect(pkg.license).toBe('MIT');
    expect(pkg.publishConfig).toEqual({ access: 'public' });
    expect(pkg.sideEffects).toBeDefined();
  });

  it.each(packageNames)('%s ships its README, its changelog and its build', (name) => {
    const pkg = manifest(name);
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'README.md', 'CHANGELOG.md']));
    const changelog = readFileSync(join(root, 'packages', name, 'CHANGELOG.md'), 'utf8');
    expect(changelog.startsWith(`# ${pkg.name}\n`)).toBe(true);
    // `changeset version` adds a heading per released version; the current one is there.
    expect(changelog).toContain(`\n## ${pkg.version}\n`);
  });

  it.each(packageNames)('%s names its version only in package.json (src/version.ts is generated from it)', (name) => {
    const { version } = manifest(name);
    const src = join(root, 'packages', name, 'src');
    const literal = new RegExp(`['"\`]${version.replace(/\./g, '\\.')}['"\`-]`);
    const naming = filesUnder(src)
      .filter((file) => /\.[cm]?ts$/.test(file) && relative(src, file) !== 'version.ts')
      .filter((file) => literal.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file).split(sep).join('/'));
    expect(naming).toEqual([]);
  });
});

describe('create-anytool', () => {
  const pkg = manifest('create-anytool') as Manifest & { bin?: Record<string, string> };

  it("has a description, keywords, links, a license and public access, and its version is the libraries'", () => {
    expect(pkg.name).toBe('create-anytool');
    expect(pkg.description?.length).toBeGreaterThan(20);
    expect(pkg.keywords).toEqual(expect.arrayContaining(['anytool', 'create']));
    expect(pkg.homepage).toBe('https://github.com/anytool/anytool/tree/main/packages/create-anytool#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/anytool/anytool/issues' });
    expect(pkg.repository).toEqual({ type: 'git', url: REPOSITORY, directory: 'packages/create-anytool' });
    expect(pkg.license).toBe('MIT');
    expect(pkg.publishConfig).toEqual({ access: 'public' });
    // The projects it writes depend on the @anytool/* version equal to its own (changesets keeps them together).
    for (const name of packageNames) expect([name, manifest(name).version]).toEqual([name, pkg.version]);
  });

  it('ships its command, templates, README and changelog', () => {
    expect(pkg.bin).toEqual({ 'create-anytool': './bin/create-anytool.mjs' });
    expect(pkg.files).toEqual(expect.arrayContaining(['bin', 'src', 'templates', 'README.md', 'CHANGELOG.md']));
    const changelog = readFileSync(join(root, 'packages', 'create-anytool', 'CHANGELOG.md'), 'utf8');
    expect(changelog.startsWith('# create-anytool\n')).toBe(true);
    expect(changelog).toContain(`\n## ${pkg.version}\n`);
  });
});
