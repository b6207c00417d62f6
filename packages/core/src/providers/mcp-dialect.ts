import { isRecord } from '../is-record.js';
import type { JsonSchema } from '../tool-definition.js';

/** The dialect MCP assumes for a schema that names none. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = new Set([
  'additionalProperties',
  'additionalItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAY_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value is an object of schemas by name. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

/**
 * The schema in JSON Schema 2020-12, the dialect MCP assumes when a schema names none. A
 * schema of draft-07 or 2019-09 (named or not) with forms 2020-12 reads otherwise or
 * deprecates (`items` as an array, `additionalItems`, `dependencies`, root `definitions`) is
 * rewritten (`prefixItems`, `items` for the rest, `dependentRequired` / `dependentSchemas`,
 * `$defs`) and names 2020-12 in `$schema`, so every client reads it alike, whichever dialect it
 * assumes. Any other schema is returned as it is.
 */
export function toJsonSchema2020(schema: JsonSchema): JsonSchema {
  const named = schema['$schema'];
  if (typeof named === 'string' && named.includes('2020-12')) return schema;
  const older = typeof named === 'string' && (/draft-0[67]\/schema/.test(named) || named.includes('2019-09'));
  if (named !== undefined && !older) return schema;
  // A schema whose every keyword means the same in 2020-12 goes out as its author wrote it, `$schema` included.
  if (!usesOlderForms(schema, true)) return schema;
  const converted = convert(schema);
  if (isRecord(converted['definitions'])) {
    const { definitions, ...rest } = converted;
    return { $schema: JSON_SCHEMA_2020_12, ...rest, $defs: { ...(definitions as JsonSchema), ...((rest['$defs'] as JsonSchema | undefined) ?? {}) } };
  }
  return { $schema: JSON_SCHEMA_2020_12, ...converted };
}

/** Whether the schema has a form that draft-07 and 2020-12 read differently, or 2020-12 deprecates. */
function usesOlderForms(schema: unknown, root: boolean): boolean {
  if (!isRecord(schema)) return false;
  if (Array.isArray(schema['items']) || 'additionalItems' in schema || 'dependencies' in schema || (root && 'definitions' in schema)) return true;
  return subschemas(schema).some((sub) => usesOlderForms(sub, false));
}

function subschemas(schema: JsonSchema): unknown[] {
  const out: unknown[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_KEYWORDS.has(key)) out.push(...(Array.isArray(value) ? value : [value]));
    else if (SCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) out.push(...value);
    else if ((SCHEMA_MAP_KEYWORDS.has(key) || key === 'dependencies') && isRecord(value)) out.push(...Object.values(value));
  }
  return out;
}

/** The schema and its subschemas with draft-07's forms in 2020-12's; values (`const`, `enum`, `default`) untouched. */
function convert(schema: unknown): JsonSchema {
  if (!isRecord(schema)) return schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'additionalItems' || key === 'dependencies') continue;
    if (key === 'items' && Array.isArray(value)) {
      out['prefixItems'] = value.map(convert);
      // draft-07's `additionalItems` applies only after an array of `items`.
      if ('additionalItems' in schema) out['items'] = convert(schema['additionalItems']);
    } else if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      out[key] = `#/$defs/${value.slice('#/definitions/'.length)}`;
    } else if (SCHEMA_KEYWORDS.has(key)) {
      out[key] = convert(value);
    } else if (SCHEMA_ARRAY_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map(convert);
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convert(sub)]));
    } else {
      out[key] = value;
    }
  }
  const dependencies = schema['dependencies'];
  if (isRecord(dependencies)) {
    for (const [name, value] of Object.entries(dependencies)) {
      const target = Array.isArray(value) ? 'dependentRequired' : 'dependentSchemas';
      const into = (out[target] ??= {}) as JsonSchema;
      into[name] = Array.isArray(value) ? value : convert(value);
    }
  }
  return out;
}
