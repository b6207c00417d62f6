import { AnytoolError, ErrorCode } from './errors.js';

/**
 * What a tool needs of the run's `ExecutionContext`, declared with its `context`
 * option (or inferred by the build step from its code). A tool receives a view of
 * the context with just that: its `signal` and `callId` (and the run's id and trace)
 * always, and
 * - `state.read`: the `context.state` keys it may read (`get`, `has`, iterating);
 * - `state.write`: the keys it may write (`set`, `delete`), separately from reading;
 * - `events`: `'record'` to append events (`context.record`), `'read'` to read the
 *   run's events (`context.events`, `context.subscribe`), `true` for both;
 * - `progress`: report progress (`context.progress`).
 *
 * Anything else throws a `CONTEXT_ACCESS_DENIED` error naming the tool and the fix.
 * A tool that declares nothing gets the signal only. `context.diagnose` is always allowed.
 *
 * @example
 * @Tool({ context: { state: { read: ['cart'], write: ['cart'] }, progress: true } })
 * async addToCart(item: string, context: ExecutionContext) { ... }
 */
export interface ContextAccess {
  state?: { read?: readonly string[]; write?: readonly string[] };
  events?: boolean | 'record' | 'read';
  progress?: boolean;
}

/** Who a plan belongs to, read when a message is written (a tool's name may change after it is made). */
export interface ContextAccessOwner {
  readonly name: string;
  readonly label: string;
}

const NO_KEYS: ReadonlySet<string> = new Set();

/**
 * A tool's declaration, checked and made ready once: the view of every call of
 * the tool holds this one object, so a call allocates nothing for it.
 */
export class ContextAccessPlan {
  readonly read: ReadonlySet<string>;
  readonly write: ReadonlySet<string>;
  readonly recordEvents: boolean;
  readonly readEvents: boolean;
  readonly progress: boolean;

  /** `inferred`: the declaration came from the build step's reading of the tool's code, not from its options. */
  constructor(
    readonly owner: ContextAccessOwner,
    readonly declared: ContextAccess,
    readonly inferred: boolean,
  ) {
    const read = declared.state?.read;
    const write = declared.state?.write;
    this.read = read === undefined || read.length === 0 ? NO_KEYS : new Set(read);
    this.write = write === undefined || write.length === 0 ? NO_KEYS : new Set(write);
    const events = declared.events;
    this.recordEvents = events === true || events === 'record';
    this.readEvents = events === true || events === 'read';
    this.progress = declared.progress === true;
  }

  /** The error for a use the declaration does not allow; `wider` is the declaration that would. */
  denied(what: string, wider: ContextAccess): AnytoolError {
    const { name, label } = this.owner;
    const sentences = [
      `${label} ${what}, which it did not declare.`,
      `Declare it in the tool's options (@Tool({ ... }), tool(fn, { ... }) or the BaseTool constructor's): context: ${formatAccess(wider)}.`,
    ];
    if (this.inferred)
      sentences.push(
        'The build step inferred its declaration from its code; it infers state keys only when they are string literals, and only uses of the context parameter itself (not of a helper it is passed to).',
      );
    sentences.push(`Tool "${name}" receives only the parts of the context it declares.`);
    return new AnytoolError(ErrorCode.ContextAccessDenied, sentences.join(' '));
  }

  deniedRead(key: string): AnytoolError {
    return this.denied(`read context.state key ${JSON.stringify(key)}`, this.widened({ read: key }));
  }

  deniedWrite(key: string, verb: string): AnytoolError {
    return this.denied(`${verb} context.state key ${JSON.stringify(key)}`, this.widened({ write: key }));
  }

  private widened(add: { read?: string; write?: string }): ContextAccess {
    const state = this.declared.state ?? {};
    const read = add.read === undefined ? state.read : [...(state.read ?? []), add.read];
    const write = add.write === undefined ? state.write : [...(state.write ?? []), add.write];
    const next: ContextAccess = { ...this.declared, state: {} };
    if (read !== undefined && read.length > 0) next.state!.read = read;
    if (write !== undefined && write.length > 0) next.state!.write = write;
    return next;
  }

  /** The declaration with `events` widened to include `kind`. */
  withEvents(kind: 'record' | 'read'): ContextAccess {
    const now = this.declared.events;
    const events = now === true || (now !== undefined && now !== false && now !== kind) ? true : kind;
    return { ...this.declared, events };
  }
}

/** A declaration as the user would write it, for messages: `{ state: { read: ['cart'] }, progress: true }`. */
export function formatAccess(access: ContextAccess): string {
  const parts: string[] = [];
  const list = (keys: readonly string[]): string => `[${keys.map((k) => `'${k.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
  const state: string[] = [];
  if (access.state?.read !== undefined && access.state.read.length > 0) state.push(`read: ${list(access.state.read)}`);
  if (access.state?.write !== undefined && access.state.write.length > 0) state.push(`write: ${list(access.state.write)}`);
  if (state.length > 0) parts.push(`state: { ${state.join(', ')} }`);
  if (access.events !== undefined && access.events !== false) parts.push(`events: ${access.events === true ? 'true' : `'${access.events}'`}`);
  if (access.progress === true) parts.push('progress: true');
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

function keysProblem(keys: unknown, where: string): string | undefined {
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys)) return `${where} must be an array of state keys (strings), got ${typeof keys}`;
  const bad: unknown = keys.find((k) => typeof k !== 'string');
  return bad === undefined ? undefined : `${where} must hold state keys (strings), got ${typeof bad}`;
}

