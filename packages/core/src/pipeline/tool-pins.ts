import type { BaseTool } from '../base-tool.js';
import { AnytoolError, ErrorCode, describeError } from '../errors.js';
import type { ToolDefinition } from '../tool-definition.js';

/** The fields of a definition that are pinned, in definition order: what the model reads and what approval decides by. */
const FIELDS = ['name', 'title', 'description', 'parameters', 'outputSchema', 'annotations'] as const satisfies readonly (keyof ToolDefinition)[];

/** The fields of a definition a change is reported by. */
export type PinnedField = (typeof FIELDS)[number];

/** The parts of a tool's definition that are pinned: what the model reads and what approval decides by. */
export type PinnedDefinition = Pick<ToolDefinition, PinnedField>;

/** What a change is reported by: a field of the definition, or `server` when the name now belongs to another server's tool. */
export type ChangedField = PinnedField | 'server';

/** One tool's approved definition. */
export interface ToolPin {
  /** The protocol and server of the tool (its `origin`). */
  protocol: string;
  server: string;
  /** The tool's name as the model sees it. */
  tool: string;
  /** SHA-256 (hex) of the definition's canonical JSON (keys sorted, no blanks). */
  hash: string;
  definition: PinnedDefinition;
}

/** A pin set as JSON: what `ToolPins.toJSON()` gives and `ToolPins.fromJSON()` reads. */
export interface ToolPinsJson {
  version: 1;
  pins: ToolPin[];
}

/** How a tool compares with its pin. */
export type PinComparison = { status: 'unpinned' } | { status: 'same' } | { status: 'changed'; change: DefinitionChange };

/** A tool whose definition differs from the one pinned. */
export interface DefinitionChange {
  /** The server the tool comes from now. */
  server: string;
  /**
   * The server of the approved tool, when it is not `server`: the name the model calls now
   * belongs to another server's tool, which is a changed definition however alike the two are.
   */
  previousServer?: string;
  /** What differs: `server` first when the owner changed, then the fields in definition order. */
  fields: ChangedField[];
  /** The definition approved before. */
  previous: PinnedDefinition;
  /** The definition the server gives now. */
  current: PinnedDefinition;
}

/** JSON with object keys sorted at every level and nothing undefined: equal definitions give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * SHA-256 of the text's UTF-8 bytes, in hex. Synchronous (Web Crypto's digest is
 * not): a pin is checked and made within the call's turn of the event loop, so
 * the calls of a turn keep their order.
 */
