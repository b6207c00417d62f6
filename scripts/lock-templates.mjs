// `npm run lock-templates`: writes the package-lock.json of each create-anytool template, the tree a new project
// installs. With a complete lockfile, `npm install` in a new project reads no package metadata from the registry
// (a warm npm cache then installs in about half the time), and every new project starts from the versions this
// repository tested together.
//
// The tree is resolved by npm itself: the packages are packed, a project is written from each template by
// create-anytool (pointed at the tarballs), and `npm install --package-lock-only` locks it. The lockfile is then
// made independent of where it was made: the `@anytool/*` entries keep their dependencies but neither a path nor a
// checksum (create-anytool fills in the version it is, and the tarballs when testing), and registry entries keep
// their checksum but not the registry's address (npm asks the configured registry).
//
// Run it after changing the dependencies of a template or of a package (a test checks the locks against both), and
// after `changeset version` (`npm run version-packages` does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const createAnytool = join(root, 'packages', 'create-anytool');
const templates = ['agent', 'mcp-server', 'tools'];

/** npm as this script was started with (`npm run`), else the one on the PATH; exits with npm's output on failure. */
function npm(args, cwd, env = process.env) {
  const cli = process.env.npm_execpath;
  const ran =
    cli !== undefined && /npm-cli\.js$/.test(cli)
      ? spawnSync(process.execPath, [cli, ...args], { cwd, env, encoding: 'utf8' })
      : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, env, encoding: 'utf8', shell: process.platform === 'win32' });
  if (ran.status !== 0) {
    console.error(`npm ${args.join(' ')} failed in ${cwd}:\n${ran.stdout}${ran.stderr}`);
    process.exit(1);
  }
  return ran.stdout;
}

/** The lockfile npm wrote, made independent of the machine and of the packages' version. */
export function portableLock(lock, template) {
  const name = `my-${template}`;
  const manifest = JSON.parse(readFileSync(join(createAnytool, 'templates', template, 'package.json'), 'utf8'));
  const out = { name, version: '0.1.0', lockfileVersion: lock.lockfileVersion, requires: lock.requires, packages: {} };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const copy = { ...entry };
    if (path === '') {
      copy.name = name;
      for (const key of ['dependencies', 'devDependencies']) if (manifest[key] !== undefined) copy[key] = manifest[key];
    } else if (path.startsWith('node_modules/@anytool/')) {
      delete copy.resolved;
      delete copy.integrity;
    } else if (/^https?:/.test(copy.resolved ?? '')) {
      delete copy.resolved;
    }
    out.packages[path] = copy;
  }
  return out;
}

function main() {
  const work = mkdtempSync(join(tmpdir(), 'anytool-lock-templates-'));
  try {
    const packs = join(work, 'packs');
    mkdirSync(packs);
    for (const name of ['core', 'mcp', 'agent', 'schema']) {
      // Only the manifests matter to the lock: no prepack step, no build needed.
      npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', packs, '--workspace', `@anytool/${name}`], root);
    }
    const env = { ...process.env, CREATE_ANYTOOL_PACKAGES: packs };
    for (const template of templates) {
      const project = join(work, `my-${template}`);
      const created = spawnSync(process.execPath, [join(createAnytool, 'bin', 'create-anytool.mjs'), project, '--template', template, '--no-install'], {
        env,
        encoding: 'utf8',
      });
      if (created.status !== 0) {
        console.error(`create-anytool ${template} failed:\n${created.stdout}${created.stderr}`);
        process.exit(1);
      }
      // Resolved afresh: the dependencies' newest versions in their ranges, not the lock the template had.
      rmSync(join(project, 'package-lock.json'), { force: true });
      npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], project, env);
      const lock = portableLock(JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')), template);
      writeFileSync(join(createAnytool, 'templates', template, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
      console.log(`templates/${template}/package-lock.json: ${Object.keys(lock.packages).length - 1} packages`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
