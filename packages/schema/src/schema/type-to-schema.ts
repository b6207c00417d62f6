import type * as TS from 'typescript';
import type { JsonSchema } from '@anytool/core';
import { ts } from '../typescript.js';
import { applyClassValidatorConstraints, type ClassValidatorInfo } from './class-validator.js';
import type { JsDocReader } from './jsdoc.js';

/** A type the walker could not turn into a faithful JSON Schema, or accepted with a warning. */
export interface TypeIssue {
  severity: 'error' | 'warning';
  /** Where inside the parameter: property names, `[]` for array items. */
  path: readonly string[];
  /** The TypeScript type as written by the checker. */
  typeText: string;
  /** What is wrong and what to write instead. */
  message: string;
}

/** What walking one root type (a parameter list or a return type) produced. */
export interface SchemaWalk {
  issues: TypeIssue[];
  /** Definitions of recursive types, referenced as `#/$defs/<name>`. */
  defs: Record<string, JsonSchema>;
}

/**
 * Marks the schema of a value typed exactly `Date` (a symbol key: JSON never
 * sees it). The revival plan is read from these marks, then they are removed.
 */
export const DATE_MARK: unique symbol = Symbol('anytool.date');

/** Knows which declarations belong to anytool and to class-validator. */
export interface SymbolOracle {
  isClassValidatorDecorator(decorator: TS.Decorator): string | undefined;
}

const UNSUPPORTED_GLOBALS: Record<string, string> = {
  Map: 'a Map has no JSON form; use Record<string, V> (a plain object) or an array of [key, value] tuples',
  ReadonlyMap: 'a Map has no JSON form; use Record<string, V> (a plain object) or an array of [key, value] tuples',
  WeakMap: 'a WeakMap has no JSON form; use Record<string, V> (a plain object)',
  Set: 'a Set has no JSON form; use an array (T[])',
  ReadonlySet: 'a Set has no JSON form; use an array (T[])',
  WeakSet: 'a WeakSet has no JSON form; use an array (T[])',
  Promise: 'a Promise is not data; take the awaited value (T) instead',
  RegExp: 'a RegExp has no JSON form; take the pattern as a string',
  ArrayBuffer: 'binary data has no JSON form; take a base64 string',
  SharedArrayBuffer: 'binary data has no JSON form; take a base64 string',
  DataView: 'binary data has no JSON form; take a base64 string',
  Buffer: 'binary data has no JSON form; take a base64 string',
  Blob: 'binary data has no JSON form; take a base64 string',
  URL: 'a URL object has no JSON form; take the URL as a string (add `@format uri` in its JSDoc)',
  URLSearchParams: 'URLSearchParams has no JSON form; take a Record<string, string> or the query as a string',
  Error: 'an Error has no JSON form; take the message as a string (and a code as a string literal union)',
  Function: 'a function has no JSON form; tools take JSON data, so take a name or an id the tool can look up instead',
  Iterable: 'an Iterable has no JSON form; use an array (T[])',
  IterableIterator: 'an iterator has no JSON form; use an array (T[])',
  Iterator: 'an iterator has no JSON form; use an array (T[])',
  AsyncIterable: 'an AsyncIterable has no JSON form; use an array (T[])',
  AsyncIterableIterator: 'an async iterator has no JSON form; use an array (T[])',
  AsyncIterator: 'an async iterator has no JSON form; use an array (T[])',
  Generator: 'a generator has no JSON form; use an array (T[])',
  AsyncGenerator: 'an async generator has no JSON form; use an array (T[])',
  ArrayLike: 'ArrayLike is not a JSON array; use an array (T[])',
  String: 'use the primitive type string, not the String object type',
  Number: 'use the primitive type number, not the Number object type',
  Boolean: 'use the primitive type boolean, not the Boolean object type',
};
for (const typed of [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]) {
  UNSUPPORTED_GLOBALS[typed] = `a ${typed} is a typed array with no JSON form; take number[] (or binary data as a base64 string)`;
}

/** Lib types that are plain JSON data: `Date` (an ISO string) and `Object`; `Array`, tuples and the utility types are handled by shape. */
const JSON_GLOBALS = new Set(['Date', 'Object']);

