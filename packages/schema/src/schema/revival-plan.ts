import type { JsonSchema } from '@anytool/core';
import { isRecord } from '@anytool/core/internal';
import type { RevivalNode, RevivalPlan, UnionAlternative } from '@anytool/core/runtime';
import { DATE_MARK } from './type-to-schema.js';

/**
 * Reads the revival plan of a root schema (the parameters, with its `$defs`):
 * a tree shaped like the schema that reaches every value typed exactly `Date`
 * (marked by the walker), through properties, record values, array items,
 * tuple positions, unions and `$ref`s. Removes the marks. Undefined when no
 * value needs reviving.
 */
export function revivalPlan(root: JsonSchema): RevivalPlan | undefined {
  const defs = (root['$defs'] ?? {}) as Record<string, JsonSchema>;
  const reader = new PlanReader(defs);
  const plan = reader.node(root);
  const planDefs: Record<string, RevivalNode> = {};
  // A Set visits what is added while iterating: definitions referenced only from other definitions are read too.
  for (const name of reader.referenced) {
    const node = reader.node(defs[name]!);
    if (node !== undefined) planDefs[name] = node;
  }
  stripMarks(root);
  if (plan === undefined) return undefined;
  return Object.keys(planDefs).length > 0 ? { root: plan, defs: planDefs } : { root: plan };
}

/** Removes the walker's Date marks from a schema (the output schema has no plan). */
export function stripMarks(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    schema.forEach(stripMarks);
    return;
  }
  delete (schema as Record<symbol, unknown>)[DATE_MARK];
  for (const value of Object.values(schema)) stripMarks(value);
}

function isMarked(schema: JsonSchema): boolean {
  return (schema as Record<symbol, unknown>)[DATE_MARK] === true;
}

function refName(schema: JsonSchema): string | undefined {
  const ref = schema['$ref'];
  return typeof ref === 'string' && ref.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
}

class PlanReader {
  readonly referenced = new Set<string>();
  private readonly datesIn = new Map<string, boolean>();

  constructor(private readonly defs: Record<string, JsonSchema>) {}

  node(schema: JsonSchema): RevivalNode | undefined {
    if (isMarked(schema)) return 'date';
    const ref = refName(schema);
    if (ref !== undefined) {
      if (!this.defHasDates(ref)) return undefined;
      this.referenced.add(ref);
      return { r: ref };
    }
    if (Array.isArray(schema['anyOf'])) return this.union(schema['anyOf'] as JsonSchema[]);
    const out: Exclude<RevivalNode, 'date'> = {};
    if (Array.isArray(schema['items'])) {
      const positions = (schema['items'] as JsonSchema[]).map((item) => this.node(item) ?? 0);
      if (positions.some((p) => p !== 0)) out.t = positions;
      const rest = isRecord(schema['additionalItems']) ? this.node(schema['additionalItems']) : undefined;
      if (rest !== undefined) out.i = rest;
      if (out.i !== undefined && out.t === undefined) out.t = positions;
    } else if (isRecord(schema['items'])) {
      const items = this.node(schema['items']);
      if (items !== undefined) out.i = items;
    }
    const properties = isRecord(schema['properties']) ? (schema['properties'] as Record<string, JsonSchema>) : {};
    const named: Record<string, RevivalNode> = {};
    for (const [name, property] of Object.entries(properties)) {
      const node = this.node(property);
      if (node !== undefined) named[name] = node;
    }
    if (Object.keys(named).length > 0) out.p = named;
    const patterns: [string, RevivalNode][] = [];
    if (isRecord(schema['patternProperties'])) {
      for (const [pattern, value] of Object.entries(schema['patternProperties'] as Record<string, JsonSchema>)) {
        const node = this.node(value);
        if (node !== undefined) patterns.push([pattern, node]);
      }
    }
    if (patterns.length > 0) out.pp = patterns;
    const extra = isRecord(schema['additionalProperties']) ? this.node(schema['additionalProperties']) : undefined;
    if (extra !== undefined) out.a = extra;
    if ((out.a !== undefined || out.pp !== undefined) && Object.keys(properties).length > 0) out.n = Object.keys(properties);
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * A union: each object or array member that could hold a Date, with what
   * tells its values apart (literal-valued properties and required names), so
   * a Date path of one variant never applies to another.
   */
  private union(members: JsonSchema[]): RevivalNode | undefined {
    const alternatives: UnionAlternative[] = [];
    let any = false;
    for (const member of members) {
      const resolved = this.resolve(member);
      const plan = this.node(member);
      if (plan === 'date') {
        alternatives.push({ date: 1 });
        any = true;
        continue;
      }
      if (resolved['type'] === 'array' || resolved['items'] !== undefined) {
        alternatives.push(plan === undefined ? { arr: 1 } : { arr: 1, plan });
      } else if (resolved['type'] === 'object' || isRecord(resolved['properties'])) {
        const eq: Record<string, unknown> = {};
        const properties = isRecord(resolved['properties']) ? (resolved['properties'] as Record<string, JsonSchema>) : {};
        for (const [name, property] of Object.entries(properties)) {
          const values = property['enum'];
          if (Array.isArray(values) && values.length === 1) eq[name] = values[0];
          else if ('const' in property) eq[name] = property['const'];
        }
        const has = Array.isArray(resolved['required']) ? (resolved['required'] as string[]) : [];
        const alternative: UnionAlternative = { obj: 1 };
        if (Object.keys(eq).length > 0) alternative.eq = eq;
        if (has.length > 0) alternative.has = has;
        if (plan !== undefined) alternative.plan = plan;
        alternatives.push(alternative);
      }
      if (plan !== undefined) any = true;
    }
    return any ? { u: alternatives } : undefined;
  }

  private resolve(schema: JsonSchema): JsonSchema {
    const seen = new Set<string>();
    let current = schema;
    for (let ref = refName(current); ref !== undefined && !seen.has(ref) && this.defs[ref] !== undefined; ref = refName(current)) {
      seen.add(ref);
      current = this.defs[ref]!;
    }
    return current;
  }

  /** Whether a definition reaches a Date (through any chain of references). */
  private defHasDates(name: string): boolean {
    const known = this.datesIn.get(name);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const reaches = (schema: unknown): boolean => {
      if (typeof schema !== 'object' || schema === null) return false;
      if (Array.isArray(schema)) return schema.some(reaches);
      if (isMarked(schema as JsonSchema)) return true;
      const ref = refName(schema as JsonSchema);
      if (ref !== undefined) {
        if (seen.has(ref) || this.defs[ref] === undefined) return false;
        seen.add(ref);
        return reaches(this.defs[ref]);
      }
      return Object.entries(schema).some(([key, value]) => key !== '$defs' && reaches(value));
    };
    seen.add(name);
    const result = reaches(this.defs[name]);
    this.datesIn.set(name, result);
    return result;
  }
}
