// `npm create anytool@latest <folder>`: writes a new project from one of the templates and installs its
// dependencies. It never asks anything: the folder is the first argument, the template `--template` (agent by
// default), so it runs the same in a terminal, a script or CI. Plain JavaScript with no dependencies of its own:
// `npm create` downloads this package before anything else, so it stays a few kilobytes.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const templatesDir = join(here, '..', 'templates');

/** The templates, with what each holds (the help lists them in this order; the first is the default). */
export const TEMPLATES = {
  agent: "an agent with @Tool methods and an MCP server's tools, on a scripted model (a real one with OPENAI_API_KEY)",
  'mcp-server': 'tools served over MCP (stdio, or streamable HTTP with --http), tested through an MCP client',
  tools: 'a library of tools with tests, listed by `anytool list`',
};

/**
 * Where contributors point the `@anytool/*` dependencies at packed tarballs (`npm pack --workspaces`) instead of the
 * registry: a folder holding `anytool-core-<version>.tgz` and the others. For testing unpublished packages only.
 */
export const PACKAGES_ENV = 'CREATE_ANYTOOL_PACKAGES';

const USAGE = `Usage: npm create anytool@latest <folder> [-- --template <name>] [--no-install]
       create-anytool <folder> [--template <name>] [--no-install]

Writes a new anytool project into <folder> (created; it must not hold files yet) and installs its
dependencies. Asks nothing. Then: cd <folder> && npm start (builds, runs), npm test (builds, tests).

Options:
  -t, --template <name>  ${Object.keys(TEMPLATES).join(' | ')} (default: agent)
${Object.entries(TEMPLATES)
  .map(([name, what]) => `                           ${name}: ${what}`)
  .join('\n')}
  --no-install           write the files only; run npm install yourself
  -h, --help             show this help
  -v, --version          show the version
`;

const OPTIONS = ['--template', '--no-install', '--help', '--version'];

/**
 * The choice closest to a mistyped `word`: the one it begins, or the nearest by edit distance when that is close (at
 * most a third of its length apart).
 * The same measure as @anytool/core's unknown-tool message, written out here: this package has no dependencies.
 */
