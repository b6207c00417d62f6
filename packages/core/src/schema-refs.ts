import type { JsonSchema } from './tool-definition.js';

/** The definitions a schema's `$ref`s can point to (`$defs` and draft-07 `definitions`). */
export function collectDefs(schema: JsonSchema): Record<string, JsonSchema> {
  return {
    ...((schema['definitions'] as Record<string, JsonSchema> | undefined) ?? {}),
    ...((schema['$defs'] as Record<string, JsonSchema> | undefined) ?? {}),
  };
}

/** The name of the local definition a `$ref` points to, if it is one. */
export function localRefName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  return match ? decodeURIComponent(match[1]!).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}

/** The definition a local `$ref` points to, or the node itself. */
export function resolveRef(node: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const name = localRefName(node['$ref']);
  return (name !== undefined && defs[name]) || node;
}