/**
 * Turns TypeScript types into JSON Schema, straight from the emitting
 * program's type checker. One instance per root schema (its `$defs` are shared
 * by everything walked through it).
 */
export class TypeSchemaWalker {
  readonly walk: SchemaWalk = { issues: [], defs: {} };
  /** Class-validator classes met at the top of a parameter: the parameter's path and the class. */
  readonly validatedClasses: ClassValidatorInfo[] = [];
  private readonly active = new Set<TS.Type>();
  private readonly recursive = new Set<TS.Type>();
  private readonly defNames = new Map<TS.Type, string>();
  private readonly usedNames = new Set<string>();

  constructor(
    private readonly checker: TS.TypeChecker,
    private readonly jsdoc: JsDocReader,
    private readonly oracle: SymbolOracle,
  ) {}

  /** The schema of `type`; `node` (the declared type) gives literal unions their source order. */
  schemaOf(type: TS.Type, path: string[], node?: TS.TypeNode): JsonSchema {
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
      this.issue(
        'warning',
        path,
        type,
        `${flags & ts.TypeFlags.Any ? 'any' : 'unknown'} accepts any JSON value ({}); give it a precise type so the model knows what to send`,
      );
      return {};
    }
    if (flags & ts.TypeFlags.Never) return { not: {} };
    if (flags & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) {
      this.issue('error', path, type, 'bigint has no JSON form; use number, or a string of digits for values beyond 2^53');
      return {};
    }
    if (flags & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)) {
      this.issue('error', path, type, 'a symbol has no JSON form; use a string (or a union of string literals)');
      return {};
    }
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.EnumLiteral && !(flags & ts.TypeFlags.Union)) return this.literalSchema([literalValue(type)]);
    if (flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral)) return this.literalSchema([literalValue(type)]);
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.StringMapping)) return { type: 'string' };
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) {
      this.issue('error', path, type, 'undefined has no JSON form; make the parameter or property optional instead');
      return {};
    }
    if (flags & ts.TypeFlags.TemplateLiteral) return { type: 'string', pattern: templatePattern(type as TS.TemplateLiteralType) };
    if (flags & ts.TypeFlags.TypeParameter) {
      const constraint = this.checker.getBaseConstraintOfType(type);
      if (constraint === undefined || constraint === type || constraint.flags & ts.TypeFlags.Unknown) {
        this.issue('warning', path, type, 'an unconstrained type parameter accepts any JSON value ({}); give it a constraint such as `T extends string`');
        return {};
      }
      return this.schemaOf(constraint, path);
    }
    if (flags & (ts.TypeFlags.Index | ts.TypeFlags.IndexedAccess | ts.TypeFlags.Conditional | ts.TypeFlags.Substitution)) {
      const constraint = this.checker.getBaseConstraintOfType(type);
      if (constraint !== undefined && constraint !== type) return this.schemaOf(constraint, path);
      this.issue('warning', path, type, 'this type could not be resolved to a JSON Schema and accepts any JSON value ({})');
      return {};
    }
    if (flags & ts.TypeFlags.Union) return this.guarded(type, () => this.unionSchema(type as TS.UnionType, path, node));
    if (flags & ts.TypeFlags.Intersection) return this.guarded(type, () => this.intersectionSchema(type as TS.IntersectionType, path));
    if (flags & ts.TypeFlags.Object) return this.objectSchema(type as TS.ObjectType, path);
    if (flags & ts.TypeFlags.NonPrimitive) return { type: 'object' };
    this.issue('error', path, type, 'this type has no JSON Schema; use JSON data types (string, number, boolean, arrays, plain objects)');
    return {};
  }

  /** Whether the (awaited) type is a plain object type worth an output schema. */
  isPlainObjectType(type: TS.Type): boolean {
    if (!(type.flags & ts.TypeFlags.Object)) return false;
    if (this.checker.isArrayType(type) || this.checker.isTupleType(type)) return false;
    if (this.checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0) return false;
    const symbol = type.getSymbol();
    if (symbol !== undefined && (globalName(this.checker, symbol) !== undefined || symbol.getName() === 'Date')) return false;
    return true;
  }

  private issue(severity: TypeIssue['severity'], path: readonly string[], type: TS.Type, message: string): void {
    this.walk.issues.push({ severity, path: [...path], typeText: this.checker.typeToString(type), message });
  }

  /** Walks a type that may refer to itself; a recursive type becomes a `$defs` entry and a `$ref`. */
  private guarded(type: TS.Type, build: () => JsonSchema): JsonSchema {
    const known = this.defNames.get(type);
    if (known !== undefined && !this.active.has(type)) return { $ref: `#/$defs/${known}` };
    if (this.active.has(type)) {
      this.recursive.add(type);
      return { $ref: `#/$defs/${this.nameFor(type)}` };
    }
    this.active.add(type);
    let schema: JsonSchema;
    try {
      schema = build();
    } finally {
      this.active.delete(type);
    }
    if (!this.recursive.has(type)) return schema;
    const name = this.nameFor(type);
    this.walk.defs[name] = schema;
    return { $ref: `#/$defs/${name}` };
  }

  private nameFor(type: TS.Type): string {
    const existing = this.defNames.get(type);
    if (existing !== undefined) return existing;
    const base = (type.aliasSymbol ?? type.getSymbol())?.getName().replace(/[^A-Za-z0-9_]/g, '') || 'Type';
    let name = base === '__type' || base === '__object' ? 'Type' : base;
    for (let i = 2; this.usedNames.has(name); i++) name = `${base}${i}`;
    this.usedNames.add(name);
    this.defNames.set(type, name);
    return name;
  }

  private literalSchema(values: unknown[]): JsonSchema {
    const types = [...new Set(values.map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v)))];
    return { type: types.length === 1 ? types[0] : types, enum: values };
  }

  private unionSchema(type: TS.UnionType, path: string[], node: TS.TypeNode | undefined): JsonSchema {
    const members = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    if (members.length === 0) return this.schemaOf(type.types[0]!, path);
    const isEnum = type.flags & ts.TypeFlags.EnumLiteral;
    const hasTrue = members.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && literalValue(t) === true);
    const hasFalse = members.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && literalValue(t) === false);
    const bothBooleans = hasTrue && hasFalse;
    const literals: unknown[] = [];
    const others: TS.Type[] = [];
    for (const member of members) {
      if (bothBooleans && member.flags & ts.TypeFlags.BooleanLiteral) continue;
      if (
        member.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral) ||
        (member.flags & ts.TypeFlags.Null && !isEnum)
      )
        literals.push(literalValue(member));
      else others.push(member);
    }
    const ordered = this.sourceOrder(literals, type, node);
    if (bothBooleans) others.unshift(this.checker.getBooleanType());
    if (others.length === 0) return this.literalSchema(ordered);
    const schemas: JsonSchema[] = [];
    const simple: string[] = [];
    const nonNullLiterals = ordered.filter((v) => v !== null);
    const takesNull = ordered.length !== nonNullLiterals.length;
    if (nonNullLiterals.length > 0) schemas.push(this.literalSchema(nonNullLiterals));
    for (const member of others) {
      const schema = this.schemaOf(member, path);
      const keys = Object.keys(schema);
      if (keys.length === 1 && keys[0] === 'type' && typeof schema['type'] === 'string') simple.push(schema['type']);
      else schemas.push(schema);
    }
    if (takesNull) simple.push('null');
    if (simple.length > 0) {
      // `string | null` reads better as one `type` list; a literal enum then takes null in its values.
      if (schemas.length === 0) return { type: simple.length === 1 ? simple[0] : simple };
      const enumSchema = schemas.length === 1 ? schemas[0]! : undefined;
      if (enumSchema !== undefined && Array.isArray(enumSchema['enum']) && simple.length === 1 && simple[0] === 'null') {
        const types = Array.isArray(enumSchema['type']) ? enumSchema['type'] : [enumSchema['type']];
        return { type: [...types, 'null'], enum: [...(enumSchema['enum'] as unknown[]), null] };
      }
      schemas.push({ type: simple.length === 1 ? simple[0] : simple });
    }
    return schemas.length === 1 ? schemas[0]! : { anyOf: schemas };
  }

  /** Puts literal values in the order the source wrote them (the checker orders them by type id). */
  private sourceOrder(values: unknown[], type: TS.UnionType, node: TS.TypeNode | undefined): unknown[] {
    if (values.length < 2) return values;
    const written: unknown[] = [];
    const seen = new Set<TS.Node>();
    const collect = (n: TS.Node | undefined): void => {
      if (n === undefined || seen.has(n)) return;
      seen.add(n);
      if (ts.isUnionTypeNode(n)) n.types.forEach(collect);
      else if (ts.isParenthesizedTypeNode(n)) collect(n.type);
      else if (ts.isLiteralTypeNode(n)) {
        const lit = n.literal;
        if (ts.isStringLiteral(lit) || ts.isNoSubstitutionTemplateLiteral(lit)) written.push(lit.text);
        else if (ts.isNumericLiteral(lit)) written.push(Number(lit.text));
        else if (ts.isPrefixUnaryExpression(lit) && ts.isNumericLiteral(lit.operand)) written.push(-Number(lit.operand.text));
        else if (lit.kind === ts.SyntaxKind.TrueKeyword) written.push(true);
        else if (lit.kind === ts.SyntaxKind.FalseKeyword) written.push(false);
        else if (lit.kind === ts.SyntaxKind.NullKeyword) written.push(null);
      } else if (ts.isTypeReferenceNode(n)) {
        let symbol = this.checker.getSymbolAtLocation(n.typeName);
        if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
        for (const declaration of symbol?.declarations ?? []) {
          if (ts.isTypeAliasDeclaration(declaration)) collect(declaration.type);
          else if (ts.isEnumDeclaration(declaration)) declaration.members.forEach((m) => written.push(this.checker.getConstantValue(m)));
          else if (ts.isEnumMember(declaration)) written.push(this.checker.getConstantValue(declaration));
        }
      }
    };
    collect(node);
    for (const declaration of type.aliasSymbol?.declarations ?? []) if (ts.isTypeAliasDeclaration(declaration)) collect(declaration.type);
    const enumDeclaration = type.getSymbol()?.declarations?.find(ts.isEnumDeclaration);
    if (enumDeclaration !== undefined) enumDeclaration.members.forEach((m) => written.push(this.checker.getConstantValue(m)));
    const rank = (v: unknown): number => {
      const i = written.indexOf(v);
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    return [...values].sort((a, b) => rank(a) - rank(b));
  }

  private intersectionSchema(type: TS.IntersectionType, path: string[]): JsonSchema {
    const primitive = type.types.find((t) => !(t.flags & ts.TypeFlags.Object));
    // A branded primitive (`string & { __brand: 'Id' }`) is its primitive.
    if (primitive !== undefined) return this.schemaOf(primitive, path);
    return this.propertiesSchema(type, path, undefined);
  }

  private objectSchema(type: TS.ObjectType, path: string[]): JsonSchema {
    const checker = this.checker;
    if (checker.isTupleType(type)) return this.guarded(type, () => this.tupleSchema(type as TS.TypeReference, path));
    if (checker.isArrayType(type)) {
      const element = checker.getTypeArguments(type as TS.TypeReference)[0];
      return this.guarded(type, () => ({ type: 'array', items: element === undefined ? {} : this.schemaOf(element, [...path, '[]']) }));
    }
    const symbol = type.getSymbol();
    const global = symbol === undefined ? undefined : globalName(checker, symbol);
    if (global === 'Date') return { type: 'string', format: 'date-time', [DATE_MARK]: true } as JsonSchema;
    // Any other lib class (URL, Error, Iterable, typed arrays...) is not plain data; anonymous lib
    // types (`__type`: the mapped types behind Record, Partial, Pick...) are walked by shape.
    if (global !== undefined && !JSON_GLOBALS.has(global) && !global.startsWith('__')) {
      this.issue(
        'error',
        path,
        type,
        UNSUPPORTED_GLOBALS[global] ??
          `${global} is a library class, not plain data, and has no faithful JSON form; use JSON data types (string, number, boolean, arrays, plain objects) that describe what the tool needs`,
      );
      return {};
    }
    if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0 || checker.getSignaturesOfType(type, ts.SignatureKind.Construct).length > 0) {
      this.issue('error', path, type, 'a function has no JSON form; tools take JSON data, so take a name or an id the tool can look up instead');
      return {};
    }
    if (
      global === 'Object' ||
      (symbol !== undefined &&
        symbol.flags & ts.SymbolFlags.TypeLiteral &&
        checker.getPropertiesOfType(type).length === 0 &&
        checker.getIndexInfosOfType(type).length === 0 &&
        (type as TS.ObjectType).objectFlags & ts.ObjectFlags.Anonymous &&
        isEmptyTypeLiteral(symbol))
    ) {
      return { type: 'object' };
    }
    const classDeclaration = symbol?.valueDeclaration !== undefined && ts.isClassDeclaration(symbol.valueDeclaration) ? symbol.valueDeclaration : undefined;
    return this.guarded(type, () => this.propertiesSchema(type, path, classDeclaration));
  }

  private tupleSchema(type: TS.TypeReference, path: string[]): JsonSchema {
    const target = type.target as TS.TupleType;
    const elements = this.checker.getTypeArguments(type);
    const flags = target.elementFlags;
    const items: JsonSchema[] = [];
    let rest: JsonSchema | undefined;
    const restAt = flags.findIndex((f) => f & ts.ElementFlags.Variable);
    if (restAt >= 0 && restAt < flags.length - 1) {
      this.issue(
        'error',
        path,
        type,
        'a tuple with elements after its rest element (`[...T[], U]`) cannot be expressed in JSON Schema; put the rest element last (`[U, ...T[]]`) or take an object with named properties',
      );
      return {};
    }
    elements.forEach((element, i) => {
      const schema = this.schemaOf(element, [...path, String(i)]);
      if (flags[i]! & ts.ElementFlags.Variable) rest = schema;
      else items.push(schema);
    });
    const schema: JsonSchema = { type: 'array', items, minItems: target.minLength };
    if (rest === undefined) {
      schema['maxItems'] = items.length;
      schema['additionalItems'] = false;
    } else {
      schema['additionalItems'] = rest;
    }
    return schema;
  }

  private propertiesSchema(type: TS.Type, path: string[], classDeclaration: TS.ClassDeclaration | undefined): JsonSchema {
    const checker = this.checker;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of checker.getPropertiesOfType(type)) {
      if (property.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.GetAccessor | ts.SymbolFlags.SetAccessor) && !(property.flags & ts.SymbolFlags.Property))
        continue;
      if (isHidden(property)) continue;
      const name = property.getName();
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      const propertyType = checker.getTypeOfSymbol(property);
      if (propertyType.flags & ts.TypeFlags.Never) continue;
      const typeNode =
        declaration !== undefined && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
      const schema = { ...this.schemaOf(propertyType, [...path, name], typeNode) };
      this.jsdoc.annotate(property, schema);
      properties[name] = schema;
      const optional = property.flags & ts.SymbolFlags.Optional || includesUndefined(propertyType);
      if (!optional) required.push(name);
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema['required'] = required;
    this.indexSignatures(type, path, schema);
    if (classDeclaration !== undefined) {
      const validated = applyClassValidatorConstraints(classDeclaration, schema, checker, this.oracle);
      if (validated) this.validatedClasses.push({ path, declaration: classDeclaration });
    }
    return schema;
  }

  /**
   * Index signatures keep their key type: a `string` key gives `additionalProperties`;
   * a `number` key alone gives `propertyNames` with a numeric pattern; template
   * literal keys (`[k: \`x-${string}\`]`), or number keys next to declared
   * properties, give `patternProperties`.
   */
  private indexSignatures(type: TS.Type, path: string[], schema: JsonSchema): void {
    const infos = this.checker.getIndexInfosOfType(type).filter((info) => !(info.keyType.flags & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)));
    const byString = infos.find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (byString !== undefined) {
      // Number and template keys are also string keys, and their values are assignable to the string key's value.
      schema['additionalProperties'] = this.schemaOf(byString.type, [...path, '*']);
      return;
    }
    if (infos.length === 0) {
      schema['additionalProperties'] = false;
      return;
    }
    const patterns: Record<string, JsonSchema> = {};
    for (const info of infos) {
      const value = this.schemaOf(info.type, [...path, '*']);
      for (const pattern of keyPatterns(info.keyType)) patterns[pattern] = value;
    }
    const declared = Object.keys(schema['properties'] as object).length > 0;
    const only = Object.keys(patterns);
    if (!declared && only.length === 1 && only[0] === NUMERIC_KEY) {
      schema['propertyNames'] = { pattern: NUMERIC_KEY };
      schema['additionalProperties'] = patterns[NUMERIC_KEY];
      return;
    }
    schema['patternProperties'] = patterns;
    schema['additionalProperties'] = false;
  }
}

