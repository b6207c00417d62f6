import { ErrorCode, type ExecutionContext, type ToolDefinition } from '@anytool/core';
import type { Model } from './model.js';

/**
 * Records a diagnostic, once a run for each tool, when the model's adapter has no
 * field for a tool's examples of arguments (all but Anthropic's `input_examples`):
 * its lowering drops them with a note, and the run says so rather than losing them
 * silently. `noted`: the tools reported so far in the run.
 */
export function noteDroppedExamples(model: Model, definitions: readonly ToolDefinition[], context: ExecutionContext, noted: Set<string>): void {
  if (model.toolExamples === true) return;
  for (const definition of definitions) {
    const count = definition.examples?.length ?? 0;
    if (count === 0 || noted.has(definition.name)) continue;
    noted.add(definition.name);
    context.diagnose({
      code: ErrorCode.UnsupportedByModel,
      source: model.name,
      tool: definition.name,
      message: `tool "${definition.name}": its ${count} example(s) of arguments were not sent: ${model.name} has no field for them (Anthropic's input_examples has); describe the arguments in the tool's description if the model needs them`,
    });
  }
}
