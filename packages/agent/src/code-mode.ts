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
import { codeTool, type CodeTool, type CodeToolOptions } from '@anytool/core/code-mode';

/** `new Agent({ codeMode })`: the limits of each program, and whether the tools are still offered one by one. */
export interface CodeModeOptions extends Omit<CodeToolOptions, 'invoke'> {
  /**
   * Also offer every tool on its own, beside the runner (false by default: the
   * model sees the runner, whose description holds the tools' typed API, and
   * the tools only a provider runs).
   */
  beside?: boolean;
}

/**
 * An agent's code mode: the runner over the agent's toolset, its programs' calls
 * sent through the agent's own pipeline (tracing, middleware, call order, approval)
 * as the model's direct calls are, and the tool list a turn sends.
 */
export class AgentCodeMode {
  readonly tool: CodeTool;
  private readonly beside: boolean;

  constructor(
    toolset: Toolset,
    options: true | CodeModeOptions,
    invoke: (name: string, args: string, context: ExecutionContext, options: InvokeOptions) => Promise<ToolResult>,
    show: (definitions: readonly ToolDefinition[]) => readonly ToolDefinition[],
  ) {
    if (options !== true && (typeof options !== 'object' || options === null || Array.isArray(options))) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `new Agent(): \`codeMode\` must be true, false or an object of limits ({ timeoutMs, maxToolCalls, ... }), got ${JSON.stringify(options)}`,
      );
    }
    const { beside, ...limits } = options === true ? {} : options;
    if (beside !== undefined && typeof beside !== 'boolean') {
      throw new AnytoolError(ErrorCode.InvalidOptions, `new Agent(): \`codeMode.beside\` must be true or false, got ${JSON.stringify(beside)}`);
    }
    this.beside = beside === true;
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
  definitions(all: readonly ToolDefinition[], late: readonly ToolDefinition[]): ToolDefinition[] {
    if (this.beside) return [...all, this.tool.definition];
    const lateNames = new Set(late.map((d) => d.name));
    return [...all.filter((d) => isProviderTool(d) && !lateNames.has(d.name)), this.tool.definition, ...late];
  }
}
