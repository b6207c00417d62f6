import { abortWatch } from '../abort-watch.js';
import type { BaseTool } from '../base-tool.js';
import { ErrorCode, describeError } from '../errors.js';
import type { ExecutionContext } from '../execution-context.js';
import { errorResult, type ToolResult } from '../tool-result.js';
import type { Middleware, ToolCall } from './tool-call.js';

/** What the approval callback is asked about. */
export interface ApprovalRequest {
  tool: BaseTool;
  /** The arguments as the model sent them (not yet validated). */
  args: unknown;
  callId: string;
  context: ExecutionContext;
}

/**
 * `true` (or `{ approved: true }`) runs the call; `false` (or `{ approved: false, reason }`)
 * sends a refusal back to the model. Anything else refuses too: only `true` approves.
 */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string };

export type ApprovalCallback = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

export interface ApprovalOptions {
  /** Asked before each call that needs approval. Without it, such calls are refused. */
  approve?: ApprovalCallback;
  /** Which tools' calls need approval; by default `needsApproval`. */
  needsApproval?: (tool: BaseTool) => boolean;
}

/** A tool marked `requiresApproval`, or one whose annotations say destructive (as MCP servers mark them) and not read-only. */
export function needsApproval(tool: BaseTool): boolean {
  return tool.requiresApproval || (tool.annotations?.destructive === true && tool.annotations.readOnly !== true);
}

/**
 * Asks before a call runs. The questions of one run are asked one at a time, in
 * the order the calls started (a turn's calls start in the model's order); a
 * refusal ends the call with `APPROVAL_DENIED` and the tool does not run. Once the
 * run is aborted no question is asked, and one still open is given up (`ABORTED`).
 * A callback that throws, or answers anything but a boolean decision, refuses;
 * that is also a diagnostic of the run.
 *
 * @example
 * const toolset = new Toolset(tools).use(approval({ approve: ({ tool, args }) => askTheUser(tool.name, args) }));
 */
export function approval(options: ApprovalOptions = {}): Middleware {
  const { approve } = options;
  const needs = options.needsApproval ?? needsApproval;
  // The last question of each run (keyed by the run's shared state): the next one waits for it.
  const asking = new WeakMap<object, Promise<unknown>>();
  return {
    name: 'approval',
    before(call: ToolCall): Promise<ToolResult | undefined> | undefined {
      const tool = call.tool;
      if (tool === undefined || !needs(tool)) return undefined;
      const run = call.context.state;
      const answer = (asking.get(run) ?? Promise.resolve()).then(() => ask(call, tool, approve));
      asking.set(run, answer);
      return answer;
    },
  };
}

/**
 * Asks `approve` about one call that does not go through a pipeline (a
 * provider's hosted tool call waiting for approval), by the rules of the
 * `approval` middleware: undefined when approved, else the refusal result
 * (`APPROVAL_DENIED`, or `ABORTED` once the run is stopped). Without a callback
 * the call is refused.
 */
export function askApproval(request: ApprovalRequest, approve: ApprovalCallback | undefined): Promise<ToolResult | undefined> {
  return ask({ name: request.tool.name, args: request.args, callId: request.callId, context: request.context }, request.tool, approve);
}

/** What asking needs of a call. */
type Asked = Pick<ToolCall, 'name' | 'args' | 'callId' | 'context'>;

async function ask(call: Asked, tool: BaseTool, approve: ApprovalCallback | undefined): Promise<ToolResult | undefined> {
  const { context } = call;
  if (context.signal?.aborted) return stopped(call, 'before the approval question was asked');
  if (approve === undefined)
    return refused(call, `tool "${tool.name}" needs approval and no approve callback was given (pass { approve } to new Agent, or to approval())`);
  let decision: unknown;
  try {
    decision = await untilAborted(() => approve({ tool, args: call.args, callId: call.callId, context }), context.signal);
  } catch (error) {
    if (context.signal?.aborted) return stopped(call, 'while waiting for the approval answer');
    const message = `the approval callback threw for tool "${tool.name}": ${describeError(error)}`;
    context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
    return refused(call, message);
  }
  // Only true approves: a truthy stand-in such as { approved: 'false' } refuses.
  try {
    const approved = typeof decision === 'object' && decision !== null ? (decision as { approved?: unknown }).approved : decision;
    if (approved === true) return undefined;
    if (approved === false) {
      const reason = (decision as { reason?: unknown }).reason;
      return refused(call, typeof reason === 'string' ? reason : 'the user refused');
    }
  } catch {
    // A decision whose fields cannot be read (a revoked proxy) is no decision: refused below.
  }
  const message = `the approval callback for tool "${tool.name}" returned ${describeError(decision).slice(0, 200)}, which is neither true, false nor { approved: boolean }; only true or { approved: true } approves`;
  context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
  return refused(call, message);
}

function refused(call: Asked, reason: string): ToolResult {
  // The model reads a short reason; the developer's message keeps it whole.
  const short = reason.length <= 500 ? reason : `${reason.slice(0, 500)}…`;
  return errorResult(
    ErrorCode.ApprovalDenied,
    `The call to tool "${call.name}" was not approved (${short}). It did not run. Do not retry it with the same arguments; continue without it or ask the user.`,
    `${call.name}: approval denied: ${reason}`,
  );
}

function stopped(call: Asked, when: string): ToolResult {
  const reason = `the run was stopped ${when}`;
  return errorResult(ErrorCode.Aborted, `The call to tool "${call.name}" did not run: ${reason}.`, `${call.name}: not run: ${reason}`);
}

/** The callback's answer, or a rejection as soon as the run is aborted (a question nobody answers must not outlive the run). */
function untilAborted(ask: () => unknown, signal: AbortSignal | undefined): Promise<unknown> {
  if (signal === undefined) return Promise.resolve().then(ask);
  return new Promise((resolve, reject) => {
    const stop = abortWatch(signal, () => reject(signal.reason));
    Promise.resolve()
      .then(ask)
      .then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
  });
}
