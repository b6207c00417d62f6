import { AnytoolError, ErrorCode, describeError } from './errors.js';
import type { JsonSchema } from './tool-definition.js';
import type { ArgumentProblem } from './validation.js';

/**
 * The Standard Schema interface (https://standardschema.dev), copied as its
 * spec asks: zod 4, valibot, arktype and others implement it. anytool detects
 * it by shape and depends on no schema library.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

// The spec's own layout: an interface and a namespace of the same name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output'];
}

/** The Standard JSON Schema converter a schema may carry next to `validate` (`~standard.jsonSchema`). */
interface JsonSchemaConverter {
  input(options: { target: string; libraryOptions?: Record<string, unknown> }): Record<string, unknown>;
}

/** Whether `value` implements Standard Schema (has `~standard` with a `validate` function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && typeof (props as { validate?: unknown }).validate === 'function';
}

const TARGETS = ['draft-2020-12', 'draft-07'] as const;

/** The fix for libraries whose schemas carry no JSON Schema export themselves, by `~standard.vendor`. */
const VENDOR_FIXES: Record<string, string> = {
  valibot: "wrap the schema with toStandardJsonSchema() from '@valibot/to-json-schema' (it adds Standard JSON Schema and keeps validation as it is)",
};

/**
 * The JSON Schema of a Standard Schema's input, for the model: through the
 * Standard JSON Schema interface (`~standard.jsonSchema.input`), else zod 4's
 * `toJSONSchema` method. Throws a coded error naming the tool, the library
 * and the fix when the library can export neither.
 */
export function standardToJsonSchema(schema: StandardSchemaV1, owner: string): JsonSchema {
  const props = schema['~standard'] as StandardSchemaV1.Props & { jsonSchema?: Partial<JsonSchemaConverter> };
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'unknown';
  const converter = props.jsonSchema;
  const toJSONSchema = (schema as { toJSONSchema?: unknown }).toJSONSchema;
  const attempts: ((target: string) => unknown)[] = [];
  if (typeof converter?.input === 'function') attempts.push((target) => converter.input!({ target }));
  if (typeof toJSONSchema === 'function') attempts.push((target) => (toJSONSchema as (o: unknown) => unknown).call(schema, { target, io: 'input' }));
  if (attempts.length === 0) {
    const fix =
      VENDOR_FIXES[vendor] ?? 'use a version of the library that implements Standard JSON Schema (as zod 4.2+ and arktype 2.2 do), or one with toJSONSchema';
    throw new AnytoolError(
      ErrorCode.InvalidSchema,
      `${owner}: its parameters are a Standard Schema from "${vendor}", which does not export JSON Schema (no ~standard.jsonSchema, no toJSONSchema), and the model needs one; ` +
        `${fix}, or pass a JSON Schema as { parameters }`,
    );
  }
  let lastError: unknown;
  for (const attempt of attempts) {
    for (const target of TARGETS) {
      try {
        const out = attempt(target);
        if (typeof out === 'object' && out !== null && !Array.isArray(out)) return out as JsonSchema;
        lastError = new Error(`it returned ${out === null ? 'null' : typeof out}`);
      } catch (error) {
        lastError = error;
      }
    }
  }
  throw new AnytoolError(
    ErrorCode.InvalidSchema,
    `${owner}: its Standard Schema from "${vendor}" could not be exported as JSON Schema (${describeError(lastError)}); use types the library can export, or pass a JSON Schema as { parameters }`,
    { cause: lastError },
  );
}

function escapePointer(key: PropertyKey): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Standard Schema issues as argument problems, their paths as JSON Pointers like ajv's. */
export function issuesToProblems(issues: ReadonlyArray<StandardSchemaV1.Issue>): ArgumentProblem[] {
  return issues.map((issue) => {
    let path = '';
    for (const segment of issue.path ?? []) {
      const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
      path += `/${escapePointer(key)}`;
    }
    return { path, message: issue.message };
  });
}
