import type { JsonSchema, ToolDefinition } from '../tool-definition.js';
import { acceptsNull } from '../validation.js';
import { isRecord } from '../is-record.js';
import { SILENT_KEYWORDS, pointer, type Lowered, type LoweringNote } from './lowering.js';
import { localRefName } from '../schema-refs.js';

/** A tool in the Chat Completions API's shape. */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** A tool in the Responses API's shape. */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
  /** Set on a deferred tool: the Responses API loads it when its tool search finds it. */
  defer_loading?: boolean;
}

/** The Responses API's tool search (`{ type: 'tool_search' }`, run by OpenAI), sent when some tools are deferred. */
export interface OpenAIResponsesToolSearchTool {
  type: 'tool_search';
  [setting: string]: unknown;
}

/** One of OpenAI's hosted tools (`web_search`, `file_search`, `code_interpreter`, `image_generation`, `mcp`), in the Responses API's shape. */
export type OpenAIResponsesBuiltinTool =
  | { type: 'web_search'; [setting: string]: unknown }
  | { type: 'file_search'; vector_store_ids: string[]; [setting: string]: unknown }
  | { type: 'code_interpreter'; container: string | { type: 'auto'; [setting: string]: unknown }; [setting: string]: unknown }
  | { type: 'image_generation'; [setting: string]: unknown }
  | { type: 'mcp'; server_label: string; [setting: string]: unknown };

export interface OpenAIFormatOptions {
  /** Strict mode (structured outputs) for tool arguments; on by default. */
  strict?: boolean;
}

/** Keywords strict mode accepts, apart from the structural ones handled below. */
const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  '$ref',
]);
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

class NotStrict extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Lowers a schema to OpenAI strict mode: every object closed
 * (`additionalProperties: false`) with every property required, optional ones
 * made nullable (anytool turns the model's `null` back into "absent" before the
 * tool runs, so defaults apply), `oneOf` as `anyOf`, unsupported keywords
 * dropped. Throws `NotStrict` for shapes strict mode cannot express.
 */
function lowerStrict(node: unknown, path: string, tool: string, notes: LoweringNote[]): JsonSchema {
  if (!isRecord(node)) throw new NotStrict(path, 'a boolean schema');
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'properties':
      case 'required':
      case 'additionalProperties':
        break;
      case '$defs':
      case 'definitions': {
        const defs: Record<string, JsonSchema> = {};
        for (const [name, def] of Object.entries(value as Record<string, unknown>))
          defs[name] = lowerStrict(def, pointer(pointer(path, key), name), tool, notes);
        out['$defs'] = { ...((out['$defs'] as object | undefined) ?? {}), ...defs };
        break;
      }
      case 'items':
        if (Array.isArray(value)) throw new NotStrict(pointer(path, key), 'a tuple (array form of items)');
        out['items'] = lowerStrict(value, pointer(path, key), tool, notes);
        break;
      case 'anyOf':
      case 'oneOf':
        if (key === 'oneOf')
          notes.push({
            tool,
            path: pointer(path, key),
            action: 'changed',
            detail: 'oneOf sent as anyOf (strict mode has no oneOf); arguments are still validated against oneOf',
          });
        out['anyOf'] = (value as unknown[]).map((option, i) => lowerStrict(option, pointer(pointer(path, key), i), tool, notes));
        break;
      case 'allOf':
        if (Array.isArray(value) && value.length === 1) Object.assign(out, lowerStrict(value[0], pointer(pointer(path, key), 0), tool, notes));
        else throw new NotStrict(pointer(path, key), 'allOf with several members');
        break;
      case '$ref':
        if (localRefName(value) === undefined) throw new NotStrict(pointer(path, key), `a non-local $ref ${JSON.stringify(value)}`);
        out['$ref'] = (value as string).replace('#/definitions/', '#/$defs/');
        break;
      case 'format':
        if (STRICT_FORMATS.has(String(value))) out[key] = value;
        else notes.push({ tool, path: pointer(path, key), action: 'dropped', detail: `format "${String(value)}" is not supported in strict mode` });
        break;
      case 'patternProperties':
      case 'if':
      case 'then':
      case 'else':
      case 'not':
      case 'dependentSchemas':
      case 'prefixItems':
        throw new NotStrict(pointer(path, key), `the keyword "${key}"`);
      default:
        if (STRICT_KEYWORDS.has(key)) out[key] = value;
        else if (!SILENT_KEYWORDS.has(key))
          notes.push({
            tool,
            path: pointer(path, key),
            action: 'dropped',
            detail: `"${key}" is not supported in strict mode; arguments are still validated against it`,
          });
    }
  }
  const isObject = node['type'] === 'object' || isRecord(node['properties']);
  if (isObject) {
    const extra = node['additionalProperties'];
    const properties = isRecord(node['properties']) ? (node['properties'] as Record<string, unknown>) : {};
    if (extra !== undefined && extra !== false)
      throw new NotStrict(pointer(path, 'additionalProperties'), 'an object with open-ended keys (a record or index signature)');
    if (Object.keys(properties).length === 0 && extra === undefined && path !== '') throw new NotStrict(path, 'a free-form object with no declared properties');
    const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
    const lowered: Record<string, JsonSchema> = {};
    for (const [name, child] of Object.entries(properties)) {
      const childPath = pointer(pointer(path, 'properties'), name);
      let schema = lowerStrict(child, childPath, tool, notes);
      if (!required.has(name)) {
        schema = makeNullable(schema);
        notes.push({
          tool,
          path: childPath,
          action: 'changed',
          detail: 'optional property sent as required and nullable; a null from the model reaches the tool as absent',
        });
      }
      lowered[name] = schema;
    }
    out['type'] = 'object';
    out['properties'] = lowered;
    out['required'] = Object.keys(lowered);
    out['additionalProperties'] = false;
  }
  return out;
}

