import { AnytoolError, ErrorCode } from '../errors.js';
import { unrestrictedContext, type ExecutionContext } from '../execution-context.js';

/** The default `maxBytes` of a run's store: room for a few very large results, never unbounded. */
export const DEFAULT_STORE_BYTES = 256 * 1024 * 1024;

export interface ToolOutputStoreOptions {
  /**
   * The most memory the run's kept outputs may take, in bytes, counted at 2 bytes
   * a character (what a JavaScript string can take). Past it the oldest outputs
   * are evicted; an output larger than the whole store is not kept at all.
   * 256 MiB by default.
   */
  maxBytes?: number;
}

/** One kept output: the whole text of a result that did not fit its budget. */
export interface StoredOutput {
  readonly handle: string;
  /** The tool that produced it. */
  readonly tool: string;
  readonly callId: string;
  /** Its whole text (the text parts of the result, joined by newlines). */
  readonly text: string;
}

/** A page of a kept output. */
export interface OutputPage {
  handle: string;
  /** The page's text, a copy: it keeps nothing else of the output alive. */
  text: string;
  offset: number;
  /** Where the page ends (exclusive): the next page's offset. */
  end: number;
  /** The length of the whole output, in characters. */
  total: number;
}

/**
 * One store per run, keyed by the run's shared state (which every view of the run's context
 * has). The map is shared by every copy of core in the process (under a registered symbol,
 * made on first use, not on import): a budget of one copy and the reader of another find the
 * same outputs.
 */
const REGISTRY = Symbol.for('anytool.toolOutputStores.v1');
interface Registry {
  readonly stores: WeakMap<object, ToolOutputStore>;
  /** Stores made so far: each store's handles carry its number, so no two stores' handles are alike. */
  made: number;
}
function registry(): Registry {
  const global = globalThis as unknown as Record<symbol, Registry | undefined>;
  return (global[REGISTRY] ??= { stores: new WeakMap(), made: 0 });
}
function stores(): WeakMap<object, ToolOutputStore> {
  return registry().stores;
}

/**
 * The outputs an output budget kept for one run: the whole text of each result
 * that reached the model cut, under a handle the model pages through with
 * `read_tool_output`. Bounded (`maxBytes`, oldest evicted first) and released
 * when the run ends: the agent releases it when `run`/`stream` finish, fail or
 * are aborted; without an agent call `ToolOutputStore.release(context)`, or let
 * it go with the context.
 *
 * @example
 * const page = ToolOutputStore.of(context).read('out_1a_1', 0, 10_000);
 */
export class ToolOutputStore {
  /** The most bytes the kept outputs may take (2 bytes a character). */
  readonly maxBytes: number;
  /** Outputs kept since the store was made, evicted ones included: never goes down. */
  stored = 0;
  private readonly tag: string;
  private readonly entries = new Map<number, StoredOutput>();
  /** Outputs of a paused run, kept again under their own handles when it resumed (`restore`). */
  private readonly restored = new Map<string, StoredOutput>();
  private next = 1;
  private bytes = 0;
  private released = false;

  constructor(options: ToolOutputStoreOptions = {}) {
    this.maxBytes = checkStoreOptions(options);
    this.tag = (++registry().made).toString(36);
  }

  /** The run's store, made on first use with `options` (later options are ignored: the first user sets the bounds). */
  static of(context: ExecutionContext, options?: ToolOutputStoreOptions): ToolOutputStore {
    const run = runOf(context);
    let store = stores().get(run);
    if (store === undefined || store.released) {
      store = new ToolOutputStore(options);
      stores().set(run, store);
    }
    return store;
  }

  /** The run's store if one was made, without making one. */
  static peek(context: ExecutionContext): ToolOutputStore | undefined {
    return stores().get(runOf(context));
  }

  /** Drops every output the run kept: its handles then answer that the run's outputs were released. */
  static release(context: ExecutionContext): void {
    const run = runOf(context);
    const store = stores().get(run);
    if (store === undefined) return;
    stores().delete(run);
    store.clear();
  }

  /** Bytes taken by the kept outputs (2 a character). */
  get usedBytes(): number {
    return this.bytes;
  }

  /** How many outputs are kept now. */
  get size(): number {
    return this.entries.size + this.restored.size;
  }

  /**
   * Keeps `text` and returns its handle, evicting the oldest outputs to make
   * room; undefined when it is larger than the whole store (nothing is evicted then).
   */
  put(text: string, tool: string, callId: string): string | undefined {
    const cost = text.length * 2;
    if (this.released || cost > this.maxBytes) return undefined;
    for (const [id, entry] of this.entries) {
      if (this.bytes + cost <= this.maxBytes) break;
      this.entries.delete(id);
      this.bytes -= entry.text.length * 2;
    }
    const id = this.next++;
    const handle = `out_${this.tag}_${id}`;
    this.entries.set(id, { handle, tool, callId, text });
    this.bytes += cost;
    this.stored++;
    return handle;
  }

