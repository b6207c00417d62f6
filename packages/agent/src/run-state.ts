/**
 * A paused run as data: what `Agent.run` returns when the run stops for an
 * answer only a person or the application can give, and what `Agent.resume`
 * continues from, in this process or another. Plain JSON:
 * `JSON.parse(JSON.stringify(state))` resumes as well as the object itself.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AnytoolError, ErrorCode, type InputQuestion, type StoredOutput, type ToolResult } from '@anytool/core';
import { canonicalJson } from '@anytool/core/internal';
import type { BuiltinApproval, ModelMessage, ModelToolCall, Usage } from './model.js';

export const RUN_STATE_FORMAT = 'anytool.run-state';
/** The version of the state's shape this anytool writes and reads. */
export const RUN_STATE_VERSION = 1;

/** One thing a paused run waits for, with what to show a person and how to answer it. */
export interface PendingItem {
  /** This item's own id: the answer names it, and a resume consumes it. */
  id: string;
  /**
   * `approval`: the call needs a person's yes or no (answer `{ approved, reason? }`).
   * `input`: the tool asked questions (answer `{ input: { [key]: value } }`, or `{ input: value }` for one question).
   * `result`: the application runs the call itself (answer `{ result }`: a `ToolResult` or any value a tool may return).
   */
  kind: 'approval' | 'input' | 'result';
  callId: string;
  tool: string;
  /** The arguments as the model sent them. */
  args: unknown;
  /** SHA-256 of the arguments' canonical JSON: an answer bound to other arguments is refused. */
  argsDigest: string;
  /** Why it waits, in words a person can read. */
  reason: string;
  /** With `approval`: `call`, or `definition-changed` when a pinned MCP tool's definition changed since it was approved. */
  approval?: { kind: 'call' | 'definition-changed'; fields?: string[] };
  /** A call the provider runs (a hosted MCP call held for approval): its answer goes back to the provider. */
  hosted?: true;
  /** With `input`: the questions, by key. */
  questions?: Record<string, InputQuestion>;
  /** The call was approved on an earlier resume and now waits for something else: it is not asked for approval again. */
  granted?: true;
  /** With `input`: the answers to the call's earlier questions; the tool asks them again when it runs again. */
  answered?: Record<string, unknown>;
  /** What the tool needs back with the answer: an MCP server's request state, a code-mode program's finished calls, a nested agent's paused run (see `Agent.asTool`). */
  resume?: unknown;
  /** HMAC-SHA256 of the item (run, id, call, tool, arguments) with the agent's `signingSecret`, when it has one. */
  signature?: string;
}

/** The answer to one pending item (see `PendingItem.kind`). Binding fields, when given, must match the item. */
export type ResumeAnswer = ({ approved: boolean; reason?: string } | { input: unknown } | { result: unknown }) & {
  /** The item's `signature`: required when the agent has a `signingSecret`. */
  signature?: string;
  tool?: string;
  callId?: string;
  argsDigest?: string;
};

/** The answers of a resume, by pending item id. */
export type ResumeAnswers = Readonly<Record<string, ResumeAnswer>>;

/** A paused run. Its fields are for anytool: keep it, send it, store it, and give it back to `resume` as it is. */
export interface RunState {
  format: typeof RUN_STATE_FORMAT;
  version: typeof RUN_STATE_VERSION;
  runId: string;
  /** New at each pause: a store gives a state back once per pause. */
  pauseId: string;
  /** The agent's `name`, when it has one. */
  agent?: string;
  /** When the run paused (ISO 8601). */
  pausedAt: string;
  /** Model turns taken, the paused one included. */
  steps: number;
  /** The conversation, the assistant message of the paused turn last. */
  messages: ModelMessage[];
  /** How many of `messages` were the run's input: the run's own turns follow them. */
  inputLength: number;
  /** The paused turn: its calls in the model's order and the results of those that finished. */
  turn: { calls: ModelToolCall[]; results: Record<string, ToolResult>; approvals?: BuiltinApproval[] };
  usage: Usage;
  pending: PendingItem[];
  /** Outputs kept for `read_tool_output` that the conversation still refers to. */
  outputs?: StoredOutput[];
  /** The trace context the run continues in (W3C `traceparent`, `tracestate`), when it was traced. */
  trace?: Record<string, string>;
  /** The tools the paused turn calls, by name: the SHA-256 of each definition. A resume refuses a tool whose definition changed. */
  tools: Record<string, string>;
  /** HMAC-SHA256 of the whole state with the agent's `signingSecret`, when it has one: a resume refuses a state changed since. */
  signature?: string;
}

/** SHA-256 (hex) of the arguments' canonical JSON (JSON text is parsed first): equal arguments, equal digest. */
export function argumentsDigest(args: unknown): string {
  let value: unknown = args ?? {};
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : (JSON.parse(value) as unknown);
    } catch {
      // Text that is not JSON is hashed as it is.
    }
  }
  return sha256(canonicalJson(value));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The signature of an item: binds run, item, call, tool and arguments together. */
export function signItem(secret: string | Uint8Array, runId: string, item: Pick<PendingItem, 'id' | 'callId' | 'tool' | 'argsDigest'>): string {
  return createHmac('sha256', secret).update(`anytool.pending.v1\n${runId}\n${item.id}\n${item.callId}\n${item.tool}\n${item.argsDigest}`).digest('hex');
}

/** The signature of a whole state (its own `signature` left out): binds every field, the pause id included. */
export function signState(secret: string | Uint8Array, state: RunState): string {
  const { signature: _signature, ...signed } = state;
  return createHmac('sha256', secret)
    .update(`anytool.run-state.v1\n${canonicalJson(signed)}`)
    .digest('hex');
}

/** Whether `given` is the hex signature `expected`, compared in constant time; anything but 64 hex digits is not. */
export function signatureMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}

/** The state checked as one this anytool reads: throws `RUN_STATE_INVALID` naming what is wrong. */
export function checkRunState(value: unknown): RunState {
  const invalid = (what: string): AnytoolError =>
    new AnytoolError(ErrorCode.RunStateInvalid, `Agent.resume(): the run state ${what}; pass the \`state\` a paused run returned (or its JSON, parsed)`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`is ${value === null ? 'null' : typeof value}, not an object`);
  const state = value as Partial<RunState>;
  if (state.format !== RUN_STATE_FORMAT) throw invalid(`has no format "${RUN_STATE_FORMAT}" (got ${JSON.stringify(state.format)?.slice(0, 60)})`);
  if (state.version !== RUN_STATE_VERSION) {
    throw new AnytoolError(
      ErrorCode.RunStateInvalid,
      `Agent.resume(): the run state is of version ${JSON.stringify(state.version)?.slice(0, 20)}, and this anytool reads version ${RUN_STATE_VERSION}; resume it with the anytool version that paused it`,
    );
  }
  if (typeof state.runId !== 'string' || state.runId === '') throw invalid('has no runId');
  if (typeof state.pauseId !== 'string') throw invalid('has no pauseId');
  if (
    !Array.isArray(state.messages) ||
    !Array.isArray(state.pending) ||
    typeof state.turn !== 'object' ||
    state.turn === null ||
    !Array.isArray(state.turn.calls)
  )
    throw invalid('lacks its messages, pending items or paused turn');
  if (typeof state.tools !== 'object' || state.tools === null) throw invalid('lacks the digests of its tools');
  if (typeof state.steps !== 'number' || typeof state.inputLength !== 'number' || typeof state.usage !== 'object')
    throw invalid('lacks its step count, input length or usage');
  return state as RunState;
}
