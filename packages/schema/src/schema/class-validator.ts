import type * as TS from 'typescript';
import type { JsonSchema } from '@anytool/core';
import { ts } from '../typescript.js';
import type { SymbolOracle } from './type-to-schema.js';

/** A class with class-validator decorators met while walking a parameter. */
export interface ClassValidatorInfo {
  /** Where it sits: [] for a flattened arguments object, [name] for a parameter. */
  path: readonly string[];
  declaration: TS.ClassDeclaration;
}

type Constraint = (schema: JsonSchema, args: readonly unknown[], propertyNames: { optional: boolean }) => void;

// Only formats at least as loose as class-validator's own check: a schema stricter than
// class-validator would reject arguments the DTO accepts. @IsDateString/@IsISO8601 accept
// dates without a time (2020-01-01), bare @IsUrl accepts hosts without a scheme
// (example.com), bare @IsIP both versions: those are left to class-validator at call time.
const FORMATS: Record<string, string> = {
  IsEmail: 'email',
  IsUUID: 'uuid',
};

const CONSTRAINTS: Record<string, Constraint> = {
  Min: (s, [n]) => num(n, (v) => (s['minimum'] = v)),
  Max: (s, [n]) => num(n, (v) => (s['maximum'] = v)),
  IsPositive: (s) => (s['exclusiveMinimum'] = 0),
  IsNegative: (s) => (s['exclusiveMaximum'] = 0),
  IsInt: (s) => (s['type'] = 'integer'),
  Length: (s, [min, max]) => {
    num(min, (v) => (s['minLength'] = v));
    num(max, (v) => (s['maxLength'] = v));
  },
  MinLength: (s, [n]) => num(n, (v) => (s['minLength'] = v)),
  MaxLength: (s, [n]) => num(n, (v) => (s['maxLength'] = v)),
  IsNotEmpty: (s) => {
    if (s['type'] === 'string') s['minLength'] = Math.max(1, typeof s['minLength'] === 'number' ? s['minLength'] : 0);
  },
  Matches: (s, [pattern]) => {
    if (typeof pattern === 'string') s['pattern'] = pattern;
  },
  IsIn: (s, [values]) => {
    if (Array.isArray(values)) s['enum'] = values;
  },
  IsEnum: (s, [values]) => {
    if (Array.isArray(values)) s['enum'] = values;
  },
  ArrayMinSize: (s, [n]) => num(n, (v) => (s['minItems'] = v)),
  ArrayMaxSize: (s, [n]) => num(n, (v) => (s['maxItems'] = v)),
  ArrayNotEmpty: (s) => (s['minItems'] = 1),
  ArrayUnique: (s) => (s['uniqueItems'] = true),
  IsOptional: (_s, _a, flags) => (flags.optional = true),
  IsIP: (s, [version]) => {
    if (version === 4 || version === '4') s['format'] = 'ipv4';
    else if (version === 6 || version === '6') s['format'] = 'ipv6';
  },
};

function num(value: unknown, set: (v: number) => void): void {
  if (typeof value === 'number') set(value);
}

/**
 * Reads the class-validator decorators on a class's properties into its
 * schema (formats, bounds, lengths, patterns, enums, array sizes; `@IsOptional`
 * makes a property not required). Returns whether the class has any.
 */
export function applyClassValidatorConstraints(declaration: TS.ClassDeclaration, schema: JsonSchema, checker: TS.TypeChecker, oracle: SymbolOracle): boolean {
  let found = false;
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const optional = new Set<string>();
  for (const member of declaration.members) {
    if (!ts.isPropertyDeclaration(member) || member.name === undefined) continue;
    const name = ts.isIdentifier(member.name) || ts.isStringLiteral(member.name) ? member.name.text : undefined;
    if (name === undefined) continue;
    for (const decorator of ts.getDecorators(member) ?? []) {
      const which = oracle.isClassValidatorDecorator(decorator);
      if (which === undefined) continue;
      found = true;
      const target = properties[name];
      if (target === undefined) continue;
      const args = ts.isCallExpression(decorator.expression) ? decorator.expression.arguments.map((a) => literalArgument(a, checker)) : [];
      const each = args.some((a) => typeof a === 'object' && a !== null && (a as Record<string, unknown>)['each'] === true);
      const into = each && target['type'] === 'array' && typeof target['items'] === 'object' ? (target['items'] as JsonSchema) : target;
      const format = FORMATS[which];
      if (format !== undefined) into['format'] = format;
      const flags = { optional: false };
      CONSTRAINTS[which]?.(into, args, flags);
      if (flags.optional) optional.add(name);
    }
  }
  if (optional.size > 0 && Array.isArray(schema['required'])) {
    const required = (schema['required'] as string[]).filter((n) => !optional.has(n));
    if (required.length > 0) schema['required'] = required;
    else delete schema['required'];
  }
  return found;
}

/** The value of a decorator argument written as a literal (numbers, strings, regexes, arrays, objects, enums). */
function literalArgument(node: TS.Expression, checker: TS.TypeChecker): unknown {
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) {
    const value = literalArgument(node.operand, checker);
    return typeof value === 'number' ? -value : undefined;
  }
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isRegularExpressionLiteral(node)) {
    // JSON Schema patterns take no flags: a /.../i pattern is left to class-validator at call time.
    const text = node.text;
    const end = text.lastIndexOf('/');
    return end === text.length - 1 ? text.slice(1, end) : undefined;
  }
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => literalArgument(e, checker));
  if (ts.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = {};
    for (const p of node.properties) if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) out[p.name.text] = literalArgument(p.initializer, checker);
    return out;
  }
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const enumDeclaration = symbol?.declarations?.find(ts.isEnumDeclaration);
  if (enumDeclaration !== undefined) return enumDeclaration.members.map((m) => checker.getConstantValue(m));
  if (ts.isPropertyAccessExpression(node) || ts.isIdentifier(node)) {
    const member = symbol?.declarations?.find(ts.isEnumMember);
    if (member !== undefined) return checker.getConstantValue(member);
  }
  return undefined;
}
