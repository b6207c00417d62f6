import { AnytoolError, ErrorCode } from '../errors.js';
import { ToolOutputStore, checkStoreOptions, copyOf, isHighSurrogate, type ToolOutputStoreOptions } from '../outputs/output-store.js';
import { errorResult, type ContentPart, type ToolResult } from '../tool-result.js';
import type { Middleware, ToolCall } from './tool-call.js';

/** Characters counted as one token when a budget is given in tokens: a rough estimate for English text and code. */
export const CHARS_PER_TOKEN = 4;
/** The budget the agent applies when none is given: 20 000 estimated tokens (80 000 characters). */
export const DEFAULT_OUTPUT_BUDGET_TOKENS = 20_000;
/** What an image (or audio) part counts, in tokens, whatever its size: about what a provider charges for a full-size image. */
export const MEDIA_PART_TOKENS = 1_600;

/** A budget: in estimated tokens or in characters (give one of the two). */
export interface OutputLimit {
  /** The most estimated tokens a result may cost the model (a token counted as 4 characters). */
  maxTokens?: number;
  /** The most characters a result may cost the model. */
  maxChars?: number;
}

export interface OutputBudgetOptions extends OutputLimit {
  /**
   * What happens to a larger result:
   * - `'store'` (the default): the model gets its head and tail with a note of
   *   what was left out and a handle; the whole text is kept for the run, and
   *   `read_tool_output` pages through it;
   * - `'truncate'`: head, tail and the note, nothing kept;
   * - `'error'`: a `RESULT_TOO_LARGE` error result asking the model for less.
   */
  over?: 'store' | 'truncate' | 'error';
  /** Budgets of single tools by name, in place of this one; `false` for none. */
  tools?: Readonly<Record<string, OutputLimit | false>>;
  /** What an image part counts, in tokens: 1 600 by default (its base64 length does not count). */
  imageTokens?: number;
  /** What an audio part counts, in tokens: 1 600 by default. */
  audioTokens?: number;
  /** Bounds of the run's store of kept outputs, when this middleware is the first to make it. */
  store?: ToolOutputStoreOptions;
  /**
   * Let this budget only lower the budgets further out (default false): a result
   * within it still has to meet theirs, a larger one is cut by the lower limit
   * (by the budget further out, with its settings, when that is the lower), and
   * what it cut is judged further out again. For a budget a party you do not
   * trust chose, such as an untrusted MCP server's size hint.
   */
  onlyLower?: boolean;
}

/** Set on a result a budget has dealt with: a budget further out lets it pass (the budget nearest the tool decides). */
const BUDGETED = Symbol.for('anytool.outputBudgeted');
/**
 * On a call: the limit of the nearest budget further out that may also raise (not
 * `onlyLower`). Registered, as BUDGETED is, so budgets of two copies of core agree.
 */
const NEAREST_LIMIT = Symbol.for('anytool.nearestOutputLimit.v1');
/** Room kept in the budget for the note. */
const NOTE_CHARS = 400;

function checkLimit(limit: OutputLimit, owner: string): number {
  const { maxTokens, maxChars } = limit;
  if (maxTokens !== undefined && maxChars !== undefined) throw new AnytoolError(ErrorCode.ConflictingOptions, `${owner}: give maxTokens or maxChars, not both`);
  const [value, unit] = maxChars !== undefined ? [maxChars, 'maxChars'] : [maxTokens ?? DEFAULT_OUTPUT_BUDGET_TOKENS, 'maxTokens'];
  if (!Number.isSafeInteger(value) || value < 1)
    throw new AnytoolError(ErrorCode.InvalidOptions, `${owner}: ${unit} must be a whole number from 1, got ${String(value)}`);
  return unit === 'maxChars' ? value : value * CHARS_PER_TOKEN;
}

/** The characters a budget allows (checked as `outputBudget` checks it); `owner` names the caller in errors. */
export function budgetChars(limit: OutputLimit, owner: string): number {
  return checkLimit(limit, owner);
}

function checkTokens(value: number | undefined, name: string): number {
  if (value === undefined) return MEDIA_PART_TOKENS * CHARS_PER_TOKEN;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new AnytoolError(ErrorCode.InvalidOptions, `outputBudget(): ${name} must be a whole number from 0, got ${String(value)}`);
  return value * CHARS_PER_TOKEN;
}

/** Whether a part is text the model reads (and `read_tool_output` pages through). */
function textOf(part: ContentPart): string | undefined {
  if (part.type === 'text') return part.text;
  if (part.type === 'resource' && part.text !== undefined) return part.text;
  return undefined;
}

/** Marks `result` as dealt with by a budget: budgets further out let it pass. */
export function mark(result: ToolResult): ToolResult {
  if (Object.isExtensible(result)) {
    Object.defineProperty(result, BUDGETED, { value: true, enumerable: false, configurable: true });
    return result;
  }
  return mark({ ...result });
}