const NUMERIC_KEY = '^-?\\d+(\\.\\d+)?$';

function isEmptyTypeLiteral(symbol: TS.Symbol): boolean {
  return (symbol.declarations ?? []).every((d) => ts.isTypeLiteralNode(d) && d.members.length === 0);
}

function isHidden(property: TS.Symbol): boolean {
  if (property.getName().startsWith('__#') || property.getName().startsWith('#')) return true;
  return (property.declarations ?? []).some((d) => ts.getCombinedModifierFlags(d as TS.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
}

/** The name of a global (lib) type such as `Date` or `Map`, or undefined for user types. */
export function globalName(_checker: TS.TypeChecker, symbol: TS.Symbol): string | undefined {
  // Cheaper than getFullyQualifiedName (which prints the symbol): a global's declarations all live in lib files.
  const declarations = symbol.declarations ?? [];
  if (declarations.length === 0) return undefined;
  const fromLib = declarations.every((d) => {
    const file = d.getSourceFile();
    return file.hasNoDefaultLib || /[\\/]typescript[\\/]lib[\\/]lib\.|[\\/]@types[\\/]node[\\/]/.test(file.fileName);
  });
  if (!fromLib) return undefined;
  const parent = (symbol as { parent?: TS.Symbol }).parent;
  return parent === undefined || parent.flags & ts.SymbolFlags.ValueModule ? symbol.getName() : undefined;
}

/** Whether a type is `undefined` or a union containing it. */
export function includesUndefined(type: TS.Type): boolean {
  if (type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return true;
  return type.isUnion() && type.types.some((t) => t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
}

function literalValue(type: TS.Type): unknown {
  if (type.flags & ts.TypeFlags.Null) return null;
  if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
  if (type.flags & ts.TypeFlags.BooleanLiteral) return (type as { intrinsicName?: string }).intrinsicName === 'true';
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** The key patterns of an index signature's key type (number, template literal, or a union of them). */
function keyPatterns(keyType: TS.Type): string[] {
  if (keyType.isUnion()) return keyType.types.flatMap(keyPatterns);
  if (keyType.flags & ts.TypeFlags.Number) return [NUMERIC_KEY];
  if (keyType.flags & ts.TypeFlags.TemplateLiteral) return [templatePattern(keyType as TS.TemplateLiteralType)];
  if (keyType.isStringLiteral() || keyType.isNumberLiteral()) return [`^${escapeRegExp(String(keyType.value))}$`];
  return ['^.*$'];
}

function templatePattern(type: TS.TemplateLiteralType): string {
  let pattern = `^${escapeRegExp(type.texts[0] ?? '')}`;
  type.types.forEach((part, i) => {
    pattern += templatePart(part) + escapeRegExp(type.texts[i + 1] ?? '');
  });
  return `${pattern}$`;
}

function templatePart(part: TS.Type): string {
  if (part.flags & ts.TypeFlags.Number) return '-?\\d+(\\.\\d+)?';
  if (part.flags & ts.TypeFlags.Boolean) return '(true|false)';
  if (part.isStringLiteral() || part.isNumberLiteral()) return escapeRegExp(String(part.value));
  if (part.isUnion()) return `(${part.types.map(templatePart).join('|')})`;
  return '.*';
}
