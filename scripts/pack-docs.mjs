// Copies the repository's docs/ and LICENSE into the package being packed (run as its `prepack`),
// so the README's links and the messages that name docs/... hold in an installed package.
// A link that leaves docs/ (to the examples, say) names its target in the repository instead.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
const target = join(process.cwd(), 'docs');

/** `[label](../examples/x.ts)` becomes "label (examples/x.ts in the anytool repository)". */
export function localizeLinks(markdown) {
  return markdown.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (link, label, href) => {
    if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href)) return link;
    const path = posix.normalize(posix.join('docs', href.split('#')[0]));
    if (path.startsWith('docs/')) return link;
    const plain = label.replace(/^`(.*)`$/, '$1');
    return plain === path ? `\`${path}\` (in the anytool repository)` : `${label} (\`${path}\` in the anytool repository)`;
  });
}

/**
 * Writes a file whole or not at all: a pack that runs at the same time (two `npm pack` in one
 * checkout) reads either the old text or the new, never a half-written file.
 */
function writeWhole(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(target, { recursive: true });
  const names = readdirSync(source)
    .filter((name) => name.endsWith('.md'))
    .sort();
  // Pages no longer in docs/ are removed one by one; the folder itself stays for packs running beside this one.
  for (const name of readdirSync(target)) if (!names.includes(name) && name.endsWith('.md')) rmSync(join(target, name), { force: true });
  for (const name of names) writeWhole(join(target, name), localizeLinks(readFileSync(join(source, name), 'utf8')));
  writeWhole(join(process.cwd(), 'LICENSE'), readFileSync(join(source, '..', 'LICENSE'), 'utf8'));
}
