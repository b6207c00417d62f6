/**
 * Pausing a run and going on with it: the state a pause writes (`pausedState`), and what a
 * resume checks before anything runs (the tools' digests, the turn holding together, the
 * signature, each answer against its item) and rebuilds (the paused turn, the turns so far).
 * The loop that calls these is `Agent`'s (agent.ts); the state's format is run-state.ts's.
 */
import { randomUUID } from 'node:crypto';
import {
  AnytoolError,
  ErrorCode,
  ExecutionContext,
  ToolOutputStore,
  extractTraceContext,
  injectTraceContext,
  isAnytoolError,
  normalizeResult,
  type Interruption,
  type InterruptionAnswer,
  type StoredOutput,
  type ToolDefinition,
  type ToolResult,
  type Toolset,
} from '@anytool/core';
import { canonicalJson, describeError } from '@anytool/core/internal';
import {
  emptyUsage,
  type AssistantMessage,
  type BuiltinApproval,
  type BuiltinApprovalRequest,
  type ModelMessage,
  type ModelResponse,
  type ModelToolCall,
  type ToolMessage,
  type Usage,
} from './model.js';
import {
  RUN_STATE_FORMAT,
  RUN_STATE_VERSION,
  argumentsDigest,
  sha256,
  signItem,
  signState,
  signatureMatches,
  type PendingItem,
  type ResumeAnswers,
  type RunState,
} from './run-state.js';
import type { RunStore } from './run-store.js';
import type { StepResult } from './stop-condition.js';
import type { RunTelemetry } from './telemetry.js';

/** The state of a run that stops for answers (signed with the agent's secret, when it has one). */
export function pausedState(
  agent: { toolset: Toolset; name: string | undefined; signingSecret: string | Uint8Array | undefined },
  paused: {
    runId: string;
    step: number;
    messages: ModelMessage[];
    inputLength: number;
    usage: Usage;
    turn: PausedTurn;
    results: readonly ToolResult[];
    waiting: ReadonlyMap<string, Interruption>;
    resumed: Resumption | undefined;
    context: ExecutionContext;
    telemetry: RunTelemetry | undefined;
  },
): { interruptions: PendingItem[]; state: RunState } {
  const { runId, turn, waiting, context } = paused;
  const pending: PendingItem[] = [];
  const digests: Record<string, string> = {};
  const item = (fields: Omit<PendingItem, 'id' | 'argsDigest'>): PendingItem => {
    const made: PendingItem = { id: `pending_${randomUUID()}`, argsDigest: argumentsDigest(fields.args), ...fields };
    if (agent.signingSecret !== undefined) made.signature = signItem(agent.signingSecret, runId, made);
    return made;
  };
  const results: Record<string, ToolResult> = {};
  turn.calls.forEach((call, i) => {
    const waits = waiting.get(call.id);
    if (waits === undefined) {
      // A call held behind a paused one has not run: it runs when the turn resumes.
      if (paused.results[i]!.error?.code !== ErrorCode.CallDeferred) results[call.id] = paused.results[i]!;
      return;
    }
    const tool = agent.toolset.get(call.name);
    if (tool !== undefined) digests[call.name] = sha256(canonicalDefinition(tool.definition));
    const fields: Omit<PendingItem, 'id' | 'argsDigest'> = {
      kind: waits.kind,
      callId: call.id,
      tool: call.name,
      args: readable(call.arguments),
      reason: waits.reason,
    };
    if (waits.approval !== undefined)
      fields.approval =
        waits.approval.change === undefined ? { kind: waits.approval.kind } : { kind: waits.approval.kind, fields: [...waits.approval.change.fields] };
    if (waits.questions !== undefined) fields.questions = waits.questions;
    // The answers of earlier questions go with the new one: the tool asks them again when it runs again.
    const earlier = paused.resumed?.answers.get(call.id) ?? [];
    const before = earlier.find((answer) => answer.kind === 'input');
    if (before?.kind === 'input') fields.answered = before.inputs;
    // Approved on an earlier resume, the call now waits for something else (a question, a nested agent's approval): the approval stands.
    if (
      (waits.kind !== 'approval' || waits.resume !== undefined) &&
      earlier.some((answer) => answer.kind === 'approval' && answer.approved && answer.question !== 'definition-changed' && answer.resume === undefined)
    )
      fields.granted = true;
    if (waits.resume !== undefined) fields.resume = waits.resume;
    pending.push(item(fields));
  });
  for (const request of turn.hostedPending)
    pending.push(
      item({
        kind: 'approval',
        callId: request.id,
        tool: request.name,
        args: request.arguments,
        reason: `the provider holds its call to "${request.name}" for approval`,
        hosted: true,
      }),
    );
  const state: RunState = {
    format: RUN_STATE_FORMAT,
    version: RUN_STATE_VERSION,
    runId,
    pauseId: randomUUID(),
    pausedAt: new Date().toISOString(),
    steps: paused.step,
    messages: paused.messages,
    inputLength: paused.inputLength,
    turn: { calls: turn.calls, results, ...(turn.assistant.approvals === undefined ? {} : { approvals: turn.assistant.approvals }) },
    usage: { ...paused.usage },
    pending,
    tools: digests,
  };
  if (agent.name !== undefined) state.agent = agent.name;
  const outputs = keptOutputs(context, paused.messages, results);
  if (outputs.length > 0) state.outputs = outputs;
  const carrier: Record<string, string> = {};
  injectTraceContext(paused.telemetry?.trace ?? context.trace, carrier);
  if (carrier['traceparent'] !== undefined) state.trace = carrier;
  // The JSON the state will travel as: what a resume elsewhere reads.
  const data = JSON.parse(JSON.stringify(state)) as RunState;
  if (agent.signingSecret !== undefined) data.signature = signState(agent.signingSecret, data);
  return { interruptions: data.pending, state: data };
}

