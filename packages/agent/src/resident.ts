/**
 * Objects kept for the life of the process, one of each class a streamed turn
 * makes per token's path (the stream's reader, its turn, the mapping iterator,
 * each adapter's mapper). V8 forgets an object shape once no object has it, and
 * with it the compiled code that relied on that shape: after a full garbage
 * collection between two runs, the next run would compile its per-token path
 * again, which costs more CPU than streaming a thousand tokens. One resident
 * instance a class keeps its shapes, and that code, for the next run.
 */
const residents: object[] = [];

/** Keeps `instance` for the life of the process (see above); returns it. */
export function resident<T extends object>(instance: T): T {
  residents.push(instance);
  return instance;
}
