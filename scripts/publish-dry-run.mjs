// `npm publish --dry-run` of every package, as a release would publish it (its prepack runs,
// npm checks the manifest and packs the tarball), without sending anything. Prints one line
// a package (name, version, files, sizes); exits 1 when a package cannot be packed or
// published, with npm's own output. Run after the build: the tarballs hold dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const packages = readdirSync(join(root, 'packages'))
  .filter((name) => existsSync(join(root, 'packages', name, 'package.json')))
  .sort();

/** npm as this script was started with (`npm run`), else the one on the PATH. */
function npm(args, cwd) {
  const cli = process.env.npm_execpath;
  if (cli !== undefined && /npm-cli\.js$/.test(cli)) return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });
  return spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
}

/** npm's report of one package: npm 10 prints it bare, npm 11 under the package's name. */
function reportOf(stdout) {
  const start = stdout.indexOf('{');
  if (start === -1) return undefined;
  const json = JSON.parse(stdout.slice(start));
  return typeof json.id === 'string' ? json : Object.values(json)[0];
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

let failed = 0;
for (const name of packages) {
  const dir = join(root, 'packages', name);
  // create-anytool is plain JavaScript with no build output.
  const built = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).files?.includes('dist') ?? true;
  if (built && !existsSync(join(dir, 'dist'))) {
    console.error(`packages/${name}: no dist/ to publish; run \`npm run build\` first`);
    failed++;
    continue;
  }
  const result = npm(['publish', '--dry-run', '--json'], dir);
  let report;
  try {
    report = result.status === 0 ? reportOf(result.stdout) : undefined;
  } catch {
    report = undefined;
  }
  if (report === undefined) {
    console.error(`packages/${name}: npm publish --dry-run failed (exit ${String(result.status)})\n${result.stdout}${result.stderr}`);
    failed++;
    continue;
  }
  console.log(`${report.id}: ${report.files.length} files, ${kB(report.size)} packed, ${kB(report.unpackedSize)} unpacked (dry run, not published)`);
}
process.exit(failed === 0 ? 0 : 1);
