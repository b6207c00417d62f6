/**
 * Calls that wait for someone outside the run: a person's approval, the answer
 * to a tool's question, or a result the application produces itself (a client
 * tool it executes). A run that allows pausing (an agent's) records such a call
 * here instead of blocking on it; the call ends at once with a pending result
 * (`APPROVAL_PENDING`, `INPUT_REQUIRED`, `RESULT_PENDING`), and the agent stops
 * the run with the recorded items and the run's state. When the run is resumed,
 * the answers are put back here by call id, and the same call, run again, finds
 * its answer instead of asking.
 *
 * The records are keyed by the run's shared state, as the run's kept outputs
 * are, so every view of the run's context sees the same ones, and they go with
 * the run.
 */
import { AnytoolError, ErrorCode } from './errors.js';
import { unrestrictedContext, type ExecutionContext } from './execution-context.js';
import type { DefinitionChange } from './pipeline/tool-pins.js';
import { errorResult, type ToolResult } from './tool-result.js';

/** What a paused call waits for. */
export type InterruptionKind = 'approval' | 'input' | 'result';

/** One question a tool asks while it runs. */
export interface InputQuestion {
  /** What to show a person. */
  message: string;
  /** The JSON Schema of the answer (an MCP elicitation's `requestedSchema`), when the tool gives one. */
  schema?: Record<string, unknown>;
}

/** A call that waits: recorded by the approval middleware, a tool's question or a client tool. */
export interface Interruption {
  kind: InterruptionKind;
  callId: string;
  tool: string;
  /** Why it waits, in words a person can read. */
  reason: string;
  /** With `approval`: `call`, or `definition-changed` when a pinned remote tool's definition changed (`change` says how). */
  approval?: { kind: 'call' | 'definition-changed'; change?: DefinitionChange };
  /** With `input`: the open questions, by key. */
  questions?: Record<string, InputQuestion>;
  /**
   * What the tool needs back with the answer to go on (JSON), such as an MCP server's
   * `requestState`, a code-mode program's finished calls or a nested agent's paused run.
   * Kept with the run's state, so it must not hold a secret; given back with the answer
   * (and, when the item is left unanswered, as a `pending` answer).
   */
  resume?: unknown;
}

/**
 * An answer put back for a call when its run resumes. `resume` is what the call's
 * interruption kept (its `resume`): a tool that routes its own answers (an agent
 * used as a tool) reads them by it. `pending`: the item was left unanswered, and
 * the call gets back what it kept, to ask again.
 */
export type InterruptionAnswer =
  | { kind: 'approval'; approved: boolean; reason?: string; question?: 'call' | 'definition-changed'; resume?: unknown }
  | { kind: 'input'; inputs: Record<string, unknown>; resume?: unknown }
  | { kind: 'result'; result: ToolResult; resume?: unknown }
  | { kind: 'pending'; resume: unknown };

/** What one run holds: whether it may pause, the calls that wait, and the answers given on resume. */
interface RunRecords {
  pausable: boolean;
  readonly open: Map<string, Interruption>;
  /** By call id: a call may have several (its approval, then the answer to its question). */
  readonly answers: Map<string, InterruptionAnswer[]>;
}

/** Shared by every copy of core in the process, as the output stores are: a record of one copy is found by another. */
const REGISTRY = Symbol.for('anytool.interruptions.v1');
function registry(): WeakMap<object, RunRecords> {
  const global = globalThis as unknown as Record<symbol, WeakMap<object, RunRecords> | undefined>;
  return (global[REGISTRY] ??= new WeakMap());
}

/**
 * A run's context, typed loosely for the functions the other packages call through
 * `@anytool/core/internal`: they may see core's types through another entry (ESM and
 * CommonJS declarations), whose `ExecutionContext` is another type.
 */
type AnyContext = object;

function recordsOf(context: AnyContext, make: true): RunRecords;
function recordsOf(context: AnyContext, make: false): RunRecords | undefined;
function recordsOf(context: AnyContext, make: boolean): RunRecords | undefined {
  const run = unrestrictedContext(context as ExecutionContext).state;
  let records = registry().get(run);
  if (records === undefined && make) registry().set(run, (records = { pausable: false, open: new Map(), answers: new Map() }));
  return records;
}

