import { AnytoolError, ErrorCode } from '../errors.js';
import { errorResult, type ContentPart, type ToolResult } from '../tool-result.js';
import type { Middleware, ToolCall } from './tool-call.js';

export interface OutputBudgetOptions {
  /** The most characters of content a result may carry to the model (text, and the base64 of images and blobs). */
  maxChars: number;
  /**
   * What happens to a larger result: `'truncate'` (the default) keeps the content
   * up to the budget and says how much was cut; `'error'` replaces it with a
   * `RESULT_TOO_LARGE` error result asking the model for less.
   */
  over?: 'truncate' | 'error';
}

/** The characters a part costs the model. */
function partSize(part: ContentPart): number {
  switch (part.type) {
    case 'text':
      return part.text.length;
    case 'image':
    case 'audio':
      return part.data.length;
    case 'resource':
      return (part.text?.length ?? 0) + (part.blob?.length ?? 0);
    default:
      return part.uri.length;
  }
}

/**
 * Keeps results within a budget, so one tool cannot flood the model's context.
 * A result over it is cut (or refused with `over: 'error'`), and the run gets a
 * `RESULT_TOO_LARGE` diagnostic naming the tool: nothing is dropped silently.
 *
 * @example
 * const toolset = new Toolset(tools).use(outputBudget({ maxChars: 20_000 }));
 */
export function outputBudget(options: OutputBudgetOptions): Middleware {
  const max = options.maxChars;
  if (!Number.isInteger(max) || max < 1)
    throw new AnytoolError(ErrorCode.InvalidOptions, `outputBudget(): maxChars must be a whole number of characters from 1, got ${String(max)}`);
  const over = options.over ?? 'truncate';
  return {
    name: 'output budget',
    after(call: ToolCall, result: ToolResult): ToolResult | undefined {
      let size = 0;
      for (const part of result.content) size += partSize(part);
      if (size <= max) return undefined;
      const what = `tool "${call.name}" returned ${size} characters of content, over its budget of ${max}`;
      if (over === 'error') {
        call.context.diagnose({
          code: ErrorCode.ResultTooLarge,
          source: 'output budget',
          message: `${what}; the result was replaced by an error`,
          callId: call.callId,
          tool: call.name,
        });
        return errorResult(
          ErrorCode.ResultTooLarge,
          `Tool "${call.name}" returned ${size} characters, more than the ${max} allowed. Call it again asking for less (a narrower query, a page, a limit).`,
          what,
        );
      }
      call.context.diagnose({
        code: ErrorCode.ResultTooLarge,
        source: 'output budget',
        message: `${what}; it was cut to the budget`,
        callId: call.callId,
        tool: call.name,
      });
      return truncate(result, max, size);
    },
  };
}

/** The parts that fit in `max` characters, the text part that crosses it cut, and a note of what was left out. */
function truncate(result: ToolResult, max: number, size: number): ToolResult {
  const content: ContentPart[] = [];
  let left = max;
  for (const part of result.content) {
    const cost = partSize(part);
    if (cost <= left) {
      content.push(part);
      left -= cost;
    } else {
      if (part.type === 'text' && left > 0) content.push({ type: 'text', text: part.text.slice(0, left) });
      break;
    }
  }
  content.push({ type: 'text', text: `[… ${size - max} of ${size} characters cut to fit the output budget of ${max}]` });
  // The structured value is the whole result again: it goes with the rest that was cut.
  const out: ToolResult = { content, isError: result.isError };
  if (result.error !== undefined) out.error = result.error;
  return out;
}
