import {
  AnytoolError,
  ErrorCode,
  isProviderTool,
  type ExecutionContext,
  type InvokeOptions,
  type ToolDefinition,
  type ToolResult,
  type Toolset,
} from '@anytool/core';
import { codeTool, schemaType, type CodeTool, type CodeToolOptions } from '@anytool/core/code-mode';
import type { Model, ProgrammaticCalls } from './model.js';

/** `new Agent({ codeMode })`: the limits of each program, and whether the tools are still offered one by one. */
export interface CodeModeOptions extends Omit<CodeToolOptions, 'invoke'> {
  /**
   * Also offer every tool on its own, beside the runner (false by default: the
   * model sees the runner, whose description holds the tools' typed API, and
   * the tools only a provider runs).
   */
  beside?: boolean;
  /**
   * Run programs in the provider's own code execution where the model's adapter
   * can (`Model.programmaticCalls`: Anthropic's programmatic tool calling), and in
   * the portable runner with every other model. `codeMode: 'native'` is `{ native: true }`.
   */
  native?: boolean;
}

/**
 * An agent's code mode: the runner over the agent's toolset, its programs' calls
 * sent through the agent's own pipeline (tracing, middleware, call order, approval)
 * as the model's direct calls are, and the tool list a turn sends.
 */
export class AgentCodeMode {
  readonly tool: CodeTool;
  private readonly beside: boolean;
  private readonly native: boolean;
  /** Each tool's definition with its result type, made once a definition. */
  private readonly described = new WeakMap<ToolDefinition, ToolDefinition>();

  constructor(
    private readonly toolset: Toolset,
    options: true | 'native' | CodeModeOptions,
    invoke: (name: string, args: string, context: ExecutionContext, options: InvokeOptions) => Promise<ToolResult>,
    show: (definitions: readonly ToolDefinition[]) => readonly ToolDefinition[],
  ) {
    if (options !== true && options !== 'native' && (typeof options !== 'object' || options === null || Array.isArray(options))) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `new Agent(): \`codeMode\` must be true, 'native', false or an object of limits ({ timeoutMs, maxToolCalls, native, ... }), got ${JSON.stringify(options)}`,
      );
    }
    const { beside, native, ...limits } = options === true ? {} : options === 'native' ? { native: true } : options;
    for (const [name, value] of [
      ['beside', beside],
      ['native', native],
    ] as const) {
      if (value !== undefined && typeof value !== 'boolean') {
        throw new AnytoolError(ErrorCode.InvalidOptions, `new Agent(): \`codeMode.${name}\` must be true or false, got ${JSON.stringify(value)}`);
      }
    }
    this.beside = beside === true;
    this.native = native === true;
    // Cast: this entry's types may come from core's other build (ESM and CommonJS declarations), the same classes.
    this.tool = codeTool(toolset as unknown as Parameters<typeof codeTool>[0], {
      ...limits,
      invoke: invoke as unknown as CodeToolOptions['invoke'] & object,
      show,
    });
  }

  /**
   * A turn's definitions from the ones it would send without code mode: the
   * provider-run tools (a sandbox cannot call them), the runner, then `late`
   * (`read_tool_output`); with `beside`, every tool and then the runner.
   */
  definitions(all: readonly ToolDefinition[], late: readonly ToolDefinition[], model: Model): ToolDefinition[] {
    // The provider's code execution calls the tools themselves: they are offered as they are (see `programmatic`).
    if (this.nativeWith(model)) return [...all.map((d) => this.withResultType(d)), ...late];
    if (this.beside) return [...all, this.tool.definition];
    const lateNames = new Set(late.map((d) => d.name));
    return [...all.filter((d) => isProviderTool(d) && !lateNames.has(d.name)), this.tool.definition, ...late];
  }

  /**
   * A tool a program may call, its description ending with the type of its result
   * when it declares one: Anthropic's code execution shows a program the tools'
   * arguments only, and a program parses the result it gets (the structured value as JSON).
   */
  private withResultType(definition: ToolDefinition): ToolDefinition {
    if (definition.outputSchema === undefined || isProviderTool(definition) || !this.toolset.has(definition.name)) return definition;
    let described = this.described.get(definition);
    if (described === undefined) {
      described = { ...definition, description: `${definition.description.trimEnd()}\nReturns JSON: ${schemaType(definition.outputSchema)}` };
      this.described.set(definition, described);
    }
    return described;
  }

  /** Whether programs run in the model's provider's own code execution. */
  nativeWith(model: Model): boolean {
    return this.native && model.programmaticCalls === true;
  }

  /**
   * With the provider's code execution: the tools of a turn's `definitions` that a
   * program may call, those of the agent's toolset that run here (not a provider's
   * tools, nor the agent's own such as `read_tool_output`, whose result is for the model).
   */
  programmatic(definitions: readonly ToolDefinition[], model: Model): ProgrammaticCalls | undefined {
    if (!this.nativeWith(model)) return undefined;
    const tools = definitions.filter((d) => !isProviderTool(d) && this.toolset.has(d.name)).map((d) => d.name);
    return { tools, direct: this.beside };
  }
}
