import type { JsonSchema, ToolDefinition } from '../tool-definition.js';
import { SILENT_KEYWORDS, isSchema, pointer, type Lowered, type LoweringNote } from './lowering.js';
import { collectDefs, localRefName } from '../schema-refs.js';

/** A Gemini function declaration, with the schema in `parametersJsonSchema`. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: JsonSchema;
}

/** Keywords of the subset Gemini accepts for function parameters. */
const GEMINI_KEYWORDS = new Set([
  'type', 'format', 'title', 'description', 'enum', 'items', 'prefixItems', 'minItems', 'maxItems',
  'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'properties', 'required',
  'additionalProperties', 'propertyOrdering', 'nullable', 'minProperties', 'maxProperties',
]);

/** How deep a recursive type is unrolled before it is cut off. */
const MAX_RECURSION = 3;

function lower(node: unknown, path: string, defs: Record<string, JsonSchema>, stack: string[], tool: string, notes: LoweringNote[]): JsonSchema {
  if (!isSchema(node)) return {};
  const ref = localRefName(node['$ref']);
  if (ref !== undefined) {
    const target = defs[ref];
    if (target === undefined) {
      notes.push({ tool, path, action: 'dropped', detail: `unresolvable $ref ${JSON.stringify(node['$ref'])}` });
      return {};
    }
    const depth = stack.filter((name) => name === ref).length;
    if (depth >= MAX_RECURSION) {
      notes.push({ tool, path, action: 'changed', detail: `recursive type "${ref}" cut off after ${MAX_RECURSION} levels (Gemini takes no $ref); deeper values are still validated` });
      const stub: JsonSchema = { type: 'object' };
      if (typeof target['description'] === 'string') stub['description'] = target['description'];
      return stub;
    }
    const { $ref: _ref, ...siblings } = node;
    return lower({ ...target, ...siblings }, path, defs, [...stack, ref], tool, notes);
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    const at = pointer(path, key);
    switch (key) {
      case 'properties': {
        const props: Record<string, JsonSchema> = {};
        for (const [name, child] of Object.entries(value as Record<string, unknown>)) props[name] = lower(child, pointer(at, name), defs, stack, tool, notes);
        out[key] = props;
        break;
      }
      case 'items':
        // A draft-07 tuple (an array of item schemas) is Gemini's prefixItems; its additionalItems become items.
        if (Array.isArray(value)) out['prefixItems'] = value.map((v, i) => lower(v, pointer(at, i), defs, stack, tool, notes));
        else out[key] = typeof value === 'boolean' ? value : lower(value, at, defs, stack, tool, notes);
        break;
      case 'additionalItems':
        if (Array.isArray(node['items'])) out['items'] = typeof value === 'boolean' ? value : lower(value, at, defs, stack, tool, notes);
        else notes.push({ tool, path: at, action: 'dropped', detail: 'additionalItems without a tuple means nothing; it is not sent' });
        break;
      case 'additionalProperties':
        out[key] = typeof value === 'boolean' ? value : lower(value, at, defs, stack, tool, notes);
        break;
      case 'prefixItems':
      case 'anyOf':
        out[key] = (value as unknown[]).map((v, i) => lower(v, pointer(at, i), defs, stack, tool, notes));
        break;
      case 'oneOf':
        notes.push({ tool, path: at, action: 'changed', detail: 'oneOf sent as anyOf; arguments are still validated against oneOf' });
        out['anyOf'] = (value as unknown[]).map((v, i) => lower(v, pointer(at, i), defs, stack, tool, notes));
        break;
      case 'const':
        out['enum'] = [value];
        notes.push({ tool, path: at, action: 'changed', detail: 'const sent as a one-value enum' });
        break;
      case 'allOf': {
        const members = value as unknown[];
        if (members.every((m) => isSchema(m) && (m['type'] === 'object' || isSchema(m['properties'])))) {
          const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
          for (const m of members as JsonSchema[]) {
            Object.assign(merged['properties'] as object, m['properties'] ?? {});
            (merged['required'] as string[]).push(...((m['required'] as string[] | undefined) ?? []));
          }
          Object.assign(out, lower(merged, at, defs, stack, tool, notes));
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
        else if (!SILENT_KEYWORDS.has(key)) notes.push({ tool, path: at, action: 'dropped', detail: `"${key}" is not supported by Gemini; arguments are still validated against it` });
    }
  }
  return out;
}

/** Gemini function declarations: `$ref`s inlined, the keywords Gemini rejects dropped and noted. */
export function toGeminiTools(definitions: readonly ToolDefinition[]): Lowered<GeminiFunctionDeclaration> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): GeminiFunctionDeclaration => ({
    name: d.name,
    description: d.description,
    parametersJsonSchema: lower(d.parameters, '', collectDefs(d.parameters), [], d.name, notes),
  }));
  return { tools, notes };
}
