import type { ArgumentProblem } from './validation.js';
import { toolResult, type ContentPart, type ToolResult } from './tool-result.js';

/**
 * The longest text an error result carries, in characters, by default: its model text
 * (all its text parts together) and its developer message (`error.message`), each. A
 * tool that throws a huge message (or a huge value) gives a result of this size.
 */
export const DEFAULT_MAX_ERROR_CHARS = 4_096;

/** The smallest `maxErrorChars` accepted: room for the start of a message and the note that it was cut. */
export const MIN_MAX_ERROR_CHARS = 256;

/** Most argument problems an `INVALID_ARGUMENTS` result lists; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** Room kept for the note that says a text was cut (its numbers included). */
const NOTE_ROOM = 96;

/** What is wrong with a `maxErrorChars` option, or undefined. */
export function maxErrorCharsProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= MIN_MAX_ERROR_CHARS && value <= 2 ** 31 - 1) return undefined;
  return `maxErrorChars must be a whole number of characters from ${MIN_MAX_ERROR_CHARS} to ${2 ** 31 - 1}, got ${typeof value === 'number' ? String(value) : typeof value}`;
}

/**
 * `text` cut to at most `max` characters, with a note of its full length. The kept part
 * is a copy: a cut of a huge string does not keep the huge string alive.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - NOTE_ROOM);
  // Never split a surrogate pair.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  // JSON's round trip makes a fresh string (a slice may share the huge one's memory) and keeps lone surrogates as they are.
  const kept = JSON.parse(JSON.stringify(text.slice(0, keep))) as string;
  return `${kept}… [cut: ${text.length} characters in all, the first ${keep} kept; maxErrorChars raises the limit]`;
}

/**
 * An error result whose text parts together and whose developer message each hold at
 * most `max` characters; the result itself when they do already. Non-text parts stay.
 */
export function boundErrorResult(result: ToolResult, max: number): ToolResult {
  const message = result.error?.message;
  let total = 0;
  for (const part of result.content) if (part.type === 'text') total += part.text.length;
  if (total <= max && (message === undefined || message.length <= max)) return result;
  // Text over the limit becomes one cut text part, first; other parts stay.
  const content: ContentPart[] =
    total <= max ? result.content : [{ type: 'text', text: cutText(textOf(result.content), max) }, ...result.content.filter((part) => part.type !== 'text')];
  const bounded: ToolResult = { content, isError: true };
  if (result.structured !== undefined) bounded.structured = result.structured;
  if (result.error !== undefined) bounded.error = { code: result.error.code, message: cutText(result.error.message, max) };
  return toolResult(bounded);
}

function textOf(content: readonly ContentPart[]): string {
  let text = '';
  for (const part of content) if (part.type === 'text') text = text === '' ? part.text : `${text}\n${part.text}`;
  return text;
}

/** At most `MAX_LISTED_PROBLEMS` problems, the last one counting those left out. */
export function listedProblems(problems: readonly ArgumentProblem[]): readonly ArgumentProblem[] {
  if (problems.length <= MAX_LISTED_PROBLEMS) return problems;
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS - 1);
  listed.push({ path: '', message: `and ${problems.length - listed.length} more problems (the first ${listed.length} are listed)` });
  return listed;
}