function makeNullable(schema: JsonSchema): JsonSchema {
  if (acceptsNull(schema)) return schema;
  const type = schema['type'];
  if (typeof type === 'string' && !('const' in schema)) {
    const out: JsonSchema = { ...schema, type: [type, 'null'] };
    if (Array.isArray(schema['enum'])) out['enum'] = [...(schema['enum'] as unknown[]), null];
    return out;
  }
  if (Array.isArray(schema['anyOf'])) return { ...schema, anyOf: [...(schema['anyOf'] as unknown[]), { type: 'null' }] };
  const { description, ...rest } = schema;
  const out: JsonSchema = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) out['description'] = description;
  return out;
}

function lowerParameters(definition: ToolDefinition, strict: boolean, notes: LoweringNote[]): { parameters: JsonSchema; strict: boolean } {
  if (!strict) return { parameters: definition.parameters, strict: false };
  const own: LoweringNote[] = [];
  try {
    const parameters = lowerStrict(definition.parameters, '', definition.name, own);
    // One note per optional property: a wide schema has more than a spread's arguments can hold.
    for (const note of own) notes.push(note);
    return { parameters, strict: true };
  } catch (error) {
    if (!(error instanceof NotStrict)) throw error;
    notes.push({
      tool: definition.name,
      path: error.path,
      action: 'not-strict',
      detail: `sent without strict mode: strict mode cannot express ${error.reason}`,
    });
    return { parameters: definition.parameters, strict: false };
  }
}

/** Chat Completions tools (`tools` of `chat.completions.create`). */
export function toOpenAIChatTools(definitions: readonly ToolDefinition[], options: OpenAIFormatOptions = {}): Lowered<OpenAIChatTool> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): OpenAIChatTool => {
    const { parameters, strict } = lowerParameters(d, options.strict ?? true, notes);
    return { type: 'function', function: { name: d.name, description: d.description, parameters, strict } };
  });
  return { tools, notes };
}

/** Responses API tools (`tools` of `responses.create`). */
export function toOpenAIResponsesTools(definitions: readonly ToolDefinition[], options: OpenAIFormatOptions = {}): Lowered<OpenAIResponsesTool> {
  const notes: LoweringNote[] = [];
  const tools = definitions.map((d): OpenAIResponsesTool => {
    const { parameters, strict } = lowerParameters(d, options.strict ?? true, notes);
    return { type: 'function', name: d.name, description: d.description, parameters, strict };
  });
  return { tools, notes };
}
