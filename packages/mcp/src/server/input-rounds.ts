import { randomBytes } from 'node:crypto';
import { AnytoolError, ErrorCode } from '@anytool/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  inputRequired,
  isSpecType,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  type Result,
  type ServerContext,
} from '@modelcontextprotocol/server';

/**
 * Questions to the client on the 2026-07-28 era, for tools that ask in the
 * middle of their work (`await mcpSession(context).elicitInput(...)`).
 *
 * That era has no server-to-client requests: a call that needs input answers
 * with an `input_required` result, and the client calls again with the answers
 * and the `requestState` it was given. The SDK's own way re-runs the handler
 * from the top each round, which would repeat a tool's side effects. Here the
 * tool keeps running between rounds instead: it waits, parked in this process
 * under an unguessable `requestState`, and each round answers its questions and
 * waits for its next questions or its result.
 *
 * So a call's rounds must reach the same process: one process serves them all,
 * and a deployment of several needs affinity (route on the client). A parked
 * call is bound to the client that started it, ends after `ttlMs` without a
 * round (its tool sees its signal abort), and at most `maxParked` wait at once.
 */
export interface InputRoundsOptions {
  /** How long a call waits for its next round. Default 10 minutes. */
  ttlMs?: number | undefined;
  /** The most calls waiting for a round at once; a tool asking past it gets an error. Default 1000. */
  maxParked?: number | undefined;
}

/** The channel a modern call's session asks through. */
export interface InputRound {
  /** The request of the round in progress (notifications of the call go there). */
  readonly ctx: ServerContext;
  /** Asks the client; resolves with its answer in a later round. */
  ask(key: string, request: InputRequest, signal?: AbortSignal): Promise<unknown>;
  /**
   * Ends the rounds of a call that becomes a task (`deferTask`): `start`
   * starts the task, the round in progress is answered with what it gives
   * (the `CreateTaskResult`), and the tool runs on as the task. Refused while
   * a question is open. Absent on a task's own round (it is one already).
   */
  handOver?(start: () => Promise<Result>): Promise<void>;
  /** Saves the tool's checkpoint with its task (a queued task's round only); resolves whether it was kept. */
  checkpoint?(data: unknown): Promise<boolean>;
  /** The checkpoint of an earlier run of the task (a queued task run again on another worker). */
  readonly lastCheckpoint?: unknown;
}

/**
 * Thrown out of a `tools/call` handler to answer the round with the task the
 * call became: a task's answer is not a tool result, so it goes out as it is,
 * past the SDK's check of tool results.
 */
export class TaskAnswer {
  constructor(readonly answer: Result) {}
}

export const DEFAULT_INPUT_TTL_MS = 10 * 60_000;
export const DEFAULT_MAX_PARKED = 1_000;

interface Question {
  request: InputRequest;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** What an answer to each kind of question must look like (anything else is asked again). */
export function validAnswer(request: InputRequest, value: unknown): boolean {
  switch (request.method) {
    case 'elicitation/create':
      return isSpecType.ElicitResult(value);
    case 'sampling/createMessage':
      return isSpecType.CreateMessageResult(value) || isSpecType.CreateMessageResultWithTools(value);
    case 'roots/list':
      return isSpecType.ListRootsResult(value);
    default:
      return false;
  }
}

/** The client capability each kind of question needs. */
export const NEEDS: Record<string, keyof ClientCapabilities> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One call across its rounds. */
class ParkedCall implements InputRound {
  state: string | undefined;
  ctx!: ServerContext;
  private readonly questions = new Map<string, Question>();
  private outcome: { result: CallToolResult } | { error: unknown } | { task: Result } | undefined;
  private changed: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Whether the call holds one of the rounds' `maxParked` slots (from its first question to its end). */
  private holdsSlot = false;
  /** Aborts the tool: its round was cancelled, or it waited too long. */
  readonly controller = new AbortController();

  constructor(
    private readonly rounds: InputRounds,
    readonly owner: string | undefined,
    /** Answers that came with the first request (a client that knows what will be asked). */
    private early: Record<string, unknown> | undefined,
  ) {}

