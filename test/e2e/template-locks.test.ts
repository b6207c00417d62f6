// The lockfile each create-anytool template ships (written by scripts/lock-templates.mjs): a new project installs
// from it. It must be consistent with the template and with the packages as this repository declares them: it names
// the template's dependencies, carries the @anytool/* packages' own dependencies, resolves every dependency of
// every package to a version in range, holds nothing unreachable, and names no registry or path. A failure here
// means: run `npm run lock-templates`. Then the lock create-anytool writes into a project from it: every package's
// tarball at the user's registry, the @anytool/* packages at create-anytool's version.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { satisfies } from 'semver';

const root = join(__dirname, '..', '..');
const templatesDir = join(root, 'packages', 'create-anytool', 'templates');
const TEMPLATES = ['agent', 'mcp-server', 'tools'] as const;

type Deps = Record<string, string>;
interface Entry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  license?: string;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Deps;
  devDependencies?: Deps;
  optionalDependencies?: Deps;
  peerDependencies?: Deps;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
interface Lock {
  name: string;
  lockfileVersion: number;
  packages: Record<string, Entry>;
}

const read = <T>(...path: string[]): T => JSON.parse(readFileSync(join(...path), 'utf8')) as T;
const lockOf = (template: string): Lock => read<Lock>(templatesDir, template, 'package-lock.json');

