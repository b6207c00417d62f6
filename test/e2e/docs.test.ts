// Every TypeScript code block in docs/ is either part of a file under examples/
// (which CI type-checks and runs) or is type-checked here against the public
// API of the packages (their sources, through the same `@anytool/*` names a
// user imports). A block is checked on its own; if it only makes sense as the
// continuation of the blocks before it on its page, it is checked together
// with them. A block that uses legacy decorators (`@Context()` on a parameter)
// is checked under `experimentalDecorators`. A fragment that uses names it does
// not define (`new WeatherTools()`, a helper) is checked with those names
// imported from the `@anytool/*` package that exports them, or else declared
// as `any`, and with `{...}` placeholders read as `{}`: everything else in it
// must still type-check against the real API. Only names TypeScript cannot find
// at all are stubbed (not misspellings it offers a "did you mean" for), and
// never a name an earlier block of the page declares: such a block must check
// together with the blocks before it. Better still, a block declares its free
// names itself (`declare const agent: Agent;`). A block that re-declares an
// interface or type the packages export (to show its shape) must match the real
// one: both must be assignable to each other. JavaScript blocks are parsed.
//
// Then every TypeScript block is run, the way a reader would run it: compiled
// by the anytool build step (`anytool build`, as examples/ is built) against the
// built packages, and executed by Node. It must end with exit code 0. Where the
// page shows what it prints, the output must match: a `console.log(...); // text`
// line must print the line `text` (in that order), and a block followed by a
// paragraph ending in "prints:" must print exactly the block that comes next
// (compared as data when that block is JSON). A block that cannot run on its own
// (a fragment with placeholders, one that needs a network service) says why in an
// HTML comment right before it: `<!-- not run: the reason -->`.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as ts from 'typescript';
import { scaled } from '../../packages/core/test/helpers/time-scale';
import { early, limiter } from '../../packages/core/test/helpers/concurrency';

jest.setTimeout(scaled(120_000));

const root = join(__dirname, '..', '..');
const docsDir = join(root, 'docs');
const virtualDir = join(docsDir, '__code_blocks__');

/** What a block prints, as its page shows it. */
interface ShownOutput {
  /** Lines printed by `console.log(...); // line`, in order. */
  lines: string[];
  /** The block after a paragraph ending in "prints:": the whole output. */
  whole?: { lang: string; text: string };
}

interface Block {
  page: string;
  line: number;
  code: string;
  /** Why the block is not run, from `<!-- not run: ... -->` right before it. */
  notRun?: string;
  shown?: ShownOutput;
  /** The example file the block is part of, if any. */
  example?: string;
  /** Type errors found checking the block, undefined before checking. */
  errors?: string[];
  /** How it passed: 'alone', 'with preceding blocks', 'stubbed', ... */
  how?: string;
}

function walk(dir: string, keep: (file: string) => boolean, skip: (dir: string) => boolean = () => false): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!skip(name)) out.push(...walk(path, keep, skip));
    } else if (keep(path)) {
      out.push(path);
    }
  }
  return out;
}

