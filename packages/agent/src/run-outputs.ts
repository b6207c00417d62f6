import { ReadToolOutput, ToolOutputStore, Toolset, outputBudget, type ExecutionContext, type OutputBudgetOptions, type ToolDefinition } from '@anytool/core';
import { budgetChars } from '@anytool/core/internal';

/** The largest page of `read_tool_output` without a budget of the agent's: half the default budget. */
const PAGE_CHARS = 40_000;

/**
 * What the agent adds to its toolset for output budgets: the budget itself
 * (outermost of the toolset's middleware, so a toolset's, source's or tool's
 * own budget decides first) and `read_tool_output`, offered from the turn
 * after the run first kept an output, appended after the tools sent before
 * (with tool search, among the loaded tools in the order they came), so those
 * stay byte for byte the same.
 */
export class RunOutputs {
  private readonly own: Toolset;
  private readonly budget: OutputBudgetOptions | undefined;
  private readonly reader: ReadToolOutput | undefined;

  constructor(own: Toolset, options: OutputBudgetOptions | false | undefined) {
    const budget = options === false ? undefined : (options ?? {});
    // A page is half the budget: with the note of the cut result and a page or two, a turn stays within it.
    const pageChars = budget === undefined ? PAGE_CHARS : Math.max(1, Math.floor(budgetChars(budget, 'Agent: outputBudget') / 2));
    // Checked now: a bad budget is the developer's error, not a run's.
    if (budget !== undefined) outputBudget(budget);
    // A reader the toolset already holds (a ReadToolOutput of the user's, or a tool of theirs by that name) is left to it.
    this.reader = own.has('read_tool_output') ? undefined : new ReadToolOutput({ maxChars: pageChars });
    this.own = own;
    this.budget = budget;
  }

  /**
   * The toolset one run calls into: the agent's toolset, the reader and the budget. It
   * follows the agent's toolset until `release`, so an agent that is done with keeps
   * no listener on a toolset it shares with others.
   */
  open(): Toolset {
    const toolset = new Toolset(this.own, ...(this.reader === undefined ? [] : [this.reader]));
    if (this.budget !== undefined) toolset.use(outputBudget(this.budget));
    return toolset;
  }

  /** The definitions to send after the toolset's: the reader, once this run kept an output. */
  extraDefinitions(context: ExecutionContext): ToolDefinition[] {
    const store = ToolOutputStore.peek(context);
    return this.reader === undefined || store === undefined || store.stored === 0 ? [] : [this.reader.definition];
  }

  /** Drops the outputs the run kept, and the run's toolset stops following the agent's. */
  release(context: ExecutionContext, toolset: Toolset): void {
    toolset.dispose();
    ToolOutputStore.release(context);
  }
}
