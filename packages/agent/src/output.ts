import { AnytoolError, ErrorCode, type JsonSchema, type StandardSchemaV1 } from '@anytool/core';
import {
  compileNullStripper,
  compileValidator,
  formatProblems,
  isRecord,
  isStandardSchema,
  issuesToProblems,
  schemaProblems,
  standardToJsonSchema,
  type ArgsValidator,
  type ArgumentProblem,
} from '@anytool/core/internal';
import type { OutputFormat } from './model.js';

/**
 * A JSON Schema that says, for TypeScript, what a value matching it is: what
 * `schemaOf<T>()` returns (the build step writes the schema of `T` into the call).
 * At run time it is the plain JSON Schema.
 */
export type TypedJsonSchema<T> = JsonSchema & { readonly '~output'?: T };

/**
 * What an agent's final answer must match (`AgentOptions.output`): a JSON Schema
 * (validated with ajv, as tool arguments are), a Standard Schema (zod, valibot,
 * arktype: validated by the library, its parsed value is the output), or the
 * schema of a TypeScript type (`schemaOf<T>()`, filled in by the build step).
 */
export type OutputSchema<T = unknown> = StandardSchemaV1<unknown, T> | TypedJsonSchema<T>;

/**
 * The JSON Schema of the TypeScript type `T`, for an agent's `output`. The build
 * step (`@anytool/schema`'s transformer) writes the schema into the call, as it
 * does for a tool's parameters; without it the call throws, naming the fix.
 *
 * @example
 * interface Itinerary { city: string; days: number }
 * const agent = new Agent({ model, output: schemaOf<Itinerary>() });
 * const { output } = await agent.run('Plan three days in Oslo'); // output: Itinerary | undefined
 */
export function schemaOf<T>(schema?: JsonSchema): TypedJsonSchema<T> {
  if (schema === undefined) {
    throw new AnytoolError(
      ErrorCode.MissingSchema,
      'schemaOf<T>(): no schema was written into this call: compile with the anytool build step (@anytool/schema), or pass a JSON Schema or a Standard Schema (zod...) as `output`',
    );
  }
  return schema as TypedJsonSchema<T>;
}

/** The outcome of checking a final answer: its value, or what is wrong with it. */
export type OutputCheck<T> = { ok: true; value: T } | { ok: false; problems: ArgumentProblem[] };

/** Names a provider accepts for a response format: OpenAI's rule (letters, digits, `_`, `-`, at most 64). */
const FORMAT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * An agent's structured output: the JSON Schema the provider is sent (its native
 * structured output, through each adapter's lowering), and the check of the
 * model's final text against it (JSON parse, the `null`s strict mode sends for
 * optional properties taken as absent, then the schema). A failed check's
 * problems are what the repair turn tells the model.
 */
export class RunOutput<T = unknown> {
  /** What the model request carries (`ModelRequest.output`). */
  readonly format: OutputFormat;
  private readonly standard: StandardSchemaV1 | undefined;
  private readonly validator: ArgsValidator | undefined;
  private readonly stripNulls: ((value: Record<string, unknown>) => Record<string, unknown>) | undefined;

  constructor(schema: OutputSchema<T>) {
    let json: JsonSchema;
    if (isStandardSchema(schema)) {
      this.standard = schema;
      json = standardToJsonSchema(schema, 'Agent: `output`');
    } else if (isRecord(schema)) {
      json = schema as JsonSchema;
      const problems = schemaProblems(json, 'Agent: `output`');
      if (problems !== undefined) {
        throw new AnytoolError(
          ErrorCode.InvalidSchema,
          `Agent: \`output\` is not a valid JSON Schema: ${problems}; fix the schema or pass a Standard Schema (zod...)`,
        );
      }
      this.validator = compileValidator(json, 'Agent: `output`');
    } else {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `Agent: \`output\` must be a JSON Schema, a Standard Schema (zod, valibot, arktype) or schemaOf<T>(), got ${schema === null ? 'null' : typeof schema}`,
      );
    }
    if (json['type'] !== 'object') {
      // Every provider's structured output takes an object at the top (OpenAI and Anthropic require it).
      throw new AnytoolError(
        ErrorCode.InvalidSchema,
        `Agent: \`output\` must describe an object (\`type: 'object'\`), as providers' structured output requires; wrap the value in a property, e.g. { type: 'object', properties: { answer: ... } }`,
      );
    }
    const title = typeof json['title'] === 'string' ? json['title'].replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) : '';
    this.format = { name: FORMAT_NAME.test(title) ? title : 'final_answer', schema: json };
    if (typeof json['description'] === 'string') this.format.description = json['description'];
    this.stripNulls = compileNullStripper(json);
  }

  /** The model's final text checked: the value (a Standard Schema's parsed output), or the problems. */
  async check(text: string): Promise<OutputCheck<T>> {
    let value: unknown;
    try {
      value = JSON.parse(stripFence(text));
    } catch (error) {
      return { ok: false, problems: [{ path: '', message: `is not JSON (${(error as Error).message}); answer with the JSON object only` }] };
    }
    if (this.stripNulls !== undefined && isRecord(value)) value = this.stripNulls(value);
    if (this.standard !== undefined) {
      const result = await this.standard['~standard'].validate(value);
      return result.issues === undefined ? { ok: true, value: result.value as T } : { ok: false, problems: issuesToProblems(result.issues) };
    }
    return this.validator!(value) ? { ok: true, value: value as T } : { ok: false, problems: this.validator!.problems() };
  }

  /** The user message of the repair turn: what was wrong, and what to send instead. */
  repairText(problems: readonly ArgumentProblem[]): string {
    return `Your answer does not match the required JSON Schema:\n${formatProblems(problems)}\nAnswer again with only a JSON object that matches the schema.`;
  }

  /** The run's failure once the repair turn's answer did not match either. */
  failure(problems: readonly ArgumentProblem[], text: string, steps: number): AnytoolError {
    return new AnytoolError(
      ErrorCode.OutputInvalid,
      `Agent: the final answer after ${steps} model turn(s) does not match \`output\`, also after a repair turn:\n${formatProblems(problems)}\nMake the schema easier to follow, give the model more instructions, or raise \`maxSteps\` if the run ran out of turns.`,
      { detail: `the model's last text: ${text.slice(0, 2000)}` },
    );
  }
}

/**
 * The `RunOutput` of a schema object: an application that makes an agent per
 * request with the same schema compiles its validator once.
 */
const compiled = new WeakMap<object, RunOutput>();

/** The `RunOutput` of `schema`, made once per schema object. */
export function runOutput<T>(schema: OutputSchema<T>): RunOutput<T> {
  const key = typeof schema === 'object' && schema !== null ? schema : undefined;
  const known = key === undefined ? undefined : compiled.get(key);
  if (known !== undefined) return known as RunOutput<T>;
  const made = new RunOutput(schema);
  if (key !== undefined) compiled.set(key, made as RunOutput);
  return made;
}

/** A model without native structured output may wrap its JSON in a Markdown fence; the JSON inside is taken. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced === null ? text : fenced[1]!;
}
