import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { AnytoolError, ErrorCode, describeError } from './errors.js';
import type { JsonSchema } from './tool-definition.js';

// ajv-formats ships CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

type AnyAjv = Ajv;

const OPTIONS = {
  allErrors: true,
  strict: false,
  useDefaults: true,
  addUsedSchema: false,
  validateFormats: true,
} as const;

let draft07: AnyAjv | undefined;
let draft2019: AnyAjv | undefined;
let draft2020: AnyAjv | undefined;

function ajvFor(schema: JsonSchema): AnyAjv {
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (dialect.includes('2020-12')) return (draft2020 ??= addFormats(new Ajv2020(OPTIONS) as unknown as Ajv));
  if (dialect.includes('2019-09')) return (draft2019 ??= addFormats(new Ajv2019(OPTIONS) as unknown as Ajv));
  return (draft07 ??= addFormats(new Ajv(OPTIONS)));
}

/** One problem with a tool's arguments: where it is and what was expected. */
export interface ArgumentProblem {
  /** JSON Pointer into the arguments ("" for the root). */
  path: string;
  message: string;
}

export type ArgsValidator = ((args: unknown) => boolean) & { problems(): ArgumentProblem[] };

/** Compiles a tool's parameter schema once; the returned function validates (and fills defaults). */
export function compileValidator(schema: JsonSchema, owner: string): ArgsValidator {
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch (error) {
    throw new AnytoolError(ErrorCode.InvalidSchema, `${owner}: its JSON Schema does not compile (${describeError(error)}); fix the schema or the type it was generated from`, { cause: error });
  }
  const check = ((args: unknown) => validate(args) as boolean) as ArgsValidator;
  check.problems = () => (validate.errors ?? []).map(toProblem);
  return check;
}

/** Checks a schema against its meta-schema; returns the problems as text, or undefined. */
export function schemaProblems(schema: JsonSchema): string | undefined {
  const ajv = ajvFor(schema);
  if (ajv.validateSchema(schema) as boolean) return undefined;
  return ajv.errorsText(ajv.errors);
}

function toProblem(error: ErrorObject): ArgumentProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: `${error.instancePath}/${String(params['missingProperty'])}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${error.instancePath}/${String(params['additionalProperty'])}`, message: 'is not an allowed property' };
    case 'enum':
      return { path: error.instancePath, message: `must be one of ${JSON.stringify(params['allowedValues'])}` };
    case 'const':
      return { path: error.instancePath, message: `must be ${JSON.stringify(params['allowedValue'])}` };
    default:
      return { path: error.instancePath, message: error.message ?? error.keyword };
  }
}

/** Formats problems as lines the model can act on: "- /city: must be string". */
export function formatProblems(problems: readonly ArgumentProblem[]): string {
  return problems.map((p) => `- ${p.path === '' ? '(arguments)' : p.path}: ${p.message}`).join('\n');
}

/**
 * OpenAI strict mode makes every property required and lets optional ones be
 * `null`. This returns a function that turns such a `null` back into an absent
 * property, so the tool's default applies; it touches only properties that are
 * optional and whose schema does not itself accept `null`. Returns undefined
 * when the schema has no such property.
 */
export function compileNullStripper(schema: JsonSchema): ((args: Record<string, unknown>) => Record<string, unknown>) | undefined {
  const defs = (schema['$defs'] ?? schema['definitions'] ?? {}) as Record<string, JsonSchema>;
  return stripperFor(schema, defs, new Set());
}

type Stripper = (value: Record<string, unknown>) => Record<string, unknown>;

function resolveRef(node: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  return (match && defs[decodeURIComponent(match[1]!)]) || node;
}

export function acceptsNull(node: JsonSchema): boolean {
  const type = node['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(node['enum']) && (node['enum'] as unknown[]).includes(null)) return true;
  if ('const' in node && node['const'] === null) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = node[key];
    if (Array.isArray(options) && options.some((o) => typeof o === 'object' && o !== null && acceptsNull(o as JsonSchema))) return true;
  }
  return Object.keys(node).length === 0;
}

function stripperFor(raw: JsonSchema, defs: Record<string, JsonSchema>, seen: Set<JsonSchema>): Stripper | undefined {
  const node = resolveRef(raw, defs);
  if (seen.has(node)) return undefined;
  seen.add(node);
  try {
    const properties = node['properties'] as Record<string, JsonSchema> | undefined;
    if (!properties || typeof properties !== 'object') return undefined;
    const required = new Set(Array.isArray(node['required']) ? (node['required'] as string[]) : []);
    const optionalNonNull: string[] = [];
    const nested: Array<[string, Stripper]> = [];
    for (const [key, child] of Object.entries(properties)) {
      if (typeof child !== 'object' || child === null) continue;
      if (!required.has(key) && !acceptsNull(resolveRef(child, defs))) optionalNonNull.push(key);
      const inner = stripperFor(child, defs, seen);
      if (inner) nested.push([key, inner]);
    }
    if (optionalNonNull.length === 0 && nested.length === 0) return undefined;
    return (value) => {
      let out = value;
      for (const key of optionalNonNull) {
        if (out[key] === null) {
          if (out === value) out = { ...value };
          delete out[key];
        }
      }
      for (const [key, inner] of nested) {
        const child = out[key];
        if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
          const stripped = inner(child as Record<string, unknown>);
          if (stripped !== child) {
            if (out === value) out = { ...value };
            out[key] = stripped;
          }
        }
      }
      return out;
    };
  } finally {
    seen.delete(node);
  }
}
