// A user's project outside the repository: the packages are packed with `npm pack`,
// installed from their tarballs into a fresh folder, and driven only with the
// commands the docs give (`npm install`, `npx tsc --init`, `npx anytool ...`, `node`).
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';

export const root = join(__dirname, '..', '..');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; never rejects (the test reads the code and both streams). */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { timeoutMs?: number; input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      [...args],
      { cwd, timeout: options.timeoutMs ?? 240_000, maxBuffer: 64 * 1024 * 1024, env: options.env ?? userEnv() },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    // A command that exits before reading its input closes the pipe (EPIPE): its exit code and output tell what happened.
    child.stdin?.on('error', () => undefined);
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The environment a user's shell has: no npm_* variables of the repo's own `npm test`, no CI-only settings. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE_OPTIONS' || key.startsWith('JEST') || key === 'NODE_ENV') continue;
    env[key] = value;
  }
  // The node that runs the tests is the node the user has (CI runs them on Node 20, 22 and 24).
  env['PATH'] = `${dirname(process.execPath)}${process.platform === 'win32' ? ';' : ':'}${env['PATH'] ?? ''}`;
  env['npm_config_audit'] = 'false';
  env['npm_config_fund'] = 'false';
  env['npm_config_update_notifier'] = 'false';
  // Versions already in npm's cache are taken without asking the registry again whether they changed (as
  // `npm install --prefer-offline` does): the projects install the same few packages over and over in a run.
  env['npm_config_prefer_offline'] = 'true';
  return env;
}

export const npm = (args: readonly string[], cwd: string, timeoutMs?: number): Promise<Ran> =>
  run('npm', args, cwd, timeoutMs === undefined ? {} : { timeoutMs });

/** Fails with both streams when a command did not exit 0. */
export function ok(ran: Ran, what: string): Ran {
  if (ran.code !== 0) throw new Error(`${what} exited ${ran.code}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
  return ran;
}

/** Every workspace package packed into one folder: package name -> tarball path. */
export async function packAll(into: string): Promise<Record<string, string>> {
  mkdirSync(into, { recursive: true });
  ok(await run('npm', ['pack', '--workspaces', '--pack-destination', into, '--silent'], root), 'npm pack --workspaces');
  return tarballsIn(into);
}

/** The tarball of every workspace package in a folder `packAll` packed into: package name -> tarball path. */
function tarballsIn(into: string): Record<string, string> {
  const tarballs: Record<string, string> = {};
  for (const file of readdirSync(into)) {
    const match = /^anytool-(core|schema|mcp|agent)-.*\.tgz$/.exec(file);
    if (match !== null) tarballs[`@anytool/${match[1]}`] = join(into, file);
    if (/^create-anytool-.*\.tgz$/.test(file)) tarballs['create-anytool'] = join(into, file);
  }
  for (const name of ['@anytool/core', '@anytool/schema', '@anytool/mcp', '@anytool/agent', 'create-anytool'])
    if (tarballs[name] === undefined) throw new Error(`npm pack made no tarball for ${name}`);
  return tarballs;
}

/** Where global-setup.ts packs the packages for this jest run. */
export const PACKS_ENV = 'ANYTOOL_TEST_PACKS';
/** The packing global-setup.ts started, for global-teardown.ts (both run in jest's main process). */
export const PACKING = Symbol.for('anytool.consumer.packing');
/** Written into the packs folder once the packing ended: `{ "ok": true }`, or `{ "ok": false, "error": ... }`. */
const PACKED_MARK = 'packed.json';

/** `packAll` into `into`, not awaited by its caller: its end is marked in the folder, for `packed` to wait on. */
export function packInBackground(into: string): Promise<void> {
  // Renamed into place, so that the mark is never seen half written.
  const mark = (ended: { ok: boolean; error?: string }): void => {
    writeFileSync(join(into, `${PACKED_MARK}.tmp`), JSON.stringify(ended));
    renameSync(join(into, `${PACKED_MARK}.tmp`), join(into, PACKED_MARK));
  };
  return packAll(into).then(
    () => mark({ ok: true }),
    (error: unknown) => mark({ ok: false, error: String(error) }),
  );
}

/**
 * The tarballs of this run: those global-setup.ts packs (waiting for the packing to end), or, when a file runs
 * without it (under another jest config), every package packed into `into`.
 */
export async function packed(into: string): Promise<Record<string, string>> {
  const shared = process.env[PACKS_ENV];
  if (shared === undefined) return packAll(into);
  const mark = join(shared, PACKED_MARK);
  // Only a hang is cut short: npm pack takes seconds.
  const deadline = Date.now() + 300_000;
  while (!existsSync(mark)) {
    if (Date.now() > deadline) throw new Error(`the packing global-setup.ts started into ${shared} did not end within 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ended = JSON.parse(readFileSync(mark, 'utf8')) as { ok: boolean; error?: string };
  if (!ended.ok) throw new Error(`the packing global-setup.ts started failed: ${ended.error}`);
  return tarballsIn(shared);
}

/** A scratch folder outside the repository, removed by `removeScratch`. */
export function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'anytool-consumer-'));
}

