// The names a package entry exports (values and types), read from its source, and the
// names of the DOM's globals: what the barrel tests of every package check.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';

/**
 * Every name `file` exports, values and types. Entries use explicit named exports
 * only: an `export *` is an error, since it would make the surface whatever another file holds.
 */
export function exportedNames(file: string): { values: string[]; types: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const values: string[] = [];
  const types: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause === undefined || !ts.isNamedExports(statement.exportClause))
        throw new Error(`${file}: export * hides what is public; name each export`);
      for (const element of statement.exportClause.elements) (statement.isTypeOnly || element.isTypeOnly ? types : values).push(element.name.text);
      continue;
    }
    const exported = ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) types.push(statement.name.text);
    else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) values.push(d.name.getText(source));
    else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name)
      values.push(statement.name.text);
  }
  return { values: values.sort(), types: types.sort() };
}

let dom: Set<string> | undefined;

/** The global names TypeScript's lib.dom.d.ts declares (interfaces, variables, types, functions). */
export function domGlobals(): Set<string> {
  if (dom !== undefined) return dom;
  const lib = join(dirname(createRequire(__filename).resolve('typescript')), 'lib.dom.d.ts');
  const source = ts.createSourceFile(lib, readFileSync(lib, 'utf8'), ts.ScriptTarget.Latest, false);
  dom = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) dom.add(d.name.getText(source));
    else if (
      (ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      statement.name
    )
      dom.add(statement.name.text);
  }
  return dom;
}
