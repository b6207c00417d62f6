import { isBaseTool, type BaseTool, type InvokeOptions } from './base-tool.js';
import { BRAND, brandedHasInstance, hasBrand, setBrand } from './brands.js';
import { codeApiOf, type CodeApi } from './code-mode/declarations.js';
import { DiagnosticLog } from './diagnostics.js';
import { AnytoolError, ErrorCode, describeError, isAnytoolError } from './errors.js';
import type { ExecutionContext } from './execution-context.js';
import { hasToolRecords, toolsFrom } from './method-tool.js';
import { Chain, checkMiddleware, invokeThrough, type CallTarget, type Terminal } from './pipeline/pipeline.js';
import type { Middleware } from './pipeline/tool-call.js';
import { editDistance } from './closest-name.js';
import { lowerDefinitions, type DefinitionFormat, type FormatOptions, type FormatTool, type Lowered } from './providers/index.js';
import { deepFreeze, loweringKey } from './providers/lowering-memo.js';
import type { ToolDefinition } from './tool-definition.js';
import { errorResult, type ToolResult } from './tool-result.js';
import { schemaProblems } from './validation.js';

/**
 * A source of tools that can change over time (an MCP server's tools after
 * `tools/list_changed`, another toolset). A toolset that holds one follows its changes.
 */
export interface DynamicToolSource {
  readonly tools: readonly BaseTool[];
  /** Calls `listener` after the tools changed; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /**
   * Source-level middleware: a toolset holding this source runs it with every call
   * of the source's tools, inside the toolset's own middleware and outside the tools'.
   */
  readonly middleware?: readonly Middleware[];
}

/** Anything a toolset can hold. */
export type ToolSource = BaseTool | DynamicToolSource | object | readonly ToolSource[];

interface Entry {
  tools(): readonly BaseTool[];
  /** Set for a dynamic source, which the toolset follows. */
  source?: DynamicToolSource;
  unsubscribe?: () => void;
}

/** A tool held under its name, with the middleware its calls pass through here. */
interface Route {
  readonly tool: BaseTool;
  readonly entry: Entry;
  /** Where its calls go, compiled on the first call (and again after `use`, or after the tool's own `use`). */
  target: CallTarget | undefined;
  /** The tool's own middleware when `target` was compiled. */
  toolLevel: readonly Middleware[] | undefined;
}

function isDynamicSource(value: unknown): value is DynamicToolSource {
  return (
    typeof value === 'object' && value !== null && 'subscribe' in value && 'tools' in value && typeof (value as DynamicToolSource).subscribe === 'function'
  );
}

/** Checks a tool's definition and schema; throws the coded error a developer needs. */
function checkTool(tool: BaseTool): ToolDefinition {
  const definition = tool.definition;
  const problems = schemaProblems(definition.parameters, tool.label);
  if (problems !== undefined) {
    throw new AnytoolError(ErrorCode.InvalidSchema, `${tool.label}: its parameter schema is not valid JSON Schema (${problems})`);
  }
  if (definition.outputSchema !== undefined) {
    const outputProblems = schemaProblems(definition.outputSchema, tool.label);
    if (outputProblems !== undefined)
      throw new AnytoolError(ErrorCode.InvalidSchema, `${tool.label}: its output schema is not valid JSON Schema (${outputProblems})`);
  }
  tool.compile();
  return definition;
}

/**
 * Holds tools from every source under unique names and is the agent's single
 * entry point: `definitions(format)` for what the model sees, `invoke(name,
 * args, context)` for the call.
 *
 * @example
 * const toolset = new Toolset(calculator, new WeatherTools(), mcpTools);
 * const result = await toolset.invoke('calculator', '{"expression":"2+2"}', context);
 */
