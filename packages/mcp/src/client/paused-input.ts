import { AnytoolError, ErrorCode, errorResult, type ExecutionContext, type ToolResult } from '@anytool/core';
import { canPause, describeError, interrupt, isRecord, takeAnswer } from '@anytool/core/internal';
import {
  ProtocolError,
  ProtocolErrorCode,
  isInputRequiredResult,
  type CallToolResult,
  type ElicitResult,
  type InputRequiredResult,
} from '@modelcontextprotocol/client';
import type { InputRound, McpCallOptions } from './call-path.js';
import type { McpConnection } from './connection.js';
import { HeldCall, takeHeld, type HeldCallEnd, type HeldQuestion } from './held-elicitations.js';

/*
 * The calls of a connection with `elicitation: 'pause'`: a server's question to the user
 * pauses the call's run (core's `interrupt`) instead of being answered during the call, and
 * the call, run again when the run resumes, takes the answer (`takeAnswer`) to the server.
 *
 * On the 2026-07-28 era a question is an `input_required` answer to `tools/call`: the paused
 * item carries the server's `requestState` and input requests, and the call run again sends
 * the answers in a new round, from any process. On the 2025 era it is a request in the middle
 * of the call, held open in this process (`held-elicitations.ts`).
 */

/** What a call that may pause needs of its tool. */
export interface PausingTool {
  /** The tool's name for the model. */
  readonly name: string;
  /** Its name on the server. */
  readonly remoteName: string;
  readonly server: string;
  /** The tool's result from the server's. */
  map(result: CallToolResult): ToolResult;
}

/** The key of a 2025-era question in its paused item: one question per request. */
export const HELD_QUESTION_KEY = 'answer';

/** Why a 2025-era question expired, as a model is told. */
const LEGACY_ENDED =
  'the server asked it over a 2025-era MCP connection, where a question lives only as long as the request that asked, and that request has ended';

/** Rounds in a row answered without a person (sampling, roots), as the SDK allows by default. */
const MAX_UNATTENDED_ROUNDS = 10;

/** What a paused 2026-07-28 call carries in its item's `resume`, to go on in a new round. */
interface RoundResume {
  era: 'modern';
  server: string;
  tool: string;
  requestState?: string;
  inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
}

/** What a paused 2025-era call carries in its item's `resume`: the key its question is held under. */
interface HeldResume {
  era: 'legacy';
  server: string;
  tool: string;
  key: string;
}

function readResume(value: unknown): RoundResume | HeldResume | undefined {
  if (!isRecord(value) || typeof value['server'] !== 'string' || typeof value['tool'] !== 'string') return undefined;
  if (value['era'] === 'legacy') return typeof value['key'] === 'string' ? (value as unknown as HeldResume) : undefined;
  if (value['era'] !== 'modern' || !isRecord(value['inputRequests'])) return undefined;
  if (value['requestState'] !== undefined && typeof value['requestState'] !== 'string') return undefined;
  const requests = Object.values(value['inputRequests']);
  return requests.every((request) => isRecord(request) && typeof request['method'] === 'string') ? (value as unknown as RoundResume) : undefined;
}

