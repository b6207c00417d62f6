import { ErrorCode, describeError } from '../errors.js';
import { listedProblems } from '../error-text.js';
import { compileFlatReader, type FlatReader } from '../flat-arguments.js';
import { issuesToProblems, type StandardSchemaV1 } from '../standard-schema.js';
import type { JsonSchema } from '../tool-definition.js';
import { errorResult, type ToolResult } from '../tool-result.js';
import { compileNullStripper, formatProblems, hasDefaults, type ArgsValidator, type ArgumentProblem } from '../validation.js';

/**
 * The validation stage of a call, the first step of a tool's own stage (see the
 * chain in `pipeline.ts`): the caller's arguments in, the arguments `execute`
 * receives or the error result the call ends with out. In order:
 *
 * 1. read: the model's JSON text parsed (a flat schema's text by the one-pass reader
 *    of `flat-arguments.ts` when it can, `JSON.parse` otherwise); nothing is an empty object;
 * 2. shape: one object, nested at most `MAX_ARGUMENT_DEPTH` deep, numbers finite;
 * 3. copy: a caller's object is copied when the schema has defaults to fill in;
 * 4. strip: the `null`s OpenAI strict mode sends for optional properties are dropped;
 * 5. validate: the compiled JSON Schema validator, which fills in the defaults;
 *    its problems become an `INVALID_ARGUMENTS` result listing each field's path.
 *
 * A Standard Schema's own check (`validateStandard`) runs later, as the first of the
 * build step's preparers, because it may be async.
 */
