import { now } from './clock.js';
import { ErrorCode, describeError } from './errors.js';

/**
 * A problem that stopped nothing but should not go unseen: a tool left out of a
 * toolset after a refresh, an approval callback that threw, a listener that threw,
 * a result cut to its budget. It has a code from `ErrorCode`, says who noticed
 * it, and counts its repeats instead of being listed again.
 *
 * Inside a run it is also one of the run's events (`type: 'diagnostic'`), so a
 * transcript shows it where it happened.
 */
export interface Diagnostic {
  readonly type: 'diagnostic';
  readonly code: ErrorCode;
  readonly message: string;
  /** Who noticed it: "toolset", a tool's label, "agent", "mcp everything". */
  readonly source: string;
  readonly tool?: string;
  readonly callId?: string;
  /** When it first happened, epoch milliseconds. */
  readonly time: number;
  /** How many times it happened; a repeat raises this instead of adding an entry. */
  count: number;
}

/** What a reporter says; the log adds the time and the count. */
export interface DiagnosticInput {
  code: ErrorCode;
  message: string;
  source: string;
  tool?: string;
  callId?: string;
}

export type DiagnosticListener = (diagnostic: Diagnostic) => void;

/** How many distinct diagnostics a log keeps by default. */
export const MAX_DIAGNOSTICS = 100;

/** Longest message kept: a huge thrown string or a server's dump is cut, with a count of what went. */
const MAX_MESSAGE_CHARS = 2_000;

function cut(message: string): string {
  return message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}… (${message.length} characters)`;
}

/**
 * A bounded, de-duplicated list of diagnostics with listeners: what a toolset, a
 * connection or a run keeps of its non-fatal problems. A diagnostic with the same
 * code, source, tool and message as one already held raises that one's `count`
 * and is not told again. Past `limit` distinct ones, the rest are counted on one
 * last `TOO_MANY_DIAGNOSTICS` entry. Listeners hear of each new entry once; one
 * that throws is reported as `LISTENER_FAILED` (and the others are still told).
 */
export class DiagnosticLog {
  private readonly byKey = new Map<string, Diagnostic>();
  private readonly listeners: DiagnosticListener[] = [];
  private overflow: Diagnostic | undefined;

  constructor(readonly limit: number = MAX_DIAGNOSTICS) {}

  /** Adds a diagnostic, or counts a repeat; returns the entry held. */
  report(reported: DiagnosticInput): Diagnostic {
    const input = reported.message.length <= MAX_MESSAGE_CHARS ? reported : { ...reported, message: cut(reported.message) };
    const key = `${input.code}\u0000${input.source}\u0000${input.tool ?? ''}\u0000${input.message}`;
    const held = this.byKey.get(key);
    if (held !== undefined) {
      held.count++;
      return held;
    }
    if (this.byKey.size >= this.limit) {
      if (this.overflow !== undefined) {
        this.overflow.count++;
        return this.overflow;
      }
      this.overflow = entry({
        code: ErrorCode.TooManyDiagnostics,
        source: input.source,
        message: `more than ${this.limit} distinct problems; the later ones are only counted here (the first was ${input.code}: ${input.message.slice(0, 200)})`,
      });
      this.tell(this.overflow);
      return this.overflow;
    }
    const diagnostic = entry(input);
    this.byKey.set(key, diagnostic);
    this.tell(diagnostic);
    return diagnostic;
  }

  /** Every entry held, oldest first. */
  get entries(): readonly Diagnostic[] {
    const list = [...this.byKey.values()];
    if (this.overflow !== undefined) list.push(this.overflow);
    return list;
  }

  get size(): number {
    return this.byKey.size + (this.overflow === undefined ? 0 : 1);
  }

  /** Calls `listener` for every new entry from now on; returns the unsubscribe function. */
  subscribe(listener: DiagnosticListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  private tell(diagnostic: Diagnostic): void {
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!(diagnostic);
      } catch (error) {
        // Said once: a listener that also throws on this report is not told about itself again.
        if (diagnostic.code !== ErrorCode.ListenerFailed) {
          this.report({
            code: ErrorCode.ListenerFailed,
            source: diagnostic.source,
            message: `a diagnostics listener threw on ${diagnostic.code}: ${describeError(error)}`,
          });
        }
      }
    }
  }
}

function entry(input: DiagnosticInput): Diagnostic {
  const diagnostic: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
    type: 'diagnostic',
    code: input.code,
    message: input.message,
    source: input.source,
    time: now(),
    count: 1,
  };
  if (input.tool !== undefined) diagnostic.tool = input.tool;
  if (input.callId !== undefined) diagnostic.callId = input.callId;
  return diagnostic;
}