/** A server's message, cut short for an item's `reason`. */
function clip(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** What a person is shown of an elicitation: its message (and the page to open, in URL mode) and the schema of the answer. */
function questionOf(params: Record<string, unknown>): { message: string; schema?: Record<string, unknown> } {
  const message = typeof params['message'] === 'string' ? params['message'] : '';
  if (params['mode'] === 'url') return { message: typeof params['url'] === 'string' ? `${message} (open ${params['url']})` : message };
  const schema = params['requestedSchema'];
  return isRecord(schema) ? { message, schema } : { message };
}

/**
 * A person's answer as the elicitation result the server reads: an answer that is one
 * already (`{ action: 'accept' | 'decline' | 'cancel', content? }`) as it is, an object
 * as the accepted form's content, a bare value as the one field of a one-field form, and a
 * yes or no to a URL-mode question as its accept or decline. A string tells what does not fit.
 */
export function elicitResultOf(value: unknown, params: Record<string, unknown>): ElicitResult | string {
  if (isRecord(value) && (value['action'] === 'accept' || value['action'] === 'decline' || value['action'] === 'cancel')) return value as ElicitResult;
  if (params['mode'] === 'url') {
    if (typeof value === 'boolean') return { action: value ? 'accept' : 'decline' };
    return 'a URL-mode question is answered true (done) or false (declined), or { action }';
  }
  if (isRecord(value)) return { action: 'accept', content: value as ElicitResult['content'] & object };
  const schema = params['requestedSchema'];
  const fields = isRecord(schema) && isRecord(schema['properties']) ? Object.keys(schema['properties']) : [];
  if (fields.length === 1 && value !== undefined && value !== null && typeof value !== 'object')
    return { action: 'accept', content: { [fields[0]!]: value as string } };
  return fields.length === 0
    ? 'answer with an object of the form\'s fields, or { action: "decline" }'
    : `answer with an object of the form's fields (${fields.map((field) => `"${field}"`).join(', ')}), or { action: "decline" }`;
}

/** The server no longer holds the round its `requestState` names (the SDK's `invalid_request_state`). */
function expiredState(error: unknown): boolean {
  const cause = error instanceof AnytoolError ? error.cause : error;
  if (!(cause instanceof ProtocolError) || cause.code !== ProtocolErrorCode.InvalidParams) return false;
  const data = cause.data as { reason?: unknown } | undefined;
  return data?.reason === 'invalid_request_state';
}

/** The calls of one tool on a connection with `elicitation: 'pause'`. */
export class PausingCalls {
  constructor(
    private readonly connection: McpConnection,
    private readonly tool: PausingTool,
  ) {}

  /**
   * A call on the 2026-07-28 era: each `input_required` answer with a question for a person
   * pauses the run (or, in a run that cannot pause, ends the call with `INPUT_REQUIRED`); the
   * call run again on resume sends the answers and the server's `requestState` in a new round.
   */
  async rounds(context: ExecutionContext, args: Record<string, unknown>, options: McpCallOptions): Promise<ToolResult> {
    const given = takeAnswer(context, context.callId, 'input');
    let round: InputRound = {};
    if (given !== undefined) {
      const resume = readResume(given.resume);
      if (resume?.era !== 'modern' || resume.server !== this.tool.server || resume.tool !== this.tool.remoteName)
        return this.expired('the server no longer waits for it', 'the paused item carries no 2026-07-28 round of this tool on this server to answer');
      const answered = await this.answers(resume.inputRequests, given.inputs, context.signal);
      if ('result' in answered) return answered.result;
      round = { inputResponses: answered.responses, requestState: resume.requestState };
    }
    for (let unattended = 0; ; unattended++) {
      let outcome: CallToolResult | InputRequiredResult;
      try {
        outcome = await this.connection.callRound(this.tool.remoteName, args, options, round);
      } catch (error) {
        if (round.requestState !== undefined && expiredState(error))
          return this.expired(
            'the server no longer waits for it',
            'the server no longer holds the round the answer was for (its requestState expired, was altered, or reached another server process)',
            error,
          );
        throw error;
      }
      if (!isInputRequiredResult(outcome)) return this.tool.map(outcome);
      const requests = outcome.inputRequests ?? {};
      const asked = Object.entries(requests).filter(([, request]) => request.method === 'elicitation/create');
      if (asked.length === 0) {
        // Nothing for a person (sampling, roots, or only a requestState): answered now, as the SDK would.
        if (unattended >= MAX_UNATTENDED_ROUNDS)
          throw new AnytoolError(
            ErrorCode.McpProtocolError,
            `MCP server "${this.tool.server}" still asked for input after ${MAX_UNATTENDED_ROUNDS} rounds of tool "${this.tool.remoteName}" answered without a person; the call was given up`,
          );
        const answered = await this.answers(requests as RoundResume['inputRequests'], {}, context.signal);
        if ('result' in answered) return answered.result;
        round = { inputResponses: answered.responses, requestState: outcome.requestState };
        continue;
      }
      const others = Object.values(requests).filter((request) => request.method !== 'elicitation/create');
      const unanswerable = others.find((request) => !this.canAnswer(request.method));
      if (unanswerable !== undefined) return this.unanswerable(unanswerable.method);
      const questions = Object.fromEntries(asked.map(([key, request]) => [key, questionOf(request.params as unknown as Record<string, unknown>)]));
      const first = Object.values(questions)[0]!.message;
      if (!canPause(context) || context.callId === undefined) return this.cannotPause(first);
      const resume: RoundResume = {
        era: 'modern',
        server: this.tool.server,
        tool: this.tool.remoteName,
        inputRequests: requests as RoundResume['inputRequests'],
      };
      if (outcome.requestState !== undefined) resume.requestState = outcome.requestState;
      return interrupt(context, { kind: 'input', callId: context.callId, tool: this.tool.name, reason: clip(first), questions, resume });
    }
  }

  /**
   * A call of a run that may pause on the 2025 era: a question the server asks during it is
   * held open here and the run pauses; the call run again on resume answers it, if it is still
   * open in this process, and waits for the call's own result.
   */
  async held(context: ExecutionContext, args: Record<string, unknown>, options: McpCallOptions): Promise<ToolResult> {
    const callId = context.callId;
    // A run that may pause names its calls (the agent's do): the paused item is bound to the call.
    if (callId === undefined)
      throw new AnytoolError(
        ErrorCode.InvalidUsage,
        `Tool "${this.tool.name}": a call that may pause needs the id of its call in its context (context.callId)`,
      );
    const given = takeAnswer(context, callId, 'input');
    if (given === undefined) {
      const call = new HeldCall(this.tool.server, this.tool.remoteName);
      const { signal: _run, onprogress, ...rest } = options;
      // The call outlives the run that started it (the run pauses): it is cancelled by the run that waits for it, not by that one's signal.
      const sent: McpCallOptions = onprogress === undefined ? rest : { ...rest, onprogress: (progress) => call.progress?.(progress) };
      call.start((signal) => this.connection.callHeld(this.tool.remoteName, args, { ...sent, signal }, call));
      return this.follow(call, context, callId, options);
    }
    const resume = readResume(given.resume);
    if (resume?.era !== 'legacy' || resume.server !== this.tool.server || resume.tool !== this.tool.remoteName)
      return this.expired('the server no longer waits for it', 'the paused item carries no 2025-era question of this tool on this server to answer');
    const held = takeHeld(resume.key);
    if (held === undefined)
      return this.expired(
        LEGACY_ENDED,
        'its question was asked on a 2025-era connection, whose request lives only in the process that asked, and that request has ended (the process or its connection is gone, the call timed out, or the question was held past heldElicitations.ttlMs)',
      );
    const answer = elicitResultOf(given.inputs[HELD_QUESTION_KEY], held.question.params as unknown as Record<string, unknown>);
    if (typeof answer === 'string') {
      held.question.answer({ action: 'cancel' });
      held.call.controller.abort(new AnytoolError(ErrorCode.ResumeAnswerInvalid, 'the answer did not fit the question'));
      return this.badAnswer(held.question.params.message, answer);
    }
    held.question.answer(answer);
    return this.follow(held.call, context, callId, options);
  }

  /** Waits for what comes next of a held call: its end (the call's result), or a question (the run pauses). */
  private async follow(call: HeldCall, context: ExecutionContext, callId: string, options: McpCallOptions): Promise<ToolResult> {
    call.progress = options.onprogress;
    let next: HeldQuestion | HeldCallEnd | undefined;
    try {
      next = await call.next(context.signal);
    } finally {
      call.progress = undefined;
    }
    if (next === undefined) {
      call.controller.abort(new AnytoolError(ErrorCode.Aborted, 'the run was aborted'));
      throw new AnytoolError(ErrorCode.Aborted, `Tool "${this.tool.name}" on MCP server "${this.tool.server}" was cancelled because the run was aborted.`, {
        cause: context.signal?.reason,
      });
    }
    if ('result' in next) return this.tool.map(next.result);
    if ('error' in next) {
      if (next.whileHeld)
        return this.expired(
          LEGACY_ENDED,
          "its question was asked on a 2025-era connection, and the call's request ended while the question waited",
          next.error,
        );
      throw next.error;
    }
    const question = next;
    const key = this.connection.held?.hold(call, question);
    if (key === undefined) {
      question.answer({ action: 'cancel' });
      call.controller.abort(new AnytoolError(ErrorCode.ServerBusy, 'no room to hold the question'));
      return errorResult(
        ErrorCode.ServerBusy,
        `Tool "${this.tool.name}" asked the user a question, but too many questions already wait for answers; the call was cancelled. Try again later.`,
        `MCP server "${this.tool.server}", tool "${this.tool.remoteName}": its question could not be held, as its connection holds ${this.connection.held?.limits.max ?? 0} already (heldElicitations.max); the call was cancelled`,
      );
    }
    const shown = questionOf(question.params as unknown as Record<string, unknown>);
    const resume: HeldResume = { era: 'legacy', server: this.tool.server, tool: this.tool.remoteName, key };
    return interrupt(context, {
      kind: 'input',
      callId,
      tool: this.tool.name,
      reason: clip(shown.message),
      questions: { [HELD_QUESTION_KEY]: shown },
      resume,
    });
  }

  /** The answers of a round by key: a person's to the elicitations, the connection's handlers' to the rest. */
  private async answers(
    requests: RoundResume['inputRequests'],
    inputs: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<{ responses: Record<string, unknown> } | { result: ToolResult }> {
    const responses: Record<string, unknown> = {};
    const own = new AbortController();
    const stop = signal === undefined ? undefined : () => own.abort(signal.reason);
    signal?.addEventListener('abort', stop!, { once: true });
    try {
      for (const [key, request] of Object.entries(requests)) {
        const params = request.params ?? {};
        if (request.method === 'elicitation/create') {
          const answer = elicitResultOf(inputs[key], params);
          if (typeof answer === 'string') return { result: this.badAnswer(typeof params['message'] === 'string' ? params['message'] : key, answer) };
          responses[key] = answer;
          continue;
        }
        if (!this.canAnswer(request.method)) return { result: this.unanswerable(request.method) };
        responses[key] = await this.connection.answerRequest(request.method, params, own.signal);
      }
      return { responses };
    } finally {
      if (stop !== undefined) signal?.removeEventListener('abort', stop);
    }
  }

  /** Whether the connection can answer an input request that is not a question to a person. */
  private canAnswer(method: string): boolean {
    return this.connection.answers(method);
  }

  /** The call asked for input this client does not offer (a server that ignored its capabilities). */
  private unanswerable(method: string): ToolResult {
    return errorResult(
      ErrorCode.McpProtocolError,
      `Tool "${this.tool.name}" asked the client for ${JSON.stringify(method.slice(0, 64))}, which this client does not offer; the call did not finish.`,
      `MCP server "${this.tool.server}", tool "${this.tool.remoteName}": it asked for ${JSON.stringify(method.slice(0, 64))} alongside its question, and the connection has no handler for it (the "sampling" or "roots" option); the call did not finish`,
    );
  }

  /** A question in a run that cannot pause for the answer. */
  private cannotPause(message: string): ToolResult {
    const quoted = clip(message, 200);
    return errorResult(
      ErrorCode.InputRequired,
      `Tool "${this.tool.name}" asked the user "${quoted}", and this call cannot wait for the answer; it did not finish.`,
      `MCP server "${this.tool.server}", tool "${this.tool.remoteName}": it asked the user "${quoted}", but this run cannot pause for the answer (the connection answers questions by pausing runs, "elicitation": "pause"; an Agent's runs pause and resume); it did not finish`,
    );
  }

  /** An answer given on resume that does not fit the server's question. */
  private badAnswer(message: string, problem: string): ToolResult {
    const quoted = clip(message, 200);
    return errorResult(
      ErrorCode.ResumeAnswerInvalid,
      `The answer to the question of tool "${this.tool.name}" ("${quoted}") does not fit it; the call did not finish.`,
      `MCP server "${this.tool.server}", tool "${this.tool.remoteName}": the answer given on resume to "${quoted}" does not fit the question: ${problem}. The call did not finish; run it again and answer the new question`,
    );
  }

  /**
   * `INPUT_EXPIRED`: the server's question can no longer be answered, and the call did not
   * finish. `told` is why, in words a model reads; `why` the whole story, for the developer.
   */
  private expired(told: string, why: string, cause?: unknown): ToolResult {
    const detail = cause === undefined ? '' : ` (${describeError(cause).slice(0, 300)})`;
    return errorResult(
      ErrorCode.InputExpired,
      `Tool "${this.tool.name}" asked the user a question whose answer came too late: ${told}. The call did not finish; call the tool again to be asked again.`,
      `MCP server "${this.tool.server}", tool "${this.tool.remoteName}": the answer came too late: ${why}${detail}. The call did not finish; call the tool again`,
    );
  }
}
