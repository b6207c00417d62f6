import type * as TS from 'typescript';
import type { JsonSchema } from '@anytool/core';
import { exampleProblems } from '@anytool/core/internal';
import { JsDocReader } from '../schema/jsdoc.js';
import { readExamples } from '../schema/jsdoc-examples.js';
import type { RevivalPlan } from '@anytool/core/runtime';
import { revivalPlan, stripMarks } from '../schema/revival-plan.js';
import { TypeSchemaWalker, includesUndefined, type TypeIssue } from '../schema/type-to-schema.js';
import { programTypeScript, ts, withTypeScript } from '../typescript.js';
import { inferContextUse, type ContextUse } from './context-use.js';
import { FrameworkSymbols } from './framework-symbols.js';

/** The JSON part of a tool's build information (what `anytool schema` prints). */
export interface BuildInfoData {
  /**
   * The tool's name as written, when no option gives one: the function's own, or for
   * `const x = tool(<anonymous function>)` the variable's; a class's for a BaseTool subclass.
   */
  name?: string;
  description?: string;
  parameters: JsonSchema;
  paramNames?: string[];
  contextIndex?: number;
  /** What the code uses of its context parameter (state keys written as literals, events, progress), when more than the signal. */
  context?: ContextUse;
  outputSchema?: JsonSchema;
  /** The arguments objects of the tool's `@example` blocks, each valid against `parameters`. */
  examples?: Record<string, unknown>[];
}

/** Where the emitted code finds a class to validate with class-validator. */
export type ClassReference = { kind: 'local'; name: string } | { kind: 'import'; module: string; exportName: string };

/** A step run on the validated arguments before the call. */
export type PreparerSpec = { kind: 'dates'; plan: RevivalPlan } | { kind: 'validate'; at: string; each?: boolean; label: string; reference: ClassReference };

/** One place in a source file that declares a tool, and what the build step passes to it. */
export interface ToolSite {
  /** `schema`: not a tool, a `schemaOf<T>()` call, given the schema of `T` (`info.parameters`) as its argument. */
  kind: 'decorator' | 'call' | 'defineTool' | 'baseTool' | 'schema';
  /** The call that receives the build information, or the BaseTool subclass. */
  node: TS.CallExpression | TS.ClassLikeDeclaration;
  /** The tool's name as the runtime will see it (best effort, for `anytool schema`). */
  name: string;
  /** `Weather.getWeather`, `tool(searchWeb)`, `class Clock`: for messages. */
  label: string;
  info: BuildInfoData;
  prepare: PreparerSpec[];
}

export interface SourceAnalysis {
  sites: ToolSite[];
  diagnostics: TS.Diagnostic[];
}

/** Diagnostic codes of the anytool build step. */
export const DiagnosticCode = {
  UnsupportedType: 91001,
  ImpreciseType: 91002,
  UnsupportedParameter: 91003,
  NotValidatedAtRunTime: 91004,
  UnresolvedTool: 91005,
  UnsupportedTypeScript: 91006,
  DecoratorsNotLowered: 91007,
  InvalidExample: 91008,
} as const;

interface ProgramTools {
  checker: TS.TypeChecker;
  symbols: FrameworkSymbols;
  jsdoc: JsDocReader;
}

const perProgram = new WeakMap<TS.Program, ProgramTools>();

function toolsFor(program: TS.Program): ProgramTools {
  let tools = perProgram.get(program);
  if (tools === undefined) {
    const checker = program.getTypeChecker();
    tools = { checker, symbols: new FrameworkSymbols(checker), jsdoc: new JsDocReader(checker) };
    perProgram.set(program, tools);
  }
  return tools;
}

type FunctionLike = TS.FunctionDeclaration | TS.FunctionExpression | TS.ArrowFunction | TS.MethodDeclaration;

/**
 * Finds every tool declared in a source file (`@Tool` methods, `tool(fn)` and
 * `defineTool(...)` calls, `class X extends BaseTool<Args>`) and computes its
 * build information from the program's types. Problems come back as diagnostics.
 */
export function analyzeSourceFile(program: TS.Program, sourceFile: TS.SourceFile): SourceAnalysis {
  return withTypeScript(programTypeScript(program, 'analyzeSourceFile'), () => analyzeFile(program, sourceFile));
}

/** `analyzeSourceFile` with the TypeScript already chosen (the caller runs it in `withTypeScript`). */
export function analyzeFile(program: TS.Program, sourceFile: TS.SourceFile): SourceAnalysis {
  return new SourceAnalyzer(toolsFor(program), sourceFile).run();
}

