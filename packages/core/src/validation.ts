import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { AnytoolError, ErrorCode, describeError, isAnytoolError } from './errors.js';
import { requireAjv, requireAjv2019, requireAjv2020, type AjvClasses } from './on-first-use.cjs';
import { collectDefs, localRefName, resolveRef } from './schema-refs.js';
import type { JsonSchema } from './tool-definition.js';

type AnyAjv = Ajv;

/** ajv, loaded by the first schema compiled or checked: a program that never registers a tool never loads it. */
let ajvClasses: AjvClasses | undefined;
const ajvModules = (): AjvClasses => (ajvClasses ??= requireAjv());

const OPTIONS = {
  allErrors: true,
  strict: false,
  useDefaults: true,
  addUsedSchema: false,
  validateFormats: true,
  // ajv's optimization pass over the generated code triples the compile time (a 300 KB schema:
  // 2.1 s of CPU rather than 0.7 s), and the validators it gives are no faster measurably.
  code: { optimize: false },
} as const;

/**
 * A regular-expression engine for a schema's `pattern`s and `patternProperties` keys, used in
 * place of JavaScript's own where the schema or the data comes from elsewhere: JavaScript's
 * engine backtracks, so a pattern such as `^(a+)+$` can take exponential time on a short string.
 * It compiles `pattern` (flags: `"u"`) or throws, with an `AnytoolError` whose message says what
 * the engine cannot take. `formats` replaces those checks of ajv-formats whose own are not linear.
 */
export interface PatternEngine {
  (pattern: string, flags: string): { test(text: string): boolean };
  readonly formats?: Readonly<Record<string, (text: string) => boolean>>;
}

interface Dialects {
  draft07?: AnyAjv;
  draft2019?: AnyAjv;
  draft2020?: AnyAjv;
}

const nativeDialects: Dialects = {};
const engineDialects = new WeakMap<PatternEngine, Dialects>();

/** How ajv names an engine in standalone validator code, which anytool never generates. */
const ENGINE_SOURCE = 'patternEngine';

/** A new ajv instance with the formats, and the engine's patterns and formats when one is given. */
function makeAjv(Class: typeof Ajv, engine: PatternEngine | undefined): AnyAjv {
  const { addFormats } = ajvModules();
  if (engine === undefined) return addFormats(new Class(OPTIONS));
  // ajv keys the compiled patterns of a validator by their text form, so each gets its own.
  const regExp = Object.assign(
    (pattern: string, flags: string) => {
      const compiled = engine(pattern, flags);
      return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
    },
    { code: ENGINE_SOURCE },
  );
  const ajv = addFormats(new Class({ ...OPTIONS, code: { ...OPTIONS.code, regExp } }));
  for (const [name, check] of Object.entries(engine.formats ?? {})) ajv.addFormat(name, { type: 'string', validate: check });
  return ajv;
}

/**
 * The validator for a schema's dialect. These instances only compile: each
 * compiled schema is removed from their cache at once, so they keep nothing
 * per tool.
 */
function ajvFor(schema: JsonSchema, owner: string, engine?: PatternEngine): AnyAjv {
  let dialects = nativeDialects;
  if (engine !== undefined) {
    dialects = engineDialects.get(engine) ?? {};
    engineDialects.set(engine, dialects);
  }
  const dialect = typeof schema['$schema'] === 'string' ? schema['$schema'] : '';
  if (dialect.includes('2020-12')) return (dialects.draft2020 ??= makeAjv(requireAjv2020() as unknown as typeof Ajv, engine));
  if (dialect.includes('2019-09')) return (dialects.draft2019 ??= makeAjv(requireAjv2019() as unknown as typeof Ajv, engine));
  if (dialect === '' || /draft-0[67]\/schema/.test(dialect)) return (dialects.draft07 ??= makeAjv(ajvModules().Ajv, engine));
  throw new AnytoolError(
    ErrorCode.InvalidSchema,
    `${owner}: its schema declares $schema ${JSON.stringify(dialect)}, which anytool cannot validate; use draft-07, 2019-09 or 2020-12, or remove $schema`,
  );
}

/** One problem with a tool's arguments: where it is and what was expected. */
export interface ArgumentProblem {
  /** JSON Pointer into the arguments ("" for the root). */
  path: string;
  message: string;
}

export type ArgsValidator = ((args: unknown) => boolean) & { problems(): ArgumentProblem[] };

/** Why ajv ran out of stack on a schema. */
const TOO_DEEP = 'it nests too deep, or its $refs chain too deep or into a cycle with no schema between, for the validator';

/**
 * Compiles a tool's parameter schema once; the returned function validates (and fills defaults).
 * With `engine`, its patterns run on that engine (see `PatternEngine`).
 */
export function compileValidator(schema: JsonSchema, owner: string, engine?: PatternEngine): ArgsValidator {
  const ajv = ajvFor(schema, owner, engine);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
  } catch (error) {
    ajv.removeSchema(schema);
    // The engine's refusal of a pattern says what to change; it only lacks the owner.
    if (isAnytoolError(error)) throw new AnytoolError(error.code, `${owner}: ${error.message}`, { cause: error });
    const reason = error instanceof RangeError ? TOO_DEEP : describeError(error);
    throw new AnytoolError(
      ErrorCode.InvalidSchema,
      `${owner}: its JSON Schema does not compile (${reason}); fix the schema or the type it was generated from`,
      { cause: error },
    );
  }
  // The compiled function itself is the validator: no wrapper call on the hot path.
  const check = validate as unknown as ArgsValidator;
  check.problems = () => (validate.errors ?? []).map(toProblem);
  return check;
}

