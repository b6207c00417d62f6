import { isRecord } from '@anytool/core/internal';

/**
 * Most subschemas a validator may apply to one value of the arguments before a schema counts as
 * costly: past it the work per value grows with the shape of the schema, not with the arguments.
 */
const MAX_SUBSCHEMAS_PER_VALUE = 64;
/** How many `$ref`s deep into nested arguments a recursive schema is followed to find a growing cost. */
const LEVELS = 10;

/** Keywords that apply one subschema, or each of a list, to the value itself. */
const IN_PLACE = ['not', 'if', 'then', 'else', '$ref'] as const;
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_MAPS = ['dependentSchemas', 'dependencies'] as const;
/** Keywords that apply one subschema to items of an array, or to members of an object (several may apply to one). */
const ITEM_KEYWORDS = ['additionalItems', 'contains', 'unevaluatedItems'] as const;
const MEMBER_KEYWORDS = ['additionalProperties', 'unevaluatedProperties', 'propertyNames'] as const;
/** Types ajv checks `uniqueItems` over with a hash rather than by comparing every pair. */
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

type Node = Record<string, unknown>;

/**
 * What makes validating arguments against `schema` cost more than a small multiple of reading
 * them, or undefined when nothing does. ajv's time is linear in the arguments when each of their
 * values meets a bounded number of subschemas; it is not when `uniqueItems` compares every pair of
 * items that may be objects or arrays, or when `$ref`s let combinators (`anyOf`, `oneOf`, `allOf`,
 * `not`, `if`/`then`/`else`, `dependentSchemas`, `contains`, `patternProperties`...) apply one
 * definition to a value more than once, which doubles the work at each level of a shared or
 * recursive definition. The count follows `$ref`s and treats the subschemas for arrays and for
 * objects apart, so a recursive type whose branches differ by type (a JSON tree) stays linear.
 */
export function costlyFeature(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const root = schema as Node;
  const unique = uniqueItemsProblem(root);
  if (unique !== undefined) return unique;
  try {
    const count = new SubschemaCount(root);
    if (count.perValue(root, LEVELS) <= MAX_SUBSCHEMAS_PER_VALUE) return undefined;
    return `combinators that apply more than ${MAX_SUBSCHEMAS_PER_VALUE} subschemas to one value of the arguments (through $refs their branches share, or a recursive type they repeat)`;
  } catch (error) {
    if (error instanceof Unfollowed) return error.message;
    throw error;
  }
}

/** A `$ref` the count cannot follow: its cost is unknown. */
class Unfollowed extends Error {}

/** `uniqueItems` over items that may be objects or arrays, where it is in the schema. */
function uniqueItemsProblem(root: Node): string | undefined {
  const pending: Array<[unknown, string]> = [[root, '']];
  while (pending.length > 0) {
    const [value, pointer] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    const node = value as Node;
    if (!Array.isArray(node) && node['uniqueItems'] === true && !scalarItems(node['items']))
      return `"uniqueItems" over items that may be objects or arrays (at ${pointer === '' ? 'the root' : pointer}), whose check compares every pair of items`;
    for (const key of Object.keys(node)) pending.push([node[key], `${pointer}/${key}`]);
  }
  return undefined;
}

function scalarItems(items: unknown): boolean {
  if (typeof items !== 'object' || items === null || Array.isArray(items)) return false;
  const type = (items as Node)['type'];
  const types = Array.isArray(type) ? type : [type];
  return types.length > 0 && types.every((t) => typeof t === 'string' && SCALAR_TYPES.has(t));
}

/** Counts, capped just past the bound, how many subschemas meet one value; memoized per node. */
class SubschemaCount {
  private readonly inPlace = new Map<Node, number>();
  private readonly deeper = new Map<Node, number[]>();
  private readonly open = new Set<Node>();

  constructor(private readonly root: Node) {}

  /**
   * The most subschemas that meet one value, at this node's value or any below it; `levels` is how
   * many more `$ref`s are followed into the values below (a recursive type repeats through them).
   */
  perValue(node: Node, levels: number): number {
    const known = this.deeper.get(node)?.[levels];
    if (known !== undefined) return known;
    let most = this.atValue(node);
    if (most <= MAX_SUBSCHEMAS_PER_VALUE) {
      const closure = this.closure(node, levels);
      const items = sum(closure.map(([n, left]) => this.children(n, 'items', left)));
      const members = sum(closure.map(([n, left]) => this.children(n, 'members', left)));
      most = Math.max(most, items, members);
    }
    const byLevel = this.deeper.get(node) ?? [];
    byLevel[levels] = capped(most);
    this.deeper.set(node, byLevel);
    return capped(most);
  }