class SourceAnalyzer {
  private readonly sites: ToolSite[] = [];
  private readonly diagnostics: TS.Diagnostic[] = [];
  private readonly checker: TS.TypeChecker;
  private readonly symbols: FrameworkSymbols;
  /** Local names bound by value imports: only calls through them can reach a framework function. */
  private readonly imported = new Set<string>();

  constructor(
    private readonly tools: ProgramTools,
    private readonly sourceFile: TS.SourceFile,
  ) {
    this.checker = tools.checker;
    this.symbols = tools.symbols;
  }

  run(): SourceAnalysis {
    for (const statement of this.sourceFile.statements) {
      const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
      if (clause === undefined || clause.isTypeOnly) continue;
      if (clause.name !== undefined) this.imported.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) this.imported.add(bindings.name.text);
      else if (bindings !== undefined) for (const element of bindings.elements) if (!element.isTypeOnly) this.imported.add(element.name.text);
    }
    // Framework functions come in through imports: a file importing nothing has no tools to find.
    if (this.imported.size === 0) return { sites: this.sites, diagnostics: this.diagnostics };
    const visit = (node: TS.Node): void => {
      if (ts.isDecorator(node)) this.decorator(node);
      else if (ts.isCallExpression(node)) this.call(node);
      else if (ts.isClassLike(node)) this.baseToolClass(node);
      ts.forEachChild(node, visit);
    };
    visit(this.sourceFile);
    return { sites: this.sites, diagnostics: this.diagnostics };
  }

  /** Whether `expression` (`name` or `ns.name`) starts at an imported binding; checked before asking the checker. */
  private viaImport(expression: TS.Expression): boolean {
    let head: TS.Expression = expression;
    while (ts.isPropertyAccessExpression(head)) head = head.expression;
    return ts.isIdentifier(head) && this.imported.has(head.text);
  }

  private decorator(decorator: TS.Decorator): void {
    const call = decorator.expression;
    if (!ts.isCallExpression(call) || call.arguments.length > 1) return;
    const method = decorator.parent;
    if (!ts.isMethodDeclaration(method) || !this.viaImport(call.expression)) return;
    if (this.symbols.coreNameAt(call.expression) !== 'Tool') return;
    if (hasExplicitParameters(call.arguments[0])) return;
    const className = ts.isClassLike(method.parent) ? (method.parent.name?.text ?? '(anonymous class)') : '(anonymous class)';
    const methodName = propertyNameText(method.name) ?? '(computed)';
    const label = `${className}.${methodName}`;
    this.functionSite('decorator', call, method, label, optionName(call.arguments[0]) ?? methodName);
  }

  private call(call: TS.CallExpression): void {
    if (!this.viaImport(call.expression)) return;
    const kind = this.symbols.coreNameAt(call.expression);
    if (kind === 'tool') {
      if (call.arguments.length === 0 || call.arguments.length > 2 || hasExplicitParameters(call.arguments[1])) return;
      // The object form, tool({ name, description, parameters, execute }), brings its own schema.
      if (ts.isObjectLiteralExpression(call.arguments[0]!)) return;
      const fn = this.resolveFunction(call.arguments[0]!);
      if (fn === undefined) {
        // Without build information the tool has no parameter schema and fails when it is registered.
        const options = call.arguments[1];
        const definite = options === undefined || ts.isObjectLiteralExpression(options);
        const text = `tool(${call.arguments[0]!.getText()}): the build step cannot find this function's declaration with a body in the program, so it cannot generate its schema${definite ? ' and the tool will fail when it is registered' : ' (unless the options you pass give `parameters`)'}; pass a function declared in this project by name, a function expression or an arrow function (tool((a: A) => obj.method(a)) for a method), use @Tool() or defineTool() for methods, or give { parameters } yourself`;
        if (definite) this.error(call.arguments[0]!, DiagnosticCode.UnresolvedTool, text);
        else this.warning(call.arguments[0]!, DiagnosticCode.UnresolvedTool, text);
        return;
      }
      // An inline anonymous function has no name at run time: the variable it is assigned to names the tool.
      const variable = fn === unwrap(call.arguments[0]!) && fn.name === undefined ? variableName(call) : undefined;
      const fnName = variable ?? functionName(call.arguments[0]!, fn);
      const explicit = optionName(call.arguments[1]);
      // The name as written goes into the build information too: a bundler or minifier may rename the function.
      this.functionSite('call', call, fn, `tool(${fnName})`, explicit ?? fnName, call, explicit === undefined ? (variable ?? writtenName(fn)) : undefined);
    } else if (kind === 'schemaOf') {
      this.schemaSite(call);
    } else if (kind === 'defineTool') {
      if (call.arguments.length < 2 || call.arguments.length > 3 || hasExplicitParameters(call.arguments[2])) return;
      const [target, key] = call.arguments;
      if (target === undefined || key === undefined || !ts.isStringLiteralLike(key)) return;
      const classSymbol = this.resolveAlias(this.checker.getSymbolAtLocation(target));
      const classDeclaration = classSymbol?.declarations?.find(ts.isClassLike);
      const method = classDeclaration?.members.find(
        (m): m is TS.MethodDeclaration => ts.isMethodDeclaration(m) && propertyNameText(m.name) === key.text && m.body !== undefined,
      );
      if (method === undefined) return;
      const label = `${classDeclaration?.name?.text ?? '(anonymous class)'}.${key.text}`;
      this.functionSite('defineTool', call, method, label, optionName(call.arguments[2]) ?? key.text);
    }
  }

  /** `schemaOf<T>()`: the schema of `T` becomes the call's argument (a call that passes one is left as it is). */
  private schemaSite(call: TS.CallExpression): void {
    if (call.arguments.length > 0) return;
    const typeNode = call.typeArguments?.[0];
    const label = `schemaOf<${typeNode?.getText() ?? ''}>()`;
    if (typeNode === undefined) {
      this.error(call, DiagnosticCode.UnsupportedParameter, `${label}: name the type whose schema you want, as in schemaOf<Itinerary>()`);
      return;
    }
    const walker = new TypeSchemaWalker(this.checker, this.tools.jsdoc, this.symbols);
    const parameters = walker.schemaOf(this.checker.getTypeFromTypeNode(typeNode), [], typeNode);
    this.report(walker.walk.issues, typeNode, (path) => `${label}: the type${path === '' ? '' : ` at ${path}`}`);
    addDefs(parameters, walker);
    this.sites.push({ kind: 'schema', node: call, name: label, label, info: { parameters }, prepare: [] });
  }

  private baseToolClass(node: TS.ClassLikeDeclaration): void {
    const heritage = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    if (heritage === undefined || !this.viaImport(heritage.expression) || this.symbols.coreNameAt(heritage.expression) !== 'BaseTool') return;
    const argsNode = heritage.typeArguments?.[0];
    if (argsNode === undefined) return;
    const className = node.name?.text ?? '(anonymous class)';
    const label = `class ${className}`;
    const walker = new TypeSchemaWalker(this.checker, this.tools.jsdoc, this.symbols);
    const parameters = walker.schemaOf(this.checker.getTypeFromTypeNode(argsNode), [], argsNode);
    this.report(walker.walk.issues, argsNode, (path) => `${label}: its arguments type (BaseTool<${argsNode.getText()}>)${path === '' ? '' : ` at ${path}`}`);
    if (parameters['type'] !== 'object') {
      this.error(
        argsNode,
        DiagnosticCode.UnsupportedParameter,
        `${label}: BaseTool<Args> needs an object type for Args (one property per argument), got ${argsNode.getText()}`,
      );
      return;
    }
    addDefs(parameters, walker);
    const description = this.docOf(node.name === undefined ? undefined : this.checker.getSymbolAtLocation(node.name));
    const info: BuildInfoData = description === undefined ? { parameters } : { description, parameters };
    // The class's name as written: a bundler or minifier may rename the class.
    if (node.name !== undefined) info.name = node.name.text;
    const classSymbol = node.name === undefined ? undefined : this.checker.getSymbolAtLocation(node.name);
    this.addExamples(info, classSymbol?.getJsDocTags(this.checker) ?? [], label, node.name ?? node);
    const execute = node.members.find((m): m is TS.MethodDeclaration => ts.isMethodDeclaration(m) && propertyNameText(m.name) === 'execute');
    const output = execute === undefined ? undefined : this.outputSchema(execute, `${label}: execute()`);
    if (output !== undefined) info.outputSchema = output;
    const contextParameter = execute?.parameters[0];
    const use = contextParameter === undefined ? undefined : inferContextUse(this.checker, execute!.body, contextParameter);
    if (use !== undefined) info.context = use;
    const prepare = this.preparers(walker, parameters, true, label, argsNode);
    this.sites.push({ kind: 'baseTool', node, name: className, label, info, prepare });
  }

  private functionSite(
    kind: ToolSite['kind'],
    call: TS.CallExpression,
    fn: FunctionLike,
    label: string,
    name: string,
    docFallback?: TS.Node,
    variable?: string,
  ): void {
    const walker = new TypeSchemaWalker(this.checker, this.tools.jsdoc, this.symbols);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const paramNames: string[] = [];
    let contextIndex: number | undefined;
    let flattened = false;
    let failed = false;
    const parameters = fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this'));
    const data = parameters.filter((p, i) => {
      if (this.isContextParameter(p)) {
        if (contextIndex !== undefined) {
          this.error(
            p,
            DiagnosticCode.UnsupportedParameter,
            `${label}: parameter ${p.name.getText()} is a second context parameter (parameter ${parameters[contextIndex]!.name.getText()} already is one); a tool receives one ExecutionContext, so keep one context parameter`,
          );
          failed = true;
        } else contextIndex = i;
        return false;
      }
      return true;
    });
    let schema: JsonSchema | undefined;
    for (const parameter of data) {
      const type = this.checker.getTypeAtLocation(parameter);
      if (parameter.dotDotDotToken !== undefined) {
        this.error(
          parameter,
          DiagnosticCode.UnsupportedParameter,
          `${label}: rest parameter ${parameter.name.getText()} cannot be an argument; take an array parameter (items: T[]) instead`,
        );
        failed = true;
        continue;
      }
      if (ts.isArrayBindingPattern(parameter.name)) {
        this.error(
          parameter,
          DiagnosticCode.UnsupportedParameter,
          `${label}: an array destructuring pattern (${parameter.name.getText()}) is not supported as a parameter, since arguments are named properties; name the parameter (pair: [string, number]) and destructure it in the body`,
        );
        failed = true;
        continue;
      }
      if (!ts.isIdentifier(parameter.name)) {
        if (data.length !== 1 || !ts.isObjectBindingPattern(parameter.name)) {
          this.error(
            parameter,
            DiagnosticCode.UnsupportedParameter,
            `${label}: a destructured parameter must be the tool's only (non-context) parameter, so its properties become the arguments; give it a name instead`,
          );
          failed = true;
          continue;
        }
        const issuesBefore = walker.walk.issues.length;
        schema = { ...walker.schemaOf(type, [], parameter.type) };
        this.report(walker.walk.issues.slice(issuesBefore), parameter, (path) => `${label}: destructured parameter${path === '' ? '' : ` property ${path}`}`);
        if (schema['type'] !== 'object' || typeof schema['properties'] !== 'object') {
          this.error(
            parameter,
            DiagnosticCode.UnsupportedParameter,
            `${label}: a destructured parameter needs an object type (got ${this.checker.typeToString(type)})`,
          );
          failed = true;
          continue;
        }
        applyBindingDefaults(parameter.name, schema, this.checker);
        paramNames.push('*');
        flattened = true;
        continue;
      }
      const paramName = parameter.name.text;
      const issuesBefore = walker.walk.issues.length;
      const property = { ...walker.schemaOf(type, [paramName], parameter.type) };
      this.report(walker.walk.issues.slice(issuesBefore), parameter, (path) => `${label}: parameter ${path}`);
      const description = parameterDoc(parameter) ?? variableParameterDoc(fn, paramName);
      if (description !== undefined) property['description'] = description;
      if (parameter.initializer !== undefined) {
        const value = literalValue(parameter.initializer, this.checker);
        if (value !== undefined) property['default'] = value;
      }
      properties[paramName] = property;
      paramNames.push(paramName);
      if (parameter.questionToken === undefined && parameter.initializer === undefined && !includesUndefined(type)) required.push(paramName);
    }
    if (failed || walker.walk.issues.some((i) => i.severity === 'error')) return;
    if (!flattened) {
      schema = { type: 'object', properties };
      if (required.length > 0) schema['required'] = required;
      schema['additionalProperties'] = false;
    }
    addDefs(schema!, walker);
    const description = this.functionDoc(fn, docFallback);
    const info: BuildInfoData = description === undefined ? { parameters: schema!, paramNames } : { description, parameters: schema!, paramNames };
    if (variable !== undefined) info.name = variable;
    if (contextIndex !== undefined) {
      info.contextIndex = contextIndex;
      const use = inferContextUse(this.checker, fn.body, parameters[contextIndex]!);
      if (use !== undefined) info.context = use;
    }
    const output = this.outputSchema(fn, label);
    if (output !== undefined) info.outputSchema = output;
    this.addExamples(info, this.functionTags(fn, docFallback), label, fn);
    const prepare = this.preparers(walker, schema!, flattened, label, fn);
    this.sites.push({ kind, node: call, name, label, info, prepare });
  }

  private isContextParameter(parameter: TS.ParameterDeclaration): boolean {
    for (const decorator of ts.getDecorators(parameter) ?? []) {
      const callee = ts.isCallExpression(decorator.expression) ? decorator.expression.expression : decorator.expression;
      if (this.symbols.coreNameAt(callee) === 'Context') return true;
    }
    return this.symbols.isExecutionContext(this.checker.getTypeAtLocation(parameter));
  }

  /**
   * The output schema of an object return type, or of a union of object types
   * (`{ type: 'object', anyOf: [...] }`, as MCP wants an object at the root).
   * Parts with no JSON form drop the output schema with a warning (the result
   * is still sent as content); other return types have none.
   */
  private outputSchema(fn: FunctionLike, label: string): JsonSchema | undefined {
    const signature = this.checker.getSignatureFromDeclaration(fn);
    if (signature === undefined) return undefined;
    const returned = this.checker.getReturnTypeOfSignature(signature);
    const awaited = this.checker.getAwaitedType(returned) ?? returned;
    if (this.symbols.mentionsToolResult(awaited)) return undefined;
    const walker = new TypeSchemaWalker(this.checker, this.tools.jsdoc, this.symbols);
    const members = awaited.isUnion() && !(awaited.flags & ts.TypeFlags.EnumLiteral) ? awaited.types : [awaited];
    if (!members.every((m) => walker.isPlainObjectType(m))) return undefined;
    let schema = walker.schemaOf(awaited, []);
    const at = fn.type ?? fn.name ?? fn;
    const typeText = this.checker.typeToString(awaited);
    for (const issue of walker.walk.issues) {
      const where = issue.path.length === 0 ? '' : ` at ${issue.path.join('.').replace(/\.\[\]/g, '[]')} (${issue.typeText})`;
      const consequence =
        issue.severity === 'error'
          ? 'so the tool gets no output schema (its result is still sent as content)'
          : 'so that part of the output schema accepts any JSON value';
      this.warning(at, DiagnosticCode.ImpreciseType, `${label}: return type ${typeText}${where}: ${issue.message}; ${consequence}`);
    }
    if (walker.walk.issues.some((i) => i.severity === 'error')) return undefined;
    if (Array.isArray(schema['anyOf'])) schema = { type: 'object', anyOf: schema['anyOf'] };
    if (schema['type'] !== 'object') {
      this.warning(
        at,
        DiagnosticCode.ImpreciseType,
        `${label}: return type ${typeText} is a recursive union, which has no output schema here (its result is still sent as content); return an object type that holds it`,
      );
      return undefined;
    }
    addDefs(schema, walker);
    stripMarks(schema);
    return schema;
  }

  private preparers(walker: TypeSchemaWalker, parameters: JsonSchema, flattened: boolean, label: string, at: TS.Node): PreparerSpec[] {
    const out: PreparerSpec[] = [];
    const plan = revivalPlan(parameters);
    if (plan !== undefined) out.push({ kind: 'dates', plan });
    for (const validated of walker.validatedClasses) {
      const className = validated.declaration.name?.text ?? '(anonymous class)';
      const path = validated.path;
      // Validated at run time: the flattened arguments object, a parameter typed with the class, or an array of it.
      const place = flattened
        ? path.length === 0
          ? { at: '*', each: false }
          : undefined
        : path.length === 1
          ? { at: path[0]!, each: false }
          : path.length === 2 && path[1] === '[]'
            ? { at: path[0]!, each: true }
            : undefined;
      if (place === undefined) {
        const where = path.join('.').replace(/\.\[\]/g, '[]');
        this.warning(
          at,
          DiagnosticCode.NotValidatedAtRunTime,
          `${label}: class ${className} at ${where} has class-validator decorators, but only a parameter typed with the class (or an array of it) becomes an instance validated by class-validator; here only the constraints with a JSON Schema form are checked (by the schema), the others are not; take it as its own parameter, or validate it in the tool`,
        );
        continue;
      }
      const reference = this.classReference(validated.declaration);
      if (reference === undefined) {
        this.warning(
          at,
          DiagnosticCode.NotValidatedAtRunTime,
          `${label}: class ${className} has class-validator constraints but is not imported as a value in this file, so they are only in the schema and not checked at run time; import { ${className} } from its module`,
        );
        continue;
      }
      const spec: PreparerSpec = { kind: 'validate', at: place.at, label: `${label}: ${className}`, reference };
      if (place.each) spec.each = true;
      out.push(spec);
    }
    return out;
  }

  /** How this file can reach a class at run time: declared here, or imported (possibly only as a type). */
  private classReference(declaration: TS.ClassDeclaration): ClassReference | undefined {
    const name = declaration.name?.text;
    if (name === undefined) return undefined;
    if (declaration.getSourceFile() === this.sourceFile) return declaration.parent === this.sourceFile ? { kind: 'local', name } : undefined;
    const target = this.checker.getSymbolAtLocation(declaration.name!);
    for (const statement of this.sourceFile.statements) {
      if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || statement.importClause === undefined) continue;
      const module = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      if (clause.name !== undefined && this.resolveAlias(this.checker.getSymbolAtLocation(clause.name)) === target)
        return { kind: 'import', module, exportName: 'default' };
      const bindings = clause.namedBindings;
      if (bindings !== undefined && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if (this.resolveAlias(this.checker.getSymbolAtLocation(element.name)) === target)
            return { kind: 'import', module, exportName: (element.propertyName ?? element.name).text };
        }
      } else if (bindings !== undefined && ts.isNamespaceImport(bindings)) {
        const moduleSymbol = this.resolveAlias(this.checker.getSymbolAtLocation(bindings.name));
        const exported = moduleSymbol === undefined ? [] : this.checker.getExportsOfModule(moduleSymbol);
        const match = exported.find((e) => this.resolveAlias(e) === target);
        if (match !== undefined) return { kind: 'import', module, exportName: match.getName() };
      }
    }
    return undefined;
  }

  private resolveFunction(expression: TS.Expression): FunctionLike | undefined {
    const node = unwrap(expression);
    if (ts.isFunctionExpression(node) || ts.isArrowFunction(node)) return node;
    if (ts.isIdentifier(node)) {
      const symbol = this.resolveAlias(this.checker.getSymbolAtLocation(node));
      // An overloaded function: its first declaration is an overload without a body; take the implementation.
      const implementation = symbol?.declarations?.find((d): d is TS.FunctionDeclaration => ts.isFunctionDeclaration(d) && d.body !== undefined);
      if (implementation !== undefined) return implementation;
      const declaration = symbol?.valueDeclaration;
      if (declaration === undefined) return undefined;
      if (ts.isVariableDeclaration(declaration) && declaration.initializer !== undefined) {
        const init = declaration.initializer;
        if (ts.isFunctionExpression(init) || ts.isArrowFunction(init)) return init;
      }
    }
    return undefined;
  }

  private resolveAlias(symbol: TS.Symbol | undefined): TS.Symbol | undefined {
    return symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  private functionDoc(fn: FunctionLike, fallback: TS.Node | undefined): string | undefined {
    const signature = this.checker.getSignatureFromDeclaration(fn);
    const own = signature === undefined ? '' : ts.displayPartsToString(signature.getDocumentationComment(this.checker)).trim();
    if (own !== '') return own;
    if (fn.name !== undefined && ts.isIdentifier(fn.name)) {
      const named = this.docOf(this.checker.getSymbolAtLocation(fn.name));
      if (named !== undefined) return named;
    }
    // `/** doc */ export const search = tool(...)`: the variable's JSDoc describes the tool.
    let up: TS.Node | undefined = fallback?.parent;
    while (up !== undefined && (ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isSatisfiesExpression(up))) up = up.parent;
    if (up !== undefined && ts.isVariableDeclaration(up) && ts.isIdentifier(up.name)) return this.docOf(this.checker.getSymbolAtLocation(up.name));
    if (ts.isFunctionExpression(fn) || ts.isArrowFunction(fn)) {
      const parent = fn.parent;
      if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return this.docOf(this.checker.getSymbolAtLocation(parent.name));
    }
    return undefined;
  }

  /** The JSDoc tags of the comment `functionDoc` reads the description from. */
  private functionTags(fn: FunctionLike, fallback: TS.Node | undefined): readonly TS.JSDocTagInfo[] {
    const signature = this.checker.getSignatureFromDeclaration(fn);
    if (signature !== undefined && ts.displayPartsToString(signature.getDocumentationComment(this.checker)).trim() !== '') return signature.getJsDocTags();
    const symbols: Array<TS.Symbol | undefined> = [];
    if (fn.name !== undefined && ts.isIdentifier(fn.name)) symbols.push(this.checker.getSymbolAtLocation(fn.name));
    let up: TS.Node | undefined = fallback?.parent;
    while (up !== undefined && (ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isSatisfiesExpression(up))) up = up.parent;
    if (up !== undefined && ts.isVariableDeclaration(up) && ts.isIdentifier(up.name)) symbols.push(this.checker.getSymbolAtLocation(up.name));
    if ((ts.isFunctionExpression(fn) || ts.isArrowFunction(fn)) && ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name))
      symbols.push(this.checker.getSymbolAtLocation(fn.parent.name));
    const documented = symbols.find((symbol) => this.docOf(symbol) !== undefined);
    return documented?.getJsDocTags(this.checker) ?? signature?.getJsDocTags() ?? [];
  }

  /** The `@example` arguments objects of the tool into `info`, each checked against its parameters: one that does not fit is a build error. */
  private addExamples(info: BuildInfoData, tags: readonly TS.JSDocTagInfo[], label: string, node: TS.Node): void {
    if (!tags.some((tag) => tag.name === 'example')) return;
    const { examples, numbers, problems: unread } = readExamples(tags);
    const problems = [
      ...unread,
      ...examples.flatMap((example, i) =>
        exampleProblems([example], info.parameters, label, [numbers[i]!]).map((text) => ({ number: numbers[i]!, text: `its @${text}` })),
      ),
    ].sort((a, b) => a.number - b.number);
    for (const { text } of problems)
      this.error(node, DiagnosticCode.InvalidExample, `${label}: ${text}. Fix the @example (the model learns from it), or write it as code if it is not one`);
    if (problems.length === 0 && examples.length > 0) info.examples = examples;
  }

  private docOf(symbol: TS.Symbol | undefined): string | undefined {
    if (symbol === undefined) return undefined;
    const text = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
    return text === '' ? undefined : text;
  }

  private report(issues: readonly TypeIssue[], node: TS.Node, where: (path: string) => string): void {
    for (const issue of issues) {
      const path = issue.path.join('.').replace(/\.\[\]/g, '[]');
      const text = `${where(path)} has type ${issue.typeText}: ${issue.message}`;
      if (issue.severity === 'error') this.error(node, DiagnosticCode.UnsupportedType, text);
      else this.warning(node, DiagnosticCode.ImpreciseType, text);
    }
  }

  private error(node: TS.Node, code: number, text: string): void {
    this.diagnostics.push(diagnostic(this.sourceFile, node, ts.DiagnosticCategory.Error, code, text));
  }

  private warning(node: TS.Node, code: number, text: string): void {
    this.diagnostics.push(diagnostic(this.sourceFile, node, ts.DiagnosticCategory.Warning, code, text));
  }
}

