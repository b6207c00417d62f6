import type * as TS from 'typescript';
import { ts } from '../typescript.js';
import { DiagnosticCode } from './tool-sites.js';

/** The script target TypeScript emits for (its default depends on `module` and on the release). */
function emitTarget(options: TS.CompilerOptions): TS.ScriptTarget {
  // getEmitScriptTarget is internal to TypeScript, and present in every supported release.
  const internal = (ts as unknown as { getEmitScriptTarget?: (options: TS.CompilerOptions) => TS.ScriptTarget }).getEmitScriptTarget;
  return internal?.(options) ?? options.target ?? ts.ScriptTarget.ES5;
}

/**
 * Whether TypeScript leaves standard (TC39) decorators as written in its
 * output. It lowers them for every target but ESNext, and for ESNext too when
 * `useDefineForClassFields` is off; legacy decorators are always lowered.
 * Node runs no decorators yet.
 */
export function keepsStandardDecorators(options: TS.CompilerOptions): boolean {
  if (options.experimentalDecorators === true) return false;
  return emitTarget(options) === ts.ScriptTarget.ESNext && options.useDefineForClassFields !== false;
}

/** The newest ES target this TypeScript gives a year (ES2023 in 5.5, ES2024 in 5.9, ES2025 in 6.0). */
export function newestNumberedTarget(): { target: TS.ScriptTarget; name: string } {
  let newest = { target: ts.ScriptTarget.ES2015, name: 'ES2015' };
  for (const [name, value] of Object.entries(ts.ScriptTarget)) {
    if (typeof value === 'number' && /^ES\d{4}$/.test(name) && value > newest.target) newest = { target: value, name };
  }
  return newest;
}

/** The first decorator written in a file, if any. */
export function firstDecorator(file: TS.SourceFile): TS.Decorator | undefined {
  if (!file.text.includes('@')) return undefined;
  const visit = (node: TS.Node): TS.Decorator | undefined => (ts.isDecorator(node) ? node : ts.forEachChild(node, visit));
  return visit(file);
}

/**
 * For the ways in that cannot change the target (ts-patch, ts-jest, ts-node):
 * an error at the first decorator of a file whose decorators TypeScript will
 * leave in the JavaScript, where Node fails on them with a SyntaxError.
 */
export function keptDecoratorDiagnostic(options: TS.CompilerOptions, file: TS.SourceFile): TS.Diagnostic | undefined {
  if (!keepsStandardDecorators(options)) return undefined;
  const decorator = firstDecorator(file);
  if (decorator === undefined) return undefined;
  const start = decorator.getStart(file);
  const owner = decoratedName(decorator.parent);
  const messageText =
    `${decorator.getText(file)}${owner === undefined ? '' : ` on ${owner}`} would stay as written in the JavaScript, and Node cannot run decorators: ` +
    `TypeScript lowers standard decorators for every target but ESNext; set "target": "${newestNumberedTarget().name}" (or lower) in tsconfig.json, ` +
    'or compile with `anytool build`, which lowers them when the target is ESNext';
  return {
    file,
    start,
    length: decorator.getEnd() - start,
    category: ts.DiagnosticCategory.Error,
    code: DiagnosticCode.DecoratorsNotLowered,
    messageText,
    source: 'anytool',
  };
}

function decoratedName(node: TS.Node): string | undefined {
  if (ts.isClassLike(node)) return `class ${node.name?.text ?? '(anonymous)'}`;
  const member = ts.isParameter(node) ? node.parent : node;
  const owner = member.parent;
  const className = owner !== undefined && ts.isClassLike(owner) ? (owner.name?.text ?? '(anonymous class)') : undefined;
  const name = (member as { name?: TS.Node }).name;
  const memberName = name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
  if (className === undefined || memberName === undefined) return undefined;
  return `${className}.${memberName}`;
}
