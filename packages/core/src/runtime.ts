// `@anytool/core/runtime`: the run-time helpers the anytool build step emits calls to.
// Compiled code imports this and nothing of the build step, so a production install needs
// only @anytool/core. Anything exported here is public API: built projects depend on it.
import type { ArgumentPreparer } from './build-info.js';
import { AnytoolError, ErrorCode, describeError } from './errors.js';

type Args = Record<string, unknown>;

/**
 * Where the `Date`s are in a tool's arguments: a tree shaped like the
 * parameters schema. Written by the build step; read by `revive`.
 */
export interface RevivalPlan {
  root: RevivalNode;
  /** Plans of recursive types, referenced by `{ r: name }` (the schema's `$defs`). */
  defs?: Record<string, RevivalNode>;
}

/**
 * `'date'`: a value typed exactly `Date`. Otherwise: `p` plans of named
 * properties, `pp` of properties whose names match a pattern, `a` of the other
 * properties (`n` lists the declared names it skips); `t` plans of tuple
 * positions (0: nothing to revive), `i` of the other array items; `r` a
 * definition; `u` the members of a union.
 */
export type RevivalNode =
  | 'date'
  | {
      p?: Record<string, RevivalNode>;
      pp?: [string, RevivalNode][];
      a?: RevivalNode;
      n?: string[];
      t?: (RevivalNode | 0)[];
      i?: RevivalNode;
      r?: string;
      u?: UnionAlternative[];
    };

/**
 * One member of a union: a `Date` (claims strings that are valid date-times),
 * an array, or an object told apart by literal-valued properties (`eq`) and
 * required names (`has`). The first member that claims a value decides.
 */
export type UnionAlternative = { date: 1 } | { arr: 1; plan?: RevivalNode } | { obj: 1; eq?: Record<string, unknown>; has?: string[]; plan?: RevivalNode };

/**
 * Turns the date-time strings the plan points at back into `Date`s before the
 * tool runs. Only strings that are valid RFC 3339 date-times become Dates
 * (never an Invalid Date); what it changes is copied, the arguments are not mutated.
 */
export function revive(plan: RevivalPlan): ArgumentPreparer {
  const defs = plan.defs ?? {};
  const patterns = new Map<string, RegExp>();
  const regex = (source: string): RegExp => {
    let found = patterns.get(source);
    if (found === undefined) patterns.set(source, (found = new RegExp(source, 'u')));
    return found;
  };
  const apply = (value: unknown, node: RevivalNode): unknown => {
    if (node === 'date') return toDate(value);
    if (node.r !== undefined) {
      const target = defs[node.r];
      return target === undefined ? value : apply(value, target);
    }
    if (node.u !== undefined) return applyUnion(value, node.u);
    if (Array.isArray(value)) {
      if (node.t === undefined && node.i === undefined) return value;
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const child = node.t !== undefined && index < node.t.length ? node.t[index] : node.i;
        if (child === undefined || child === 0) continue;
        const revived = apply(value[index], child);
        if (revived !== value[index]) (copy ??= [...value])[index] = revived;
      }
      return copy ?? value;
    }
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Args;
    let copy: Args | undefined;
    for (const key of Object.keys(record)) {
      let child: RevivalNode | undefined = node.p?.[key];
      if (child === undefined && node.pp !== undefined) child = node.pp.find(([pattern]) => regex(pattern).test(key))?.[1];
      if (
        child === undefined &&
        node.a !== undefined &&
        !(node.n?.includes(key) ?? false) &&
        !(node.pp?.some(([pattern]) => regex(pattern).test(key)) ?? false)
      )
        child = node.a;
      if (child === undefined) continue;
      const revived = apply(record[key], child);
      if (revived !== record[key]) (copy ??= { ...record })[key] = revived;
    }
    return copy ?? value;
  };
  const applyUnion = (value: unknown, alternatives: readonly UnionAlternative[]): unknown => {
    if (typeof value === 'string') return alternatives.some((a) => 'date' in a) ? toDate(value) : value;
    if (Array.isArray(value)) {
      const member = alternatives.find((a): a is Extract<UnionAlternative, { arr: 1 }> => 'arr' in a);
      return member?.plan === undefined ? value : apply(value, member.plan);
    }
    if (typeof value !== 'object' || value === null) return value;
    const record = value as Args;
    const member = alternatives.find(
      (a): a is Extract<UnionAlternative, { obj: 1 }> =>
        'obj' in a && Object.entries(a.eq ?? {}).every(([k, v]) => record[k] === v) && (a.has ?? []).every((k) => k in record),
    );
    return member?.plan === undefined ? value : apply(value, member.plan);
  };
  return (args) => apply(args, plan.root) as Args;
}