function diagnostic(file: TS.SourceFile, node: TS.Node, category: TS.DiagnosticCategory, code: number, messageText: string): TS.Diagnostic {
  const start = node.getStart(file);
  return { file, start, length: node.getEnd() - start, category, code, messageText, source: 'anytool' };
}

function addDefs(schema: JsonSchema, walker: TypeSchemaWalker): void {
  if (Object.keys(walker.walk.defs).length > 0) schema['$defs'] = walker.walk.defs;
}

function propertyNameText(name: TS.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name) ? name.text : undefined;
}

/** Whether the options argument is an object literal that already gives `parameters`. */
function hasExplicitParameters(options: TS.Expression | undefined): boolean {
  return (
    options !== undefined &&
    ts.isObjectLiteralExpression(options) &&
    options.properties.some((p) => p.name !== undefined && propertyNameText(p.name) === 'parameters')
  );
}

function optionName(options: TS.Expression | undefined): string | undefined {
  if (options === undefined || !ts.isObjectLiteralExpression(options)) return undefined;
  for (const p of options.properties) {
    if (ts.isPropertyAssignment(p) && propertyNameText(p.name) === 'name' && ts.isStringLiteralLike(p.initializer)) return p.initializer.text;
  }
  return undefined;
}

function functionName(expression: TS.Expression, fn: FunctionLike): string {
  if (fn.name !== undefined && ts.isIdentifier(fn.name)) return fn.name.text;
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name)) return fn.parent.name.text;
  return '(anonymous)';
}