export class Toolset implements DynamicToolSource {
  private readonly entries: Entry[] = [];
  private byName = new Map<string, Route>();
  /** Tools of dynamic sources left out for a broken definition; checked again on every refresh. */
  private broken: ReadonlySet<BaseTool> = new Set();
  private readonly listeners: Array<() => void> = [];
  /** Sources whose every tool is deferred (`defer(source)`), today's tools and later ones. */
  private readonly deferredEntries = new Set<Entry>();
  /** Single tools deferred by name (`defer('name')`, `defer(tool)`). */
  private readonly deferredNames = new Set<string>();
  /** Toolset-level middleware, outermost first. */
  private own: readonly Middleware[] = [];
  /** The chain of a call to a name no tool has: the toolset's own middleware. */
  private unknownChain: Chain = Chain.EMPTY;
  /** `toolList()`: the tools of `byName` in order, until the next change. */
  private listed: readonly BaseTool[] | undefined;
  /**
   * What `lower()` gave per format and options, frozen, until the toolset changes
   * (every change goes through `notify`, which empties it). Each entry keeps the
   * definition objects it was lowered from: a tool whose definition is a new object
   * now (a code-mode tool whose API changed) makes that entry stale.
   */
  private readonly loweredCache = new Map<string, { from: readonly ToolDefinition[]; lowered: Lowered<unknown> }>();
  /**
   * Problems found while following dynamic sources (a name collision or a broken
   * tool after a refresh, a listener that threw): bounded, each said once.
   */
  readonly diagnostics = new DiagnosticLog();

  /** `value instanceof Toolset` holds for a toolset from any copy of @anytool/core. */
  static [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    return brandedHasInstance(this, Toolset, BRAND.Toolset, value);
  }

  constructor(...sources: ToolSource[]) {
    this.add(...sources);
  }

  /**
   * Adds tools: `BaseTool`s, arrays of them, instances of classes with `@Tool`
   * methods, other toolsets and dynamic sources. A name already held, or a bad
   * definition, throws a coded error and nothing is added. The exception: a
   * tool of a dynamic source (an MCP server's) with a bad definition is left
   * out with a note in `diagnostics`, as after a refresh, so one bad tool from
   * elsewhere never keeps out the others.
   */
  add(...sources: ToolSource[]): this {
    const added: Entry[] = [];
    for (const source of sources) this.collect(source, added);
    const broken = new Set([...this.broken, ...this.brokenTools(added)]);
    const next = this.index([...this.entries, ...added], new Set(added), broken);
    this.entries.push(...added);
    this.broken = broken;
    this.setIndex(next);
    for (const entry of added) {
      const dynamic = entry.source;
      if (dynamic) entry.unsubscribe = dynamic.subscribe(() => this.refresh());
    }
    this.notify();
    return this;
  }

  /**
   * Defers tools: the model first sees the other tools plus a search tool, and
   * loads a deferred tool when its search finds it (the agent lowers this to
   * Anthropic's and the OpenAI Responses API's own deferred loading, and to a
   * portable search tool elsewhere). Takes tool names, tools, and sources (an MCP
   * toolset, another toolset, an array, an instance with `@Tool` methods); a
   * source not held yet is added first. A deferred dynamic source stays deferred
   * as a whole: tools it lists later are deferred too. An unknown name throws.
   *
   * @example
   * const toolset = new Toolset(calculator).defer(githubTools, jiraTools, slackTools);
   */
  defer(...targets: Array<string | ToolSource>): this {
    const names: string[] = [];
    const entries: Entry[] = [];
    const fresh: ToolSource[] = [];
    for (const target of targets) {
      if (typeof target === 'string') {
        if (!this.byName.has(target)) {
          throw new AnytoolError(
            ErrorCode.UnknownTool,
            `Toolset.defer(): no tool is named ${JSON.stringify(target)}; defer one of ${this.size} tools held (${this.names.slice(0, 20).join(', ')}${this.size > 20 ? ', ...' : ''}), or pass the source itself to add it deferred`,
          );
        }
        names.push(target);
        continue;
      }
      const held = this.entries.find((entry) => entry.source !== undefined && entry.source === target);
      if (held !== undefined) entries.push(held);
      else if (isBaseTool(target) && this.byName.get(target.name)?.tool === target) names.push(target.name);
      else fresh.push(target);
    }
    if (fresh.length > 0) {
      const before = this.entries.length;
      this.add(...fresh);
      entries.push(...this.entries.slice(before));
    }
    for (const name of names) this.deferredNames.add(name);
    for (const entry of entries) this.deferredEntries.add(entry);
    if (names.length > 0 || entries.length > 0) this.notify();
    return this;
  }

  /** Whether the tool `name` is deferred: the model sees it only after finding it with tool search. */
  isDeferred(name: string): boolean {
    const route = this.byName.get(name);
    if (route === undefined) return false;
    if (this.deferredNames.has(name) || this.deferredEntries.has(route.entry)) return true;
    const source = route.entry.source;
    return source !== undefined && isToolset(source) && source.isDeferred(name);
  }

