import { AnytoolError, ErrorCode } from '@anytool/core';
import { abortWatch, describeError } from '@anytool/core/internal';
import type { CallToolResult, ElicitRequestParams, ElicitResult, Progress } from '@modelcontextprotocol/client';
import { crypto } from '../shared/builtins.cjs';

/*
 * The questions of 2025-era servers, held open for paused runs (`elicitation: 'pause'`).
 *
 * On that era a server asks the user with an `elicitation/create` request in the middle of
 * a `tools/call`, and takes the answer only on that request: it cannot outlive this process.
 * So the call that asked stays in flight here, its question held under a random key that
 * goes into the paused run's state, while the run pauses. A resume that reaches this process
 * while the request is open answers it and waits for the call's own result; any other resume
 * (another process, the request ended, the connection closed) finds no key, and the call
 * ends with `INPUT_EXPIRED`.
 *
 * The 2025 protocol does not say which call a question belongs to. It is taken to be the one
 * call in flight on the connection that is not already waiting for a held answer; with
 * several, it cannot be told, and the question is refused with an error the server sees.
 */

/** The defaults of `McpClientOptions.heldElicitations`. */
export const DEFAULT_HELD_TTL_MS = 10 * 60_000;
export const DEFAULT_MAX_HELD = 100;

/** How long a question is held for a resume, and how many one connection holds at once. */
export interface HeldElicitationLimits {
  ttlMs: number;
  max: number;
}

/** A question a server asked during a call, until it is answered or withdrawn. */
export class HeldQuestion {
  /** Set once the server has its answer, or withdrew the request: nothing more can be sent. */
  settled = false;

  constructor(
    readonly params: ElicitRequestParams,
    private readonly reply: (result: ElicitResult) => void,
    private readonly refuse: (error: Error) => void,
    private readonly onSettled: () => void,
  ) {}

  /** Answers the server's request (once). */
  answer(result: ElicitResult): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettled();
    this.reply(result);
  }

  /** Answers the server's request with an error (once). */
  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.onSettled();
    this.refuse(error);
  }
}

/** How a held call ended. `whileHeld`: a question of it was held for a person when it ended. */
export type HeldCallEnd = { result: CallToolResult; whileHeld: boolean } | { error: unknown; whileHeld: boolean };

/** A call of a run that may pause, sent on a 2025-era connection with `elicitation: 'pause'`. */
export class HeldCall {
  /** Cancels the request on the server: the run that waits for it was aborted, or its held question expired. */
  readonly controller = new AbortController();
  /** Questions of the server not yet shown to a person. */
  private readonly asked: HeldQuestion[] = [];
  /** Questions shown to a person (held for a resume) and not yet answered. */
  holding = 0;
  private end: HeldCallEnd | undefined;
  private wake: (() => void) | undefined;
  /** Where the call's progress goes: the run that waits for the call now, none while it is paused. */
  progress: ((progress: Progress) => void) | undefined;

  constructor(
    readonly server: string,
    readonly tool: string,
  ) {}

  /** Sends the call; its end and the questions asked meanwhile are what `next` gives. */
  start(send: (signal: AbortSignal) => Promise<CallToolResult>): void {
    send(this.controller.signal).then(
      (result) => this.settle({ result, whileHeld: this.holding > 0 }),
      (error: unknown) => this.settle({ error, whileHeld: this.holding > 0 }),
    );
  }

  /** A question of the server, queued for the run that waits for the call. */
  ask(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
    return new Promise<ElicitResult>((resolve, reject) => {
      let stop = (): void => undefined;
      const question = new HeldQuestion(params, resolve, reject, () => stop());
      this.asked.push(question);
      // The server withdrew its request (its own timeout, a cancel): the question no longer waits.
      stop = abortWatch(signal, () => {
        const queued = this.asked.indexOf(question);
        if (queued >= 0) this.asked.splice(queued, 1);
        question.fail(new AnytoolError(ErrorCode.Aborted, 'the server withdrew its question'));
      });
      this.poke();
    });
  }

  /**
   * What comes next: a question not yet shown, or the call's end. Undefined when `signal`
   * (the waiting run's) aborts first; the call goes on.
   */
  async next(signal: AbortSignal | undefined): Promise<HeldQuestion | HeldCallEnd | undefined> {
    for (;;) {
      const question = this.asked.shift();
      if (question !== undefined) return question;
      if (this.end !== undefined) return this.end;
      if (signal?.aborted === true) return undefined;
      const woken = await new Promise<boolean>((resolve) => {
        const stop = signal === undefined ? () => undefined : abortWatch(signal, () => resolve(false));
        this.wake = () => {
          stop();
          resolve(true);
        };
      });
      this.wake = undefined;
      if (!woken) return undefined;
    }
  }

  private settle(end: HeldCallEnd): void {
    this.end = end;
    // Questions the server asked and nobody saw are moot once the call ended.
    for (const question of this.asked.splice(0)) question.answer({ action: 'cancel' });
    this.poke();
  }

  private poke(): void {
    this.wake?.();
  }
}