/** `12,345` */
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Keeps results within a budget, so one tool cannot flood the model's context.
 * Use it on a toolset (`toolset.use`), a source or a tool (`tool.use`); the
 * budget nearest the tool decides, a budget further out lets its result pass.
 * The agent applies one by default (`AgentOptions.outputBudget`).
 *
 * A result's cost is its text in characters (a token counted as 4), plus a
 * fixed cost per image or audio part (1 600 tokens, not its base64 length).
 * A larger result reaches the model as the head and the tail of its text with
 * a note in between: how much was left out, and (by default) a handle under
 * which the whole text is kept for the run, paged with `read_tool_output`.
 * Images that do not fit are left out and counted in the note. The structured
 * value stays on the result for the application (models read the content only).
 * Each cut is also a `RESULT_TOO_LARGE` diagnostic of the run.
 *
 * @example
 * const toolset = new Toolset(tools).use(outputBudget({ maxTokens: 10_000, tools: { read_file: { maxTokens: 50_000 } } }));
 */
export function outputBudget(options: OutputBudgetOptions = {}): Middleware {
  const max = checkLimit(options, 'outputBudget()');
  const perTool = new Map<string, number | false>();
  for (const [name, limit] of Object.entries(options.tools ?? {}))
    perTool.set(name, limit === false ? false : checkLimit(limit, `outputBudget(): tools.${name}`));
  const over = options.over ?? 'store';
  if (over !== 'store' && over !== 'truncate' && over !== 'error')
    throw new AnytoolError(ErrorCode.InvalidOptions, `outputBudget(): over must be 'store', 'truncate' or 'error', got ${String(over)}`);
  const costs = { image: checkTokens(options.imageTokens, 'imageTokens'), audio: checkTokens(options.audioTokens, 'audioTokens') };
  const storeOptions = options.store;
  if (storeOptions !== undefined) checkStoreOptions(storeOptions); // now, where the mistake is
  const onlyLower = options.onlyLower ?? false;
  if (typeof onlyLower !== 'boolean')
    throw new AnytoolError(ErrorCode.InvalidOptions, `outputBudget(): onlyLower must be true or false, got ${String(onlyLower)}`);
  const limitOf = (name: string): number | false => (perTool.has(name) ? perTool.get(name)! : max);
  const budget: Middleware = {
    name: 'output budget',
    after(call: ToolCall, result: ToolResult): ToolResult | undefined {
      if ((result as unknown as Record<symbol, unknown>)[BUDGETED] === true) return undefined;
      const limit = limitOf(call.name);
      let size = 0;
      if (limit !== false) for (const part of result.content) size += partCost(part, costs);
      if (limit === false || size <= limit) {
        // Within a budget that may only lower: the budgets further out still judge it.
        if (!onlyLower) mark(result);
        return undefined;
      }
      // A budget further out at or below this one cuts it, with its own settings.
      const further = onlyLower ? call.get<number | false>(NEAREST_LIMIT) : undefined;
      if (typeof further === 'number' && further <= limit) return undefined;
      const what = `tool "${call.name}" returned ${count(size)} characters of content, over its budget of ${count(limit)}`;
      if (over === 'error') {
        call.context.diagnose({
          code: ErrorCode.ResultTooLarge,
          source: 'output budget',
          message: `${what}; the result was replaced by an error`,
          callId: call.callId,
          tool: call.name,
        });
        return mark(
          errorResult(
            ErrorCode.ResultTooLarge,
            `Tool "${call.name}" returned ${count(size)} characters, more than the ${count(limit)} allowed. Call it again asking for less (a narrower query, a page, a limit).`,
            what,
          ),
        );
      }
      const cut = cutToBudget(call, result, limit, costs, over === 'store' ? storeOptions : false);
      call.context.diagnose({ code: ErrorCode.ResultTooLarge, source: 'output budget', message: `${what}; ${cut.note}`, callId: call.callId, tool: call.name });
      // Never marked when it may only lower: a budget further out this one cannot see (past a Pipeline) still judges the cut.
      return onlyLower ? cut.result : mark(cut.result);
    },
  };
  // Budgets run their `before` outermost first: the last to write is the nearest the tool.
  if (!onlyLower)
    (budget as { before?: Middleware['before'] }).before = (call) => {
      call.set(NEAREST_LIMIT, limitOf(call.name));
    };
  return budget;
}

interface MediaCosts {
  image: number;
  audio: number;
}