/** Refuses a state whose tools changed since it paused: a call approved for one definition must not run another. */
export function checkTools(toolset: Toolset, state: RunState): void {
  const changed: string[] = [];
  for (const [name, digest] of Object.entries(state.tools)) {
    const tool = toolset.get(name);
    if (tool === undefined) changed.push(`"${name}" (gone)`);
    else if (sha256(canonicalDefinition(tool.definition)) !== digest) changed.push(`"${name}" (its definition differs)`);
  }
  if (changed.length > 0) {
    throw new AnytoolError(
      ErrorCode.RunToolsChanged,
      `Agent.resume(): run "${state.runId}" paused with tools that changed since: ${changed.join(', ')}. Nothing ran; start a new run, or resume where the tools are those the run paused with`,
    );
  }
}

/** The answers checked against their items, by call id; throws `RESUME_ANSWER_INVALID` for one that does not fit. */
export function readAnswers(state: RunState, answers: ResumeAnswers, signingSecret: string | Uint8Array | undefined): Omit<Resumption, 'state'> {
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) {
    throw invalidAnswer(
      `the answers must be an object of answers by pending item id, got ${Array.isArray(answers) ? 'an array' : describeError(answers).slice(0, 60)}`,
    );
  }
  const items = new Map(state.pending.map((item) => [item.id, item]));
  const byCall = new Map<string, InterruptionAnswer[]>();
  const add = (callId: string, answer: InterruptionAnswer): void => void byCall.set(callId, [...(byCall.get(callId) ?? []), answer]);
  // A call approved on an earlier resume that then asked a question is not asked for approval again.
  for (const item of state.pending) if (item.granted === true) add(item.callId, { kind: 'approval', approved: true, question: 'call' });
  const hosted: BuiltinApproval[] = [];
  for (const [id, answer] of Object.entries(answers)) {
    const item = items.get(id);
    if (item === undefined)
      throw invalidAnswer(`run "${state.runId}" has no pending item "${id.slice(0, 80)}" (its items: ${[...items.keys()].join(', ') || 'none'})`);
    if (typeof answer !== 'object' || answer === null)
      throw invalidAnswer(`the answer to item "${id}" must be an object, got ${describeError(answer).slice(0, 60)}`);
    for (const field of ['tool', 'callId', 'argsDigest'] as const) {
      if (answer[field] !== undefined && answer[field] !== item[field]) {
        throw invalidAnswer(
          `the answer to item "${id}" is bound to ${field} ${JSON.stringify(answer[field]).slice(0, 80)}, but the item's is ${JSON.stringify(item[field])}: it answers another call`,
        );
      }
    }
    if (signingSecret !== undefined && !signatureMatches(signItem(signingSecret, state.runId, item), answer.signature)) {
      throw invalidAnswer(
        `the answer to item "${id}" (tool "${item.tool}") does not carry the item's signature; send back the \`signature\` of the pending item it answers`,
      );
    }
    const given = answerOf(item, answer);
    add(item.callId, given);
    if (item.hosted === true && given.kind === 'approval')
      hosted.push({ id: item.callId, approved: given.approved, ...(given.reason === undefined ? {} : { reason: given.reason }) });
  }
  // An item left unanswered gives its call back what it kept, to ask again from there (a nested agent's paused run).
  for (const item of state.pending)
    if (item.hosted !== true && item.resume !== undefined && !(item.id in answers)) add(item.callId, { kind: 'pending', resume: item.resume });
  return { answers: byCall, hosted, unanswered: state.pending.filter((item) => item.hosted === true && !(item.id in answers)) };
}

