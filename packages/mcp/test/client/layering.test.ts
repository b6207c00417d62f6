// The MCP client depends on no module of the server: a process that only calls MCP
// servers loads none of the server's code. What both use lives in src/shared.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

const src = join(__dirname, '..', '..', 'src');
const server = join(src, 'server');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.c?ts$/.test(path) ? [path] : [];
  });
}

/** Every module specifier a file names: static imports and re-exports, `import()`, `require()`, `import('...')` types. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      const [first] = node.arguments;
      found.push(first !== undefined && ts.isStringLiteralLike(first) ? first.text : `<computed: ${node.getText(source)}>`);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Where a relative specifier points, as a path under src without extension; package specifiers as they are. */
function target(file: string, specifier: string): string {
  return specifier.startsWith('.') ? resolve(dirname(file), specifier).replace(/\.js$/, '') : specifier;
}

describe('the MCP client and server are apart', () => {
  const clientFiles = filesUnder(join(src, 'client'));

  it('finds the client files and their imports', () => {
    expect(clientFiles.length).toBeGreaterThan(10);
    expect(clientFiles.flatMap((file) => specifiers(file)).length).toBeGreaterThan(clientFiles.length);
  });

  it('no client file imports a server module, statically or dynamically, directly or through another file', () => {
    const offending: string[] = [];
    const seen = new Set<string>();
    const walk = (file: string, via: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const specifier of specifiers(file)) {
        const to = target(file, specifier);
        const intoServer = to === server || to.startsWith(server + sep);
        // The package's own entries re-export the server; a computed specifier could be anything.
        const viaEntry =
          /^@anytool\/mcp(\/|$)/.test(specifier) || to === join(src, 'index') || to === join(src, 'internal') || specifier.startsWith('<computed');
        if (intoServer || viaEntry) offending.push(`${via}${relative(src, file)} -> ${specifier}`);
        // A CommonJS source (`.cts`) is imported by its output name (`.cjs`).
        else if (specifier.startsWith('.')) walk(to.endsWith('.cjs') ? to.replace(/\.cjs$/, '.cts') : `${to}.ts`, `${via}${relative(src, file)} -> `);
      }
    };
    for (const file of clientFiles) walk(file, '');
    expect(offending).toEqual([]);
    // The walk left the client folder (shared, store, telemetry): what it checked is what a client process loads.
    expect([...seen].some((file) => !file.startsWith(join(src, 'client')))).toBe(true);
  });

  it('the check sees a server import when there is one', () => {
    const file = join(src, 'client', 'example.ts');
    expect(target(file, '../server/tool-server.js').startsWith(server + sep)).toBe(true);
    expect(target(file, '../shared/mcp-session.js').startsWith(server + sep)).toBe(false);
  });
});
