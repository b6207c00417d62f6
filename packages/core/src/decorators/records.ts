import { BRAND, hasBrand } from '../brands.js';
import type { ToolBuildInfo } from '../build-info.js';
import type { FunctionToolOptions } from '../function-tool.js';
import { CONTEXT_PARAMS, DESIGN_PARAMTYPES, TOOL_RECORDS, metadataKeys } from './metadata-keys.js';

/** Options of `@Tool()` and `defineTool()`. */
export type ToolOptions = FunctionToolOptions;

/** What `@Tool()` records about one method. Decorators only record; `toolsFrom` reads. */
export interface ToolRecord {
  method: string | symbol;
  options: ToolOptions;
  build?: ToolBuildInfo;
}

type MetadataBag = Record<PropertyKey, unknown>;
type Holder = Record<PropertyKey, unknown>;
type ReflectWithMetadata = typeof Reflect & { getMetadata?(key: unknown, target: object, property?: string | symbol): unknown };

const hasOwn = (target: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(target, key);

/** Sets a hidden own property: records are never enumerated, copied by spreads or serialized. */
function hide(target: object, key: symbol, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, configurable: true, writable: true });
}

/** Adds a record to a TC39 metadata object (the class's own list, never an inherited one). */
export function addToMetadata(bag: MetadataBag, record: ToolRecord): void {
  if (!hasOwn(bag, TOOL_RECORDS)) bag[TOOL_RECORDS] = [];
  (bag[TOOL_RECORDS] as ToolRecord[]).push(record);
}

/**
 * Records a tool on the class itself: legacy decorators and `defineTool`. A
 * hidden own property, so no metadata polyfill is needed and a subclass's list
 * never changes its parent's.
 */
export function addToClass(target: Function, record: ToolRecord): void {
  const own = hasOwn(target, TOOL_RECORDS) ? ((target as unknown as Holder)[TOOL_RECORDS] as ToolRecord[]) : [];
  hide(target, TOOL_RECORDS, [...own, record]);
}

/**
 * Records a tool on the method itself: TC39 decorators where the runtime gives
 * no decorator metadata (no `Symbol.metadata`, as in Node today, or a class
 * defined before a polyfill was loaded). The reader finds it on the prototype.
 */
export function addToMethod(method: Function, record: ToolRecord): void {
  hide(method, TOOL_RECORDS, record);
}

/**
 * Gives a method's record to what now stands in its place: another TC39
 * decorator applied after `@Tool()` may have replaced the method on the
 * prototype. Run for each new instance; the nearest prototype that defines the
 * method is the one read, and a method that holds a record of its own (a
 * subclass's `@Tool()` override) keeps it.
 */
export function addToReplacedMethod(instance: object, method: string | symbol, record: ToolRecord): void {
  for (let p = Object.getPrototypeOf(instance) as object | null; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    if (!hasOwn(p, method)) continue;
    const value = Object.getOwnPropertyDescriptor(p, method)?.value as unknown;
    if (typeof value === 'function' && !hasOwn(value, TOOL_RECORDS)) hide(value, TOOL_RECORDS, record);
    return;
  }
}

export function setContextParam(target: Function, method: string | symbol, index: number): void {
  const own = hasOwn(target, CONTEXT_PARAMS) ? ((target as unknown as Holder)[CONTEXT_PARAMS] as Map<string | symbol, number>) : undefined;
  hide(target, CONTEXT_PARAMS, new Map(own).set(method, index));
}

/** A resolved record: the record plus where its context parameter is, when anything says so. */
export interface ResolvedToolRecord extends ToolRecord {
  /** Declared by `@Context()`, `defineContext()` or a parameter whose design type is `ExecutionContext`. */
  contextIndex?: number;
}

/**
 * Reads a class's tool records, its ancestors' included (a subclass's record
 * for a method wins). Returns copies: the stored records are never mutated.
 */
export function readToolRecords(target: Function, findContext = false): ResolvedToolRecord[] {
  const seen = new Set<string | symbol>();
  const out: ResolvedToolRecord[] = [];
  const metadata = metadataKeys();
  for (let c: Function | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    for (const record of ownRecords(c, metadata)) {
      if (seen.has(record.method)) continue;
      seen.add(record.method);
      const resolved: ResolvedToolRecord = { method: record.method, options: { ...record.options } };
      if (record.build) resolved.build = { ...record.build };
      const contextIndex = findContext ? findContextIndex(target, record.method) : undefined;
      if (contextIndex !== undefined) resolved.contextIndex = contextIndex;
      out.push(resolved);
    }
  }
  return out;
}

/** The records one class declares: in its TC39 metadata, on itself, and on its methods. */
function ownRecords(c: Function, metadata: readonly symbol[]): ToolRecord[] {
  const own: ToolRecord[] = [];
  for (const key of metadata) {
    if (!hasOwn(c, key)) continue;
    const bag = (c as unknown as Record<symbol, MetadataBag | undefined>)[key];
    if (bag && hasOwn(bag, TOOL_RECORDS)) own.push(...(bag[TOOL_RECORDS] as ToolRecord[]));
  }
  if (hasOwn(c, TOOL_RECORDS)) own.push(...((c as unknown as Holder)[TOOL_RECORDS] as ToolRecord[]));
  const prototype = (c as { prototype?: unknown }).prototype;
  if (typeof prototype === 'object' && prototype !== null) {
    for (const key of Reflect.ownKeys(prototype)) {
      const value = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown;
      if (typeof value !== 'function' || !hasOwn(value, TOOL_RECORDS)) continue;
      const record = (value as unknown as Holder)[TOOL_RECORDS] as ToolRecord;
      if (record.method === key) own.push(record);
    }
  }
  return own;
}

/** Whether a design type (legacy `emitDecoratorMetadata`) is `ExecutionContext`, of this copy of core or another. */
function isContextClass(type: unknown): boolean {
  return typeof type === 'function' && hasBrand(type.prototype, BRAND.ExecutionContext);
}

function findContextIndex(target: Function, method: string | symbol): number | undefined {
  for (let c: Function | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    const map = hasOwn(c, CONTEXT_PARAMS) ? ((c as unknown as Holder)[CONTEXT_PARAMS] as Map<string | symbol, number>) : undefined;
    if (map?.has(method)) return map.get(method);
  }
  // Parameter types exist only when the user loaded a `Reflect.metadata` polyfill (reflect-metadata) before the class.
  const getMetadata = (Reflect as ReflectWithMetadata).getMetadata;
  if (typeof getMetadata === 'function') {
    const types = getMetadata.call(Reflect, DESIGN_PARAMTYPES, target.prototype as object, method) as unknown[] | undefined;
    const index = types?.findIndex(isContextClass) ?? -1;
    if (index >= 0) return index;
  }
  return undefined;
}
