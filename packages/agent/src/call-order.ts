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
  /** Settles when every serial call before this one has ended. */
  turn: Promise<unknown>;
  release(): void;
}

const SLOT = Symbol('serial slot');

/**
 * The agent's call order, as middleware in front of the toolset:
 * - a call whose id repeats an earlier call's id in the same turn ends with
 *   `DUPLICATE_CALL_ID` and does not run (`repeated` says which, per run);
 * - serial calls (`runsAlone`) take a place in their run's queue when they start,
 *   in model order, and run when the calls before them have ended; an approval
 *   question (inside this middleware) is asked at the start all the same.
 */
export function callOrder(repeated: WeakMap<object, ReadonlyMap<string, string>>): Middleware {
  const queues = new WeakMap<object, Promise<unknown>>();
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
      const previous = queues.get(run) ?? Promise.resolve();
      let release!: () => void;
      const ended = new Promise<void>((resolve) => (release = resolve));
      queues.set(
        run,
        previous.then(() => ended),
      );
      call.set(SLOT, { turn: previous, release } satisfies Slot);
      return undefined;
    },
    around(call: ToolCall, next: () => Promise<ToolResult>) {
      const slot = call.get<Slot>(SLOT);
      return slot === undefined ? next() : slot.turn.then(next);
    },
    after(call: ToolCall) {
      call.get<Slot>(SLOT)?.release();
    },
  };
}
