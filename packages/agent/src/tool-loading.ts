import { AnytoolError, ErrorCode, toolSearchFound, type BaseTool, type Toolset, type ToolDefinition, type ToolResult } from '@anytool/core';
import type { ModelMessage, ModelToolCall } from './model.js';

/**
 * One run's tools under tool search (`Toolset.defer`). With a model that lowers
 * deferral natively, every definition goes on every turn and the provider loads
 * what its search finds. Otherwise a turn's tools are: the tools always loaded
 * (in the toolset's order), the portable search tool, then the deferred tools
 * the model loaded with it, in load order. Loaded tools accumulate for the run,
 * so each turn's array starts with the last turn's, byte for byte, and prompt
 * caches keep hitting.
 */
export class LoadedTools {
  /** The tools appended after the first turn's, in the order they came: loaded deferred tools and the agent's late tools. */
  private readonly loaded: string[] = [];
  private readonly loadedNames = new Set<string>();
  /** Whether the last `definitions()` offered the portable search tool. */
  private searching = false;

  constructor(
    /** The agent's toolset: the definitions. */
    private readonly toolset: Toolset,
    /** What the agent's calls go through: its toolset, with what the agent adds (output budget, `read_tool_output`). */
    private readonly calls: Toolset,
    /** The portable search tool and a toolset holding just it, which its calls go through. */
    private readonly searchTools: () => { tool: BaseTool; toolset: Toolset },
    private readonly native: boolean,
  ) {}

  /**
   * The definitions of the next turn. `late` are tools the agent offers from some
   * turn on (`read_tool_output`): they go after the others, in the order they first
   * came, loaded tools included, so no turn's array moves a tool sent before.
   */
  definitions(late: readonly ToolDefinition[] = []): readonly ToolDefinition[] {
    const all = this.toolset.neutralDefinitions();
    this.searching = false;
    if (this.native || !all.some((d) => d.deferLoading === true)) return late.length === 0 ? all : [...all, ...late];
    const search = this.searchTools();
    const searchName = search.tool.name;
    if (this.toolset.has(searchName)) {
      throw new AnytoolError(
        ErrorCode.DuplicateTool,
        `Agent: the toolset has a tool named "${searchName}", the name of the tool search over its deferred tools; rename that tool, or name the search tool with { toolSearch: { name } }`,
      );
    }
    this.searching = true;
    const eager: ToolDefinition[] = [];
    const deferred = new Map<string, ToolDefinition>();
    for (const definition of all) {
      if (definition.deferLoading === true) deferred.set(definition.name, definition);
      else eager.push(definition);
    }
    const lateByName = new Map<string, ToolDefinition>();
    for (const definition of late) {
      lateByName.set(definition.name, definition);
      if (!this.loadedNames.has(definition.name)) {
        this.loadedNames.add(definition.name);
        this.loaded.push(definition.name);
      }
    }
    const loaded: ToolDefinition[] = [];
    for (const name of this.loaded) {
      const definition = deferred.get(name) ?? lateByName.get(name);
      if (definition === undefined) continue;
      const { deferLoading: _deferred, ...sent } = definition;
      loaded.push(sent);
    }
    return [...eager, search.tool.definition, ...loaded];
  }

  /** The toolset a call of `name` goes through: the search tool's own, or the agent's. */
  toolsetFor(name: string): Toolset {
    if (!this.searching) return this.calls;
    const search = this.searchTools();
    return name === search.tool.name ? search.toolset : this.calls;
  }

  /**
   * Loads what a conversation being continued had loaded, by the rule `record`
   * follows: the deferred tools its searches found, in the order they came. The
   * model then sees them again from the first turn, as the run that loaded them did.
   */
  resume(messages: readonly ModelMessage[]): void {
    if (this.native || !this.toolset.neutralDefinitions().some((d) => d.deferLoading === true)) return;
    const searchName = this.searchTools().tool.name;
    for (const message of messages) {
      if (message.role === 'tool' && message.name === searchName && message.result !== undefined)
        for (const name of toolSearchFound(message.result)) this.load(name);
    }
  }

  private load(name: string): void {
    if (this.loadedNames.has(name) || !this.toolset.isDeferred(name)) return;
    this.loadedNames.add(name);
    this.loaded.push(name);
  }

  /** Loads, in order, the tools the turn's search calls found (each once). */
  record(calls: readonly ModelToolCall[], results: readonly ToolResult[]): void {
    if (!this.searching) return;
    const searchName = this.searchTools().tool.name;
    calls.forEach((call, i) => {
      if (call.name !== searchName) return;
      for (const name of toolSearchFound(results[i]!)) this.load(name);
    });
  }
}
