// The type declarations of a package name types of its optional peer dependencies (the OpenTelemetry API, the MCP
// SDK's server, the model providers' SDKs): a project without such a peer that checks library declarations
// (`skipLibCheck: false`) would stop at "Cannot find module". Each line of a declaration file that imports from an
// optional peer gets a `@ts-ignore` before it: without the peer those types are `any` (the features that use them
// are not used then), with it they are the peer's own. Run by scripts/build.mjs after tsc; idempotent.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const IGNORE = '// @ts-ignore: an optional peer dependency; when it is not installed, its types are any';

function declarationFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...declarationFiles(path));
    else if (/\.d\.c?ts$/.test(name)) out.push(path);
  }
  return out;
}

/** Marks the imports of `packageDir`'s optional peers in its dist declarations; returns how many files changed. */
export function markOptionalPeerTypes(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const optional = Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta?.optional === true)
    .map(([name]) => name);
  if (optional.length === 0) return 0;
  const escaped = optional.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
  const importsPeer = new RegExp(`(?:\\bfrom |\\bimport\\()['"](?:${escaped})(?:/[^'"]*)?['"]`);
  let changed = 0;
  for (const file of declarationFiles(join(packageDir, 'dist'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const out = [];
    for (const line of lines) {
      if (importsPeer.test(line) && out.at(-1)?.trim() !== IGNORE) out.push(line.slice(0, line.length - line.trimStart().length) + IGNORE);
      out.push(line);
    }
    if (out.length !== lines.length) {
      writeFileSync(file, out.join('\n'));
      changed++;
    }
  }
  return changed;
}
