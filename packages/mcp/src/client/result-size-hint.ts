import { AnytoolError, ErrorCode, outputBudget } from '@anytool/core';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/client';

/**
 * An MCP server's per-tool size hint: the `_meta` key of a listed tool that
 * Claude Code honours (since 2.1.91), the most characters of text a result of
 * that tool may bring into the model's context, up to 500 000.
 */
export const RESULT_SIZE_HINT = 'anthropic/maxResultSizeChars';
/** The most a hint may raise a tool's budget to by default: Claude Code's own ceiling. */
export const MAX_HINTED_CHARS = 500_000;

/** How a toolset treats servers' size hints (`McpToolsetOptions.resultSizeHints`). */
export type ResultSizeHints = boolean | { maxChars: number };

/** The hint of a listed tool: a whole number of characters from 1, `undefined` when there is none, or why it cannot be used. */
export function resultSizeHint(info: McpToolInfo): number | undefined | { invalid: string } {
  const meta = info._meta;
  if (meta === undefined || !Object.hasOwn(meta, RESULT_SIZE_HINT)) return undefined;
  const value = meta[RESULT_SIZE_HINT];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  return {
    invalid: `its _meta["${RESULT_SIZE_HINT}"] is ${JSON.stringify(value)?.slice(0, 40) ?? String(value)}, not a whole number of characters from 1; it was ignored`,
  };
}

/**
 * The output budget a tool's hint sets, as tool-level middleware, never above
 * `maxChars` (500 000 by default). A trusted server's hint takes the place of the
 * toolset's and the agent's budgets for that tool (the budget nearest the tool
 * decides), lower or higher; an untrusted server's may only lower them. Undefined
 * without a usable hint or with hints off.
 */
export function hintedBudget(
  info: McpToolInfo,
  hints: ResultSizeHints | undefined,
  trusted: boolean,
  note: (message: string) => void,
): ReturnType<typeof outputBudget> | undefined {
  if (hints === false) return undefined;
  if (typeof hints === 'object' && !(Number.isSafeInteger(hints.maxChars) && hints.maxChars >= 1))
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `McpToolset: resultSizeHints.maxChars must be a whole number of characters from 1, got ${String(hints.maxChars)}`,
    );
  const hint = resultSizeHint(info);
  if (hint === undefined) return undefined;
  if (typeof hint === 'object') {
    note(`tool "${info.name}": ${hint.invalid}`);
    return undefined;
  }
  const ceiling = typeof hints === 'object' ? hints.maxChars : MAX_HINTED_CHARS;
  return outputBudget({ maxChars: Math.min(hint, ceiling), onlyLower: !trusted });
}