/** What is wrong with a `context` option, or undefined. `true` and `false` are accepted (no declaration). */
export function contextAccessProblem(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'boolean') return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `context must be true or a declaration such as { state: { read: ['key'] } }, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`;
  const access = value as Record<string, unknown>;
  const unknownKey = Object.keys(access).find((k) => k !== 'state' && k !== 'events' && k !== 'progress');
  if (unknownKey !== undefined)
    return `context has no option ${JSON.stringify(unknownKey)}; it declares state: { read, write }, events ('record', 'read' or true) and progress (true)`;
  const state = access['state'];
  if (state !== undefined) {
    if (typeof state !== 'object' || state === null || Array.isArray(state)) return "context.state must be { read?: ['key'], write?: ['key'] }";
    const stray = Object.keys(state).find((k) => k !== 'read' && k !== 'write');
    if (stray !== undefined) return `context.state has no option ${JSON.stringify(stray)}; it takes read and write (arrays of keys)`;
    const problem =
      keysProblem((state as Record<string, unknown>)['read'], 'context.state.read') ??
      keysProblem((state as Record<string, unknown>)['write'], 'context.state.write');
    if (problem !== undefined) return problem;
  }
  const events = access['events'];
  if (events !== undefined && typeof events !== 'boolean' && events !== 'record' && events !== 'read')
    return `context.events must be 'record', 'read', true or false, got ${JSON.stringify(events)}`;
  if (access['progress'] !== undefined && typeof access['progress'] !== 'boolean')
    return `context.progress must be true or false, got ${JSON.stringify(access['progress'])}`;
  return undefined;
}

/** A copy of a declaration, frozen, so the plan cannot be changed through the options object. */
export function copyAccess(access: ContextAccess): ContextAccess {
  const out: ContextAccess = {};
  if (access.state !== undefined) {
    const state: { read?: readonly string[]; write?: readonly string[] } = {};
    if (access.state.read !== undefined) state.read = Object.freeze([...access.state.read]);
    if (access.state.write !== undefined) state.write = Object.freeze([...access.state.write]);
    out.state = Object.freeze(state);
  }
  if (access.events !== undefined) out.events = access.events;
  if (access.progress !== undefined) out.progress = access.progress;
  return Object.freeze(out);
}

/**
 * `context.state` as a tool with a declaration sees it: a `Map` over the run's
 * state that lets through the declared keys only. Reading an undeclared key (or
 * one declared write-only) and writing an undeclared (or read-only) key throw;
 * iterating lists only the keys the tool may read.
 */
export class RestrictedState extends Map<string, unknown> {
  readonly #target: Map<string, unknown>;
  readonly #plan: ContextAccessPlan;

  constructor(target: Map<string, unknown>, plan: ContextAccessPlan) {
    super();
    this.#target = target;
    this.#plan = plan;
  }

  override get(key: string): unknown {
    if (!this.#plan.read.has(key)) throw this.#plan.deniedRead(key);
    return this.#target.get(key);
  }

  override has(key: string): boolean {
    if (!this.#plan.read.has(key)) throw this.#plan.deniedRead(key);
    return this.#target.has(key);
  }

  override set(key: string, value: unknown): this {
    if (!this.#plan.write.has(key)) throw this.#plan.deniedWrite(key, 'wrote');
    this.#target.set(key, value);
    return this;
  }

  override delete(key: string): boolean {
    if (!this.#plan.write.has(key)) throw this.#plan.deniedWrite(key, 'deleted');
    return this.#target.delete(key);
  }

  override clear(): void {
    for (const key of this.#target.keys()) if (!this.#plan.write.has(key)) throw this.#plan.deniedWrite(key, 'cleared (with state.clear())');
    this.#target.clear();
  }

  override get size(): number {
    return this.#readable().size;
  }

  override forEach(callback: (value: unknown, key: string, map: Map<string, unknown>) => void, thisArg?: unknown): void {
    this.#readable().forEach((value, key) => callback.call(thisArg, value, key, this));
  }

  override keys(): ReturnType<Map<string, unknown>['keys']> {
    return this.#readable().keys();
  }

  override values(): ReturnType<Map<string, unknown>['values']> {
    return this.#readable().values();
  }

  override entries(): ReturnType<Map<string, unknown>['entries']> {
    return this.#readable().entries();
  }

  override [Symbol.iterator](): ReturnType<Map<string, unknown>['entries']> {
    return this.#readable().entries();
  }

  /** The readable keys that are set, in the run's order. */
  #readable(): Map<string, unknown> {
    const out = new Map<string, unknown>();
    for (const [key, value] of this.#target) if (this.#plan.read.has(key)) out.set(key, value);
    return out;
  }
}