/** Lets the run pause (the agent sets it for its runs): a call that waits is recorded, not refused. */
export function allowPausing(context: AnyContext): void {
  recordsOf(context, true).pausable = true;
}

/** Whether the run may pause. */
export function canPause(context: AnyContext): boolean {
  return recordsOf(context, false)?.pausable === true;
}

/** The calls recorded as waiting since the last take, by call id; they are no longer held. */
export function takeInterruptions(context: AnyContext): Map<string, Interruption> {
  const records = recordsOf(context, false);
  if (records === undefined || records.open.size === 0) return new Map();
  const open = new Map(records.open);
  records.open.clear();
  return open;
}

/** The waiting record of one call, taken (a call that ran inside another, whose caller waits in its place). */
export function takeInterruption(context: AnyContext, callId: string): Interruption | undefined {
  const records = recordsOf(context, false);
  const item = records?.open.get(callId);
  if (item !== undefined) records!.open.delete(callId);
  return item;
}

/** Records a call as waiting in a run that may pause (a caller waiting in the place of a call it made). */
export function recordInterruption(context: AnyContext, item: Interruption): void {
  const records = recordsOf(context, false);
  if (records?.pausable === true) records.open.set(item.callId, item);
}

/** Every answer given for the call, taken. */
export function takeAnswers(context: AnyContext, callId: string): InterruptionAnswer[] {
  const records = recordsOf(context, false);
  const answers = records?.answers.get(callId) ?? [];
  records?.answers.delete(callId);
  return answers;
}

/** Puts back the answers of a resumed run, by call id: each is found (once) by the call it answers. */
export function giveAnswers(context: AnyContext, answers: ReadonlyMap<string, readonly InterruptionAnswer[]>): void {
  const records = recordsOf(context, true);
  for (const [callId, given] of answers) records.answers.set(callId, [...given]);
}

/** The first answer of `kind` for the call (an approval's only for its question, when both say which), left in place. */
function findAnswer(
  records: RunRecords | undefined,
  callId: string,
  kind: InterruptionKind,
  question?: 'call' | 'definition-changed',
): InterruptionAnswer | undefined {
  return records?.answers.get(callId)?.find(
    (answer) =>
      answer.kind === kind &&
      // An approval that kept a `resume` answers the question of something the tool runs (a nested agent's call), not the tool's own.
      (answer.kind !== 'approval' ||
        (answer.resume === undefined && (question === undefined || answer.question === undefined || answer.question === question))),
  );
}

function dropAnswer(records: RunRecords, callId: string, answer: InterruptionAnswer): void {
  const left = records.answers.get(callId)?.filter((given) => given !== answer) ?? [];
  if (left.length === 0) records.answers.delete(callId);
  else records.answers.set(callId, left);
}

/**
 * The answer of kind `kind` given for the call, taken (a second look finds none); undefined when none
 * was given. An approval is taken only for the question it answered (`call` or `definition-changed`).
 */
export function takeAnswer<Kind extends InterruptionKind>(
  context: AnyContext,
  callId: string | undefined,
  kind: Kind,
  question?: 'call' | 'definition-changed',
): Extract<InterruptionAnswer, { kind: Kind }> | undefined {
  if (callId === undefined) return undefined;
  const records = recordsOf(context, false);
  const answer = findAnswer(records, callId, kind, question);
  if (answer === undefined) return undefined;
  dropAnswer(records!, callId, answer);
  return answer as Extract<InterruptionAnswer, { kind: Kind }>;
}

/**
 * The first answer for the call that `matches`, taken: for a tool that routes its own
 * answers by what its interruption kept (`resume`), whatever their kind.
 */
export function takeOwnAnswer(
  context: AnyContext,
  callId: string | undefined,
  matches: (answer: InterruptionAnswer) => boolean,
): InterruptionAnswer | undefined {
  if (callId === undefined) return undefined;
  const records = recordsOf(context, false);
  const answer = records?.answers.get(callId)?.find(matches);
  if (answer !== undefined) dropAnswer(records!, callId, answer);
  return answer;
}

const PENDING: Record<InterruptionKind, { code: ErrorCode; waits: string }> = {
  approval: { code: ErrorCode.ApprovalPending, waits: "waits for the user's approval" },
  input: { code: ErrorCode.InputRequired, waits: "waits for the user's answer to its question" },
  result: { code: ErrorCode.ResultPending, waits: 'waits for the application to run it and give its result' },
};

