/**
 * Examples of a tool's arguments, for the model: given as the `examples` option or
 * read by the build step from `@example` blocks of the tool's JSDoc. Each must
 * validate against the tool's parameter schema; a provider with a field for them
 * (Anthropic's `input_examples`) receives them, the other formats drop them with a
 * lowering note (providers/index.ts).
 */
import { AnytoolError, ErrorCode, describeError } from './errors.js';
import type { JsonSchema } from './tool-definition.js';
import { compileValidator, formatProblems } from './validation.js';

/**
 * Why each example does not fit the schema (an empty list when all do); `owner` names
 * the tool, `numbers` the examples as their source counts them (1, 2... by default).
 */
export function exampleProblems(examples: readonly unknown[], parameters: JsonSchema, owner: string, numbers?: readonly number[]): string[] {
  const problems: string[] = [];
  let validate: ReturnType<typeof compileValidator> | undefined;
  examples.forEach((example, i) => {
    if (typeof example !== 'object' || example === null || Array.isArray(example)) {
      problems.push(`example ${numbers?.[i] ?? i + 1} is ${describeError(example).slice(0, 60)}, not an arguments object`);
      return;
    }
    validate ??= compileValidator(parameters, owner);
    // Validation fills in defaults: the example is checked on a copy and kept as written.
    if (!validate(structuredClone(example)))
      problems.push(`example ${numbers?.[i] ?? i + 1} does not match its parameters:\n${formatProblems(validate.problems())}`);
  });
  return problems;
}

/** The examples checked (a copy), or `INVALID_TOOL_DEFINITION` naming the tool and each example that does not fit. */
export function checkExamples(examples: unknown, parameters: JsonSchema, label: string): Record<string, unknown>[] {
  if (!Array.isArray(examples)) {
    throw new AnytoolError(
      ErrorCode.InvalidToolDefinition,
      `${label}: \`examples\` must be an array of arguments objects, got ${describeError(examples).slice(0, 60)}`,
    );
  }
  const problems = exampleProblems(examples, parameters, label);
  if (problems.length > 0) {
    throw new AnytoolError(ErrorCode.InvalidToolDefinition, `${label}: ${problems.join('; ')}. Fix the example or the schema: the model learns from it`);
  }
  return structuredClone(examples) as Record<string, unknown>[];
}