  /** Runs the tool; its questions and its end are what the rounds wait for. */
  run(tool: (signal: AbortSignal) => Promise<CallToolResult>): void {
    tool(this.controller.signal).then(
      (result) => this.settle({ result }),
      (error: unknown) => this.settle({ error }),
    );
  }

  ask(key: string, request: InputRequest, signal?: AbortSignal): Promise<unknown> {
    const early = this.early?.[key];
    if (early !== undefined && validAnswer(request, early)) {
      delete this.early![key];
      return Promise.resolve(early);
    }
    if (this.questions.has(key))
      return Promise.reject(
        new AnytoolError(ErrorCode.McpProtocolError, `the input key "${key}" is already waiting for an answer; give each question in flight its own inputKey`),
      );
    if (this.controller.signal.aborted) return Promise.reject(new AnytoolError(ErrorCode.Aborted, 'the call ended before the client answered'));
    // The slot is taken here, before any await: calls asking at once cannot all see the last free slot.
    if (!this.holdsSlot) {
      if (!this.rounds.reserve()) {
        return Promise.reject(
          new AnytoolError(
            ErrorCode.ServerBusy,
            `too many calls are waiting for the client's input (${this.rounds.maxParked}, the server's maxParkedCalls); retry later`,
          ),
        );
      }
      this.holdsSlot = true;
    }
    return new Promise((resolve, reject) => {
      this.questions.set(key, { request, resolve, reject });
      signal?.addEventListener(
        'abort',
        () => {
          if (this.questions.delete(key))
            reject(signal.reason instanceof Error ? signal.reason : new AnytoolError(ErrorCode.Aborted, 'the question was withdrawn'));
        },
        { once: true },
      );
      this.poke();
    });
  }

  async handOver(start: () => Promise<Result>): Promise<void> {
    if (this.questions.size > 0)
      throw new AnytoolError(
        ErrorCode.McpProtocolError,
        `startTask() was called while a question to the client is open (${[...this.questions.keys()].join(', ')}); await the answers first`,
      );
    if (this.controller.signal.aborted) throw new AnytoolError(ErrorCode.Aborted, 'the call ended before it became a task');
    this.settle({ task: await start() });
  }

  /** Gives the questions their answers from this round; questions left unanswered are asked again. */
  answer(responses: Record<string, unknown> | undefined): void {
    this.early = undefined;
    for (const [key, question] of [...this.questions]) {
      const value = responses?.[key];
      if (value === undefined || !validAnswer(question.request, value)) continue;
      this.questions.delete(key);
      question.resolve(value);
    }
  }

  /**
   * Serves one round: waits until the tool finished (its result) or is waiting
   * for answers (an `input_required` result with every open question). The
   * round's abort (the client cancelled) aborts the tool.
   */
  async serve(ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    this.ctx = ctx;
    const onAbort = (): void => this.end(new AnytoolError(ErrorCode.Aborted, 'the client cancelled the call'));
    ctx.mcpReq.signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (this.outcome !== undefined) {
          this.rounds.forget(this);
          if ('error' in this.outcome) throw this.outcome.error;
          if ('task' in this.outcome) throw new TaskAnswer(this.outcome.task);
          return this.outcome.result;
        }
        if (this.questions.size > 0) {
          // Questions asked together (Promise.all) go out in one round.
          await nextTurn();
          if (this.outcome === undefined && this.questions.size > 0) return this.park(ctx);
          continue;
        }
        await new Promise<void>((resolve) => (this.changed = resolve));
      }
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Ends the call: the tool's signal aborts and its open questions fail. */
  end(reason: Error): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.rounds.forget(this);
    this.releaseSlot();
    this.controller.abort(reason);
    for (const question of this.questions.values()) question.reject(reason);
    this.questions.clear();
  }