function answerOf(item: PendingItem, answer: ResumeAnswers[string]): InterruptionAnswer {
  const wrong = (what: string): AnytoolError => invalidAnswer(`item "${item.id}" (tool "${item.tool}") asks for ${what}`);
  if (item.kind === 'approval') {
    if (!('approved' in answer) || typeof answer.approved !== 'boolean') throw wrong('an approval: answer { approved: true } or { approved: false, reason }');
    const reason = 'reason' in answer && typeof answer.reason === 'string' ? answer.reason : undefined;
    const question = item.approval?.kind ?? 'call';
    const given: InterruptionAnswer = { kind: 'approval', approved: answer.approved, question };
    if (reason !== undefined) given.reason = reason;
    // What the call needs back to go on (a code-mode program's finished calls, a nested agent's paused run) goes with the answer, as an input's does.
    if (item.resume !== undefined) given.resume = item.resume;
    return given;
  }
  if (item.kind === 'input') {
    if (!('input' in answer)) throw wrong('the answer to its question: answer { input: value } (or { input: { [key]: value } } for several questions)');
    const keys = Object.keys(item.questions ?? {});
    const value = answer.input;
    let byKey: Record<string, unknown>;
    if (keys.length <= 1) byKey = { [keys[0] ?? 'input-1']: value };
    else if (typeof value === 'object' && value !== null && keys.every((key) => Object.hasOwn(value, key))) byKey = value as Record<string, unknown>;
    else throw wrong(`answers to ${keys.length} questions: answer { input: { ${keys.map((key) => `"${key}": ...`).join(', ')} } }`);
    const inputs = { ...item.answered, ...byKey };
    return item.resume === undefined ? { kind: 'input', inputs } : { kind: 'input', inputs, resume: item.resume };
  }
  if (!('result' in answer)) throw wrong('the result of the call the application ran: answer { result }');
  const result = normalizeResult(answer.result);
  return item.resume === undefined ? { kind: 'result', result } : { kind: 'result', result, resume: item.resume };
}

/** What a resume brings: the paused state and the answers, by call id (hosted approvals also as the provider reads them). */
export interface Resumption {
  state: RunState;
  answers: Map<string, InterruptionAnswer[]>;
  hosted: BuiltinApproval[];
  /** Hosted calls left unanswered: asked again. */
  unanswered: PendingItem[];
}

