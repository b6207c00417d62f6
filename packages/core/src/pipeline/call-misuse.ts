import type { BaseTool } from '../base-tool.js';
import { ErrorCode, describeError } from '../errors.js';
import { maxErrorCharsProblem } from '../error-text.js';
import type { ExecutionContext } from '../execution-context.js';
import { errorResult, type ToolResult } from '../tool-result.js';

/** Which entry point was called wrongly: its name in messages, and how a right call reads. */
export type CallEntry = 'toolset' | 'tool' | 'pipeline';

const USAGE: Readonly<Record<CallEntry, { who: (tool: BaseTool | undefined) => string; call: string }>> = {
  toolset: { who: () => 'Toolset.invoke()', call: 'toolset.invoke(name, args, context, options)' },
  tool: { who: (tool) => `${tool?.label ?? 'a tool'}: invoke()`, call: 'tool.invoke(context, args, options), the context first' },
  pipeline: { who: () => 'Pipeline.invoke()', call: 'pipeline.invoke(toolset, name, args, context, options)' },
};

/** What the model reads: the call was the application's mistake, not something it can fix. */
const MODEL_TEXT = 'The tool call was not run: the application called the tool wrongly (a bug in the application, not in your call). Do not retry it.';

/** A short description of a value of any type, for messages; never throws and never echoes the value. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value === 'function' ? 'a function' : `a ${typeof value}`;
  try {
    if (Array.isArray(value)) return 'an array';
    const name: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name !== '' && name !== 'Object' ? `an instance of ${name.slice(0, 64)}` : 'a plain object';
  } catch {
    return 'an object that cannot be read (a revoked proxy?)';
  }
}

/** What is wrong with `options`, or undefined. Reads each field once, inside a try: a hostile object cannot throw past it. */
function optionsProblem(options: unknown): string | undefined {
  let callId: unknown;
  try {
    if (typeof options !== 'object' || options === null || Array.isArray(options))
      return `options must be an object such as { callId: 'call_1', timeoutMs: 30_000 }, or left out; got ${kindOf(options)}`;
    callId = (options as { callId?: unknown }).callId;
  } catch (error) {
    return `options could not be read (${describeError(error).slice(0, 200)}); pass a plain object`;
  }
  if (callId !== undefined && (typeof callId !== 'string' || callId === ''))
    return `options.callId must be a non-empty string (the model's tool call id), got ${typeof callId === 'string' ? 'an empty string' : kindOf(callId)}`;
  let maxErrorChars: unknown;
  try {
    maxErrorChars = (options as { maxErrorChars?: unknown }).maxErrorChars;
  } catch (error) {
    return `options could not be read (${describeError(error).slice(0, 200)}); pass a plain object`;
  }
  const problem = maxErrorCharsProblem(maxErrorChars);
  return problem === undefined ? undefined : `options.${problem}`;
}

/**
 * The error result of a call made wrongly (a name that is not a string, a context that
 * is not an `ExecutionContext`, options that are not an options object), or undefined
 * when the call is well formed. `ctx` is the context the call would run with, undefined
 * when `context` is not one; a well-formed context is told of the misuse as a diagnostic.
 */
export function callMisuse(
  entry: CallEntry,
  tool: BaseTool | undefined,
  name: unknown,
  context: unknown,
  ctx: ExecutionContext | undefined,
  options: unknown,
): ToolResult | undefined {
  let problem: string | undefined;
  if (typeof name !== 'string') problem = `the tool name must be a string, got ${kindOf(name)}`;
  else if (ctx === undefined)
    problem = `the context must be an ExecutionContext (new ExecutionContext(), or the run's context) or left out, got ${kindOf(context)}`;
  else if (options !== undefined) problem = optionsProblem(options);
  if (problem === undefined) return undefined;
  const usage = USAGE[entry];
  const message = `${usage.who(tool)}: ${problem}; call ${usage.call}.`;
  ctx?.diagnose({ code: ErrorCode.InvalidOptions, source: entry, message });
  return errorResult(ErrorCode.InvalidOptions, MODEL_TEXT, message);
}
