// Copies the repository's docs/ and LICENSE into the package being packed (run as its `prepack`),
// so the README's links and the messages that name docs/... hold in an installed package.
// A link that leaves docs/ (to the examples, say) names its target in the repository instead.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Each page is written in a folder of this run's own, outside the package's `files`, then renamed into
  // place: a pack running beside this one (two `npm pack` in one checkout) lists and reads whole pages
  // only, never a half-written or temporary file.
  const scratch = join(process.cwd(), `.pack-docs-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  mkdirSync(target, { recursive: true });
  try {
    const names = readdirSync(source)
      .filter((name) => name.endsWith('.md'))
      .sort();
    // Anything else in docs/ (a page no longer in the repository, a leftover) is removed one by one; the folder stays.
    for (const name of readdirSync(target)) if (!names.includes(name)) rmSync(join(target, name), { recursive: true, force: true });
    const place = (text, file) => {
      const temporary = join(scratch, basename(file));
      writeFileSync(temporary, text);
      renameSync(temporary, file);
    };
    for (const name of names) place(localizeLinks(readFileSync(join(source, name), 'utf8')), join(target, name));
    place(readFileSync(join(source, '..', 'LICENSE'), 'utf8'), join(process.cwd(), 'LICENSE'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
