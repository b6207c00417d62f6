import { BRAND, hasBrand } from '../brands.js';
import type { ToolBuildInfo } from '../build-info.js';
import type { FunctionToolOptions } from '../function-tool.js';
import { CONTEXT_PARAMS, DESIGN_PARAMTYPES, METADATA, TOOL_RECORDS } from './metadata-keys.js';

/** Options of `@Tool()` and `defineTool()`. */
export type ToolOptions = FunctionToolOptions;

/** What `@Tool()` records about one method. Decorators only record; `toolsFrom` reads. */
export interface ToolRecord {
  method: string | symbol;
  options: ToolOptions;
  build?: ToolBuildInfo;
}

type MetadataBag = Record<PropertyKey, unknown>;
type ReflectWithMetadata = typeof Reflect & {
  defineMetadata?(key: unknown, value: unknown, target: object, property?: string | symbol): void;
  getOwnMetadata?(key: unknown, target: object, property?: string | symbol): unknown;
  getMetadata?(key: unknown, target: object, property?: string | symbol): unknown;
};
const reflect = Reflect as ReflectWithMetadata;

/** The class's own TC39 metadata object, created (inheriting its parent's) when missing. */
export function ownMetadata(target: Function): MetadataBag {
  if (Object.prototype.hasOwnProperty.call(target, METADATA)) {
    const existing = (target as unknown as Record<symbol, MetadataBag | undefined>)[METADATA];
    if (existing) return existing;
  }
  const parent = Object.getPrototypeOf(target) as Record<symbol, MetadataBag | undefined> | null;
  const bag = Object.create(parent?.[METADATA] ?? null) as MetadataBag;
  Object.defineProperty(target, METADATA, { value: bag, enumerable: false, configurable: true, writable: true });
  return bag;
}

/** Adds a record to a TC39 metadata object (the class's own list, never an inherited one). */
export function addToMetadata(bag: MetadataBag, record: ToolRecord): void {
  if (!Object.prototype.hasOwnProperty.call(bag, TOOL_RECORDS)) bag[TOOL_RECORDS] = [];
  (bag[TOOL_RECORDS] as ToolRecord[]).push(record);
}

/** Legacy decorators: records live in reflect-metadata on the constructor. */
export function addToReflectMetadata(target: Function, record: ToolRecord): void {
  const own = (reflect.getOwnMetadata?.(TOOL_RECORDS, target) as ToolRecord[] | undefined) ?? [];
  reflect.defineMetadata!(TOOL_RECORDS, [...own, record], target);
}

export function setContextParam(target: Function, method: string | symbol, index: number, legacy: boolean): void {
  if (legacy) {
    const own = (reflect.getOwnMetadata?.(CONTEXT_PARAMS, target) as Map<string | symbol, number> | undefined) ?? new Map();
    reflect.defineMetadata!(CONTEXT_PARAMS, new Map(own).set(method, index), target);
    return;
  }
  const bag = ownMetadata(target);
  if (!Object.prototype.hasOwnProperty.call(bag, CONTEXT_PARAMS)) bag[CONTEXT_PARAMS] = new Map();
  (bag[CONTEXT_PARAMS] as Map<string | symbol, number>).set(method, index);
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
  for (let c: Function | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    const own: ToolRecord[] = [];
    if (Object.prototype.hasOwnProperty.call(c, METADATA)) {
      const bag = (c as unknown as Record<symbol, MetadataBag | undefined>)[METADATA];
      if (bag && Object.prototype.hasOwnProperty.call(bag, TOOL_RECORDS)) own.push(...(bag[TOOL_RECORDS] as ToolRecord[]));
    }
    const legacy = reflect.getOwnMetadata?.(TOOL_RECORDS, c) as ToolRecord[] | undefined;
    if (legacy) own.push(...legacy);
    for (const record of own) {
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

/** Whether a design type (legacy `emitDecoratorMetadata`) is `ExecutionContext`, of this copy of core or another. */
function isContextClass(type: unknown): boolean {
  return typeof type === 'function' && hasBrand(type.prototype, BRAND.ExecutionContext);
}

function findContextIndex(target: Function, method: string | symbol): number | undefined {
  for (let c: Function | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    if (Object.prototype.hasOwnProperty.call(c, METADATA)) {
      const bag = (c as unknown as Record<symbol, MetadataBag | undefined>)[METADATA];
      const map = bag && Object.prototype.hasOwnProperty.call(bag, CONTEXT_PARAMS) ? (bag[CONTEXT_PARAMS] as Map<string | symbol, number>) : undefined;
      if (map?.has(method)) return map.get(method);
    }
    const legacy = reflect.getOwnMetadata?.(CONTEXT_PARAMS, c) as Map<string | symbol, number> | undefined;
    if (legacy?.has(method)) return legacy.get(method);
  }
  if (reflect.getMetadata) {
    const types = reflect.getMetadata(DESIGN_PARAMTYPES, target.prototype as object, method) as unknown[] | undefined;
    const index = types?.findIndex(isContextClass) ?? -1;
    if (index >= 0) return index;
  }
  return undefined;
}