export function removeScratch(dir: string | undefined): void {
  if (dir !== undefined && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

export interface ProjectSpec {
  /** Folder name. */
  name: string;
  /** `"module"`, `"commonjs"` or undefined (package.json without "type"). */
  type?: 'module' | 'commonjs';
  /** The fixture folders copied into the project, in order (test/consumer/fixtures/<name>). */
  fixtures: string[];
  dependencies: string[];
  devDependencies: string[];
  /** Run `npx tsc --init` after install, then apply these edits to its tsconfig (none: unchanged). */
  tscInit?: Record<string, unknown>;
}

/** Creates a user's project: package.json, `npm install` of what the docs tell a user to install, the fixture's files. */
export async function createProject(base: string, spec: ProjectSpec): Promise<string> {
  const dir = join(base, spec.name);
  mkdirSync(dir, { recursive: true });
  const manifest: Record<string, unknown> = { name: spec.name, version: '1.0.0', private: true };
  if (spec.type !== undefined) manifest['type'] = spec.type;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  ok(await npm(['install', ...spec.dependencies], dir), `${spec.name}: npm install ${spec.dependencies.join(' ')}`);
  if (spec.devDependencies.length > 0) ok(await npm(['install', '--save-dev', ...spec.devDependencies], dir), `${spec.name}: npm install --save-dev`);
  for (const fixture of spec.fixtures) cpSync(join(__dirname, 'fixtures', fixture), dir, { recursive: true });
  if (spec.tscInit !== undefined) {
    ok(await run('npx', ['tsc', '--init'], dir), `${spec.name}: npx tsc --init`);
    if (Object.keys(spec.tscInit).length > 0) editTsconfig(join(dir, 'tsconfig.json'), spec.tscInit);
  }
  return dir;
}

/** Sets compiler options in a tsconfig.json that `tsc --init` wrote (it has comments and trailing commas). */
function editTsconfig(file: string, options: Record<string, unknown>): void {
  let text = readFileSync(file, 'utf8');
  for (const [key, value] of Object.entries(options)) {
    const line = new RegExp(`^(\\s*)(//\\s*)?"${key}":[^\\n]*$`, 'm');
    const replacement = `$1"${key}": ${JSON.stringify(value)},`;
    if (line.test(text)) text = text.replace(line, replacement);
    else text = text.replace(/"compilerOptions":\s*\{/, `"compilerOptions": {\n    "${key}": ${JSON.stringify(value)},`);
  }
  writeFileSync(file, text);
}

/**
 * The built app as it is deployed: package.json, the lockfile and the compiled
 * JavaScript copied to a fresh folder, then `npm ci --omit=dev`.
 */
export async function productionInstall(projectDir: string, into: string, files: readonly string[]): Promise<string> {
  mkdirSync(into, { recursive: true });
  for (const file of ['package.json', 'package-lock.json', ...files]) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(projectDir, file), join(into, file), { recursive: true });
  }
  ok(await npm(['ci', '--omit=dev'], into), 'npm ci --omit=dev');
  return into;
}

/** The path of the `anytool` command a project's `npx anytool` runs. */
export function anytoolBin(projectDir: string): string {
  return join(projectDir, 'node_modules', '.bin', process.platform === 'win32' ? 'anytool.cmd' : 'anytool');
}

/** `npx anytool ...` in the project: the same bin, run by the node that runs the tests. */
export function anytool(projectDir: string, args: readonly string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Ran> {
  return run(process.execPath, [anytoolBin(projectDir), ...args], projectDir, options);
}

/** The last line of output that is a JSON object: what a fixture's main prints for the test to read. */
export function lastJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    if (line.startsWith('{')) return JSON.parse(line) as Record<string, unknown>;
  }
  throw new Error(`no JSON line in the output:\n${stdout}`);
}

/** Every installed `typescript` package under a project's node_modules, nested ones too (paths relative to it). */
export function typeScriptCopies(dir: string): string[] {
  const found: string[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const packages = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(modules, entry, name)) : [join(modules, entry)];
      for (const pkg of packages) {
        if (entry === 'typescript') found.push(relative(dir, pkg).split(sep).join('/'));
        visit(join(pkg, 'node_modules'));
      }
    }
  };
  visit(join(dir, 'node_modules'));
  return found.sort();
}