/**
 * Records the call as waiting, when the run may pause, and returns the result
 * the call ends with meanwhile (a run that cannot pause reads it as the call's
 * outcome: the call did not run).
 */
export function interrupt(context: AnyContext, item: Interruption): ToolResult {
  const records = recordsOf(context, false);
  const { code, waits } = PENDING[item.kind];
  if (records?.pausable === true) records.open.set(item.callId, item);
  return errorResult(code, `The call to tool "${item.tool}" ${waits}; it has not run yet (${item.reason}).`, `${item.tool}: ${item.reason}`);
}

/** How many questions each call asked so far in this run, so unnamed questions get keys by their order. */
const askedCounts = new WeakMap<RunRecords, Map<string, number>>();

/**
 * Asks the user a question from inside a tool. In a run that may pause (an
 * agent's) the run pauses with the question, and the tool is called again with
 * the same arguments when the run resumes: this time `requestInput` returns the
 * answer. Ask the same questions in the same order on each call (keys default
 * to their order: `input-1`, `input-2`, ...), and do nothing that must not
 * happen twice before the last question. In a run that cannot pause, it throws
 * `INPUT_REQUIRED`, which ends the call.
 *
 * @example
 * const city = await requestInput(context, { message: 'Which city?', schema: { type: 'string' } });
 */
export function requestInput(context: ExecutionContext, question: InputQuestion & { key?: string }): unknown {
  const callId = context.callId;
  if (callId === undefined) {
    throw new AnytoolError(ErrorCode.InvalidOptions, 'requestInput(): pass the context the tool call received (it names the call the question belongs to)');
  }
  if (typeof question?.message !== 'string' || question.message === '') {
    throw new AnytoolError(ErrorCode.InvalidOptions, 'requestInput(): the question needs a non-empty `message` to show the user');
  }
  const records = recordsOf(context, true);
  let asked = askedCounts.get(records);
  if (asked === undefined) askedCounts.set(records, (asked = new Map()));
  const order = (asked.get(callId) ?? 0) + 1;
  asked.set(callId, order);
  const key = question.key ?? `input-${order}`;
  const given = findAnswer(records, callId, 'input');
  if (given?.kind === 'input' && Object.hasOwn(given.inputs, key)) return given.inputs[key];
  const quoted = question.message.length <= 200 ? question.message : `${question.message.slice(0, 200)}…`;
  if (!records.pausable) {
    throw new AnytoolError(
      ErrorCode.InputRequired,
      `it asked the user "${quoted}", but this run cannot pause for the answer (an Agent's runs pause and resume; see "Pausing and resuming runs")`,
    );
  }
  const ask: InputQuestion = { message: question.message };
  if (question.schema !== undefined) ask.schema = question.schema;
  // The agent fills in the tool from its own record of the call.
  records.open.set(callId, { kind: 'input', callId, tool: '', reason: question.message.slice(0, 500), questions: { [key]: ask } });
  throw new AnytoolError(ErrorCode.InputRequired, `it waits for the user's answer to "${quoted}"`);
}

/**
 * The result the application gives for this call, from inside a tool whose work
 * the application does itself (a client tool run on a user's machine, a step a
 * person performs). In a run that may pause, the run pauses with the call
 * (`kind: 'result'`); when it resumes with `{ result }`, the tool is called again
 * and this returns that result. In a run that cannot pause, it throws `RESULT_PENDING`.
 */
export function awaitResult(context: ExecutionContext, reason: string): ToolResult {
  const callId = context.callId;
  if (callId === undefined) {
    throw new AnytoolError(ErrorCode.InvalidOptions, 'awaitResult(): pass the context the tool call received (it names the call the result belongs to)');
  }
  const records = recordsOf(context, true);
  const given = findAnswer(records, callId, 'result');
  if (given?.kind === 'result') {
    dropAnswer(records, callId, given);
    return given.result;
  }
  if (!records.pausable) throw new AnytoolError(ErrorCode.ResultPending, `the application runs it (${reason}), but this run cannot pause for its result`);
  records.open.set(callId, { kind: 'result', callId, tool: '', reason });
  throw new AnytoolError(ErrorCode.ResultPending, `it waits for the application's result (${reason})`);
}