function extractBlocks(page: string): Block[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript|tsx|mts|cts)\b/i.exec(lines[i]!);
    if (open === null) {
      const other = /^(\s*)(`{3,}|~{3,})/.exec(lines[i]!);
      if (other !== null) {
        // Skip a block in another language up to its closing fence.
        const fence = other[2]!;
        for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence); i++);
      }
      continue;
    }
    const [, indent, fence] = open;
    const body: string[] = [];
    const start = i + 1;
    const opening = i;
    for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence!); i++)
      body.push(lines[i]!.startsWith(indent!) ? lines[i]!.slice(indent!.length) : lines[i]!);
    const block: Block = { page: relative(root, page), line: start, code: body.join('\n') };
    let before = opening - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const note = before >= 0 ? /^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$/.exec(lines[before]!) : null;
    if (note !== null) block.notRun = note[1]!;
    block.shown = shownOutput(block.code, lines, i + 1);
    blocks.push(block);
  }
  return blocks;
}

/** The output a page shows for the block whose closing fence is just before line `after`. */
function shownOutput(code: string, lines: readonly string[], after: number): ShownOutput {
  const shown: ShownOutput = { lines: [] };
  for (const line of code.split('\n')) {
    const printed = /\bconsole\.log\(.*\);\s*\/\/\s?(.*)$/.exec(line);
    if (printed !== null) shown.lines.push(printed[1]!);
  }
  let i = after;
  let prose = '';
  for (; i < lines.length && !/^\s*(`{3,}|~{3,})/.test(lines[i]!); i++) if (lines[i]!.trim() !== '') prose = lines[i]!.trim();
  const open = i < lines.length ? /^(\s*)(`{3,}|~{3,})\s*(\w*)/.exec(lines[i]!) : null;
  if (open !== null && /prints:$/i.test(prose)) {
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trim().startsWith(open[2]!); i++) body.push(lines[i]!);
    shown.whole = { lang: open[3]!.toLowerCase(), text: body.join('\n') };
  }
  return shown;
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** `@anytool/<pkg>[/<subpath>]` -> the package's source file, from each package's `exports` map. */
function sourcePaths(): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  for (const name of readdirSync(join(root, 'packages'))) {
    const dir = join(root, 'packages', name);
    const manifestPath = join(dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; exports?: Record<string, unknown> };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const types = (target as { import?: { types?: string } } | undefined)?.import?.types;
      if (types === undefined) continue;
      const source = join(dir, types.replace(/^\.\/dist\/esm\//, 'src/').replace(/\.d\.ts$/, '.ts'));
      if (existsSync(source)) paths[subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`] = [source];
    }
  }
  return paths;
}

function compilerOptions(legacyDecorators: boolean): ts.CompilerOptions {
  const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(base.config, ts.sys, root);
  return {
    ...options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    types: ['node'],
    baseUrl: root,
    paths: sourcePaths(),
    experimentalDecorators: legacyDecorators,
    emitDecoratorMetadata: legacyDecorators,
    noUnusedLocals: false,
    noUnusedParameters: false,
  };
}

const sourceCache = new Map<string, ts.SourceFile>();

interface CheckResult {
  errors: string[];
  /** Names the file uses without defining or importing them. */
  missing: Set<string>;
}

/**
 * TS2304 "Cannot find name", TS2503 "Cannot find namespace". Not TS2552 ("...
 * Did you mean"), TS2662/TS2663 ("... instance/static member"): those are typos
 * or missing `this.`, real errors a stub would hide.
 */
const MISSING_NAME_CODES = new Set([2304, 2503]);

