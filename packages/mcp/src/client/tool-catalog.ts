import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError, type ArgsValidator } from '@anytool/core/internal';
import type { Client, Tool as McpToolInfo } from '@modelcontextprotocol/client';
import { PaginatedResultSchema } from '@modelcontextprotocol/core';
import { isTimeout } from './sdk-errors.js';
import { checkSchemas, checkTools, compileChecked, type ToolLimits } from './tool-check.js';

/*
 * The tools of one server as the client holds them: every page of `tools/list`, read at each
 * start and after each `tools/list_changed`, bounded and checked tool by tool, with their argument
 * validators (compiled at the check, or on first use), and the listeners told of a change.
 */

/** What the catalog needs of its connection. */
export interface CatalogHost {
  readonly name: string;
  /** The client of the open session, undefined while none is open. */
  current(): Client | undefined;
  note(message: string): void;
  noteOnce(message: string): void;
  /** A text from the server for a message: credentials masked, then cut short to `max`. */
  quote(text: string, max: number): string;
}

/** What one tool, and the whole `tools/list`, may hold: tools (and pages), and bytes. */
export interface CatalogLimits {
  tool: ToolLimits;
  list: { maxTools: number; maxBytes: number };
}

export class ToolCatalog {
  private infos: McpToolInfo[] = [];
  private readonly listeners = new Set<() => void>();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  /** Tools that declare `x-mcp-header` arguments, by name (see `callOn` in `connection.ts`). */
  private mirroredTools = new Map<string, McpToolInfo>();
  /**
   * The argument validators of the tools checked, for `McpTool` to use: compiled when the tool was
   * checked, or undefined until first asked for (a schema that surely compiles, see `checkSchemas`).
   */
  private readonly validators = new WeakMap<McpToolInfo, ArgsValidator | undefined>();

  constructor(
    private readonly host: CatalogHost,
    private readonly limits: CatalogLimits,
  ) {}

  /** The server's tools as it describes them, every page of `tools/list`. */
  get tools(): readonly McpToolInfo[] {
    return this.infos;
  }

  /** Tools that declare `x-mcp-header` arguments, by name. */
  get mirrored(): ReadonlyMap<string, McpToolInfo> {
    return this.mirroredTools;
  }

  /** The argument validator of a tool of `tools`: compiled when it was checked, or now, once. */
  validatorFor(info: McpToolInfo): ArgsValidator | undefined {
    if (!this.validators.has(info)) return undefined;
    let validator = this.validators.get(info);
    if (validator === undefined) {
      validator = compileChecked(info, this.host.name);
      if (validator !== undefined) this.validators.set(info, validator);
    }
    return validator;
  }

  /** Calls `listener` after the list changed (and was read again); returns the unsubscribe function. */
  onChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A session was opened: its tools are read within the start timeout, and the listeners told when a restart changed them. */
  async opened(client: Client, startTimeout: number, restarted: boolean): Promise<void> {
    const before = this.infos;
    this.infos = await this.listAll(client, startTimeout, 'startTimeoutMs');
    if (restarted && JSON.stringify(before) !== JSON.stringify(this.infos)) this.notify();
  }

  /** Reads every page again, within the request timeout, and tells the listeners. */
  async refresh(client: Client, timeout: number): Promise<void> {
    this.infos = await this.listAll(client, timeout, 'timeoutMs');
    this.notify();
  }