  /** Subschemas that meet the value itself: the node and its in-place subschemas, `$ref`s followed. */
  private atValue(node: Node): number {
    const known = this.inPlace.get(node);
    if (known !== undefined) return known;
    // A definition that reaches itself without moving into the value repeats forever.
    if (this.open.has(node)) return Infinity;
    this.open.add(node);
    const enumSize = Array.isArray(node['enum']) ? node['enum'].length : 0;
    const total = capped(1 + enumSize + sum(this.inPlaceOf(node).map((child) => this.atValue(child))));
    this.open.delete(node);
    this.inPlace.set(node, total);
    return total;
  }

  /** The node and every subschema applied to the same value through it, each with the `$ref`s left to follow below it. */
  private closure(node: Node, levels: number): Array<[Node, number]> {
    const out: Array<[Node, number]> = [];
    const pending: Array<[Node, number]> = [[node, levels]];
    while (pending.length > 0 && out.length <= MAX_SUBSCHEMAS_PER_VALUE) {
      const [next, left] = pending.pop()!;
      if (left < 0) continue;
      out.push([next, left]);
      const ref = next['$ref'];
      for (const child of this.inPlaceOf(next)) pending.push([child, typeof ref === 'string' && child === this.resolve(ref) ? left - 1 : left]);
    }
    return out;
  }

  private inPlaceOf(node: Node): Node[] {
    const out: Node[] = [];
    for (const key of IN_PLACE) {
      const value = node[key];
      if (key === '$ref') {
        if (typeof value === 'string') out.push(this.resolve(value));
      } else pushSchema(out, value);
    }
    for (const key of ['$dynamicRef', '$recursiveRef']) {
      if (key in node) throw new Unfollowed(`a "${key}", which the check of what validation costs does not follow`);
    }
    for (const key of IN_PLACE_LISTS) if (Array.isArray(node[key])) for (const child of node[key]) pushSchema(out, child);
    for (const key of IN_PLACE_MAPS) {
      const map = node[key];
      if (typeof map === 'object' && map !== null && !Array.isArray(map)) for (const child of Object.values(map)) pushSchema(out, child);
    }
    return out;
  }

  /** The most subschemas that meet one item (or member) of the node's value, or a value below it. */
  private children(node: Node, kind: 'items' | 'members', levels: number): number {
    const count = (child: unknown): number => (isRecord(child) ? this.perValue(child, levels) : 0);
    const most = (list: unknown): number => (Array.isArray(list) ? list.reduce((top: number, child) => Math.max(top, count(child)), 0) : 0);
    if (kind === 'items') {
      const items = node['items'];
      return sum([Array.isArray(items) ? most(items) : count(items), most(node['prefixItems']), ...ITEM_KEYWORDS.map((key) => count(node[key]))]);
    }
    const properties = node['properties'];
    const patterns = node['patternProperties'];
    return sum([
      isRecord(properties) ? most(Object.values(properties)) : 0,
      isRecord(patterns) ? sum(Object.values(patterns).map(count)) : 0,
      ...MEMBER_KEYWORDS.map((key) => count(node[key])),
    ]);
  }

  /** The subschema a local `$ref` points to; a `$ref` by `$id` or anchor is not followed. */
  private resolve(ref: string): Node {
    if (ref !== '#' && !ref.startsWith('#/'))
      throw new Unfollowed(`a "$ref" to ${JSON.stringify(ref.slice(0, 100))}, which the check of what validation costs does not follow`);
    let node: unknown = this.root;
    for (const raw of ref === '#' ? [] : ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key) ? (node as Node)[key] : undefined;
    }
    // ajv refuses a schema whose $ref points nowhere; a boolean target costs nothing.
    return isRecord(node) ? node : {};
  }
}

function pushSchema(out: Node[], value: unknown): void {
  if (isRecord(value)) out.push(value);
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total = capped(total + value);
  return total;
}

/** Counts past the bound are all the same: capping keeps a count of a doubling schema small. */
function capped(value: number): number {
  return Math.min(value, MAX_SUBSCHEMAS_PER_VALUE + 1);
}
