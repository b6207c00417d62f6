// Run-time helpers the anytool build step emits calls to (as `@anytool/schema/runtime`).
// Anything exported here is public API: the generated code of built projects depends on it.
import { AnytoolError, ErrorCode, type ArgumentPreparer } from '@anytool/core';

type Args = Record<string, unknown>;

/**
 * Turns the ISO strings at `paths` back into `Date`s (the schema says
 * `format: date-time`, so they were already validated). A path segment `[]`
 * walks every array item, `*` every value of a record.
 */
export function reviveDates(paths: readonly (readonly string[])[]): ArgumentPreparer {
  return (args) => {
    const out: Args = { ...args };
    for (const path of paths) reviveAt(out, path, 0);
    return out;
  };
}

function reviveAt(holder: Args | unknown[], path: readonly string[], at: number): void {
  const key = path[at]!;
  const last = at === path.length - 1;
  if (key === '[]') {
    if (!Array.isArray(holder)) return;
    for (let i = 0; i < holder.length; i++) {
      if (last) holder[i] = toDate(holder[i]);
      else holder[i] = descend(holder[i], path, at + 1);
    }
    return;
  }
  if (key === '*') {
    if (Array.isArray(holder)) return;
    for (const name of Object.keys(holder)) {
      if (last) holder[name] = toDate(holder[name]);
      else holder[name] = descend(holder[name], path, at + 1);
    }
    return;
  }
  if (Array.isArray(holder) || !(key in holder)) return;
  if (last) holder[key] = toDate(holder[key]);
  else holder[key] = descend(holder[key], path, at + 1);
}

function descend(value: unknown, path: readonly string[], at: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const copy = Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Args) };
  reviveAt(copy, path, at);
  return copy;
}

function toDate(value: unknown): unknown {
  return typeof value === 'string' ? new Date(value) : value;
}

interface ValidationErrorLike {
  property: string;
  constraints?: Record<string, string>;
  children?: ValidationErrorLike[];
}

type Validate = (object: object, options?: object) => Promise<ValidationErrorLike[]>;
let validateFn: Promise<Validate> | undefined;

function loadValidate(): Promise<Validate> {
  return (validateFn ??= import('class-validator').then((mod: unknown) => {
    const m = mod as { validate?: Validate; default?: { validate?: Validate } };
    const validate = m.validate ?? m.default?.validate;
    if (validate === undefined) throw new AnytoolError(ErrorCode.InvalidOptions, 'class-validator is installed but exports no validate(); install class-validator >= 0.14');
    return validate;
  }));
}

/**
 * Makes the arguments (or the one argument `at`) an instance of a
 * class-validator class and validates it before the tool runs; a violation
 * becomes an `INVALID_ARGUMENTS` error result listing each constraint.
 */
export function validateClass(target: () => new () => object, at: string, label: string): ArgumentPreparer {
  return async (args) => {
    const Class = target();
    const plain = at === '*' ? args : args[at];
    if (typeof plain !== 'object' || plain === null) return args;
    const instance = Object.assign(Object.create(Class.prototype) as object, plain);
    const errors = await (await loadValidate())(instance, { forbidUnknownValues: false });
    if (errors.length > 0) {
      const lines = flatten(errors, at === '*' ? '' : `/${at}`);
      throw new AnytoolError(ErrorCode.InvalidArguments, `Invalid arguments (${label}):\n${lines.join('\n')}\nFix the arguments and call the tool again.`);
    }
    return at === '*' ? (instance as Args) : { ...args, [at]: instance };
  };
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