export function sha256Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const length = ((bytes.length + 9 + 63) >> 6) << 6;
  const data = new Uint8Array(length);
  data.set(bytes);
  data[bytes.length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(length - 8, Math.floor((bytes.length * 8) / 2 ** 32));
  view.setUint32(length - 4, (bytes.length * 8) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = h[0]! + a;
    h[1] = h[1]! + b;
    h[2] = h[2]! + c;
    h[3] = h[3]! + d;
    h[4] = h[4]! + e;
    h[5] = h[5]! + f;
    h[6] = h[6]! + g;
    h[7] = h[7]! + hh;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}

interface Fingerprint {
  definition: PinnedDefinition;
  hash: string;
}

/** Per definition object (a tool caches its definition): its fingerprint, computed once. */
const fingerprints = new WeakMap<ToolDefinition, Fingerprint>();

function pinnedPart(definition: ToolDefinition): PinnedDefinition {
  // A copy of its own (canonical JSON leaves the absent fields out): a pin never changes with the object it was taken from.
  return JSON.parse(canonicalJson(Object.fromEntries(FIELDS.map((field) => [field, definition[field]])))) as PinnedDefinition;
}

function fingerprint(tool: BaseTool): Fingerprint {
  const definition = tool.definition;
  let print = fingerprints.get(definition);
  if (print === undefined) {
    const pinned = pinnedPart(definition);
    print = { definition: pinned, hash: sha256Hex(canonicalJson(pinned)) };
    fingerprints.set(definition, print);
  }
  return print;
}

function changedFields(previous: PinnedDefinition, current: PinnedDefinition): PinnedField[] {
  return FIELDS.filter((field) => canonicalJson(previous[field]) !== canonicalJson(current[field]));
}

/** Whether a pin was made of a tool of this origin (protocol and server). */
function sameOwner(pin: ToolPin, origin: { protocol: string; server: string }): boolean {
  return pin.protocol === origin.protocol && pin.server === origin.server;
}

/**
 * The approved definitions of remote tools (tools with an `origin`, such as MCP
 * tools), by the name the model calls them by. The approval middleware pins a tool when its first
 * call is allowed (asked and approved, or allowed without asking) and refuses a
 * later call whose definition differs (`TOOL_DEFINITION_CHANGED`) until the
 * change is approved. A pin holds the tool's server too: when the name comes to
 * belong to another server's tool, that is a changed definition. An `Agent` keeps one set for all its runs; save it with
 * `toJSON()` and read it back with `ToolPins.fromJSON()` so approvals outlive
 * the process. Local tools are never pinned: their definition is your code.
 *
 * @example
 * const pins = ToolPins.fromJSON(await readFile('pins.json', 'utf8'));
 * pins.subscribe(() => void writeFile('pins.json', JSON.stringify(pins)));
 * const agent = new Agent({ model, tools: mcp, pins, approve });
 */
export class ToolPins {
  private readonly pins = new Map<string, ToolPin>();
  private readonly listeners = new Set<(pin: ToolPin) => void>();

  /**
   * Reads a pin set saved with `toJSON()` (the object or its JSON text). Each
   * pin's hash is checked against its definition: a pin edited by hand, or
   * damaged, throws `INVALID_OPTIONS` naming it. Of two pins of one name (of
   * two servers), the later one is kept.
   */
  static fromJSON(json: ToolPinsJson | string): ToolPins {
    const fail = (problem: string): never => {
      throw new AnytoolError(ErrorCode.InvalidOptions, `ToolPins.fromJSON(): ${problem}`);
    };
    let value: unknown = json;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch (error) {
        fail(`the text is not JSON (${describeError(error)})`);
      }
    }
    const set = value as Partial<ToolPinsJson> | null;
    if (typeof set !== 'object' || set === null || set.version !== 1 || !Array.isArray(set.pins))
      fail('expected { "version": 1, "pins": [...] }, as toJSON() writes it');
    const pins = new ToolPins();
    for (const [index, raw] of (set!.pins as unknown[]).entries()) {
      const pin = raw as Partial<ToolPin> | null;
      const where = `pin number ${index + 1}`;
      if (typeof pin !== 'object' || pin === null) fail(`${where} is not an object`);
      for (const key of ['protocol', 'server', 'tool', 'hash'] as const)
        if (typeof pin![key] !== 'string' || pin![key] === '') fail(`${where}: "${key}" must be a non-empty string`);
      const definition = pin!.definition;
      if (typeof definition !== 'object' || definition === null || typeof definition.name !== 'string' || typeof definition.description !== 'string')
        fail(`${where} (tool "${pin!.tool}"): "definition" must be a tool definition with a name and a description`);
      const hash = sha256Hex(canonicalJson(definition));
      if (hash !== pin!.hash)
        fail(
          `${where} (tool "${pin!.tool}" of server "${pin!.server}"): its hash does not match its definition; the file was changed or damaged. Delete the pin to approve the tool again`,
        );
      const copy: ToolPin = {
        protocol: pin!.protocol!,
        server: pin!.server!,
        tool: pin!.tool!,
        hash,
        definition: JSON.parse(canonicalJson(definition)) as PinnedDefinition,
      };
      pins.pins.delete(copy.tool);
      pins.pins.set(copy.tool, copy);
    }
    return pins;
  }

  /** How many tools are pinned. */
  get size(): number {
    return this.pins.size;
  }

  /** Every pin, in the order they were made. */
  list(): ToolPin[] {
    return [...this.pins.values()];
  }

  /**
   * The pin of the tool's name, if it has one (local tools never do): its `server`
   * is another one than the tool's when the name changed hands since it was approved.
   */
  get(tool: BaseTool): ToolPin | undefined {
    return tool.origin === undefined ? undefined : this.pins.get(tool.name);
  }

  /**
   * Pins the tools' current definitions (replacing any pin of their names, of
   * any server): approving them ahead of a run. Tools without an `origin` are skipped.
   */
  pin(...tools: BaseTool[]): void {
    const failures: unknown[] = [];
    for (const tool of tools) {
      const origin = tool.origin;
      if (origin === undefined) continue;
      const { definition, hash } = fingerprint(tool);
      const pin: ToolPin = { protocol: origin.protocol, server: origin.server, tool: tool.name, hash, definition };
      const key = tool.name;
      const held = this.pins.get(key);
      if (held?.hash === hash && sameOwner(held, origin)) continue;
      this.pins.delete(key);
      this.pins.set(key, pin);
      for (const listener of this.listeners) {
        try {
          listener(pin);
        } catch (error) {
          failures.push(error);
        }
      }
    }
    // A listener that fails (a save that throws) does not undo the pin; the caller hears of it.
    if (failures.length > 0)
      throw new AnytoolError(ErrorCode.ListenerFailed, `ToolPins: a pin listener threw: ${describeError(failures[0])}`, { cause: failures[0] });
  }

  /** Forgets the pin of a tool's name: its next call is approved as a first one. */
  unpin(tool: BaseTool): boolean {
    return tool.origin !== undefined && this.pins.delete(tool.name);
  }

  /** Whether the tool is unpinned, the same as its pin, or changed (and how): a tool of another server than the pinned one is changed. */
  compare(tool: BaseTool): PinComparison {
    const pin = this.get(tool);
    if (pin === undefined) return { status: 'unpinned' };
    const { definition, hash } = fingerprint(tool);
    const origin = tool.origin!;
    const owned = sameOwner(pin, origin);
    if (hash === pin.hash && owned) return { status: 'same' };
    const fields: ChangedField[] = changedFields(pin.definition, definition);
    const change: DefinitionChange = { server: origin.server, fields, previous: pin.definition, current: definition };
    if (!owned) {
      fields.unshift('server');
      change.previousServer = pin.server;
    }
    return { status: 'changed', change };
  }

  /**
   * The definitions to show a model: a tool whose definition changed since it was
   * pinned is shown as pinned, what was approved, until the change is approved (a
   * changed description must not reach the model before a person saw it). The
   * array itself when nothing is to be replaced.
   */
  shown(definitions: readonly ToolDefinition[], toolNamed: (name: string) => BaseTool | undefined): readonly ToolDefinition[] {
    if (this.pins.size === 0) return definitions;
    let out: ToolDefinition[] | undefined;
    definitions.forEach((definition, index) => {
      const tool = toolNamed(definition.name);
      const pin = tool === undefined ? undefined : this.get(tool);
      if (pin === undefined || (fingerprint(tool!).hash === pin.hash && sameOwner(pin, tool!.origin!))) return;
      out ??= [...definitions];
      out[index] = { ...pin.definition, name: definition.name, ...(definition.deferLoading === true ? { deferLoading: true } : {}) };
    });
    return out ?? definitions;
  }

  /** Calls `listener` with each pin made or replaced (to save the set); returns the unsubscribe function. */
  subscribe(listener: (pin: ToolPin) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The set as JSON, for `ToolPins.fromJSON()`. */
  toJSON(): ToolPinsJson {
    return { version: 1, pins: this.list() };
  }
}