/** The characters a part costs the model. */
function partCost(part: ContentPart, costs: MediaCosts): number {
  switch (part.type) {
    case 'text':
      return part.text.length;
    case 'image':
      return costs.image;
    case 'audio':
      return costs.audio;
    case 'resource':
      // A binary resource reaches a model as a short placeholder, never as its base64.
      return part.text?.length ?? part.uri.length + 16;
    default:
      return part.name.length + part.uri.length + 16;
  }
}

/**
 * The result as the model gets it: the other parts (images, links) in order
 * while they fit half the budget (all of it when there is no text), the text's
 * head and tail in the rest around a note, and the structured value as it was.
 */
function cutToBudget(
  call: ToolCall,
  result: ToolResult,
  limit: number,
  costs: MediaCosts,
  store: ToolOutputStoreOptions | undefined | false,
): { result: ToolResult; note: string } {
  const texts: string[] = [];
  const others: ContentPart[] = [];
  for (const part of result.content) {
    const text = textOf(part);
    if (text === undefined) others.push(part);
    else texts.push(text);
  }
  // One text part (the usual case) is kept as it is: no copy of a large text.
  const text = texts.length === 1 ? texts[0]! : texts.join('\n');
  let room = text.length > 0 ? Math.floor(limit / 2) : limit;
  const kept: ContentPart[] = [];
  const leftOut: Record<string, number> = {};
  for (const part of others) {
    const cost = partCost(part, costs);
    if (cost <= room) {
      kept.push(part);
      room -= cost;
    } else leftOut[part.type] = (leftOut[part.type] ?? 0) + 1;
  }
  const used = kept.reduce((sum, part) => sum + partCost(part, costs), 0);
  const textRoom = Math.max(0, limit - used - NOTE_CHARS);
  const notes: string[] = [];
  const content: ContentPart[] = [];
  const media = mediaList(leftOut);
  if (text.length <= textRoom) {
    if (text !== '') content.push({ type: 'text', text });
  } else {
    const [headEnd, tailStart] = cutPoints(text, textRoom);
    const handle = store === false ? undefined : ToolOutputStore.of(call.context, store).put(text, call.name, call.callId);
    const left = tailStart - headEnd;
    const cut = `… ${count(left)} of ${count(text.length)} characters (about ${count(Math.ceil(left / CHARS_PER_TOKEN))} tokens) left out here, from offset ${headEnd} to ${tailStart}, to fit the output budget of ${count(limit)} characters`;
    const rest =
      handle !== undefined
        ? `The whole output is kept under handle "${handle}": read it with read_tool_output({"handle":"${handle}","offset":${headEnd}})`
        : store === false
          ? 'Call the tool again asking for less (a narrower query, a page, a limit) to see it'
          : 'It was too large to keep for this run; call the tool again asking for less (a narrower query, a page, a limit) to see it';
    const note = media === '' ? `${cut}. ${rest}` : `${cut}. ${rest}; and ${media} left out`;
    notes.push(
      handle === undefined ? `${count(left)} characters were cut and not kept` : `${count(left)} characters were cut and kept under handle "${handle}"`,
    );
    if (headEnd > 0) content.push({ type: 'text', text: copyOf(text, 0, headEnd) });
    content.push({ type: 'text', text: `[${note}]` });
    if (tailStart < text.length) content.push({ type: 'text', text: copyOf(text, tailStart, text.length) });
  }
  if (media !== '' && text.length <= textRoom)
    content.push({ type: 'text', text: `[… ${media} left out to fit the output budget of ${count(limit)} characters]` });
  if (media !== '') notes.push(`${media} left out`);
  content.push(...kept);
  const out: ToolResult = { content, isError: result.isError };
  if (result.structured !== undefined) out.structured = result.structured;
  if (result.error !== undefined) out.error = result.error;
  return { result: out, note: notes.join('; ') };
}

/** `2 image parts, 1 audio part` */
function mediaList(leftOut: Record<string, number>): string {
  return Object.entries(leftOut)
    .map(([type, n]) => `${n} ${type} part${n === 1 ? '' : 's'}`)
    .join(', ');
}

/**
 * Where the head ends and the tail starts, `room` characters kept in all: half
 * each, moved to a line break when one is near, never splitting a surrogate pair.
 */
function cutPoints(text: string, room: number): [number, number] {
  let headEnd = Math.ceil(room / 2);
  let tailStart = text.length - (room - headEnd);
  const near = Math.floor(room / 20);
  const newline = text.lastIndexOf('\n', headEnd - 1);
  if (newline >= 0 && headEnd - (newline + 1) <= near) headEnd = newline + 1;
  const window = text.slice(tailStart, Math.min(text.length, tailStart + near)).indexOf('\n');
  if (window >= 0) tailStart += window + 1;
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--;
  if (tailStart < text.length && tailStart > 0 && isHighSurrogate(text.charCodeAt(tailStart - 1))) tailStart++;
  return [headEnd, Math.max(headEnd, tailStart)];
}
