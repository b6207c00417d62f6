import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { ModelResponse, ModelToolCall, ToolMessage } from './model.js';

/** One model turn of a run, as stop conditions and `prepareStep` see it. */
export interface StepResult {
  /** The turn's number, from 1. */
  step: number;
  /** What the model answered. */
  response: ModelResponse;
  /** The calls the agent ran, with the ids their results carry (a call without an id got one). */
  toolCalls: readonly ModelToolCall[];
  /** Their results, in the model's order; empty for a turn without tool calls. */
  toolResults: readonly ToolMessage[];
}

/**
 * Asked after each turn that did not end the run (its tool calls ran): true stops
 * the run there, with `stopReason: 'stop_condition'`. `steps` holds every turn of
 * the run so far, the latest last. It may return a promise.
 */
export type StopCondition = (state: { readonly steps: readonly StepResult[] }) => boolean | PromiseLike<boolean>;

/**
 * Stops the run once it has taken `count` model turns. `maxSteps` is this
 * condition, kept apart so its stop says `max_steps`.
 *
 * @example
 * new Agent({ model, tools, stopWhen: stepCountIs(3) });
 */
export function stepCountIs(count: number): StopCondition {
  if (!Number.isInteger(count) || count < 1) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `stepCountIs(count): \`count\` must be a positive integer (model turns), got ${String(count)}`);
  }
  return ({ steps }) => steps.length >= count;
}

/**
 * Stops the run after a turn in which the model called the tool `name` (the call
 * runs first, so its result is in the run's messages and events).
 *
 * @example
 * new Agent({ model, tools: [search, answer], stopWhen: hasToolCall('answer') });
 */
export function hasToolCall(name: string): StopCondition {
  if (typeof name !== 'string' || name === '') {
    throw new AnytoolError(ErrorCode.InvalidOptions, `hasToolCall(name): \`name\` must be a tool name, got ${JSON.stringify(name) ?? String(name)}`);
  }
  return ({ steps }) => steps.at(-1)?.toolCalls.some((call) => call.name === name) === true;
}

/** Why the conditions stopped a run. */
export type StopConditionReason = 'max_steps' | 'stop_condition';

/**
 * The conditions that end a run between turns: the step limit (`maxSteps`), then
 * the agent's `stopWhen`, the first that holds wins.
 */
export class StopConditions {
  private readonly conditions: readonly StopCondition[];

  /** `stopWhen`: one condition or a list, as the agent's option takes them (checked here). */
  constructor(stopWhen: StopCondition | readonly StopCondition[] | undefined) {
    const conditions: StopCondition[] = stopWhen === undefined ? [] : isList(stopWhen) ? [...stopWhen] : [stopWhen];
    conditions.forEach((condition, i) => {
      if (typeof condition !== 'function') {
        throw new AnytoolError(
          ErrorCode.InvalidOptions,
          `Agent: \`stopWhen\`${Array.isArray(stopWhen) ? `[${i}]` : ''} must be a stop condition (a function such as stepCountIs(3) or hasToolCall('answer')), got ${typeof condition}`,
        );
      }
    });
    this.conditions = conditions;
  }

  /** Whether the run stops after its latest turn, and why; undefined to go on. */
  async check(steps: readonly StepResult[], maxSteps: number): Promise<StopConditionReason | undefined> {
    if (steps.length >= maxSteps) return 'max_steps';
    if (this.conditions.length === 0) return undefined;
    const state = { steps };
    for (let i = 0; i < this.conditions.length; i++) {
      let met: boolean;
      try {
        met = await this.conditions[i]!(state);
      } catch (error) {
        throw new AnytoolError(
          ErrorCode.MiddlewareFailed,
          `Agent: the stop condition \`stopWhen\`${this.conditions.length > 1 ? `[${i}]` : ''} threw after turn ${steps.length}: ${describeError(error)}; the run stopped. Fix the condition (it is your code).`,
          { cause: error },
        );
      }
      if (met) return 'stop_condition';
    }
    return undefined;
  }
}

function isList(stopWhen: StopCondition | readonly StopCondition[]): stopWhen is readonly StopCondition[] {
  return Array.isArray(stopWhen);
}