  /**
   * Every page of `tools/list`, each tool checked on its own (`checkTools`, `checkSchemas`): the
   * pages are read with the SDK's loose result schema, so one tool its `ToolSchema` refuses leaves
   * out that tool, with a diagnostic, not the whole list. The whole listing is bounded: at most
   * `maxTools` tools (and one page more), `maxToolListBytes` of JSON, and `budget` ms (the start
   * timeout at a start, the request timeout after a change); past any of them it fails with
   * `MCP_TOOL_LIST_LIMIT`, holding no more than one page past the limit.
   */
  private async listAll(client: Client, budget: number, budgetOption: 'startTimeoutMs' | 'timeoutMs'): Promise<McpToolInfo[]> {
    if (client.getServerCapabilities()?.tools === undefined) return [];
    const { maxTools, maxBytes } = this.limits.list;
    const deadline = performance.now() + budget;
    const checked: McpToolInfo[] = [];
    const problems: string[] = [];
    const names = new Set<string>();
    const seen = new Set<string>();
    let listed = 0;
    let bytes = 0;
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const left = Math.ceil(deadline - performance.now());
      const slow = (): AnytoolError =>
        this.listLimit(`took over ${budget} ms to list its tools (the whole tools/list; ${page - 1} pages and ${listed} tools read)`, budgetOption);
      if (left <= 0) throw slow();
      let result: Record<string, unknown> & { nextCursor?: string | undefined };
      try {
        result = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, PaginatedResultSchema, { timeout: left });
      } catch (error) {
        // The first page not answered in time is the start's own timeout; a later one is the whole list's.
        if (page > 1 && isTimeout(error)) throw slow();
        throw error;
      }
      const tools: unknown = result['tools'];
      if (!Array.isArray(tools)) throw new Error(`its tools/list answer has no "tools" array`);
      listed += tools.length;
      if (listed > maxTools) throw this.listLimit(`lists more than ${maxTools} tools in tools/list`, 'maxTools');
      const listing = checkTools(this.host.name, tools, this.limits.tool, names);
      bytes += listing.bytes;
      if (bytes > maxBytes) throw this.listLimit(`lists over ${maxBytes} bytes of JSON in tools/list`, 'maxToolListBytes');
      for (const info of listing.tools) checked.push(info);
      for (const problem of listing.problems) problems.push(problem);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
      if (seen.has(cursor)) {
        this.host.note(`tools/list returned the cursor ${JSON.stringify(this.host.quote(cursor, 100))} twice; stopped reading pages`);
        break;
      }
      seen.add(cursor);
      if (page > maxTools) throw this.listLimit(`went on past ${page} pages of tools/list (pages are limited to one more than maxTools)`, 'maxTools');
    }
    // A tool listed as before keeps its object, and so its validator: only new tools are checked.
    const before = new Map(this.infos.map((info) => [JSON.stringify(info), info]));
    const tools = checked.map((info) => before.get(JSON.stringify(info)) ?? info);
    const schemas = await checkSchemas(this.host.name, tools, (info) => this.validators.has(info));
    for (const problem of [...problems, ...schemas.problems]) this.host.noteOnce(problem);
    for (const [info, validator] of schemas.validators) this.validators.set(info, validator);
    this.mirroredTools = new Map(schemas.tools.filter((info) => JSON.stringify(info.inputSchema).includes('"x-mcp-header"')).map((info) => [info.name, info]));
    return schemas.tools;
  }

  /** A `tools/list` past one of its limits: the server, the limit and the option that raises it. */
  private listLimit(what: string, option: string): AnytoolError {
    const raise =
      option === 'startTimeoutMs' || option === 'timeoutMs'
        ? `if it is only slow, raise "${option}" on its entry or in the options`
        : `if it really lists that much, raise "${option}" on its entry or in the options`;
    return new AnytoolError(ErrorCode.McpToolListLimit, `MCP server "${this.host.name}" ${what}, past the limit (${option}); ${raise}.`);
  }

  /** Reads the list again after `tools/list_changed` on `client`, once at a time (a change meanwhile reads it once more). */
  scheduleRefresh(client: Client, timeout: number): void {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          if (this.host.current() !== client) return;
          this.infos = await this.listAll(client, timeout, 'timeoutMs');
          this.notify();
        } catch (error) {
          this.host.note(`could not read the tools again after tools/list_changed: ${describeError(error)}`);
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.host.note(`a tools-changed listener threw: ${describeError(error)}`);
      }
    }
  }
}