function closest(word, choices) {
  const extended = choices.filter((choice) => choice.startsWith(word));
  if (word.length >= 2 && extended.length === 1) return extended[0];
  let best;
  let bestDistance = Infinity;
  for (const choice of choices) {
    const distance = editDistance(word.toLowerCase(), choice.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [choice, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** Levenshtein distance of two short strings. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** A mistake in the command line: printed as one line, exit code 2. */
class UsageError extends Error {}

/** The command line read: the folder, the template, whether to install; undefined for --help / --version. */
function parseArgs(argv) {
  let folder;
  let template = 'agent';
  let install = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '-h' || name === '--help') return { help: true };
    if (name === '-v' || name === '--version') return { version: true };
    if (name === '--no-install') install = false;
    else if (name === '-t' || name === '--template') {
      template = inline ?? argv[++i];
      if (template === undefined || template === '') throw new UsageError(`${name} needs a template name: ${Object.keys(TEMPLATES).join(', ')}`);
      if (!Object.hasOwn(TEMPLATES, template)) {
        const near = closest(template, Object.keys(TEMPLATES));
        throw new UsageError(
          `unknown template "${template}"; ${near === undefined ? '' : `did you mean ${near}? `}the templates are ${Object.keys(TEMPLATES).join(', ')}`,
        );
      }
    } else if (name.startsWith('-')) {
      const near = closest(name, OPTIONS);
      throw new UsageError(`unknown option ${name}; ${near === undefined ? `the options are ${OPTIONS.join(', ')}` : `did you mean ${near}?`}`);
    } else if (folder === undefined) folder = arg;
    else throw new UsageError(`one folder only, got "${folder}" and "${arg}"`);
  }
  if (folder === undefined) throw new UsageError('name the folder to create, for example: npm create anytool@latest my-agent');
  return { folder, template, install };
}

/** An npm package name from a folder name: lower case, URL-safe characters only. */
function packageName(folder) {
  const name = basename(resolve(folder))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+/, '');
  return name === '' ? 'anytool-app' : name;
}

/** The packed `@anytool/<name>` in the PACKAGES_ENV folder. */
function tarballOf(name, packagesDir) {
  const tarball = readdirSync(packagesDir).find((file) => file.startsWith(`anytool-${name}-`) && file.endsWith('.tgz'));
  if (tarball === undefined)
    throw new UsageError(`${PACKAGES_ENV}=${packagesDir} holds no anytool-${name}-*.tgz; pack the packages there first (npm pack --workspaces)`);
  return join(resolve(packagesDir), tarball);
}

/** `@anytool/<name>` as a dependency: this package's own version range, or a tarball of the PACKAGES_ENV folder. */
function anytoolSpecifier(name, version, packagesDir) {
  return packagesDir === undefined ? `^${version}` : `file:${tarballOf(name, packagesDir)}`;
}

/** The project's package.json: the template's manifest with its `@anytool/*` versions filled in. */
function manifest(template, name, version, packagesDir) {
  const spec = JSON.parse(readFileSync(join(templatesDir, template, 'package.json'), 'utf8'));
  const fill = (deps) => {
    if (deps === undefined) return undefined;
    const out = {};
    for (const [dep, range] of Object.entries(deps)) {
      out[dep] = dep.startsWith('@anytool/') && range === 'workspace' ? anytoolSpecifier(dep.slice('@anytool/'.length), version, packagesDir) : range;
    }
    return out;
  };
  const result = { name, version: '0.1.0', private: true, ...spec };
  for (const key of ['dependencies', 'devDependencies']) if (spec[key] !== undefined) result[key] = fill(spec[key]);
  return `${JSON.stringify(result, null, 2)}\n`;
}

/**
 * The project's package-lock.json: the template's (written by the repository's scripts/lock-templates.mjs, the tree
 * its tests ran) with this project's name and dependencies, each package's tarball at `registry`, and the
 * `@anytool/*` packages at this version, or the tarballs of the PACKAGES_ENV folder. With every tarball and checksum
 * in the lock, npm reads no package's metadata from the registry, and takes a tarball it has cached from its cache.
 * Undefined when the template has no lock.
 */
function lockfile(template, manifestText, version, registry, packagesDir) {
  const path = join(templatesDir, template, 'package-lock.json');
  if (!existsSync(path)) return undefined;
  const lock = JSON.parse(readFileSync(path, 'utf8'));
  const manifest = JSON.parse(manifestText);
  lock.name = manifest.name;
  lock.version = manifest.version;
  const project = lock.packages[''];
  project.name = manifest.name;
  project.version = manifest.version;
  for (const key of ['dependencies', 'devDependencies']) if (manifest[key] !== undefined) project[key] = manifest[key];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (name.startsWith('@anytool/')) {
      entry.version = version;
      if (packagesDir !== undefined) {
        // The same specifier as package.json's: npm matches the two.
        const tarball = tarballOf(name.slice('@anytool/'.length), packagesDir);
        entry.resolved = `file:${tarball}`;
        entry.integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
        continue;
      }
    }
    // Where npm itself would say a registry package comes from: <registry><name>/-/<name without scope>-<version>.tgz.
    if (registry !== undefined) entry.resolved = `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
  }
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/**
 * The registry npm installs from: npm hands a configured one to what it runs (`npm_config_registry`); else npm is
 * asked. Ends with a slash; undefined when npm cannot say.
 */
function npmRegistry() {
  const given = process.env['npm_config_registry'];
  const asked = given
    ? Promise.resolve(given)
    : new Promise((resolvePromise) => {
        let out = '';
        const child = spawn('npm', ['config', 'get', 'registry'], { stdio: ['ignore', 'pipe', 'ignore'], shell: process.platform === 'win32' });
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('error', () => resolvePromise(''));
        child.on('close', (code) => resolvePromise(code === 0 ? out.trim() : ''));
      });
  return asked.then((registry) => (/^https?:\/\/\S+$/.test(registry) ? registry.replace(/\/?$/, '/') : undefined));
}

/** The package manager that started this (`npm create`, `pnpm create`, `yarn create`, `bun create`), npm otherwise. */
function packageManager() {
  const agent = process.env['npm_config_user_agent'] ?? '';
  const name = agent.split('/')[0];
  return ['pnpm', 'yarn', 'bun'].includes(name) ? name : 'npm';
}

function runInstall(manager, cwd) {
  return new Promise((resolvePromise) => {
    const child = spawn(manager, ['install'], { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('error', (error) => resolvePromise({ code: null, error }));
    child.on('close', (code) => resolvePromise({ code }));
  });
}

/**
 * Runs the command. Returns the exit code: 0 written (and installed), 1 the install failed, 2 a usage error.
 * @param {readonly string[]} argv
 * @param {{ out(text: string): void; err(text: string): void }} output
 */
export async function create(argv, output = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }) {
  const version = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')).version;
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`create-anytool: ${error.message} (create-anytool --help)\n`);
    return 2;
  }
  if (args.help) {
    output.out(USAGE);
    return 0;
  }
  if (args.version) {
    output.out(`${version}\n`);
    return 0;
  }
  const target = resolve(args.folder);
  if (existsSync(target) && readdirSync(target).length > 0) {
    output.err(`create-anytool: ${args.folder} already holds files; name a new or empty folder\n`);
    return 2;
  }
  const packagesDir = process.env[PACKAGES_ENV] || undefined;
  let packageJson;
  try {
    packageJson = manifest(args.template, packageName(args.folder), version, packagesDir);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`create-anytool: ${error.message}\n`);
    return 2;
  }
  const manager = packageManager();
  // Asked while the files are written: the lock names each tarball at it.
  const registry = manager === 'npm' ? npmRegistry() : Promise.resolve(undefined);
  mkdirSync(target, { recursive: true });
  cpSync(join(templatesDir, 'shared'), target, { recursive: true });
  const written = ['package.json', 'package-lock.json'];
  cpSync(join(templatesDir, args.template), target, { recursive: true, filter: (source) => !written.includes(basename(source)) });
  // npm leaves a package's .gitignore out of its tarball: the templates hold it under another name.
  renameSync(join(target, '_gitignore'), join(target, '.gitignore'));
  writeFileSync(join(target, 'package.json'), packageJson);
  // npm's lock only: pnpm, yarn and bun resolve the project themselves.
  const lock = manager === 'npm' ? lockfile(args.template, packageJson, version, await registry, packagesDir) : undefined;
  if (lock !== undefined) writeFileSync(join(target, 'package-lock.json'), lock);
  const where = relative(process.cwd(), target) || '.';
  output.out(`Wrote the ${args.template} template to ${where}.\n`);

  if (args.install) {
    output.out(`Installing its dependencies (${manager} install)...\n`);
    const installed = await runInstall(manager, target);
    if (installed.code !== 0) {
      output.err(
        `create-anytool: ${manager} install failed in ${where} (${installed.error?.message ?? `exit ${installed.code}`}); fix the cause above and run it again there\n`,
      );
      return 1;
    }
  }
  const cd = where === '.' ? '' : `cd ${where}\n  `;
  output.out(
    `\nDone. Next:\n  ${cd}${args.install ? '' : `${manager} install\n  `}${manager === 'npm' ? 'npm start' : `${manager} run start`}    build and run\n  ${manager === 'npm' ? 'npm test' : `${manager} run test`}     build and run the tests\n`,
  );
  return 0;
}