/** Where Node finds `name` from the package at `path`: its own node_modules, then each parent's, then the root's. */
function resolveFrom(lock: Lock, path: string, name: string): string | undefined {
  let at = path;
  for (;;) {
    const candidate = at === '' ? `node_modules/${name}` : `${at}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (at === '') return undefined;
    const parent = at.lastIndexOf('/node_modules/');
    at = parent === -1 ? '' : at.slice(0, parent);
  }
}

/** The edges npm installs for the package at `path`: [name, range, whether it may be absent]. */
function edgesOf(path: string, entry: Entry): [string, string, boolean][] {
  const edges: [string, string, boolean][] = [];
  for (const [name, range] of Object.entries(entry.dependencies ?? {})) edges.push([name, range, false]);
  if (path === '') for (const [name, range] of Object.entries(entry.devDependencies ?? {})) edges.push([name, range, false]);
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) edges.push([name, range, true]);
  for (const [name, range] of Object.entries(entry.peerDependencies ?? {})) edges.push([name, range, entry.peerDependenciesMeta?.[name]?.optional === true]);
  return edges;
}

describe.each(TEMPLATES.map((t) => [t] as const))('the %s template lock', (template) => {
  const lock = lockOf(template);
  const manifest = read<Entry>(templatesDir, template, 'package.json');

  test("names the template's dependencies as its package.json does", () => {
    expect(lock.lockfileVersion).toBe(3);
    expect({ dependencies: lock.packages['']!.dependencies, devDependencies: lock.packages['']!.devDependencies }).toEqual({
      dependencies: manifest.dependencies,
      devDependencies: manifest.devDependencies,
    });
  });

  test('carries each @anytool/* package as this repository declares it, without a path or checksum', () => {
    const anytool = Object.keys(lock.packages).filter((path) => path.startsWith('node_modules/@anytool/'));
    expect(anytool.length).toBeGreaterThan(0);
    for (const path of anytool) {
      const name = path.slice('node_modules/@anytool/'.length);
      const own = read<Entry>(root, 'packages', name, 'package.json');
      const entry = lock.packages[path]!;
      const bin = own.bin === undefined ? undefined : Object.fromEntries(Object.entries(own.bin).map(([k, v]) => [k, v.replace(/^\.\//, '')]));
      const declared = { version: own.version, license: own.license, engines: own.engines, bin, dependencies: own.dependencies };
      const locked = { version: entry.version, license: entry.license, engines: entry.engines, bin: entry.bin, dependencies: entry.dependencies };
      expect({ path, ...locked }).toEqual({ path, ...declared });
      expect({ path, peers: entry.peerDependencies, meta: entry.peerDependenciesMeta }).toEqual({
        path,
        peers: own.peerDependencies,
        meta: own.peerDependenciesMeta,
      });
      expect({ path, resolved: entry.resolved, integrity: entry.integrity }).toEqual({ path, resolved: undefined, integrity: undefined });
    }
  });

  test('resolves every dependency of every package to a version in its range', () => {
    const unresolved: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const [name, range, mayBeAbsent] of edgesOf(path, entry)) {
        const target = resolveFrom(lock, path, name);
        if (target === undefined) {
          if (!mayBeAbsent) unresolved.push(`${path || '(project)'} -> ${name}@${range}: missing`);
          continue;
        }
        if (range === 'workspace' || range.startsWith('file:')) continue;
        const version = lock.packages[target]!.version!;
        if (!satisfies(version, range, { includePrerelease: true })) unresolved.push(`${path || '(project)'} -> ${name}@${range}: ${version}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  test('holds nothing that nothing depends on', () => {
    const reached = new Set<string>(['']);
    const queue = [''];
    while (queue.length > 0) {
      const path = queue.pop()!;
      for (const [name] of edgesOf(path, lock.packages[path]!)) {
        const target = resolveFrom(lock, path, name);
        if (target !== undefined && !reached.has(target)) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
    expect(Object.keys(lock.packages).filter((path) => !reached.has(path))).toEqual([]);
  });

  test("names no registry, no path, and checks every registry package's contents", () => {
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || path.startsWith('node_modules/@anytool/')) continue;
      expect({ path, resolved: entry.resolved, integrity: /^sha512-/.test(entry.integrity ?? '') }).toEqual({ path, resolved: undefined, integrity: true });
    }
  });

  test("is written into a new project with each tarball at the user's registry and the @anytool/* packages at create-anytool's version", () => {
    const base = mkdtempSync(join(tmpdir(), 'anytool-template-lock-'));
    try {
      const registry = 'https://registry.example.test/npm/';
      const env: NodeJS.ProcessEnv = { ...process.env, npm_config_registry: registry, npm_config_user_agent: 'npm/10.9.0 node/v20.19.0' };
      delete env['CREATE_ANYTOOL_PACKAGES'];
      const bin = join(root, 'packages', 'create-anytool', 'bin', 'create-anytool.mjs');
      execFileSync(process.execPath, [bin, join(base, 'app'), '--template', template, '--no-install'], { env, stdio: 'pipe' });
      const version = read<Entry>(root, 'packages', 'create-anytool', 'package.json').version!;
      const project = read<Entry>(base, 'app', 'package.json');
      const written = read<Lock>(base, 'app', 'package-lock.json');
      expect(written.name).toBe('app');
      expect({ dependencies: written.packages['']!.dependencies, devDependencies: written.packages['']!.devDependencies }).toEqual({
        dependencies: project.dependencies,
        devDependencies: project.devDependencies,
      });
      expect(Object.keys(written.packages)).toEqual(Object.keys(lock.packages));
      for (const [path, entry] of Object.entries(written.packages)) {
        if (path === '') continue;
        const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
        const shipped = lock.packages[path]!;
        const anytool = name.startsWith('@anytool/');
        expect({ path, version: entry.version, integrity: entry.integrity, resolved: entry.resolved }).toEqual({
          path,
          version: anytool ? version : shipped.version,
          integrity: shipped.integrity,
          resolved: `${registry}${name}/-/${name.split('/').pop()}-${anytool ? version : shipped.version}.tgz`,
        });
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

test('every template has a lock, and this test checks them all', () => {
  const folders = readdirSync(templatesDir).filter((name) => existsSync(join(templatesDir, name, 'package.json')));
  expect(folders.sort()).toEqual([...TEMPLATES].sort());
  for (const template of folders) expect([template, existsSync(join(templatesDir, template, 'package-lock.json'))]).toEqual([template, true]);
});
