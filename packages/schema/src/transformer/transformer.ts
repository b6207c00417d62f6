import ts from 'typescript';
import { analyzeSourceFile, type BuildInfoData, type PreparerSpec, type ToolSite } from './tool-sites.js';

/** Where the build step's run-time helpers live (imported only by files that need them). */
export const RUNTIME_MODULE = '@anytool/core/runtime';
const RUNTIME_NAME = '__anytool_runtime';
const BUILD_INFO_KEY = 'anytool.buildInfo';

/**
 * The transformer with an explicit diagnostics handler. The public
 * `anytoolTransformer` wraps it; the build command uses it directly, so the
 * command line never loads the run-time package.
 */
export function createTransformer(program: ts.Program | (() => ts.Program), onDiagnostics: (diagnostics: readonly ts.Diagnostic[]) => void): ts.TransformerFactory<ts.SourceFile> {
  const getProgram = typeof program === 'function' ? program : () => program;
  return (context) => (sourceFile) => {
    const original = ts.getOriginalNode(sourceFile, ts.isSourceFile) ?? sourceFile;
    if (original.isDeclarationFile) return sourceFile;
    const current = getProgram();
    const parsed = current.getSourceFile(original.fileName);
    if (parsed === undefined || parsed !== original) return sourceFile;
    const { sites, diagnostics } = analyzeSourceFile(current, original);
    if (diagnostics.length > 0) onDiagnostics(diagnostics);
    if (sites.length === 0) return sourceFile;
    return rewrite(sourceFile, sites, context);
  };
}

/** Formats diagnostics like tsc does: `file(line,col): error ANYTOOL91001: message`. */
export function formatAnytoolDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
    getNewLine: () => '\n',
  });
  return text.replace(/ TS(910\d\d):/g, ' ANYTOOL$1:');
}

function rewrite(sourceFile: ts.SourceFile, sites: readonly ToolSite[], context: ts.TransformationContext): ts.SourceFile {
  const factory = context.factory;
  const byNode = new Map<ts.Node, ToolSite>(sites.map((s) => [s.node, s]));
  const imports: ts.ImportDeclaration[] = [];
  const importNames = new Map<string, ts.Identifier>();
  let runtime: ts.Identifier | undefined;
  const runtimeIdentifier = (): ts.Identifier => {
    if (runtime === undefined) {
      runtime = factory.createIdentifier(RUNTIME_NAME);
      imports.push(namespaceImport(factory, runtime, RUNTIME_MODULE));
    }
    return runtime;
  };
  const moduleIdentifier = (module: string): ts.Identifier => {
    let id = importNames.get(module);
    if (id === undefined) {
      id = factory.createIdentifier(`__anytool_import_${importNames.size}`);
      importNames.set(module, id);
      imports.push(namespaceImport(factory, id, module));
    }
    return id;
  };
  const preparer = (spec: PreparerSpec): ts.Expression => {
    if (spec.kind === 'dates') {
      return factory.createCallExpression(factory.createPropertyAccessExpression(runtimeIdentifier(), 'revive'), undefined, [jsonExpression(factory, spec.plan)]);
    }
    const reference =
      spec.reference.kind === 'local'
        ? factory.createIdentifier(spec.reference.name)
        : factory.createPropertyAccessExpression(moduleIdentifier(spec.reference.module), spec.reference.exportName);
    const thunk = factory.createArrowFunction(undefined, undefined, [], undefined, undefined, reference);
    return factory.createCallExpression(factory.createPropertyAccessExpression(runtimeIdentifier(), 'validateClass'), undefined, [
      thunk,
      factory.createStringLiteral(spec.at),
      factory.createStringLiteral(spec.label),
      ...(spec.each === true ? [factory.createTrue()] : []),
    ]);
  };
  const buildInfo = (site: ToolSite): ts.Expression => {
    const literal = jsonExpression(factory, site.info as unknown as Record<string, unknown>) as ts.ObjectLiteralExpression;
    if (site.prepare.length === 0) return literal;
    return factory.updateObjectLiteralExpression(literal, [
      ...literal.properties,
      factory.createPropertyAssignment('prepare', factory.createArrayLiteralExpression(site.prepare.map(preparer))),
    ]);
  };

  const visit = (node: ts.Node): ts.Node => {
    const visited = ts.visitEachChild(node, visit, context);
    const site = byNode.get(ts.getOriginalNode(node));
    if (site === undefined) return visited;
    if (site.kind === 'baseTool') {
      const member = factory.createPropertyDeclaration(
        [factory.createModifier(ts.SyntaxKind.StaticKeyword)],
        factory.createComputedPropertyName(
          factory.createCallExpression(factory.createPropertyAccessExpression(factory.createIdentifier('Symbol'), 'for'), undefined, [factory.createStringLiteral(BUILD_INFO_KEY)]),
        ),
        undefined,
        undefined,
        buildInfo(site),
      );
      if (ts.isClassDeclaration(visited)) {
        return factory.updateClassDeclaration(visited, visited.modifiers, visited.name, visited.typeParameters, visited.heritageClauses, [...visited.members, member]);
      }
      if (ts.isClassExpression(visited)) {
        return factory.updateClassExpression(visited, visited.modifiers, visited.name, visited.typeParameters, visited.heritageClauses, [...visited.members, member]);
      }
      return visited;
    }
    if (!ts.isCallExpression(visited)) return visited;
    const optionsAt = site.kind === 'decorator' ? 0 : site.kind === 'call' ? 1 : 2;
    const args = [...visited.arguments];
    while (args.length < optionsAt) args.push(factory.createIdentifier('undefined'));
    if (args.length === optionsAt) args.push(factory.createObjectLiteralExpression([]));
    args.push(buildInfo(site));
    return factory.updateCallExpression(visited, visited.expression, visited.typeArguments, args);
  };

  const updated = ts.visitEachChild(sourceFile, visit, context);
  if (imports.length === 0) return updated;
  return factory.updateSourceFile(updated, [...imports, ...updated.statements]);
}

function namespaceImport(factory: ts.NodeFactory, name: ts.Identifier, module: string): ts.ImportDeclaration {
  return factory.createImportDeclaration(undefined, factory.createImportClause(false, undefined, factory.createNamespaceImport(name)), factory.createStringLiteral(module));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as an expression (object and array literals), so the runtime reads no second file. */
export function jsonExpression(factory: ts.NodeFactory, value: unknown): ts.Expression {
  if (value === null) return factory.createNull();
  if (value === true) return factory.createTrue();
  if (value === false) return factory.createFalse();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return factory.createNull();
    return value < 0 || Object.is(value, -0)
      ? factory.createPrefixUnaryExpression(ts.SyntaxKind.MinusToken, factory.createNumericLiteral(String(-value)))
      : factory.createNumericLiteral(String(value));
  }
  if (typeof value === 'string') return factory.createStringLiteral(value);
  if (Array.isArray(value)) return factory.createArrayLiteralExpression(value.map((v) => jsonExpression(factory, v)));
  if (typeof value === 'object') {
    const properties = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => factory.createPropertyAssignment(IDENTIFIER.test(k) ? factory.createIdentifier(k) : factory.createStringLiteral(k), jsonExpression(factory, v)));
    return factory.createObjectLiteralExpression(properties, false);
  }
  return factory.createIdentifier('undefined');
}

export type { BuildInfoData };
