import { BaseTool } from '../base-tool.js';
import { AnytoolError, ErrorCode, isAnytoolError } from '../errors.js';
import type { ExecutionContext } from '../execution-context.js';
import { mark } from '../pipeline/output-budget.js';
import { errorResult, toolResult, type ToolResult } from '../tool-result.js';
import { ToolOutputStore } from './output-store.js';

/** The name the model calls the output reader by. */
export const READ_TOOL_OUTPUT = 'read_tool_output';
/** The default (and largest) page of `read_tool_output`, in characters: half the agent's default budget. */
export const DEFAULT_PAGE_CHARS = 40_000;

export interface ReadToolOutputOptions {
  /** The largest page in characters (and the default `limit`): 40 000 by default. Keep it within the budget of the toolset it is in. */
  maxChars?: number;
}

interface ReadArgs {
  handle: string;
  offset?: number;
  limit?: number;
}

/**
 * `read_tool_output(handle, offset, limit)`: pages through an output an output
 * budget kept for the run (the handle is in the note of the cut result). Each
 * page is the text, then a line saying where it ends and how to read on; its
 * structured value (`{ handle, offset, end, total }`) is for the application.
 * The agent adds it by itself once an output was kept; put it in a toolset
 * yourself when you use `outputBudget` without the agent.
 *
 * @example
 * const toolset = new Toolset(tools, new ReadToolOutput()).use(outputBudget({ maxTokens: 10_000 }));
 */
export class ReadToolOutput extends BaseTool<ReadArgs> {
  readonly maxChars: number;

  constructor(options: ReadToolOutputOptions = {}) {
    const maxChars = options.maxChars ?? DEFAULT_PAGE_CHARS;
    if (!Number.isSafeInteger(maxChars) || maxChars < 1)
      throw new AnytoolError(ErrorCode.InvalidOptions, `new ReadToolOutput(): maxChars must be a whole number of characters from 1, got ${String(maxChars)}`);
    super({
      name: READ_TOOL_OUTPUT,
      description:
        'Reads a tool output that was too large to show whole. The note in the cut result gives its handle and the offset where the left-out part starts. Returns up to `limit` characters from `offset`, and where to read on.',
      parameters: {
        type: 'object',
        properties: {
          handle: { type: 'string', description: 'The handle from the note of the cut result, such as "out_1_1".' },
          offset: { type: 'integer', minimum: 0, description: 'The character to start at; 0 by default.' },
          limit: {
            type: 'integer',
            minimum: 1,
            description: `How many characters to read; ${maxChars} by default, and at most (a larger limit reads ${maxChars}).`,
          },
        },
        required: ['handle'],
        additionalProperties: false,
      },
      annotations: { readOnly: true, idempotent: true, openWorld: false },
    });
    this.maxChars = maxChars;
    this.source = 'output budget';
  }

  execute(context: ExecutionContext, args: ReadArgs): ToolResult {
    const { handle, offset = 0 } = args;
    const limit = Math.min(args.limit ?? this.maxChars, this.maxChars);
    const store = ToolOutputStore.peek(context);
    try {
      if (store === undefined)
        throw new AnytoolError(
          ErrorCode.OutputHandleUnknown,
          `No output has the handle ${JSON.stringify(handle.slice(0, 64))}: this run kept no outputs (outputs are released when the run that produced them ends). Call the tool again, asking for less, if you need it.`,
        );
      const page = store.read(handle, offset, limit);
      const next =
        page.end < page.total
          ? `[characters ${page.offset} to ${page.end} of ${page.total}; read on with read_tool_output({"handle":"${handle}","offset":${page.end}})]`
          : `[characters ${page.offset} to ${page.end} of ${page.total}: the end of the output]`;
      return mark(
        toolResult({
          content: [
            { type: 'text', text: page.text },
            { type: 'text', text: next },
          ],
          structured: { handle, offset: page.offset, end: page.end, total: page.total },
          isError: false,
        }),
      );
    } catch (error) {
      if (!isAnytoolError(error)) throw error;
      return mark(errorResult(error.code, error.message, `${READ_TOOL_OUTPUT}: ${error.message}`));
    }
  }
}