/** One held question in the registry. */
interface Held {
  call: HeldCall;
  question: HeldQuestion;
  owner: HeldElicitations;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The held questions of every connection of the process, by key: a resumed run finds its
 * question here whatever connection or agent object it runs with, as long as the request
 * that asked is open. Shared by every copy of the package in the process (ES module and
 * CommonJS), as core's records of paused calls are.
 */
const REGISTRY = Symbol.for('anytool.mcp.held-elicitations.v1');
function registry(): Map<string, Held> {
  const global = globalThis as unknown as Record<symbol, Map<string, Held> | undefined>;
  return (global[REGISTRY] ??= new Map());
}

/** The held question under `key`, taken (a second take finds none); undefined when none is held under it. */
export function takeHeld(key: string): { call: HeldCall; question: HeldQuestion } | undefined {
  const held = registry().get(key);
  if (held === undefined) return undefined;
  held.owner.release(key);
  return { call: held.call, question: held.question };
}

/** The calls in flight on one 2025-era connection with `elicitation: 'pause'`, and the questions it holds. */
export class HeldElicitations {
  /** Every call in flight on the connection: a `HeldCall` when its run may pause, a plain token otherwise. */
  private readonly inFlight = new Set<object>();
  /** This connection's keys in the registry. */
  private readonly keys = new Set<string>();

  constructor(
    private readonly server: string,
    readonly limits: HeldElicitationLimits,
    private readonly note: (message: string) => void,
  ) {}

  /** Held questions of this connection. */
  get size(): number {
    return this.keys.size;
  }

  /** Counts a call as in flight until it settles (`call` when its run may pause); returns `sent` as it is. */
  track<T>(sent: Promise<T>, call?: HeldCall): Promise<T> {
    const token = call ?? {};
    this.inFlight.add(token);
    const done = (): void => void this.inFlight.delete(token);
    sent.then(done, done);
    return sent;
  }

  /** The `elicitation/create` handler: the question goes to the call that asked it, to be held for its paused run. */
  ask(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
    const asker = this.asker();
    if (asker instanceof HeldCall) return asker.ask(params, signal);
    const why =
      asker !== undefined
        ? 'during a call that cannot pause its run for the answer (the client answers questions by pausing runs, "elicitation": "pause", and only a run that allows pausing, such as an Agent\'s, can)'
        : this.inFlight.size === 0
          ? 'while no call of this client was running'
          : `while ${this.inFlight.size} calls of this client were running on its 2025-era connection, which does not say which call asks; call tools that ask one at a time on this server, or give the client an elicitation handler`;
    const message = `MCP server "${this.server}" asked the user a question (elicitation/create) ${why}; the question was refused`;
    this.note(message);
    return Promise.reject(new AnytoolError(ErrorCode.InputRequired, message));
  }

  /** The call that asked: the one in flight not waiting for a held answer, or the only one in flight. */
  private asker(): object | undefined {
    let active: object | undefined;
    let count = 0;
    for (const call of this.inFlight) {
      if (call instanceof HeldCall && call.holding > 0) continue;
      active = call;
      count++;
    }
    if (count === 1) return active;
    if (count === 0 && this.inFlight.size === 1) return this.inFlight.values().next().value;
    return undefined;
  }

  /**
   * Holds a question for a resume: its key, or undefined when this connection holds `max`
   * already. Held at most `ttlMs`: then the server gets `cancel` and the call is cancelled.
   */
  hold(call: HeldCall, question: HeldQuestion): string | undefined {
    if (this.keys.size >= this.limits.max) return undefined;
    const key = crypto().randomBytes(24).toString('base64url');
    const timer = setTimeout(() => {
      if (!this.keys.has(key)) return;
      this.release(key);
      this.note(
        `a question of tool "${call.tool}" was held ${this.limits.ttlMs} ms without a resume (heldElicitations.ttlMs): it was cancelled, and the call with it`,
      );
      question.answer({ action: 'cancel' });
      call.controller.abort(new AnytoolError(ErrorCode.InputExpired, 'the question was held too long'));
    }, this.limits.ttlMs);
    timer.unref();
    registry().set(key, { call, question, owner: this, timer });
    this.keys.add(key);
    call.holding++;
    return key;
  }

  /** Takes a question out of the registry (answered, expired, or its connection closed). */
  release(key: string): void {
    const held = registry().get(key);
    if (held === undefined || held.owner !== this) return;
    clearTimeout(held.timer);
    registry().delete(key);
    this.keys.delete(key);
    held.call.holding--;
  }

  /** Ends every held question: the connection closes, and their requests with it. */
  close(): void {
    for (const key of [...this.keys]) {
      const held = registry().get(key);
      this.release(key);
      if (held === undefined) continue;
      held.question.answer({ action: 'cancel' });
      try {
        held.call.controller.abort(new AnytoolError(ErrorCode.McpConnectionClosed, 'the connection closed'));
      } catch (error) {
        this.note(`could not cancel a held call of tool "${held.call.tool}": ${describeError(error)}`);
      }
    }
  }
}
