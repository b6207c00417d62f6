import type * as TS from 'typescript';
import { activeTypeScript, programTypeScript, shippedTypeScript, ts, withTypeScript } from '../typescript.js';
import { keptDecoratorDiagnostic } from './kept-decorators.js';
import { analyzeFile, type BuildInfoData, type PreparerSpec, type ToolSite } from './tool-sites.js';

/** Where the build step's run-time helpers live (imported only by files that need them). */
export const RUNTIME_MODULE = '@anytool/core/runtime';
const RUNTIME_NAME = '__anytool_runtime';
const BUILD_INFO_KEY = 'anytool.buildInfo';

/**
 * The transformer with an explicit diagnostics handler. The public
 * `anytoolTransformer` wraps it; the build command uses it directly, so the
 * command line never loads the run-time package.
 *
 * `typescript` is the TypeScript that made the program (found from the
 * program when not given); every file is analysed and rewritten with it.
 */
export function createTransformer(
  program: TS.Program | (() => TS.Program),
  onDiagnostics: (diagnostics: readonly TS.Diagnostic[]) => void,
  typescript?: typeof TS,
): TS.TransformerFactory<TS.SourceFile> {
  const getProgram = typeof program === 'function' ? program : () => program;
  let host = typescript;
  return (context) => (sourceFile) => {
    const current = getProgram();
    host ??= programTypeScript(current, 'anytoolTransformer');
    return withTypeScript(host, () => transformFile(current, sourceFile, context, onDiagnostics));
  };
}

function transformFile(
  program: TS.Program,
  sourceFile: TS.SourceFile,
  context: TS.TransformationContext,
  onDiagnostics: (diagnostics: readonly TS.Diagnostic[]) => void,
): TS.SourceFile {
  const original = ts.getOriginalNode(sourceFile, ts.isSourceFile) ?? sourceFile;
  if (original.isDeclarationFile) return sourceFile;
  const parsed = program.getSourceFile(original.fileName);
  if (parsed === undefined || parsed !== original) return sourceFile;
  const { sites, diagnostics } = analyzeFile(program, original);
  const kept = keptDecoratorDiagnostic(program.getCompilerOptions(), original);
  if (kept !== undefined) diagnostics.push(kept);
  if (diagnostics.length > 0) onDiagnostics(diagnostics);
  if (sites.length === 0) return sourceFile;
  const byNode = new Map<TS.Node, ToolSite>(sites.map((s) => [s.node, s]));
  return rewrite(sourceFile, (original) => byNode.get(original), context);
}

/** Formats diagnostics like tsc does: `file(line,col): error ANYTOOL91001: message`. */
export function formatAnytoolDiagnostics(diagnostics: readonly TS.Diagnostic[]): string {
  return withTypeScript(activeTypeScript() ?? shippedTypeScript(), () => {
    const text = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ts.sys.getCurrentDirectory(),
      getNewLine: () => '\n',
    });
    return text.replace(/ TS(910\d\d):/g, ' ANYTOOL$1:');
  });
}

/**
 * Passes each tool site's build information into its decorator, call or class.
 * `siteOf` finds the site of a node as parsed (the original of a transformed node).
 */
export function rewrite(sourceFile: TS.SourceFile, siteOf: (original: TS.Node) => ToolSite | undefined, context: TS.TransformationContext): TS.SourceFile {
  const factory = context.factory;
  const imports: TS.ImportDeclaration[] = [];
  const importNames = new Map<string, TS.Identifier>();
  let runtime: TS.Identifier | undefined;
  const runtimeIdentifier = (): TS.Identifier => {
    if (runtime === undefined) {
      runtime = factory.createIdentifier(RUNTIME_NAME);
      imports.push(namespaceImport(factory, runtime, RUNTIME_MODULE));
    }
    return runtime;
  };
  const moduleIdentifier = (module: string): TS.Identifier => {
    let id = importNames.get(module);
    if (id === undefined) {
      id = factory.createIdentifier(`__anytool_import_${importNames.size}`);
      importNames.set(module, id);
      imports.push(namespaceImport(factory, id, module));
    }
    return id;
  };
  const preparer = (spec: PreparerSpec): TS.Expression => {
    if (spec.kind === 'dates') {
      return factory.createCallExpression(factory.createPropertyAccessExpression(runtimeIdentifier(), 'revive'), undefined, [
        jsonExpression(factory, spec.plan),
      ]);
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
  const buildInfo = (site: ToolSite): TS.Expression => {
    const literal = jsonExpression(factory, site.info as unknown as Record<string, unknown>) as TS.ObjectLiteralExpression;
    if (site.prepare.length === 0) return literal;
    return factory.updateObjectLiteralExpression(literal, [
      ...literal.properties,
      factory.createPropertyAssignment('prepare', factory.createArrayLiteralExpression(site.prepare.map(preparer))),
    ]);
  };

  const visit = (node: TS.Node): TS.Node => {
    const visited = ts.visitEachChild(node, visit, context);
    const site = siteOf(ts.getOriginalNode(node));
    if (site === undefined) return visited;
    if (site.kind === 'baseTool') {
      const member = factory.createPropertyDeclaration(
        [factory.createModifier(ts.SyntaxKind.StaticKeyword)],
        factory.createComputedPropertyName(
          factory.createCallExpression(factory.createPropertyAccessExpression(factory.createIdentifier('Symbol'), 'for'), undefined, [
            factory.createStringLiteral(BUILD_INFO_KEY),
          ]),
        ),
        undefined,
        undefined,
        buildInfo(site),
      );
      if (ts.isClassDeclaration(visited)) {
        return factory.updateClassDeclaration(visited, visited.modifiers, visited.name, visited.typeParameters, visited.heritageClauses, [
          ...visited.members,
          member,
        ]);
      }
      if (ts.isClassExpression(visited)) {
        return factory.updateClassExpression(visited, visited.modifiers, visited.name, visited.typeParameters, visited.heritageClauses, [
          ...visited.members,
          member,
        ]);
      }
      return visited;
    }
    if (!ts.isCallExpression(visited)) return visited;
    if (site.kind === 'schema')
      return factory.updateCallExpression(visited, visited.expression, visited.typeArguments, [jsonExpression(factory, site.info.parameters)]);
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

function namespaceImport(factory: TS.NodeFactory, name: TS.Identifier, module: string): TS.ImportDeclaration {
  return factory.createImportDeclaration(
    undefined,
    factory.createImportClause(false, undefined, factory.createNamespaceImport(name)),
    factory.createStringLiteral(module),
  );
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as an expression (object and array literals), so the runtime reads no second file. */
export function jsonExpression(factory: TS.NodeFactory, value: unknown): TS.Expression {
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
      .map(([k, v]) =>
        factory.createPropertyAssignment(IDENTIFIER.test(k) ? factory.createIdentifier(k) : factory.createStringLiteral(k), jsonExpression(factory, v)),
      );
    return factory.createObjectLiteralExpression(properties, false);
  }
  return factory.createIdentifier('undefined');
}

export type { BuildInfoData };
