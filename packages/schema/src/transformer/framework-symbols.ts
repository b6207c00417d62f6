import { dirname, join } from 'node:path';
import type * as TS from 'typescript';
import type { SymbolOracle } from '../schema/type-to-schema.js';
import { ts } from '../typescript.js';

/** The @anytool/core declarations the build step reacts to, and `schemaOf` of @anytool/agent. */
export type CoreName = 'Tool' | 'tool' | 'defineTool' | 'BaseTool' | 'ExecutionContext' | 'Context' | 'ToolResult' | 'schemaOf';
const CORE_NAMES = new Set<string>(['Tool', 'tool', 'defineTool', 'BaseTool', 'ExecutionContext', 'Context', 'ToolResult']);
const CORE_PACKAGE = '@anytool/core';
/** Names the build step fills in that live in another anytool package: `schemaOf<T>()` (an agent's output schema). */
const OTHER_NAMES: ReadonlyMap<string, string> = new Map([['schemaOf', '@anytool/agent']]);

/**
 * Recognises framework symbols through the type checker: whatever a name is
 * imported as (`import { Tool as T }`, `import * as at`), it counts when its
 * declaration lives in the @anytool/core package, and a user's own `Tool` does not.
 */
export class FrameworkSymbols implements SymbolOracle {
  private readonly packageByDir = new Map<string, string | undefined>();
  private readonly bySymbol = new Map<TS.Symbol, string | undefined>();

  constructor(private readonly checker: TS.TypeChecker) {}

  /** The core name an expression (identifier or `ns.Name`) refers to, if it is one. */
  coreNameAt(expression: TS.Expression): CoreName | undefined {
    if (!ts.isIdentifier(expression) && !(ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.name))) return undefined;
    const symbol = this.checker.getSymbolAtLocation(ts.isIdentifier(expression) ? expression : expression.name);
    return symbol === undefined ? undefined : this.coreNameOf(symbol);
  }

  /** The core name of a symbol (after following import aliases). */
  coreNameOf(symbol: TS.Symbol): CoreName | undefined {
    const resolved = symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
    const name = resolved.getName();
    const owner = CORE_NAMES.has(name) ? CORE_PACKAGE : OTHER_NAMES.get(name);
    if (owner === undefined) return undefined;
    return this.packageOfSymbol(resolved) === owner ? (name as CoreName) : undefined;
  }

  /** Whether a type is core's `ExecutionContext` (the context parameter). */
  isExecutionContext(type: TS.Type): boolean {
    const defined = this.checker.getNonNullableType(type);
    const symbol = defined.getSymbol() ?? defined.aliasSymbol;
    return symbol !== undefined && this.coreNameOf(symbol) === 'ExecutionContext';
  }

  /** Whether a type is, or is a union with, core's `ToolResult` (which gets no output schema). */
  mentionsToolResult(type: TS.Type): boolean {
    const types = type.isUnion() ? type.types : [type];
    return types.some((t) => {
      const symbol = t.aliasSymbol ?? t.getSymbol();
      return symbol !== undefined && this.coreNameOf(symbol) === 'ToolResult';
    });
  }

  isClassValidatorDecorator(decorator: TS.Decorator): string | undefined {
    const expression = ts.isCallExpression(decorator.expression) ? decorator.expression.expression : decorator.expression;
    const id = ts.isIdentifier(expression) ? expression : ts.isPropertyAccessExpression(expression) ? expression.name : undefined;
    if (id === undefined) return undefined;
    let symbol = this.checker.getSymbolAtLocation(id);
    if (symbol === undefined) return undefined;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return this.packageOfSymbol(symbol) === 'class-validator' ? symbol.getName() : undefined;
  }

  private packageOfSymbol(symbol: TS.Symbol): string | undefined {
    if (this.bySymbol.has(symbol)) return this.bySymbol.get(symbol);
    const file = symbol.declarations?.[0]?.getSourceFile().fileName;
    const name = file === undefined ? undefined : this.packageOf(dirname(file));
    this.bySymbol.set(symbol, name);
    return name;
  }

  /** The name in the nearest package.json with a name (dist/cjs/package.json has none). */
  private packageOf(dir: string): string | undefined {
    if (this.packageByDir.has(dir)) return this.packageByDir.get(dir);
    let name: string | undefined;
    const text = ts.sys.readFile(join(dir, 'package.json'));
    if (text !== undefined) {
      try {
        const parsed = JSON.parse(text) as { name?: unknown };
        if (typeof parsed.name === 'string') name = parsed.name;
      } catch {
        // An unreadable package.json names no package; keep looking above it.
      }
    }
    if (name === undefined) {
      const parent = dirname(dir);
      name = parent === dir ? undefined : this.packageOf(parent);
    }
    this.packageByDir.set(dir, name);
    return name;
  }
}