/** Checks a schema against its meta-schema; returns the problems as text, or undefined. */
export function schemaProblems(schema: JsonSchema, owner = 'schema'): string | undefined {
  const ajv = ajvFor(schema, owner);
  try {
    if (ajv.validateSchema(schema) as boolean) return undefined;
  } catch (error) {
    if (error instanceof RangeError) return TOO_DEEP;
    throw error;
  }
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

/** Whether ajv would write a `default` somewhere into arguments validated against this schema. */
export function hasDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasDefaults);
  if (typeof schema !== 'object' || schema === null) return false;
  if ('default' in schema) return true;
  return Object.values(schema).some(hasDefaults);
}

type Stripper = (value: unknown) => unknown;

/**
 * OpenAI strict mode makes every property required and lets optional ones be
 * `null`, at every depth. This returns a function that turns such a `null`
 * back into an absent property, so the tool's default applies. It follows the
 * same structure the strict lowering walks (properties, array items, anyOf /
 * oneOf branches, a single allOf member, `$ref`s into `$defs`, recursion
 * included) and touches only properties that are optional and whose schema
 * does not itself accept `null`. It copies what it changes, never the input.
 * Returns undefined when the schema has no such property.
 */
export function compileNullStripper(schema: JsonSchema): ((args: Record<string, unknown>) => Record<string, unknown>) | undefined {
  const defs = collectDefs(schema);
  const byDef = new Map<string, Stripper | null>();
  const building = new Set<string>();
  // One call's outcome of each anyOf / oneOf for each value: branches that share a definition (through
  // $refs, or a recursive type) would otherwise try it once per path to it, twice as often each level.
  let tried: WeakMap<object, Map<Stripper, unknown>> | undefined;

  const forRef = (name: string): Stripper | undefined => {
    if (byDef.has(name)) return byDef.get(name) ?? undefined;
    if (building.has(name)) {
      // Recursive: resolve at call time, once the definition's stripper exists.
      return (value) => {
        const inner = byDef.get(name);
        return inner ? inner(value) : value;
      };
    }
    const target = defs[name];
    if (target === undefined) return undefined;
    building.add(name);
    const built = build(target);
    building.delete(name);
    byDef.set(name, built ?? null);
    return built;
  };

  const build = (node: unknown): Stripper | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const n = node as JsonSchema;
    const ref = localRefName(n['$ref']);
    if (ref !== undefined) return forRef(ref);
    const parts: Stripper[] = [];
    const properties = n['properties'];
    if (typeof properties === 'object' && properties !== null) {
      const part = objectStripper(n, properties as Record<string, unknown>);
      if (part) parts.push(part);
    }
    const items = n['items'];
    if (typeof items === 'object' && items !== null && !Array.isArray(items)) {
      const inner = build(items);
      if (inner) parts.push((value) => (Array.isArray(value) ? mapCopy(value, inner) : value));
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const options = n[key];
      if (!Array.isArray(options)) continue;
      const branches = options.map(build).filter((b): b is Stripper => b !== undefined);
      // The value is tried against each branch that has optional properties: the first one that changes it wins.
      if (branches.length > 0) {
        const union: Stripper = (value) => {
          // Only objects and arrays are ever changed.
          if (typeof value !== 'object' || value === null) return value;
          const seen = (tried ??= new WeakMap()).get(value) ?? new Map<Stripper, unknown>();
          tried.set(value, seen);
          if (seen.has(union)) return seen.get(union);
          let out: unknown = value;
          for (const strip of branches) {
            out = strip(value);
            if (out !== value) break;
          }
          seen.set(union, out);
          return out;
        };
        parts.push(union);
      }
    }
    const allOf = n['allOf'];
    if (Array.isArray(allOf) && allOf.length === 1) {
      const inner = build(allOf[0]);
      if (inner) parts.push(inner);
    }
    if (parts.length === 0) return undefined;
    if (parts.length === 1) return parts[0];
    return (value) => parts.reduce((v, part) => part(v), value);
  };

  const objectStripper = (n: JsonSchema, properties: Record<string, unknown>): Stripper | undefined => {
    const required = new Set(Array.isArray(n['required']) ? (n['required'] as string[]) : []);
    const optionalNonNull: string[] = [];
    const nested: Array<[string, Stripper]> = [];
    for (const [key, child] of Object.entries(properties)) {
      if (typeof child !== 'object' || child === null) continue;
      if (!required.has(key) && !acceptsNull(resolveRef(child as JsonSchema, defs))) optionalNonNull.push(key);
      const inner = build(child);
      if (inner) nested.push([key, inner]);
    }
    if (optionalNonNull.length === 0 && nested.length === 0) return undefined;
    return (input) => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
      const value = input as Record<string, unknown>;
      let out = value;
      for (const key of optionalNonNull) {
        if (out[key] === null) {
          if (out === value) out = { ...value };
          delete out[key];
        }
      }
      for (const [key, inner] of nested) {
        const child = out[key];
        if (child === undefined || child === null) continue;
        const stripped = inner(child);
        if (stripped !== child) {
          if (out === value) out = { ...value };
          out[key] = stripped;
        }
      }
      return out;
    };
  };

  const root = build(schema);
  if (root === undefined) return undefined;
  return (args) => {
    tried = undefined;
    return root(args) as Record<string, unknown>;
  };
}

function mapCopy(values: unknown[], strip: Stripper): unknown[] {
  let out = values;
  for (let i = 0; i < values.length; i++) {
    const stripped = strip(values[i]);
    if (stripped !== values[i]) {
      if (out === values) out = [...values];
      out[i] = stripped;
    }
  }
  return out;
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