/** One turn's work after the model answered: its calls, those finished before a pause, and hosted calls waiting for approval. */
export interface PausedTurn {
  response: ModelResponse;
  assistant: AssistantMessage;
  calls: ModelToolCall[];
  repeated: ReadonlyMap<number, string>;
  finished: ReadonlyMap<string, ToolResult>;
  hostedPending: BuiltinApprovalRequest[];
}

/** The paused turn of a resumed run, rebuilt from its state: the assistant message is the last of the messages. */
export function resumedTurn(resumed: Resumption, messages: ModelMessage[]): PausedTurn {
  const { state } = resumed;
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant')
    throw new AnytoolError(ErrorCode.RunStateInvalid, `Agent.resume(): run "${state.runId}"'s messages do not end with the paused turn's assistant message`);
  // A copy: the state given to resume is left as it was.
  const assistant: AssistantMessage = { ...last };
  messages[messages.length - 1] = assistant;
  const approvals = [...(state.turn.approvals ?? []), ...resumed.hosted];
  if (approvals.length > 0) assistant.approvals = approvals;
  const calls = state.turn.calls;
  const response: ModelResponse = { text: assistant.content, toolCalls: calls, usage: emptyUsage(), stopReason: calls.length > 0 ? 'tool_calls' : 'end' };
  return {
    response,
    assistant,
    calls,
    repeated: new Map(),
    finished: new Map(Object.entries(state.turn.results)),
    hostedPending: resumed.unanswered.map((item) => ({ id: item.callId, name: item.tool, arguments: item.args })),
  };
}

/** The calls of the turn that wait for an answer: recorded as waiting, and ended with a pending result. */
export function pendingCalls(
  calls: readonly ModelToolCall[],
  results: readonly ToolResult[],
  recorded: ReadonlyMap<string, Interruption>,
): Map<string, Interruption> {
  const waiting = new Map<string, Interruption>();
  if (recorded.size === 0) return waiting;
  calls.forEach((call, i) => {
    const waits = recorded.get(call.id);
    const code = results[i]?.error?.code;
    // A tool that caught its own question's error and returned something else finished.
    if (waits !== undefined && (code === ErrorCode.ApprovalPending || code === ErrorCode.InputRequired || code === ErrorCode.ResultPending)) {
      waiting.set(call.id, { ...waits, tool: call.name });
    }
  });
  return waiting;
}

/** The turns of a resumed run so far, rebuilt from its messages for `stopWhen` (a turn's usage is not kept across a pause). */
export function stepsOf(messages: readonly ModelMessage[], inputLength: number): StepResult[] {
  const steps: StepResult[] = [];
  // The paused turn's own step is added when it finishes.
  for (let i = inputLength; i < messages.length - 1; i++) {
    const message = messages[i]!;
    if (message.role !== 'assistant') continue;
    const toolCalls = message.toolCalls ?? [];
    const toolResults: ToolMessage[] = [];
    for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) toolResults.push(messages[j] as ToolMessage);
    const response: ModelResponse = { text: message.content, toolCalls, usage: emptyUsage(), stopReason: toolCalls.length > 0 ? 'tool_calls' : 'end' };
    steps.push({ step: steps.length + 1, response, toolCalls, toolResults });
  }
  return steps;
}