/** RFC 3339 date-time, as JSON Schema's `format: date-time` (a time zone is required). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

/** A Date for a valid date-time string; anything else (including an invalid date) is left as it is. */
function toDate(value: unknown): unknown {
  if (typeof value !== 'string' || !DATE_TIME.test(value)) return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date;
}

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

type Validate = (object: object, options?: object) => Promise<ValidationErrorLike[]>;
let validateFn: Promise<Validate> | undefined;

function loadValidate(): Promise<Validate> {
  return (validateFn ??= import('class-validator').then(
    (mod: unknown) => {
      const m = mod as { validate?: Validate; default?: { validate?: Validate } };
      const validate = m.validate ?? m.default?.validate;
      if (validate === undefined)
        throw new AnytoolError(ErrorCode.MissingDependency, 'class-validator is installed but exports no validate(); install class-validator >= 0.14');
      return validate;
    },
    (error: unknown) => {
      throw new AnytoolError(
        ErrorCode.MissingDependency,
        `cannot load class-validator (${describeError(error).split('\n')[0]!}); a tool takes a class with class-validator decorators, so install it next to @anytool/core: npm i class-validator`,
        { cause: error },
      );
    },
  ));
}

/**
 * Makes the arguments (or the one argument `at`, or with `each` every item of
 * the array argument `at`) instances of a class-validator class and validates
 * them before the tool runs; a violation becomes an `INVALID_ARGUMENTS` error
 * result listing each constraint.
 */
export function validateClass(target: () => new () => object, at: string, label: string, each = false): ArgumentPreparer {
  return async (args) => {
    const Class = target();
    const plain = at === '*' ? args : args[at];
    const toInstance = (value: object): object => Object.assign(Object.create(Class.prototype) as object, value);
    const validate = await loadValidate();
    const lines: string[] = [];
    if (each) {
      if (!Array.isArray(plain)) return args;
      const instances = plain.map((item: unknown) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? toInstance(item) : item));
      for (let i = 0; i < instances.length; i++) {
        const item: unknown = instances[i];
        if (typeof item !== 'object' || item === null) continue;
        lines.push(...flatten(await validate(item, { forbidUnknownValues: false }), `/${at}/${i}`));
      }
      if (lines.length > 0) throw invalid(label, lines);
      return { ...args, [at]: instances };
    }
    if (typeof plain !== 'object' || plain === null) return args;
    const instance = toInstance(plain);
    lines.push(...flatten(await validate(instance, { forbidUnknownValues: false }), at === '*' ? '' : `/${at}`));
    if (lines.length > 0) throw invalid(label, lines);
    return at === '*' ? (instance as Args) : { ...args, [at]: instance };
  };
}

function invalid(label: string, lines: readonly string[]): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidArguments, `Invalid arguments (${label}):\n${lines.join('\n')}\nFix the arguments and call the tool again.`);
}

function flatten(errors: readonly ValidationErrorLike[], prefix: string): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = `${prefix}/${error.property}`;
    for (const message of Object.values(error.constraints ?? {})) lines.push(`- ${path}: ${message}`);
    if (error.children) lines.push(...flatten(error.children, path));
  }
  return lines;
}
