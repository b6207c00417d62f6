import type { JsonSchema, ToolDefinition } from '../tool-definition.js';
import { isRecord } from '../is-record.js';
import { SILENT_KEYWORDS, pointer, type Lowered, type LoweringNote } from './lowering.js';
import { collectDefs, localRefName } from '../schema-refs.js';

/** A Gemini function declaration, with the schema in `parametersJsonSchema`. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: JsonSchema;
}

/** One of Gemini's built-in tools (`{ googleSearch: {} }`, `{ codeExecution: {} }`, `{ urlContext: {} }`): a `Tool` of `config.tools`. */
export type GeminiBuiltinTool = NotAFunction &
  ({ googleSearch: Record<string, unknown> } | { codeExecution: Record<string, never> } | { urlContext: Record<string, never> });

/** What a built-in lacks of a function declaration: code reading `name` off the list still compiles, and finds none. */
interface NotAFunction {
  name?: undefined;
  description?: undefined;
  parametersJsonSchema?: undefined;
}

/** A `Tool` of Gemini's `config.tools`: the function declarations together, or one built-in tool. */
export type GeminiTool = { functionDeclarations: GeminiFunctionDeclaration[] } | GeminiBuiltinTool;

/**
 * The `config.tools` list of a Gemini request from `definitions('gemini')`: the
 * function declarations in one tool, each built-in tool on its own.
 */
export function toGeminiToolList(tools: ReadonlyArray<GeminiFunctionDeclaration | GeminiBuiltinTool>): GeminiTool[] {
  const functionDeclarations: GeminiFunctionDeclaration[] = [];
  const builtins: GeminiBuiltinTool[] = [];
  for (const tool of tools) {
    if ('parametersJsonSchema' in tool) functionDeclarations.push(tool as GeminiFunctionDeclaration);
    else builtins.push(tool as GeminiBuiltinTool);
  }
  return functionDeclarations.length === 0 ? builtins : [{ functionDeclarations }, ...builtins];
}

/** Keywords of the subset Gemini accepts for function parameters. */
const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'properties',
  'required',
  'additionalProperties',
  'propertyOrdering',
  'nullable',
  'minProperties',
  'maxProperties',
]);

/** How deep a recursive type is unrolled before it is cut off. */
const MAX_RECURSION = 3;
/**
 * Bounds on what inlining `$ref`s may add to one tool's schema. Without them it
 * grows exponentially: 20 definitions that each use the next one twice inline
 * to a million copies. Past them `$ref`s are inlined less deep (see `inlineWithinBounds`).
 */
const MAX_INLINED_NODES = 10_000;
const MAX_INLINED_LEVELS = 100;

/** Inlining passed the bounds above. */
class TooLarge extends Error {}

/** The state of one lowering pass over one tool's parameters. */
interface Pass {
  readonly defs: Record<string, JsonSchema>;
  readonly tool: string;
  readonly notes: LoweringNote[];
  /** How many times each definition is being inlined around the current node (a recursive type's depth). */
  readonly open: Map<string, number>;
  /** `$ref`s being inlined around the current node; at `maxRefs` the next one is cut off. */
  refs: number;
  readonly maxRefs: number;
  /** Schema objects the pass may still lower inside inlined `$ref`s. */
  nodesLeft: number;
  /** How many schemas inside inlined `$ref`s the current node is nested in. */
  level: number;
}

/** A `$ref` cut off: the target's type (when a single one) and description, any value otherwise. */
function stub(target: JsonSchema, type = target['type']): JsonSchema {
  const out: JsonSchema = typeof type === 'string' ? { type } : {};
  if (typeof target['description'] === 'string') out['description'] = target['description'];
  return out;
}

function inline(node: JsonSchema, ref: string, path: string, pass: Pass): JsonSchema {
  const { tool, notes } = pass;
  const target = pass.defs[ref];
  if (target === undefined) {
    notes.push({ tool, path, action: 'dropped', detail: `unresolvable $ref ${JSON.stringify(node['$ref'])}` });
    return {};
  }
  const open = pass.open.get(ref) ?? 0;
  if (open >= MAX_RECURSION) {
    notes.push({
      tool,
      path,
      action: 'changed',
      detail: `recursive type "${ref}" cut off after ${MAX_RECURSION} levels (Gemini takes no $ref); deeper values are still validated`,
    });
    return stub(target, 'object');
  }
  if (pass.refs >= pass.maxRefs) return stub(target);
  const { $ref: _ref, ...siblings } = node;
  pass.open.set(ref, open + 1);
  pass.refs++;
  const out = lower({ ...target, ...siblings }, path, pass);
  pass.open.set(ref, open);
  pass.refs--;
  return out;
}

