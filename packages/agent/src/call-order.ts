import { ErrorCode, errorResult, type BaseTool, type Middleware, type ToolCall, type ToolResult } from '@anytool/core';

/**
 * Whether a tool's calls are serial: destructive or not idempotent (and not
 * read-only). Serial calls of a turn run one at a time among themselves, in
 * model order (two never overlap); they may overlap the turn's other
 * (non-serial) calls, which run concurrently as usual.
 */
export function runsAlone(tool: BaseTool | undefined): boolean {
  const annotations = tool?.annotations;
  return annotations !== undefined && annotations.readOnly !== true && (annotations.destructive === true || annotations.idempotent === false);
}

/** A serial call's place in its run's queue. */
interface Slot {
  /** Settles when every serial call before this one has ended: true when one of them paused the run. */
  turn: Promise<boolean>;
  release(held: boolean): void;
}

/** A result that waits for an answer: the run pauses on it. */
function waits(result: ToolResult): boolean {
  const code = result.error?.code;
  return code === ErrorCode.ApprovalPending || code === ErrorCode.InputRequired || code === ErrorCode.ResultPending || code === ErrorCode.CallDeferred;
}

const SLOT = Symbol('serial slot');

/**
 * The agent's call order, as middleware in front of the toolset:
 * - a call whose id repeats an earlier call's id in the same turn ends with
 *   `DUPLICATE_CALL_ID` and does not run (`repeated` says which, per run);
 * - serial calls (`runsAlone`) take a place in their run's queue when they start,
 *   in model order, and run when the calls before them have ended; an approval
 *   question (inside this middleware) is asked at the start all the same;
 * - a serial call behind one that waits for an answer (its run pauses) does not
 *   run: it ends with `CALL_DEFERRED`, and runs after it when the run resumes.
 */
export function callOrder(repeated: WeakMap<object, ReadonlyMap<string, string>>): Middleware {
  const queues = new WeakMap<object, Promise<boolean>>();
  return {
    name: 'call order',
    before(call: ToolCall) {
      const run = call.context.state;
      const modelId = repeated.get(run)?.get(call.callId);
      if (modelId !== undefined) {
        const text = `The model gave call id ${JSON.stringify(modelId)} to more than one tool call in one turn; this repeated call to tool "${call.name}" did not run (the first one did). Give each tool call its own id.`;
        return errorResult(
          ErrorCode.DuplicateCallId,
          text,
          `${call.name}: not run: call id ${JSON.stringify(modelId)} repeated in one turn (renamed ${call.callId})`,
        );
      }
      if (!runsAlone(call.tool)) return undefined;
      const previous = queues.get(run) ?? Promise.resolve(false);
      let release!: (held: boolean) => void;
      const ended = new Promise<boolean>((resolve) => (release = resolve));
      // Once a serial call paused, every later one of the run is held too.
      queues.set(
        run,
        previous.then((held) => ended.then((paused) => held || paused)),
      );
      call.set(SLOT, { turn: previous, release } satisfies Slot);
      return undefined;
    },
    around(call: ToolCall, next: () => Promise<ToolResult>) {
      const slot = call.get<Slot>(SLOT);
      return slot === undefined ? next() : slot.turn.then((held) => (held ? deferred(call) : next()));
    },
    after(call: ToolCall, result: ToolResult) {
      call.get<Slot>(SLOT)?.release(waits(result));
    },
  };
}

function deferred(call: ToolCall): ToolResult {
  return errorResult(
    ErrorCode.CallDeferred,
    `The call to tool "${call.name}" has not run yet: it runs after an earlier call of this turn that waits for an answer.`,
    `${call.name}: deferred until the run resumes (an earlier serial call of the turn paused it)`,
  );
}