  /** The outputs kept now, oldest first: what a paused run's state carries. */
  kept(): StoredOutput[] {
    return [...this.restored.values(), ...this.entries.values()];
  }

  /**
   * Keeps an output of a paused run again, under the handle the model was given
   * (a resumed run's store). It counts against `maxBytes` like any output; one
   * that does not fit is not kept.
   */
  restore(output: StoredOutput): void {
    const cost = output.text.length * 2;
    if (this.released || this.restored.has(output.handle) || this.bytes + cost > this.maxBytes) return;
    this.restored.set(output.handle, { handle: output.handle, tool: output.tool, callId: output.callId, text: output.text });
    this.bytes += cost;
  }

  /** The kept output under `handle`; throws `OUTPUT_HANDLE_UNKNOWN` or `OUTPUT_EVICTED` as `read` does. */
  get(handle: string): StoredOutput {
    const again = this.restored.get(handle);
    if (again !== undefined && !this.released) return again;
    const match = /^out_([0-9a-z]+)_([1-9][0-9]*)$/.exec(handle);
    if (match === null)
      throw new AnytoolError(
        ErrorCode.OutputHandleUnknown,
        `No output has the handle ${JSON.stringify(handle.slice(0, 64))}: a handle looks like "out_${this.tag}_1"; copy it from the note of the cut result.`,
      );
    if (match[1] !== this.tag || this.released)
      throw new AnytoolError(
        ErrorCode.OutputHandleUnknown,
        `The output ${JSON.stringify(handle)} is not kept in this run: outputs are released when the run that produced them ends. Call the tool again (asking for less) if you still need it.`,
      );
    const id = Number(match[2]);
    const entry = this.entries.get(id);
    if (entry !== undefined) return entry;
    if (id < this.next)
      throw new AnytoolError(
        ErrorCode.OutputEvicted,
        `The output ${JSON.stringify(handle)} was evicted to make room for newer ones (the run keeps at most ${this.maxBytes} bytes of outputs). Call the tool again, asking for less, if you still need it.`,
      );
    throw new AnytoolError(
      ErrorCode.OutputHandleUnknown,
      `No output has the handle ${JSON.stringify(handle)} in this run; copy the handle from the note of the cut result.`,
    );
  }

  /**
   * Up to `limit` characters of the output from `offset` (a page never splits a
   * surrogate pair). Throws `OUTPUT_HANDLE_UNKNOWN`, `OUTPUT_EVICTED`, or
   * `INVALID_ARGUMENTS` for an offset past the end.
   */
  read(handle: string, offset: number, limit: number): OutputPage {
    const entry = this.get(handle);
    const total = entry.text.length;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > total)
      throw new AnytoolError(
        ErrorCode.InvalidArguments,
        `offset ${String(offset)} is outside the output ${JSON.stringify(handle)}, which has ${total} characters; pass an offset from 0 to ${total}.`,
      );
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new AnytoolError(ErrorCode.InvalidArguments, `limit must be a whole number of characters from 1, got ${String(limit)}.`);
    let end = Math.min(total, offset + limit);
    if (end < total && end > offset + 1 && isHighSurrogate(entry.text.charCodeAt(end - 1))) end--;
    return { handle, text: copyOf(entry.text, offset, end), offset, end, total };
  }

  private clear(): void {
    this.released = true;
    this.entries.clear();
    this.restored.clear();
    this.bytes = 0;
  }
}

/** The store's `maxBytes`, checked: throws `INVALID_OPTIONS` for a bad one. */
export function checkStoreOptions(options: ToolOutputStoreOptions): number {
  const max = options.maxBytes ?? DEFAULT_STORE_BYTES;
  if (!Number.isSafeInteger(max) || max < 2)
    throw new AnytoolError(ErrorCode.InvalidOptions, `ToolOutputStore: maxBytes must be a whole number of bytes from 2, got ${String(max)}`);
  return max;
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `text.slice(from, to)` as a string of its own. A slice of a long string may
 * keep the whole string alive (V8 makes "sliced strings"); a copy keeps only
 * itself, so what reaches the model never holds a 100 MB output in memory.
 */
export function copyOf(text: string, from: number, to: number): string {
  if (from === 0 && to === text.length) return text;
  const part = text.slice(from, to);
  if (part.length < 13) return part;
  // Latin-1 text stays one byte a character; other text goes through UTF-16, which keeps every code unit (lone surrogates too).
  return WIDE.test(part) ? Buffer.from(part, 'utf16le').toString('utf16le') : Buffer.from(part, 'latin1').toString('latin1');
}

/** A character past Latin-1 (a surrogate half included). */
const WIDE = /[\u0100-\uffff]/;

/**
 * The key of a run's store: its shared state, from any view of the run's context. A tool's
 * view (`read_tool_output` declares no state keys) reaches it through the whole context.
 */
function runOf(context: ExecutionContext): Map<string, unknown> {
  return unrestrictedContext(context).state;
}
