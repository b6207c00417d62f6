import type { Client } from '@modelcontextprotocol/client';
import { crypto } from '../../shared/builtins.cjs';

/** The SDK `Protocol`'s tables of requests in flight, keyed by request id, which `useRequestTables` gives a `RequestTable`. */
const REQUEST_TABLES = ['_responseHandlers', '_timeoutInfo', '_progressHandlers'] as const;

/**
 * SHA-256 of the SDK code that uses the tables `useRequestTables` replaces, in
 * @modelcontextprotocol/client 2.4.0 (its ES module and CommonJS builds have the
 * same): every method on the client's prototype chain that names one of them (see
 * `requestTablesSource`). A release that changes any of them keeps its own
 * `Map`s, and `request-tables.test.ts` fails until this list is checked against it.
 */
export const KNOWN_REQUEST_TABLES = new Set(['94d1e69f9547d29b818fe5473eb38212aaec3f9cdd5ec1d882ad5d933e756d04']);

/** The sources `KNOWN_REQUEST_TABLES` hashes: each method of `client`'s classes that names one of its request tables. */
export function requestTablesSource(client: Client): string {
  const sources: string[] = [];
  for (let proto: unknown = Object.getPrototypeOf(client); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    // Not the constructor: its source is the whole class.
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor') continue;
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (typeof value !== 'function') continue;
      const source = value.toString();
      if (REQUEST_TABLES.some((table) => source.includes(table))) sources.push(`${name}: ${source}`);
    }
  }
  return sources.join('\n');
}

/**
 * The verdict on a client's classes, by its prototype, with the methods that use the tables: a
 * client of the same classes whose methods are still those is not read and hashed again (reading
 * them took longer than the rest of a session's start on the client's side). The check is of the
 * SDK's release, not of code patched onto its classes at run time.
 */
const verdicts = new WeakMap<object, { methods: ReadonlyArray<readonly [object, string, unknown]>; known: boolean }>();

/** Whether the code of `client`'s classes that uses the tables is the code checked (`KNOWN_REQUEST_TABLES`). */
function knownTables(client: Client): boolean {
  const first = Object.getPrototypeOf(client) as object;
  const seen = verdicts.get(first);
  if (seen !== undefined && seen.methods.every(([proto, name, value]) => Object.getOwnPropertyDescriptor(proto, name)?.value === value)) return seen.known;
  const methods: Array<readonly [object, string, unknown]> = [];
  for (let proto: unknown = first; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (name !== 'constructor' && typeof value === 'function' && REQUEST_TABLES.some((table) => value.toString().includes(table)))
        methods.push([proto as object, name, value]);
    }
  }
  const known = KNOWN_REQUEST_TABLES.has(crypto().createHash('sha256').update(requestTablesSource(client)).digest('hex'));
  verdicts.set(first, { methods, known });
  return known;
}

/**
 * Gives the SDK client's tables of requests in flight (`_responseHandlers`,
 * `_timeoutInfo`, `_progressHandlers`) a {@link RequestTable} in place of their
 * `Map`, with the entries they hold. The SDK reads and writes them as before.
 *
 * Why: every request adds an entry to the first two and every answer deletes
 * it, so V8 rebuilds each `Map`'s hash table every few dozen calls. The table it
 * replaces keeps its entries and a pointer to the new one (for iterators that
 * are still running), and once a replaced table has reached the old generation
 * it keeps every later table, and the requests they held, alive through the
 * young collections until the next full one: under many calls in flight, most
 * of what each young collection has to copy, during which the server sits idle
 * (`bench/mcp-eras.mjs --without request-tables` shows it).
 *
 * Installed only where the SDK code that uses the tables is the one checked
 * (`KNOWN_REQUEST_TABLES`); elsewhere the SDK keeps its own, with a diagnostic.
 * The SDK gives `_responseHandlers` a new `Map` when a connection closes: the
 * client is not used after that, and a reconnected one is given tables again.
 */
export function useRequestTables(client: Client, problem: (message: string) => void): void {
  const fields = client as unknown as Record<string, unknown>;
  if (!knownTables(client) || !REQUEST_TABLES.every((table) => fields[table] instanceof Map)) {
    problem(
      "this MCP SDK version keeps its requests in flight differently: they stay in the SDK's own Maps (the same results, longer pauses of the garbage collector under load)",
    );
    return;
  }
  for (const table of REQUEST_TABLES) if (!(fields[table] instanceof RequestTable)) fields[table] = new RequestTable(fields[table] as Map<unknown, unknown>);
}

/**
 * A `Map` that keeps keys which are array indices (0 to 2^32 - 2: a request's
 * id) as the elements of a plain object, and every other key in the `Map`
 * itself, so that it behaves as a `Map` for any key. An object's elements grow
 * and shrink in place or into a new store that nothing links to, where a
 * `Map`'s rebuilt hash table stays linked from the one before it (see
 * `useRequestTables`).
 *
 * One difference from a `Map`: iteration gives the index keys first, in
 * ascending order, then the others in the order they were set. Request ids
 * are given in ascending order, so for them the two orders are the same.
 */
export class RequestTable<V> extends Map<unknown, V> {
  private indexed: Record<number, V> = Object.create(null) as Record<number, V>;
  private count = 0;

  constructor(entries?: Iterable<readonly [unknown, V]>) {
    super();
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value);
  }

  override get(key: unknown): V | undefined {
    return isIndex(key) ? this.indexed[key] : super.get(key);
  }

  override has(key: unknown): boolean {
    return isIndex(key) ? key in this.indexed : super.has(key);
  }

  override set(key: unknown, value: V): this {
    if (!isIndex(key)) return super.set(key, value);
    if (!(key in this.indexed)) this.count++;
    this.indexed[key] = value;
    return this;
  }

  override delete(key: unknown): boolean {
    if (!isIndex(key)) return super.delete(key);
    if (!(key in this.indexed)) return false;
    delete this.indexed[key];
    this.count--;
    return true;
  }

  override clear(): void {
    this.indexed = Object.create(null) as Record<number, V>;
    this.count = 0;
    super.clear();
  }

  override get size(): number {
    return this.count + super.size;
  }

  override *entries(): MapIterator<[unknown, V]> {
    for (const key in this.indexed) if (key in this.indexed) yield [Number(key), this.indexed[key as unknown as number]!];
    yield* super.entries();
  }

  override *keys(): MapIterator<unknown> {
    for (const [key] of this.entries()) yield key;
  }

  override *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): MapIterator<[unknown, V]> {
    return this.entries();
  }

  override forEach(callback: (value: V, key: unknown, map: Map<unknown, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
}

/** Whether `key` is an array index: the keys an object keeps as its elements, whose string form gives the number back. */
function isIndex(key: unknown): key is number {
  return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key <= 4_294_967_294;
}