/** Type-checks virtual files (name -> text); returns the errors of each. */
function typeCheck(files: Map<string, string>, legacyDecorators: boolean): Map<string, CheckResult> {
  const options = compilerOptions(legacyDecorators);
  const host = ts.createCompilerHost(options, true);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  host.getSourceFile = (name, language) => {
    const text = files.get(name) ?? readFile(name);
    if (text === undefined) return undefined;
    if (files.has(name)) return ts.createSourceFile(name, text, language, true);
    const key = `${name}\0${String(typeof language === 'object' ? language.languageVersion : language)}`;
    let file = sourceCache.get(key);
    if (file === undefined || file.text !== text) sourceCache.set(key, (file = ts.createSourceFile(name, text, language, true)));
    return file;
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const out = new Map<string, CheckResult>();
  for (const name of files.keys()) {
    const file = program.getSourceFile(name)!;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    const missing = new Set<string>();
    for (const d of diagnostics)
      if (MISSING_NAME_CODES.has(d.code) && d.start !== undefined && d.length !== undefined) missing.add(file.text.slice(d.start, d.start + d.length));
    const errors = diagnostics.map((d) => {
      const where = d.start === undefined ? '' : `line ${file.getLineAndCharacterOfPosition(d.start).line + 1}: `;
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    out.set(name, { errors, missing });
  }
  return out;
}

/** The blocks before `index` on the same page and this one, as one module with their imports merged. */
function withPrecedingBlocks(blocks: readonly Block[], index: number): string {
  const page = blocks[index]!.page;
  const parts = blocks.slice(0, index + 1).filter((b, i) => b.page === page && (i === index || b.example === undefined));
  const imports = new Map<string, Map<string, string>>();
  const bodies: string[] = [];
  for (const part of parts) {
    const file = ts.createSourceFile('part.mts', part.code, ts.ScriptTarget.ES2022, true);
    let body = '';
    for (const statement of file.statements) {
      const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
      const named = clause?.namedBindings;
      if (clause !== undefined && clause.name === undefined && named !== undefined && ts.isNamedImports(named)) {
        const from = (statement as ts.ImportDeclaration).moduleSpecifier.getText(file);
        const names = imports.get(from) ?? new Map<string, string>();
        for (const element of named.elements) {
          const text = clause.isTypeOnly && !element.isTypeOnly ? `type ${element.getText(file)}` : element.getText(file);
          const local = element.name.text;
          if (!names.has(local) || !text.startsWith('type ')) names.set(local, text);
        }
        imports.set(from, names);
      } else {
        body += `${statement.getFullText(file)}\n`;
      }
    }
    bodies.push(body);
  }
  const head = [...imports].map(([from, names]) => `import { ${[...names.values()].join(', ')} } from ${from};`);
  return `${head.join('\n')}\n${bodies.join('\n')}`;
}

/** Every name the `@anytool/*` entry points export -> the import specifier that exports it. */
function exportedNames(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [specifier, [path]] of Object.entries(sourcePaths())) {
    const file = ts.createSourceFile(path!, readFileSync(path!, 'utf8'), ts.ScriptTarget.ES2022, true);
    for (const statement of file.statements) {
      if (ts.isExportDeclaration(statement) && statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) if (!out.has(element.name.text)) out.set(element.name.text, specifier);
      } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
        const names = ts.isVariableStatement(statement)
          ? statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []))
          : 'name' in statement && statement.name !== undefined && ts.isIdentifier(statement.name as ts.Node)
            ? [(statement.name as ts.Identifier).text]
            : [];
        for (const name of names) if (!out.has(name)) out.set(name, specifier);
      }
    }
  }
  return out;
}

/** The names a block declares at its top level (imports included). */
function declaredNames(code: string): Set<string> {
  const file = ts.createSourceFile('block.mts', code, ts.ScriptTarget.ES2022, true);
  const out = new Set<string>();
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) out.add(d.name.text);
    } else if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name !== undefined) out.add(clause.name.text);
      const named = clause?.namedBindings;
      if (named !== undefined) {
        if (ts.isNamespaceImport(named)) out.add(named.name.text);
        else for (const element of named.elements) out.add(element.name.text);
      }
    } else if ('name' in statement && statement.name !== undefined && ts.isIdentifier(statement.name as ts.Node)) {
      out.add((statement.name as ts.Identifier).text);
    }
  }
  return out;
}

/**
 * For each top-level interface or type alias a block declares under a name the
 * `@anytool/*` packages export (a copy shown to the reader), checks that the
 * copy and the real type are assignable to each other.
 */
function matchingCopies(code: string, exported: ReadonlyMap<string, string>): string {
  const file = ts.createSourceFile('block.mts', code, ts.ScriptTarget.ES2022, true);
  const lines: string[] = [];
  for (const statement of file.statements) {
    if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) continue;
    if (statement.typeParameters !== undefined) continue;
    const name = statement.name.text;
    const from = exported.get(name);
    if (from === undefined) continue;
    lines.push(
      `import type { ${name} as Real_${name} } from '${from}';`,
      `export const copyMatches_${name}: [Real_${name}, ${name}] = [null as unknown as ${name}, null as unknown as Real_${name}];`,
    );
  }
  return lines.join('\n');
}

/** The block with its free names imported from the package that exports them, or declared as `any`. */
function withStubs(code: string, missing: ReadonlySet<string>, exported: ReadonlyMap<string, string>, declaredBefore: ReadonlySet<string>): string {
  const lines: string[] = [];
  for (const name of missing) {
    const from = exported.get(name);
    // A name an earlier block declares is not stubbed: the block must check with the blocks before it.
    if (from === undefined && declaredBefore.has(name)) continue;
    // A name used as a value and as a type: a const and a type alias may share it.
    lines.push(from === undefined ? `declare const ${name}: any; type ${name} = any;` : `import { ${name} } from '${from}';`);
  }
  // After the code, so error line numbers stay those of the block (imports are hoisted).
  return `${code.replace(/\{\s*\.\.\.\s*\}/g, '({} as any)')}\n${lines.join('\n')}`;
}

