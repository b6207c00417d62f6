import { AnytoolError, ErrorCode, errorResult, type Middleware, type ToolCall } from '@anytool/core';
import { addUsage, emptyUsage, type Usage } from './model.js';

/**
 * What one run may spend (`AgentOptions.budget`, `RunOptions.budget`): tokens
 * as the provider counts them, summed over the run's model turns, and tool calls
 * the agent runs. Reaching one stops the run with its stop reason.
 */
export interface RunBudget {
  /** Input (prompt) tokens of every turn together: the run stops with `max_input_tokens` once they reach it. */
  maxInputTokens?: number;
  /** Output tokens of every turn together: stops with `max_output_tokens`. */
  maxOutputTokens?: number;
  /** Input and output tokens together: stops with `max_total_tokens`. */
  maxTotalTokens?: number;
  /**
   * Tool calls the agent runs: stops with `max_tool_calls` once that many ran. A
   * call past it in the same turn does not run; it ends with `BUDGET_EXCEEDED`.
   */
  maxToolCalls?: number;
}

/** Why a budget stopped a run. */
export type BudgetStopReason = 'max_input_tokens' | 'max_output_tokens' | 'max_total_tokens' | 'max_tool_calls';

/** The tokens of one model turn of a run. */
export interface TurnUsage {
  /** The turn's number, from 1. */
  step: number;
  /** The model that took it (its `name`: "openai gpt-4.1-mini"). */
  model: string;
  usage: Usage;
}

const LIMITS = ['maxInputTokens', 'maxOutputTokens', 'maxTotalTokens', 'maxToolCalls'] as const;

/** Checks a budget given as an option (from JavaScript it may be anything); returns it. */
export function checkBudget(budget: unknown, where: string): RunBudget | undefined {
  if (budget === undefined) return undefined;
  if (typeof budget !== 'object' || budget === null || Array.isArray(budget)) {
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `${where}: \`budget\` must be an object such as { maxTotalTokens: 50_000, maxToolCalls: 20 }, got ${String(budget)}`,
    );
  }
  for (const [key, value] of Object.entries(budget)) {
    if (!(LIMITS as readonly string[]).includes(key)) {
      throw new AnytoolError(ErrorCode.InvalidOptions, `${where}: \`budget.${key}\` is not a budget; use ${LIMITS.join(', ')}`);
    }
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1)) {
      throw new AnytoolError(ErrorCode.InvalidOptions, `${where}: \`budget.${key}\` must be a positive whole number, got ${String(value)}`);
    }
  }
  return budget as RunBudget;
}

/**
 * The agent's side of budgets: which budget a run's usage reached, and the
 * tool-call count, kept per run (by its shared state) in a middleware in front
 * of the toolset, so a call past the budget ends as any refused call does, with
 * its events.
 */
export class Budgets {
  /** Per run: its tool-call budget and the calls it started. */
  private readonly calls = new WeakMap<object, { max: number; started: number }>();

  /** The middleware that counts a run's tool calls and refuses those past its budget. */
  middleware(): Middleware {
    return {
      name: 'tool-call budget',
      before: (call: ToolCall) => {
        const count = this.calls.get(call.context.state);
        if (count === undefined) return undefined;
        if (count.started < count.max) {
          count.started++;
          return undefined;
        }
        return errorResult(
          ErrorCode.BudgetExceeded,
          `The call to tool "${call.name}" did not run: this run's budget of ${count.max} tool call(s) is used up. Answer with what you have.`,
          `${call.name}: not run: the run's maxToolCalls (${count.max}) was reached`,
        );
      },
    };
  }

  /** Starts counting the tool calls of the run whose shared state is `state` (`calls`: made before, in a resumed run). */
  open(state: object, budget: RunBudget | undefined, calls: number): void {
    if (budget?.maxToolCalls !== undefined) this.calls.set(state, { max: budget.maxToolCalls, started: calls });
  }

  /** The budget a run reached after a turn, if any: tokens first, then tool calls. */
  reached(state: object, budget: RunBudget | undefined, usage: Usage): BudgetStopReason | undefined {
    if (budget === undefined) return undefined;
    if (budget.maxInputTokens !== undefined && usage.inputTokens >= budget.maxInputTokens) return 'max_input_tokens';
    if (budget.maxOutputTokens !== undefined && usage.outputTokens >= budget.maxOutputTokens) return 'max_output_tokens';
    if (budget.maxTotalTokens !== undefined && usage.totalTokens >= budget.maxTotalTokens) return 'max_total_tokens';
    const count = this.calls.get(state);
    if (count !== undefined && count.started >= count.max) return 'max_tool_calls';
    return undefined;
  }

  /** The text of the error event a budget stop records. */
  static stopText(reason: BudgetStopReason, budget: RunBudget, usage: Usage, steps: number): string {
    const [limit, spent] =
      reason === 'max_input_tokens'
        ? [budget.maxInputTokens, `${usage.inputTokens} input tokens`]
        : reason === 'max_output_tokens'
          ? [budget.maxOutputTokens, `${usage.outputTokens} output tokens`]
          : reason === 'max_total_tokens'
            ? [budget.maxTotalTokens, `${usage.totalTokens} tokens`]
            : [budget.maxToolCalls, 'its tool calls'];
    return `Agent stopped after ${steps} model turn(s): the run used ${spent}, reaching its budget (${reasonOption(reason)}: ${String(limit)})`;
  }
}

function reasonOption(reason: BudgetStopReason): string {
  return { max_input_tokens: 'maxInputTokens', max_output_tokens: 'maxOutputTokens', max_total_tokens: 'maxTotalTokens', max_tool_calls: 'maxToolCalls' }[
    reason
  ];
}

/** A run's usage by model and by turn, besides its total. */
export class RunUsage {
  readonly byModel: Record<string, Usage> = {};
  readonly turns: TurnUsage[] = [];

  add(step: number, model: string, usage: Usage): void {
    addUsage((this.byModel[model] ??= emptyUsage()), usage);
    this.turns.push({ step, model, usage: { ...usage } });
  }
}