/** The name a function has at run time as written: its own, or the variable's an arrow or function expression is assigned to. */
function writtenName(fn: FunctionLike): string | undefined {
  if (fn.name !== undefined && ts.isIdentifier(fn.name)) return fn.name.text;
  if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name))
    return fn.parent.name.text;
  return undefined;
}

/** An expression without the parentheses, `as` and `satisfies` around it. */
function unwrap(expression: TS.Expression): TS.Expression {
  let node = expression;
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) node = node.expression;
  return node;
}

/** `x` in `const x = <call>` (also `export const`, and through parentheses, `as` and `satisfies`). */
function variableName(call: TS.CallExpression): string | undefined {
  let up: TS.Node = call.parent;
  while (ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isSatisfiesExpression(up)) up = up.parent;
  return ts.isVariableDeclaration(up) && ts.isIdentifier(up.name) ? up.name.text : undefined;
}

/** `@param` of `/** ... *\/ export const convert = tool(function convert(amount) {...})`: the variable's JSDoc. */
function variableParameterDoc(fn: TS.Node, name: string): string | undefined {
  let up: TS.Node = fn.parent;
  while (ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isSatisfiesExpression(up)) up = up.parent;
  if (ts.isCallExpression(up)) {
    up = up.parent;
    while (ts.isParenthesizedExpression(up) || ts.isAsExpression(up) || ts.isSatisfiesExpression(up)) up = up.parent;
  }
  if (!ts.isVariableDeclaration(up)) return undefined;
  for (const tag of ts.getJSDocTags(up)) {
    if (!ts.isJSDocParameterTag(tag) || !ts.isIdentifier(tag.name) || tag.name.text !== name) continue;
    const text = ts
      .getTextOfJSDocComment(tag.comment)
      ?.replace(/^\s*-\s*/, '')
      .trim();
    if (text) return text;
  }
  return undefined;
}

