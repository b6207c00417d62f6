import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ErrorCode } from '@anytool/core';

const ROOT = join(__dirname, '..', '..', '..');
const ERRORS_FILE = join(ROOT, 'packages', 'core', 'src', 'errors.ts');

/** Functions and classes whose first argument is an error code. */
const CODE_TAKERS = new Set(['AnytoolError', 'errorResult', 'refuse']);
/** Calls whose `code` fields are another namespace's (Node's warning codes). */
const FOREIGN_CODE_CALLS = new Set(['emitWarning']);

/** One place a source names an error code. */
interface CodeUse {
  where: string;
  code: string;
  /** `key` for `ErrorCode.Key`, `value` for a string such as 'TOOL_FAILED'. */
  kind: 'key' | 'value';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(c|m)?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function calleeName(node: ts.CallExpression | ts.NewExpression): string | undefined {
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** The string literal `node` is, under any casts and parentheses (`'X' as ErrorCode`). */
function stringLiteral(node: ts.Node | undefined): ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | undefined {
  while (
    node !== undefined &&
    (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node) || ts.isTypeAssertionExpression(node))
  )
    node = node.expression;
  return node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node : undefined;
}

/**
 * Every error code a TypeScript source names: `ErrorCode.X` (and `ErrorCode['X']`), a string
 * given as the code of `new AnytoolError`, `errorResult` or `refuse`, and a string in a
 * `code: '...'` field of an object literal (a diagnostic, a ToolResult's error).
 */
function codeUses(fileName: string, text: string): CodeUse[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const uses: CodeUse[] = [];
  const add = (node: ts.Node, code: string, kind: CodeUse['kind']): void => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    uses.push({ where: `${fileName}:${line + 1}`, code, kind });
  };
  const visit = (node: ts.Node, foreign: boolean): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ErrorCode') add(node, node.name.text, 'key');
    if (ts.isQualifiedName(node) && ts.isIdentifier(node.left) && node.left.text === 'ErrorCode') add(node, node.right.text, 'key');
    if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ErrorCode') {
      const key = stringLiteral(node.argumentExpression);
      if (key !== undefined) add(node, key.text, 'key');
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calleeName(node);
      const first = stringLiteral(node.arguments?.[0]);
      if (name !== undefined && CODE_TAKERS.has(name) && first !== undefined) add(first, first.text, 'value');
      if (name !== undefined && FOREIGN_CODE_CALLS.has(name)) foreign = true;
    }
    if (!foreign && ts.isPropertyAssignment(node) && node.name.getText(source) === 'code') {
      const value = stringLiteral(node.initializer);
      if (value !== undefined) add(value, value.text, 'value');
    }
    ts.forEachChild(node, (child) => visit(child, foreign));
  };
  visit(source, false);
  return uses;
}

/** The uses whose code is not in `ErrorCode`. */
function outside(uses: readonly CodeUse[]): CodeUse[] {
  const keys = new Set(Object.keys(ErrorCode));
  const values = new Set<string>(Object.values(ErrorCode));
  return uses.filter((use) => !(use.kind === 'key' ? keys.has(use.code) : values.has(use.code)));
}

function packageSources(): { file: string; text: string }[] {
  const packages = join(ROOT, 'packages');
  return (
    readdirSync(packages, { withFileTypes: true })
      // A folder left with only ignored output after a branch switch has no sources to walk.
      .filter((entry) => entry.isDirectory() && existsSync(join(packages, entry.name, 'src')))
      .flatMap((entry) => sourceFiles(join(packages, entry.name, 'src')))
      .map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }))
  );
}

describe('error codes', () => {
  const uses = packageSources().flatMap(({ file, text }) => codeUses(file, text));

  it('every code a package source names is in ErrorCode', () => {
    // Walking every package: a walker that found nothing would pass whatever the sources say.
    expect(new Set(uses.map((use) => use.where.split('/')[1])).size).toBeGreaterThanOrEqual(4);
    expect(uses.length).toBeGreaterThan(100);
    const unknown = outside(uses).map((use) => `${use.where}: ${use.kind === 'key' ? `ErrorCode.${use.code}` : JSON.stringify(use.code)}`);
    // Fix: use a code of ErrorCode, or add one to packages/core/src/errors.ts with a doc comment.
    expect(unknown).toEqual([]);
  });

  it('every code in ErrorCode is raised somewhere, under one value of its own', () => {
    const values = Object.values(ErrorCode);
    expect(new Set(values).size).toBe(values.length);
    const keys = Object.keys(ErrorCode) as (keyof typeof ErrorCode)[];
    const named = new Set(
      uses
        .filter((use) => !use.where.startsWith('packages/core/src/errors.ts'))
        .map((use) => (use.kind === 'key' ? use.code : keys.find((key) => ErrorCode[key] === use.code))),
    );
    expect(keys.filter((key) => !named.has(key))).toEqual([]);
  });

  it('every code has a one-line doc comment saying when it is raised', () => {
    const source = ts.createSourceFile(ERRORS_FILE, readFileSync(ERRORS_FILE, 'utf8'), ts.ScriptTarget.Latest, true);
    let members: ts.NodeArray<ts.ObjectLiteralElementLike> | undefined;
    source.forEachChild(function find(node): void {
      if (ts.isVariableDeclaration(node) && node.name.getText(source) === 'ErrorCode') {
        let init = node.initializer;
        while (init !== undefined && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
        if (init !== undefined && ts.isObjectLiteralExpression(init)) members = init.properties;
      }
      node.forEachChild(find);
    });
    expect(members?.map((member) => member.name?.getText(source))).toEqual(Object.keys(ErrorCode));
    const undocumented = members!.filter((member) => {
      const comments = ts.getLeadingCommentRanges(source.text, member.pos) ?? [];
      const doc = comments.map((range) => source.text.slice(range.pos, range.end)).find((comment) => comment.startsWith('/**'));
      return doc === undefined || doc.includes('\n') || doc.replace(/^\/\*\*|\*\/$/g, '').trim().length < 20;
    });
    expect(undocumented.map((member) => member.name?.getText(source))).toEqual([]);
  });

  it('the walker finds a code outside ErrorCode in each form it reads', () => {
    const text = [
      "throw new AnytoolError(ErrorCode.NoSuchKey, 'a');",
      'type Known = typeof ErrorCode.AlsoNoSuchKey;',
      "const viaIndex = ErrorCode['IndexedKey'];",
      "throw new AnytoolError('NO_SUCH_VALUE', 'b');",
      "return errorResult('NOT_A_CODE', 'c');",
      "context.diagnose({ code: 'LISTENER_FAILURE' as ErrorCode, message: 'd' });",
      "process.emitWarning('e', { code: 'ANYTOOL_NODE_WARNING' });",
      "context.diagnose({ code: ErrorCode.ListenerFailed, message: 'f' });",
      "return errorResult(ErrorCode.ToolFailed, 'g');",
    ].join('\n');
    const found = codeUses('sample.ts', text);
    expect(outside(found).map((use) => `${use.where} ${use.code}`)).toEqual([
      'sample.ts:1 NoSuchKey',
      'sample.ts:2 AlsoNoSuchKey',
      'sample.ts:3 IndexedKey',
      'sample.ts:4 NO_SUCH_VALUE',
      'sample.ts:5 NOT_A_CODE',
      'sample.ts:6 LISTENER_FAILURE',
    ]);
    expect(found.map((use) => use.code)).not.toContain('ANYTOOL_NODE_WARNING');
    expect(found.filter((use) => use.where === 'sample.ts:8' || use.where === 'sample.ts:9')).toHaveLength(2);
  });
});