export class ArgumentValidation {
  /** Reads the model's JSON text of a flat schema's arguments in one pass (see `compileFlatReader`). */
  private readonly readFlat: FlatReader | undefined;
  private readonly stripNulls: ((args: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** Whether the validator writes defaults, so a caller's object must be copied first. */
  private readonly copyFirst: boolean;

  /**
   * `validator` checks `parameters`; `ownSchema` is false for a tool whose arguments a
   * Standard Schema validates (then `validator` passes everything, and nothing is read
   * or filled in here beyond the shape).
   */
  constructor(
    parameters: JsonSchema,
    private readonly validator: ArgsValidator,
    ownSchema: boolean,
  ) {
    this.stripNulls = compileNullStripper(parameters);
    this.copyFirst = ownSchema && hasDefaults(parameters);
    // The reader takes no null (it leaves such text to the general path), so the null stripper has nothing to do after it.
    this.readFlat = ownSchema ? compileFlatReader(parameters) : undefined;
  }

  /** The arguments of a call of tool `name`, validated (defaults filled in), or the refusal it ends with. */
  check(name: string, rawArgs: unknown): Record<string, unknown> | Refusal {
    const readFlat = this.readFlat;
    if (readFlat !== undefined && typeof rawArgs === 'string') {
      const flat = readFlat(rawArgs);
      if (flat !== undefined) return flat;
    }
    const args = readArguments(name, rawArgs);
    return args instanceof Refusal ? args : this.validate(name, args, rawArgs);
  }

  /** Steps 3 to 5 for arguments `readArguments` gave from `rawArgs`. */
  validate(name: string, args: object, rawArgs: unknown): Record<string, unknown> | Refusal {
    // Parsed JSON is ours to fill with defaults; an object from the caller is copied first.
    let object = (this.copyFirst && args === rawArgs ? copyData(args) : args) as Record<string, unknown>;
    // JSON text with no `null` in it parses to arguments with no null to drop.
    if (this.stripNulls !== undefined && !(typeof rawArgs === 'string' && !rawArgs.includes('null'))) object = this.stripNulls(object);
    const validator = this.validator;
    if (!validator(object)) return invalidArguments(name, validator.problems());
    return object;
  }
}

/** Passes everything: a Standard Schema tool is validated by its schema, as its first preparer. */
export const passAll = Object.assign(() => true, { problems: () => [] }) as ArgsValidator;

/** What the validation stage returns when the arguments are refused (cheaper to test than a result's brand). */
export class Refusal {
  constructor(readonly result: ToolResult) {}
}

export function refuse(code: ErrorCode | string, text: string, message?: string): Refusal {
  return new Refusal(errorResult(code, text, message));
}

/** The refusal listing `problems` (one "- /path: message" line each, see `formatProblems`) for the model to fix. */
function invalidArguments(name: string, problems: readonly ArgumentProblem[]): Refusal {
  const lines = [`Invalid arguments for tool "${name}":`, formatProblems(listedProblems(problems)), 'Fix the arguments and call the tool again.'];
  return refuse(ErrorCode.InvalidArguments, lines.join('\n'));
}

/**
 * Steps 1 and 2: the arguments object of a call of tool `name`, parsed from the model's
 * JSON text when it is text, or the refusal of what is not one sound JSON object.
 * May throw for an in-process caller's object whose reading throws (a revoked proxy).
 */
export function readArguments(name: string, rawArgs: unknown): object | Refusal {
  let args: unknown = rawArgs;
  if (typeof args === 'string') {
    try {
      // The model's JSON text starts with '{': only other text needs the blank check.
      args = args.charCodeAt(0) !== 123 && args.trim() === '' ? {} : JSON.parse(args);
    } catch (error) {
      return refuse(
        ErrorCode.InvalidArguments,
        `Invalid arguments for tool "${name}": they are not valid JSON (${describeError(error)}). Send one JSON object.`,
      );
    }
  }
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return refuse(
      ErrorCode.InvalidArguments,
      `Invalid arguments for tool "${name}": expected one JSON object, got ${Array.isArray(args) ? 'an array' : typeof args}.`,
    );
  }
  const problem = argumentsProblem(args as object, args !== rawArgs);
  if (problem === undefined) return args as object;
  return problem === TOO_DEEP ? tooDeep(name) : invalidArguments(name, [problem]);
}

/** The refusal of arguments nested deeper than `MAX_ARGUMENT_DEPTH`. */
function tooDeep(name: string): Refusal {
  return refuse(
    ErrorCode.InvalidArguments,
    `Invalid arguments for tool "${name}": they are nested more than ${MAX_ARGUMENT_DEPTH} levels deep, past the limit of ${MAX_ARGUMENT_DEPTH} (a cyclic object counts as too deep). Send flatter arguments.`,
  );
}

/** Validates with the Standard Schema's own `validate` (a Refusal on issues); its output (coerced, defaulted) is what the tool receives. */
export async function validateStandard(name: string, schema: StandardSchemaV1, args: Record<string, unknown>): Promise<Record<string, unknown> | Refusal> {
  const outcome = await schema['~standard'].validate(args);
  if (outcome.issues !== undefined) return invalidArguments(name, issuesToProblems(outcome.issues));
  return outcome.value as Record<string, unknown>;
}

/**
 * A copy of JSON-like data (plain objects and arrays), so validation defaults never touch the caller's object.
 * An own `__proto__` key stays a plain data key, as `JSON.parse` leaves it. Arguments reach it after
 * `argumentsProblem`, so the recursion is at most `MAX_ARGUMENT_DEPTH` deep.
 */
function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyData((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}

/**
 * How deeply arguments may nest (each object or array is a level, the arguments object the
 * first). Deeper arguments are refused before anything walks them recursively.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** An object or array on the walk, with the way back to the root for messages. */
interface Visit {
  value: object;
  depth: number;
  parent: Visit | undefined;
  key: string;
}

function pointer(parent: Visit, key: string): string {
  const keys = [key];
  for (let v: Visit | undefined = parent; v?.parent !== undefined; v = v.parent) keys.push(v.key);
  return `/${keys
    .reverse()
    .map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/')}`;
}

/** What `argumentsProblem` returns for arguments nested deeper than `MAX_ARGUMENT_DEPTH`. */
const TOO_DEEP = 'too deep';

/**
 * Checks, without recursion, what no JSON Schema catches: nesting deeper than
 * `MAX_ARGUMENT_DEPTH` (a cycle counts as too deep: `TOO_DEEP`) and numbers JSON cannot
 * carry (`NaN`, `Infinity`), which in-process callers can pass (the first such value, as
 * a problem at its path). Returns undefined when there is nothing to say.
 * `parsed` says the arguments come from `JSON.parse`: a tree, with nothing shared.
 */
function argumentsProblem(args: object, parsed: boolean): ArgumentProblem | typeof TOO_DEEP | undefined {
  if (parsed ? isSoundTree(args, 1) : isFlat(args)) return undefined;
  const stack: Visit[] = [{ value: args, depth: 1, parent: undefined, key: '' }];
  // The depth at which each object was last walked: shared objects are walked again only deeper.
  const seen = parsed ? undefined : new Map<object, number>();
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const value = visit.value;
    const array = Array.isArray(value);
    // The arguments object itself is always walked; below it only plain objects and arrays (what the copy copies).
    if (!array && visit.depth > 1) {
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) continue;
    }
    if (visit.depth > MAX_ARGUMENT_DEPTH) return TOO_DEEP;
    if (seen !== undefined) {
      const before = seen.get(value);
      if (before !== undefined && before >= visit.depth) continue;
      seen.set(value, visit.depth);
    }
    let problem: ArgumentProblem | undefined;
    if (array) for (let i = 0; i < value.length && problem === undefined; i++) problem = visitChild(stack, visit, String(i), value[i]);
    else for (const key of Object.keys(value)) if ((problem = visitChild(stack, visit, key, (value as Record<string, unknown>)[key])) !== undefined) break;
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Whether `args` holds no object and no number JSON cannot carry: nothing to walk, nothing allocated (most calls). */
function isFlat(args: object): boolean {
  for (const key in args) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === 'object' ? value !== null : typeof value === 'number' && !Number.isFinite(value)) return false;
  }
  return true;
}

/**
 * Whether `value`, parsed JSON (a tree of plain objects and arrays, nothing shared) at `depth`,
 * nests no deeper than `MAX_ARGUMENT_DEPTH` and holds no number JSON cannot carry (`1e400` parses
 * to Infinity): what `argumentsProblem` would find nothing in, checked without allocating. The
 * recursion stops at the limit; anything else takes the walk, which says what is wrong and where.
 */
function isSoundTree(value: object, depth: number): boolean {
  if (depth > MAX_ARGUMENT_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isSoundChild(value[i], depth)) return false;
    return true;
  }
  for (const key in value) if (!isSoundChild((value as Record<string, unknown>)[key], depth)) return false;
  return true;
}

function isSoundChild(child: unknown, depth: number): boolean {
  if (typeof child === 'object') return child === null || isSoundTree(child, depth + 1);
  return typeof child !== 'number' || Number.isFinite(child);
}

/** Checks one child of `parent`: a number must be finite; an object or array is walked next. */
function visitChild(stack: Visit[], parent: Visit, key: string, child: unknown): ArgumentProblem | undefined {
  if (typeof child === 'number' && !Number.isFinite(child)) {
    return { path: pointer(parent, key), message: `must be a finite number (got ${child}, which JSON cannot carry)` };
  }
  if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: parent.depth + 1, parent, key });
  return undefined;
}