  private park(ctx: ServerContext): InputRequiredResult {
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, question] of this.questions) inputRequests[key] = question.request;
    // A question the client cannot answer ends the call with -32021 (what the 2026-07-28 era asks of a server).
    const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
    const missing: ClientCapabilities = {};
    for (const question of this.questions.values()) {
      const needed = NEEDS[question.request.method];
      if (needed !== undefined && declared?.[needed] === undefined) (missing as Record<string, object>)[needed] = {};
    }
    if (Object.keys(missing).length > 0) {
      const error = new MissingRequiredClientCapabilityError(
        { requiredCapabilities: missing },
        `the tool asks the client for input it did not declare it can give (${Object.keys(missing).join(', ')} capability missing from this request)`,
      );
      this.end(error);
      throw error;
    }
    // A fresh state each round: an answer to an older round cannot be replayed.
    this.rounds.park(this);
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.end(new AnytoolError(ErrorCode.Timeout, `the client did not answer within ${this.rounds.ttlMs} ms`)), this.rounds.ttlMs);
    this.timer.unref();
    return inputRequired({ inputRequests, requestState: this.state! });
  }

  /** While a round waits on the call, it is not parked: no timer runs. */
  unpark(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private settle(outcome: { result: CallToolResult } | { error: unknown } | { task: Result }): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.releaseSlot();
    // A call that became a task ends through the task.
    if (this.outcome !== undefined && 'task' in this.outcome) return;
    this.outcome = outcome;
    this.poke();
  }

  private releaseSlot(): void {
    if (!this.holdsSlot) return;
    this.holdsSlot = false;
    this.rounds.unreserve();
  }

  private poke(): void {
    const changed = this.changed;
    this.changed = undefined;
    changed?.();
  }
}

/** The calls of one server (every connection and request of it) waiting for a round. */
export class InputRounds {
  readonly ttlMs: number;
  readonly maxParked: number;
  private readonly parked = new Map<string, ParkedCall>();
  /** Calls holding a slot: parked, or between their first question and their end. Never above `maxParked`. */
  private slots = 0;

  constructor(options: InputRoundsOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_INPUT_TTL_MS;
    this.maxParked = options.maxParked ?? DEFAULT_MAX_PARKED;
    if (!(this.ttlMs > 0))
      throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): inputTtlMs must be a positive number of milliseconds, got ${String(options.ttlMs)}`);
    if (!Number.isInteger(this.maxParked) || this.maxParked < 1)
      throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): maxParkedCalls must be a positive integer, got ${String(options.maxParked)}`);
  }

  /** Calls waiting for a round. */
  get size(): number {
    return this.parked.size;
  }

  /** Takes a slot for a call about to wait for input; false when all `maxParked` are taken. */
  reserve(): boolean {
    if (this.slots >= this.maxParked) return false;
    this.slots++;
    return true;
  }

  unreserve(): void {
    this.slots--;
  }

  /**
   * Serves a modern `tools/call` round: a first request starts `tool`, a
   * request with a `requestState` resumes the call parked under it. `owner`
   * is who asks (the client identity): a call answers only its own client.
   */
  serve(
    ctx: ServerContext,
    owner: string | undefined,
    start: (call: InputRound, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const state = ctx.mcpReq.requestState();
    const responses = ctx.mcpReq.inputResponses;
    if (state === undefined) {
      const call = new ParkedCall(this, owner, responses);
      call.ctx = ctx;
      call.run((signal) => start(call, signal));
      return call.serve(ctx);
    }
    const call = typeof state === 'string' ? this.parked.get(state) : undefined;
    if (call === undefined || call.owner !== owner) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Invalid or expired requestState: no call of this client waits under it (it ended, timed out, or belongs to another server process); call the tool again',
        { reason: 'invalid_request_state' },
      );
    }
    this.parked.delete(state as string);
    call.state = undefined;
    call.unpark();
    call.answer(responses);
    return call.serve(ctx);
  }

  park(call: ParkedCall): void {
    if (call.state !== undefined) this.parked.delete(call.state);
    call.state = randomBytes(24).toString('base64url');
    this.parked.set(call.state, call);
  }

  forget(call: ParkedCall): void {
    if (call.state !== undefined && this.parked.get(call.state) === call) this.parked.delete(call.state);
    call.state = undefined;
  }

  /** Ends every parked call (the server is closing). */
  close(): void {
    for (const call of [...this.parked.values()]) call.end(new AnytoolError(ErrorCode.Aborted, 'the server closed'));
  }
}