const blocks = walk(
  docsDir,
  (file) => file.endsWith('.md'),
  (name) => name === 'node_modules',
).flatMap(extractBlocks);
const examples = walk(
  join(root, 'examples'),
  (file) => /\.(ts|mts|cts)$/.test(file),
  (name) => name === 'dist' || name === 'node_modules',
).map((path) => ({
  path: relative(root, path),
  text: squash(readFileSync(path, 'utf8')),
}));

for (const block of blocks) {
  const found = examples.find((example) => squash(block.code) !== '' && example.text.includes(squash(block.code)));
  if (found !== undefined) block.example = found.path;
}

beforeAll(() => {
  const pending = blocks.filter((b) => b.example === undefined);
  const name = (block: Block, variant: string): string => join(virtualDir, `${block.page.replace(/[^\w]+/g, '_')}_${block.line}${variant}.mts`);

  const exported = exportedNames();
  const missing = new Map<Block, Set<string>>();
  const declaredBefore = (block: Block): Set<string> =>
    new Set(blocks.slice(0, blocks.indexOf(block)).flatMap((b) => (b.page === block.page ? [...declaredNames(b.code)] : [])));
  const copies = (block: Block): string => `\n${matchingCopies(block.code, exported)}`;
  const attempts: Array<{ variant: string; legacy: boolean; text: (block: Block) => string }> = [
    { variant: '', legacy: false, text: (block) => block.code + copies(block) },
    { variant: '_legacy', legacy: true, text: (block) => block.code + copies(block) },
    { variant: '_with_preceding', legacy: false, text: (block) => withPrecedingBlocks(blocks, blocks.indexOf(block)) + copies(block) },
    { variant: '_with_preceding_legacy', legacy: true, text: (block) => withPrecedingBlocks(blocks, blocks.indexOf(block)) + copies(block) },
    {
      variant: '_stubbed',
      legacy: false,
      text: (block) => withStubs(block.code, missing.get(block) ?? new Set(), exported, declaredBefore(block)) + copies(block),
    },
    {
      variant: '_stubbed_legacy',
      legacy: true,
      text: (block) => withStubs(block.code, missing.get(block) ?? new Set(), exported, declaredBefore(block)) + copies(block),
    },
  ];
  let failing = pending;
  for (const attempt of attempts) {
    if (failing.length === 0) break;
    const files = new Map(failing.map((block) => [name(block, attempt.variant), `${attempt.text(block)}\nexport {};\n`]));
    const results = typeCheck(files, attempt.legacy);
    for (const block of failing) {
      const { errors, missing: free } = results.get(name(block, attempt.variant))!;
      if (attempt.variant === '') missing.set(block, free);
      // Report the errors of the plain check, or of the stubbed one (which names the real API problem) when it ran.
      if (block.errors === undefined || errors.length === 0 || attempt.variant === '_stubbed') block.errors = errors;
      if (errors.length === 0) block.how = attempt.variant === '' ? 'alone' : attempt.variant.slice(1).replace(/_/g, ' ');
      if (errors.length === 0 && attempt.variant.startsWith('_stubbed')) block.how += ` (${[...(missing.get(block) ?? [])].join(', ')})`;
    }
    failing = failing.filter((block) => block.errors!.length > 0);
  }
  // DOCS_BLOCKS_REPORT=1 prints how each block passed (stubbed fragments are worth a look).
  if (process.env['DOCS_BLOCKS_REPORT']) console.log(blocks.map((b) => `${b.page}:${b.line} ${b.example ?? b.how ?? 'FAILED'}`).join('\n'));
});

/** The JavaScript blocks of a page (```js, ```javascript, ```mjs, ```cjs). */
function extractJsBlocks(page: string): Block[] {
  const lines = readFileSync(page, 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\w*)/.exec(lines[i]!);
    if (open === null) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    const start = i + 1;
    for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence!); i++)
      body.push(lines[i]!.startsWith(indent!) ? lines[i]!.slice(indent!.length) : lines[i]!);
    if (/^(js|javascript|mjs|cjs)$/i.test(lang!)) out.push({ page: relative(root, page), line: start, code: body.join('\n') });
  }
  return out;
}