function parameterDoc(parameter: TS.ParameterDeclaration): string | undefined {
  for (const tag of ts.getJSDocParameterTags(parameter)) {
    const text = ts
      .getTextOfJSDocComment(tag.comment)
      ?.replace(/^\s*-\s*/, '')
      .trim();
    if (text) return text;
  }
  return undefined;
}

/** `{ query, limit = 3 }`: `limit` gets `default: 3` and is not required. */
function applyBindingDefaults(pattern: TS.ObjectBindingPattern, schema: JsonSchema, checker: TS.TypeChecker): void {
  const properties = schema['properties'] as Record<string, JsonSchema>;
  let required = Array.isArray(schema['required']) ? [...(schema['required'] as string[])] : [];
  for (const element of pattern.elements) {
    if (element.initializer === undefined) continue;
    const key = element.propertyName !== undefined ? propertyNameText(element.propertyName) : ts.isIdentifier(element.name) ? element.name.text : undefined;
    if (key === undefined || properties[key] === undefined) continue;
    const value = literalValue(element.initializer, checker);
    properties[key] = { ...properties[key], ...(value === undefined ? {} : { default: value }) };
    required = required.filter((r) => r !== key);
  }
  if (required.length > 0) schema['required'] = required;
  else delete schema['required'];
}

/** The JSON value of an initializer written as a literal; undefined for anything computed. */
export function literalValue(node: TS.Expression, checker: TS.TypeChecker): unknown {
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node))
    node = node.expression;
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const value = literalValue(node.operand, checker);
    return typeof value === 'number' ? -value : undefined;
  }
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (node.kind === ts.SyntaxKind.NullKeyword) return null;
  if (ts.isArrayLiteralExpression(node)) {
    const values = node.elements.map((e) => literalValue(e, checker));
    return values.includes(undefined) ? undefined : values;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = {};
    for (const p of node.properties) {
      if (!ts.isPropertyAssignment(p)) return undefined;
      const key = propertyNameText(p.name);
      const value = literalValue(p.initializer, checker);
      if (key === undefined || value === undefined) return undefined;
      out[key] = value;
    }
    return out;
  }
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
    // getConstantValue answers for const enums only; a regular enum's member has its value on its declaration.
    const value = checker.getConstantValue(node);
    if (value !== undefined) return value;
    let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node.argumentExpression);
    if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const member = symbol?.valueDeclaration;
    if (member !== undefined && ts.isEnumMember(member)) return checker.getConstantValue(member);
  }
  return undefined;
}
