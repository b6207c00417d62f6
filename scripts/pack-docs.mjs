// Copies the repository's docs/ and LICENSE into the package being packed (run as its `prepack`),
// so the README's links and the messages that name docs/... hold in an installed package.
// A link that leaves docs/ (to the examples, say) names its target in the repository instead.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const name of readdirSync(source).sort()) {
    if (!name.endsWith('.md')) continue;
    writeFileSync(join(target, name), localizeLinks(readFileSync(join(source, name), 'utf8')));
  }
  copyFileSync(join(source, '..', 'LICENSE'), join(process.cwd(), 'LICENSE'));
}