/** Arguments as a person's screen shows them: JSON text (as most providers send it) parsed, anything else as it is. */
export function readable(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

export function lastAssistantText(messages: readonly ModelMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return (messages[i] as AssistantMessage).content;
  return '';
}

/** The outputs kept for `read_tool_output` that the conversation or the finished results still name. */
function keptOutputs(context: ExecutionContext, messages: readonly ModelMessage[], results: Readonly<Record<string, ToolResult>>): StoredOutput[] {
  const kept = ToolOutputStore.peek(context)?.kept() ?? [];
  if (kept.length === 0) return [];
  const said = JSON.stringify(messages) + JSON.stringify(results);
  return kept.filter((output) => said.includes(output.handle)).map((output) => ({ ...output }));
}

/** A definition as its digest is taken: canonical JSON, so equal definitions digest alike wherever they were made. */
function canonicalDefinition(definition: ToolDefinition): string {
  return canonicalJson(definition);
}

/** The context a resumed run goes on in: the paused run's id, in the trace it paused in. */
export function resumedContext(state: RunState): ExecutionContext {
  const trace = state.trace === undefined ? undefined : extractTraceContext(state.trace);
  return new ExecutionContext(trace === undefined ? { runId: state.runId } : { runId: state.runId, trace });
}

/** Saves a paused run; a failed save rejects with the store's error, carrying the state so the pause is not lost. */
export async function saveOrThrow(store: RunStore, state: RunState): Promise<void> {
  try {
    await store.save(state);
  } catch (error) {
    const code = isAnytoolError(error) ? error.code : ErrorCode.StoreFailed;
    const failure = new AnytoolError(
      code,
      `Agent: the paused run "${state.runId}" could not be saved in the run store (${describeError(error)}); its finished calls ran, and its state is on this error's \`state\`: keep it another way and resume it with agent.resume(state, answers)`,
      { cause: error },
    );
    throw Object.assign(failure, { state });
  }
}

/** With a signing secret: the state as the agent wrote it, or refused (`RUN_STATE_INVALID`). */
export function checkStateSignature(secret: string | Uint8Array, state: RunState): void {
  if (!signatureMatches(signState(secret, state), state.signature)) {
    throw new AnytoolError(
      ErrorCode.RunStateInvalid,
      `Agent.resume(): the state of run "${state.runId}" does not carry a valid signature: it was changed since it paused, or signed with another secret. Nothing ran`,
    );
  }
}

/**
 * The paused turn as one piece: its calls are the last assistant message's, and each call waiting for
 * an answer is the very call its item names (tool and arguments), so an item answered for one call
 * cannot be applied to another the state was edited to hold.
 */
export function checkTurn(state: RunState): void {
  const invalid = (why: string): AnytoolError =>
    new AnytoolError(ErrorCode.RunStateInvalid, `Agent.resume(): the state of run "${state.runId}" is not one a pause wrote: ${why}. Nothing ran`);
  const last = state.messages[state.messages.length - 1];
  if (last?.role !== 'assistant') throw invalid("its messages do not end with the paused turn's assistant message");
  if (canonicalJson(last.toolCalls ?? []) !== canonicalJson(state.turn.calls)) throw invalid("the paused turn's calls are not the assistant message's");
  const calls = new Map(state.turn.calls.map((call) => [call.id, call]));
  for (const item of state.pending) {
    if (item.hosted === true) continue;
    const call = calls.get(item.callId);
    if (call === undefined || call.name !== item.tool || argumentsDigest(call.arguments) !== item.argsDigest)
      throw invalid(`pending item "${item.id}" does not match call "${item.callId}" of the paused turn`);
    if (Object.hasOwn(state.turn.results, item.callId)) throw invalid(`call "${item.callId}" is pending and finished at once`);
    if (!Object.hasOwn(state.tools, item.tool)) throw invalid(`tool "${item.tool}" of a pending call has no digest`);
  }
}

export function alreadyResumed(runId: string, why: string): AnytoolError {
  return new AnytoolError(ErrorCode.RunAlreadyResumed, `Agent.resume(): run "${runId.slice(0, 120)}" cannot be resumed: ${why}. Nothing ran`);
}

function invalidAnswer(why: string): AnytoolError {
  return new AnytoolError(ErrorCode.ResumeAnswerInvalid, `Agent.resume(): ${why}. Nothing ran; the run is still paused`);
}

/**
 * The pauses this process resumed, for agents without a store: a second resume of
 * one is refused. Bounded (the oldest forgotten first); across processes, a
 * store's atomic take is what guards.
 */
export const resumedPauses = {
  ids: new Set<string>(),
  max: 100_000,
  claim(pauseId: string): boolean {
    if (this.ids.has(pauseId)) return false;
    this.ids.add(pauseId);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
    return true;
  },
};