const jsBlocks = walk(
  docsDir,
  (file) => file.endsWith('.md'),
  (name) => name === 'node_modules',
).flatMap(extractJsBlocks);

describe('JavaScript blocks in docs/', () => {
  it.each(jsBlocks.map((block) => [`${block.page}:${block.line}`, block] as const))('%s parses', (_where, block) => {
    const output = ts.transpileModule(block.code.replace(/\{\s*\.\.\.\s*\}/g, '{}'), {
      fileName: 'block.mjs',
      reportDiagnostics: true,
      compilerOptions: { allowJs: true, checkJs: false },
    });
    const errors = (output.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect({ block: `${block.page}:${block.line}`, errors }).toEqual({ block: `${block.page}:${block.line}`, errors: [] });
  });
});

describe('code blocks in docs/', () => {
  it('finds the TypeScript blocks of the docs pages', () => {
    const pages = new Set(blocks.map((b) => b.page));
    for (const page of ['docs/getting-started.md', 'docs/agent.md', 'docs/models.md']) expect(pages).toContain(page);
  });

  it.each(blocks.map((block) => [`${block.page}:${block.line}`, block] as const))('%s is part of an example or type-checks', (_where, block) => {
    if (block.example !== undefined) return;
    expect({ block: `${block.page}:${block.line}`, errors: block.errors }).toEqual({ block: `${block.page}:${block.line}`, errors: [] });
  });
});

const anytool = join(root, 'packages', 'schema', 'bin', 'anytool.mjs');
/** What the run of a block sees: model adapters can be made without real keys, and servers take a free port. */
const runEnv = { ...process.env, OPENAI_API_KEY: 'sk-docs-test', ANTHROPIC_API_KEY: 'sk-ant-docs-test', PORT: '0' };
const toRun = blocks.filter((b) => b.example === undefined && b.notRun === undefined);
const fileName = (block: Block): string => `${block.page.replace(/[^\w]+/g, '_')}_${block.line}`;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Whether a run ended well and printed what the page shows (what the test below checks, as a yes or no). */
function shows(block: Block, run: Run): boolean {
  if (run.code !== 0 || run.signal !== null) return false;
  const printed = run.stdout.split('\n');
  let at = 0;
  for (const line of block.shown?.lines ?? []) {
    const found = printed.indexOf(line, at);
    if (found < 0) return false;
    at = found + 1;
  }
  const whole = block.shown?.whole;
  if (whole === undefined) return true;
  if (whole.lang !== 'json') return run.stdout.trimEnd() === whole.text.trimEnd();
  try {
    return isDeepStrictEqual(JSON.parse(run.stdout), JSON.parse(whole.text));
  } catch {
    return false;
  }
}

function runNode(file: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: runEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('TypeScript blocks in docs/, run', () => {
  let project: string;
  const compiled = new Map<Block, { file: string } | { error: string }>();
  /** Each compiled block's run, started once all are compiled, a few side by side (each its own process, on a free port). */
  const runs = new Map<Block, Promise<Run>>();

  // Compiled by the build step into a scratch project inside the repository, so `@anytool/*` resolve to the built packages.
  beforeAll(async () => {
    for (const name of ['core', 'schema', 'mcp', 'agent']) {
      if (!existsSync(join(root, 'packages', name, 'dist', 'esm', 'index.js')))
        spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), name], { cwd: root, stdio: 'pipe' });
    }
    mkdirSync(join(root, '.tmp'), { recursive: true });
    project = mkdtempSync(join(root, '.tmp', 'docs-run-'));
    writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
    const modes = [false, true] as const;
    // The standard and the legacy blocks are two projects, built side by side (each an `anytool build` process).
    const builds: Array<Promise<void>> = [];
    for (const legacy of modes) {
      const dir = join(project, legacy ? 'legacy' : 'standard');
      const mine = toRun.filter((b) => b.how !== undefined && !b.how.startsWith('stubbed') && b.how.includes('legacy') === legacy);
      if (mine.length === 0) continue;
      mkdirSync(dir, { recursive: true });
      for (const block of mine) {
        const code = block.how!.startsWith('with preceding') ? withPrecedingBlocks(blocks, blocks.indexOf(block)) : block.code;
        writeFileSync(join(dir, `${fileName(block)}.ts`), `${code}\nexport {};\n`);
      }
      const compilerOptions = {
        outDir: 'dist',
        rootDir: '.',
        noEmit: false,
        declaration: false,
        sourceMap: false,
        types: ['node'],
        experimentalDecorators: legacy,
        emitDecoratorMetadata: legacy,
      };
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: relative(dir, join(root, 'tsconfig.base.json')), compilerOptions, include: ['*.ts'] }),
      );
      builds.push(
        new Promise<{ status: number | null; output: string }>((resolve) => {
          execFile(
            process.execPath,
            [anytool, 'build', '-p', join(dir, 'tsconfig.json')],
            { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
            (error, stdout, stderr) => {
              const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
              resolve({ status, output: `${stdout}${stderr}` });
            },
          );
        }).then((build) => {
          for (const block of mine) {
            const file = join(dir, 'dist', `${fileName(block)}.js`);
            const own = build.output.split('\n').filter((line) => line.includes(fileName(block)));
            compiled.set(
              block,
              build.status === 0 && existsSync(file)
                ? { file }
                : { error: `anytool build failed (exit ${build.status}):\n${own.length > 0 ? own.join('\n') : build.output}` },
            );
          }
        }),
      );
    }
    await Promise.all(builds);
    const queue = limiter();
    // Started in the order of the tests that await them (the two builds end in either order).
    for (const block of toRun) {
      const built = compiled.get(block);
      if (built !== undefined && 'file' in built) runs.set(block, early(queue(() => runNode(built.file, 60_000))));
    }
  }, scaled(300_000));

  afterAll(async () => {
    // A run no test awaited (a test that failed first) has ended before its files go.
    await Promise.all([...runs.values()].map((run) => run.catch(() => undefined)));
    rmSync(project, { recursive: true, force: true });
  });

  it('every block that is not run says why, and every other block can run on its own', () => {
    for (const block of blocks.filter((b) => b.notRun !== undefined))
      expect([`${block.page}:${block.line}`, block.notRun!.length > 0]).toEqual([`${block.page}:${block.line}`, true]);
    const fragments = toRun
      .filter((b) => b.how === undefined || b.how.startsWith('stubbed'))
      .map((b) => `${b.page}:${b.line} (${b.how ?? 'does not type-check'})`);
    // A fragment must define the names it uses to run; otherwise mark it <!-- not run: why -->.
    expect(fragments).toEqual([]);
  });

  it.each(toRun.map((block) => [`${block.page}:${block.line}`, block] as const))('%s runs and prints what the page shows', async (where, block) => {
    const built = compiled.get(block);
    if (built === undefined)
      throw new Error(`${where} was not compiled: it does not type-check on its own; define the names it uses, or say why it is not run`);
    if ('error' in built) throw new Error(`${where}: ${built.error}`);
    let run = await runs.get(block)!;
    // Some blocks show timing (a timeout, progress that keeps a call alive), which the blocks running beside them can
    // upset on a busy machine: one that did not print what the page shows runs once more, outside the queue, and that run is checked.
    if (!shows(block, run)) run = await runNode(built.file, 60_000);
    expect({ where, code: run.code, signal: run.signal, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ where, code: 0, signal: null, stderr: '' });
    const printed = run.stdout.split('\n');
    let at = 0;
    for (const line of block.shown?.lines ?? []) {
      const found = printed.indexOf(line, at);
      expect({ where, expected: line, printed: found < 0 ? run.stdout : line }).toEqual({ where, expected: line, printed: line });
      at = found + 1;
    }
    const whole = block.shown?.whole;
    if (whole !== undefined) {
      if (whole.lang === 'json') expect(JSON.parse(run.stdout)).toEqual(JSON.parse(whole.text));
      else expect(run.stdout.trimEnd()).toBe(whole.text.trimEnd());
    }
  });
});