  /** Removes the tools with these names (from static sources; a dynamic source keeps its own). */
  remove(...names: string[]): this {
    const drop = new Set(names);
    for (const entry of this.entries) {
      if (entry.source) continue;
      const kept = entry.tools().filter((t) => !drop.has(t.name));
      entry.tools = () => kept;
    }
    this.setIndex(this.index(this.entries, undefined));
    this.notify();
    return this;
  }

  private collect(source: ToolSource, into: Entry[]): void {
    if (isBaseTool(source)) {
      checkTool(source);
      const list = [source];
      into.push({ tools: () => list });
    } else if (Array.isArray(source)) {
      for (const item of source as readonly ToolSource[]) this.collect(item, into);
    } else if (isDynamicSource(source)) {
      if (source === this || (isToolset(source) && source.holds(this))) {
        throw new AnytoolError(ErrorCode.InvalidToolDefinition, 'a toolset cannot hold itself, directly or through another toolset');
      }
      into.push({ tools: () => source.tools, source });
    } else if (hasToolRecords(source)) {
      const list = toolsFrom(source);
      for (const tool of list) checkTool(tool);
      into.push({ tools: () => list });
    } else {
      const value = source as unknown;
      const what =
        typeof value === 'object' && value !== null
          ? `an instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? 'a null-prototype object'} with no @Tool() methods`
          : String(value);
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        `Toolset.add(): cannot take ${what}; pass tools, arrays of tools, instances of classes with @Tool() methods, toolsets or MCP toolsets`,
      );
    }
  }

  /**
   * Adds toolset-level middleware: it runs with every call through this toolset
   * (unknown names included), outside the middleware of its sources and tools.
   * A toolset held by another one brings its middleware along as source-level
   * middleware there.
   *
   * @example
   * const toolset = new Toolset(tools).use(tracing(), outputBudget({ maxChars: 20_000 }));
   */
  use(...middleware: Middleware[]): this {
    this.own = [...this.own, ...middleware.map((m) => checkMiddleware(m, 'Toolset'))];
    this.unknownChain = Chain.of(this.own);
    for (const route of this.byName.values()) route.target = undefined;
    this.notify();
    return this;
  }

  /**
   * The toolset- and source-level middleware a call of `name` passes through here,
   * outermost first (not the tool's own): what an outer toolset holding this one
   * runs as its source-level middleware.
   */
  middlewareFor(name: string): readonly Middleware[] {
    const route = this.byName.get(name);
    if (route === undefined) return this.own;
    const source = sourceLevel(route.entry, name);
    return source.length === 0 ? this.own : [...this.own, ...source];
  }

  /**
   * Indexes tools by name. A collision caused by a source being added now
   * (`strictFor`) throws. Any other collision comes from a dynamic source that
   * changed under us: the tool held first keeps the name, the newcomer is left
   * out and the collision is reported in `diagnostics`. Tools in `skip` (broken
   * definitions of dynamic sources) are left out.
   */
  private index(entries: readonly Entry[], strictFor?: ReadonlySet<Entry>, skip: ReadonlySet<BaseTool> = this.broken): Map<string, Route> {
    const map = new Map<string, Route>();
    for (const entry of entries) {
      for (const tool of entry.tools()) {
        if (skip.has(tool)) continue;
        const held = map.get(tool.name)?.tool;
        if (held !== undefined && held !== tool) {
          const message = `two tools are named "${tool.name}": ${held.label} and ${tool.label}; rename one with { name: '...' } (MCP toolsets can prefix their names)`;
          if (strictFor?.has(entry)) throw new AnytoolError(ErrorCode.DuplicateTool, message);
          this.diagnostics.report({ code: ErrorCode.DuplicateTool, source: 'toolset', tool: tool.name, message: `${message}; ${tool.label} is left out` });
          continue;
        }
        map.set(tool.name, { tool, entry, target: undefined, toolLevel: undefined });
      }
    }
    return map;
  }

  /** Where calls of `name` go, compiled now: through this toolset's middleware, its source's and the tool's, to the tool. */
  private compile(name: string, route: Route): CallTarget {
    const toolLevel = route.tool.middleware;
    route.toolLevel = toolLevel;
    const chain = Chain.of(this.own, sourceLevel(route.entry, route.tool.name), toolLevel);
    return (route.target = { name, tool: route.tool, chain, unknown: this.unknownTool, entry: 'toolset' });
  }

  /** @deprecated Read `diagnostics`: the messages of its entries. */
  get warnings(): string[] {
    return this.diagnostics.entries.map((d) => d.message);
  }

  /** Whether this toolset holds `other`, directly or through nested toolsets. */
  holds(other: Toolset): boolean {
    for (const entry of this.entries) {
      const source = entry.source;
      if (source === other || (isToolset(source) && source.holds(other))) return true;
    }
    return false;
  }

  private refresh(): void {
    this.broken = this.brokenTools(this.entries);
    this.setIndex(this.index(this.entries, undefined));
    this.notify();
  }

  /** The tools of the dynamic sources among `entries` whose definitions do not pass `checkTool`, each noted in `diagnostics`. */
  private brokenTools(entries: readonly Entry[]): Set<BaseTool> {
    const broken = new Set<BaseTool>();
    for (const entry of entries) {
      const source = entry.source;
      if (!source) continue;
      for (const tool of source.tools) {
        try {
          checkTool(tool);
        } catch (error) {
          broken.add(tool);
          const code = isAnytoolError(error) ? error.code : ErrorCode.InvalidSchema;
          this.diagnostics.report({ code, source: 'toolset', tool: tool.name, message: `${describeError(error)}; the tool is left out` });
        }
      }
    }
    return broken;
  }

  /** Holds the tools of `byName` from now on; what was listed or lowered from the old ones is dropped. */
  private setIndex(byName: Map<string, Route>): void {
    this.byName = byName;
    this.listed = undefined;
    this.loweredCache.clear();
  }

  private notify(): void {
    // Deferral and middleware change without a new index: what was lowered is dropped with every change.
    this.loweredCache.clear();
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.diagnostics.report({
          code: ErrorCode.ListenerFailed,
          source: 'toolset',
          message: `a listener of the toolset's changes threw: ${describeError(error)}`,
        });
      }
    }
  }

  /** Every tool held, in the order they were added. */
  get tools(): readonly BaseTool[] {
    return [...this.toolList()];
  }

  /** The tools held, listed once per change of `byName` (see `notify`). */
  private toolList(): readonly BaseTool[] {
    return (this.listed ??= Array.from(this.byName.values(), (route) => route.tool));
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  get size(): number {
    return this.byName.size;
  }

  get(name: string): BaseTool | undefined {
    return this.byName.get(name)?.tool;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /** Stops following dynamic sources. */
  dispose(): void {
    for (const entry of this.entries) entry.unsubscribe?.();
  }

  /** The neutral definitions of every tool, a deferred tool's marked `deferLoading`. */
  neutralDefinitions(): ToolDefinition[] {
    return this.tools.map((t) => (this.isDeferred(t.name) ? { ...t.definition, deferLoading: true } : t.definition));
  }

  /**
   * The typed API of the tools, for code mode: TypeScript declarations with one async
   * function a tool (its arguments from `parameters`, its result from `outputSchema`,
   * its description as JSDoc), local tools in the namespace `tools` and each MCP
   * server's in its own; and which tool each function calls. Tools only a provider
   * runs are left out. The runner that calls them is `codeTool` of `@anytool/core/code-mode`.
   *
   * @example
   * const { declarations } = toolset.codeApi();
   * // declare namespace tools { /** Adds two numbers. *\/ function add(args: { a: number; b: number }): Promise<unknown>; }
   */
  codeApi(): CodeApi {
    return codeApiOf(this.tools);
  }

  /**
   * The tools in a provider's format. What the lowering changed is in `lower(format).notes`.
   * Lowered once per format and options until the toolset changes: the array is the
   * caller's own, the definitions in it are frozen and shared (copy one to change it).
   */
  definitions<F extends DefinitionFormat>(format: F, options?: FormatOptions<F>): FormatTool<F>[] {
    // Only the tools are copied: a lowering's notes can outnumber its tools several times (a strict format notes
    // each keyword it drops and each optional property it makes required and nullable), and a model turn asks for
    // the tools alone.
    return [...this.lowered(format, options).tools];
  }

  /**
   * The tools in a provider's format plus a note for everything the lowering dropped or
   * changed. Lowered once per format and options until the toolset changes (an agent asks
   * every turn): the arrays are the caller's own, the tools and notes in them frozen and shared.
   */
  lower<F extends DefinitionFormat>(format: F, options?: FormatOptions<F>): Lowered<FormatTool<F>> {
    const lowered = this.lowered(format, options);
    return { tools: [...lowered.tools], notes: [...lowered.notes] };
  }

  /** The lowering of `lower()`, kept per format and options while the toolset holds the same definitions. */
  private lowered<F extends DefinitionFormat>(format: F, options?: FormatOptions<F>): Lowered<FormatTool<F>> {
    const key = loweringKey(format, options);
    const cached = key === undefined ? undefined : this.loweredCache.get(key);
    if (cached !== undefined && this.sameDefinitions(cached.from)) return cached.lowered as Lowered<FormatTool<F>>;
    const from = this.toolList().map((t) => t.definition);
    const lowered = lowerDefinitions(format, this.neutralDefinitions(), options);
    if (key === undefined) return lowered;
    deepFreeze(lowered.tools);
    deepFreeze(lowered.notes);
    this.loweredCache.set(key, { from, lowered });
    return lowered;
  }

  /** Whether every tool held still has the definition object `from` holds at its place. */
  private sameDefinitions(from: readonly ToolDefinition[]): boolean {
    const tools = this.toolList();
    if (from.length !== tools.length) return false;
    for (let i = 0; i < tools.length; i++) if (tools[i]!.definition !== from[i]) return false;
    return true;
  }

  /**
   * The agent's single entry point: finds the tool by name and calls it through
   * the toolset's, the source's and the tool's middleware. Never throws, and the
   * promise never rejects: an unknown name is an error result that lists the valid
   * names; a call made wrongly (a name that is not a string, a context that is not an
   * `ExecutionContext`, options that are not an options object) is an `INVALID_OPTIONS`
   * error result saying what was wrong.
   */
  invoke(name: string, rawArgs: unknown, context?: ExecutionContext, options?: InvokeOptions): Promise<ToolResult> {
    const route = this.byName.get(name);
    if (route === undefined) {
      return invokeThrough({ name, tool: undefined, chain: this.unknownChain, unknown: this.unknownTool, entry: 'toolset' }, context, rawArgs, options);
    }
    const target = route.target !== undefined && route.toolLevel === route.tool.middleware ? route.target : this.compile(name, route);
    return invokeThrough(target, context, rawArgs, options);
  }

  private readonly unknownTool: Terminal = (call) => errorResult(ErrorCode.UnknownTool, unknownToolText(this.names, call.name));
}

/** The middleware a source brings for its tool `name`: a held toolset's own (and its sources'), or a dynamic source's. */
function sourceLevel(entry: Entry, name: string): readonly Middleware[] {
  const source = entry.source as (DynamicToolSource & { middlewareFor?: (name: string) => readonly Middleware[] }) | undefined;
  if (source === undefined) return [];
  if (typeof source.middlewareFor === 'function') return source.middlewareFor(name);
  return Array.isArray(source.middleware) ? source.middleware : [];
}

/** Longest part of an unknown name echoed back to the model. */
const ECHO_CHARS = 64;
/** Most names an unknown-tool result lists; past that, the closest ones. */
const LISTED_NAMES = 20;

/** `name` in quotes, cut to ECHO_CHARS with a count of what was left out: the model sent it, it need not read it back whole. */
function quoteShort(name: string): string {
  if (name.length <= ECHO_CHARS) return JSON.stringify(name);
  return `${JSON.stringify(name.slice(0, ECHO_CHARS))}… (${name.length} characters)`;
}

/**
 * What a call of the unknown tool `name` answers: the names of `valid`, the
 * tools the caller may see (a server that hides tools from a caller lists
 * only those it shows).
 */
export function unknownToolText(valid: readonly string[], name: string): string {
  return `Unknown tool ${quoteShort(name)}; ${listNames(valid, name)}. Call one of those.`;
}

/** The valid names, or the LISTED_NAMES closest to `wanted` when there are more. */
function listNames(valid: readonly string[], wanted: string): string {
  if (valid.length === 0) return 'there are no tools';
  if (valid.length <= LISTED_NAMES) return `the available tools are: ${valid.join(', ')}`;
  const probe = wanted.slice(0, ECHO_CHARS).toLowerCase();
  const closest = valid
    .map((name) => ({ name, distance: editDistance(probe, name.slice(0, ECHO_CHARS).toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
    .slice(0, LISTED_NAMES)
    .map(({ name }) => name);
  return `the closest of the ${valid.length} available tools are: ${closest.join(', ')}`;
}

setBrand(Toolset, BRAND.Toolset);

/** Whether `value` is a `Toolset`, from this copy of @anytool/core or another. */
export function isToolset(value: unknown): value is Toolset {
  return hasBrand(value, BRAND.Toolset);
}