function lower(node: unknown, path: string, pass: Pass): JsonSchema {
  if (!isRecord(node)) return {};
  const ref = localRefName(node['$ref']);
  if (ref !== undefined) return inline(node, ref, path, pass);
  const inlined = pass.refs > 0;
  if (inlined) {
    if (--pass.nodesLeft < 0 || pass.level >= MAX_INLINED_LEVELS) throw new TooLarge();
    pass.level++;
  }
  const { tool, notes } = pass;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    const at = pointer(path, key);
    switch (key) {
      case 'properties': {
        const props: Record<string, JsonSchema> = {};
        for (const [name, child] of Object.entries(value as Record<string, unknown>)) props[name] = lower(child, pointer(at, name), pass);
        out[key] = props;
        break;
      }
      case 'items':
        // A draft-07 tuple (an array of item schemas) is Gemini's prefixItems; its additionalItems become items.
        if (Array.isArray(value)) out['prefixItems'] = value.map((v, i) => lower(v, pointer(at, i), pass));
        else out[key] = typeof value === 'boolean' ? value : lower(value, at, pass);
        break;
      case 'additionalItems':
        if (Array.isArray(node['items'])) out['items'] = typeof value === 'boolean' ? value : lower(value, at, pass);
        else notes.push({ tool, path: at, action: 'dropped', detail: 'additionalItems without a tuple means nothing; it is not sent' });
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : lower(value, at, pass);
        break;
      case 'prefixItems':
      case 'anyOf':
        out[key] = (value as unknown[]).map((v, i) => lower(v, pointer(at, i), pass));
        break;
      case 'oneOf':
        notes.push({ tool, path: at, action: 'changed', detail: 'oneOf sent as anyOf; arguments are still validated against oneOf' });
        out['anyOf'] = (value as unknown[]).map((v, i) => lower(v, pointer(at, i), pass));
        break;
      case 'const':
        out['enum'] = [value];
        notes.push({ tool, path: at, action: 'changed', detail: 'const sent as a one-value enum' });
        break;
      case 'allOf': {
        const members = value as unknown[];
        if (members.every((m) => isRecord(m) && (m['type'] === 'object' || isRecord(m['properties'])))) {
          const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
          for (const m of members as JsonSchema[]) {
            Object.assign(merged['properties'] as object, m['properties'] ?? {});
            merged['required'] = (merged['required'] as string[]).concat((m['required'] as string[] | undefined) ?? []);
          }
          Object.assign(out, lower(merged, at, pass));
          notes.push({ tool, path: at, action: 'changed', detail: 'allOf of objects merged into one object' });
        } else {
          notes.push({ tool, path: at, action: 'dropped', detail: 'allOf is not supported by Gemini; arguments are still validated against it' });
        }
        break;
      }
      case '$defs':
      case 'definitions':
        break;
      default:
        if (GEMINI_KEYWORDS.has(key)) out[key] = value;
        else if (!SILENT_KEYWORDS.has(key))
          notes.push({ tool, path: at, action: 'dropped', detail: `"${key}" is not supported by Gemini; arguments are still validated against it` });
    }
  }
  if (inlined) pass.level--;
  return out;
}

/**
 * A tool's parameters with `$ref`s inlined as deep as the bounds allow: in
 * full when that fits (one pass, the usual case), else to the deepest nesting
 * of `$ref`s that fits, found by bisection, with a note. Each pass stops at the
 * bounds, so the work is linear in the schema's size whatever it would inline to.
 */
function inlineWithinBounds(definition: ToolDefinition, notes: LoweringNote[]): JsonSchema {
  const defs = collectDefs(definition.parameters);
  const attempt = (maxRefs: number): { schema: JsonSchema; notes: LoweringNote[] } | undefined => {
    const pass: Pass = { defs, tool: definition.name, notes: [], open: new Map(), refs: 0, maxRefs, nodesLeft: MAX_INLINED_NODES, level: 0 };
    try {
      return { schema: lower(definition.parameters, '', pass), notes: pass.notes };
    } catch (error) {
      if (error instanceof TooLarge) return undefined;
      throw error;
    }
  };
  // Each definition is open at most MAX_RECURSION times, so no more $refs can nest.
  let fails = Object.keys(defs).length * MAX_RECURSION;
  let best = attempt(fails);
  if (best === undefined) {
    // Inlining no $ref always fits: nothing is inlined.
    let fits = 0;
    best = attempt(0)!;
    while (fails - fits > 1) {
      const middle = (fits + fails) >> 1;
      const lowered = attempt(middle);
      if (lowered === undefined) fails = middle;
      else [fits, best] = [middle, lowered];
    }
    best.notes.push({
      tool: definition.name,
      path: '',
      action: 'changed',
      detail: `$refs inlined only ${fits} deep (Gemini takes no $ref, and inlined in full the schema would pass ${MAX_INLINED_NODES} nodes or ${MAX_INLINED_LEVELS} levels); deeper values are sent with their type alone and still validated against the full schema`,
    });
  }
  for (const note of best.notes) notes.push(note);
  return best.schema;
}

/** Gemini function declarations: `$ref`s inlined (within bounds), the keywords Gemini rejects dropped and noted. */
export function toGeminiTools(definitions: readonly ToolDefinition[]): Lowered<GeminiFunctionDeclaration> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): GeminiFunctionDeclaration => ({
    name: d.name,
    description: d.description,
    parametersJsonSchema: inlineWithinBounds(d, notes),
  }));
  return { tools, notes };
}
