// `npm run lock-templates`: writes the package-lock.json of each create-anytool template, the tree a new project
// installs. create-anytool gives the project that lock with each package's tarball at the user's registry, so
// `npm install` there reads no package metadata from the registry and takes a tarball npm has cached from its cache
// (about half the time of an install without a lock), and every new project starts from the versions this
// repository tested together.
//
// The tree is resolved by npm itself: the packages are packed, a project is written from each template by
// create-anytool (pointed at the tarballs), and `npm install --package-lock-only` locks it afresh. The lockfile is
// then made independent of where it was made: the `@anytool/*` entries keep their dependencies but neither a path
// nor a checksum (create-anytool fills in the version it is, or the tarballs when testing), and registry entries
// keep their checksum but not the registry's address (create-anytool fills in the user's).
//
// Run it after changing the dependencies of a template or of a package (test/e2e/template-locks.test.ts checks the
// locks against both), and after `changeset version` (`npm run version-packages` does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEMPLATES } from '../packages/create-anytool/src/create.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const createAnytool = join(root, 'packages', 'create-anytool');
const templatesDir = join(createAnytool, 'templates');

/** Runs a command to its end; throws with its output when it fails. */
function run(command, args, options) {
  const ran = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (ran.status !== 0) throw new Error(`${[command, ...args].join(' ')} failed in ${options.cwd ?? root}:\n${ran.stdout}${ran.stderr}${ran.error ?? ''}`);
}

/** npm as this script was started with (`npm run`), else the one on the PATH. */
function npm(args, cwd, env = process.env) {
  const cli = process.env.npm_execpath;
  if (cli !== undefined && /npm-cli\.js$/.test(cli)) return run(process.execPath, [cli, ...args], { cwd, env });
  return run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, env, shell: process.platform === 'win32' });
}

const manifestOf = (template) => JSON.parse(readFileSync(join(templatesDir, template, 'package.json'), 'utf8'));

/** The lockfile npm wrote, made independent of the machine, the registry and the packages' version. */
function portableLock(lock, template) {
  const name = `my-${template}`;
  const manifest = manifestOf(template);
  const out = { name, version: '0.1.0', lockfileVersion: lock.lockfileVersion, requires: lock.requires, packages: {} };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const copy = { ...entry };
    if (path === '') {
      copy.name = name;
      for (const key of ['dependencies', 'devDependencies']) if (manifest[key] !== undefined) copy[key] = manifest[key];
    } else {
      delete copy.resolved;
      if (path.startsWith('node_modules/@anytool/')) delete copy.integrity;
    }
    out.packages[path] = copy;
  }
  return out;
}

const work = mkdtempSync(join(tmpdir(), 'anytool-lock-templates-'));
try {
  const templates = Object.keys(TEMPLATES);
  // The @anytool/* packages the templates name (as `workspace`), packed: only their manifests matter to the lock,
  // so no prepack step and no build.
  const anytool = new Set(
    templates.flatMap((template) => {
      const manifest = manifestOf(template);
      return Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => name.startsWith('@anytool/'));
    }),
  );
  const packs = join(work, 'packs');
  mkdirSync(packs);
  for (const name of anytool) npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', packs, '--workspace', name], root);
  const env = { ...process.env, CREATE_ANYTOOL_PACKAGES: packs };
  for (const template of templates) {
    // Resolved afresh (the dependencies' newest versions in their ranges), and from no lock create-anytool could
    // read: a lock left broken by a merge is written anew.
    rmSync(join(templatesDir, template, 'package-lock.json'), { force: true });
    const project = join(work, `my-${template}`);
    run(process.execPath, [join(createAnytool, 'bin', 'create-anytool.mjs'), project, '--template', template, '--no-install'], { env });
    npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], project, env);
    const lock = portableLock(JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')), template);
    writeFileSync(join(templatesDir, template, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    console.log(`templates/${template}/package-lock.json: ${Object.keys(lock.packages).length - 1} packages`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
