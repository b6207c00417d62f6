import { abortWatch } from '../abort-watch.js';
import type { BaseTool } from '../base-tool.js';
import { ErrorCode, describeError } from '../errors.js';
import type { ExecutionContext } from '../execution-context.js';
import { interrupt, takeAnswer } from '../interruptions.js';
import { errorResult, type ToolResult } from '../tool-result.js';
import type { Middleware, ToolCall } from './tool-call.js';
import { ToolPins, canonicalJson, type DefinitionChange } from './tool-pins.js';

/** What the approval callback is asked about. */
export interface ApprovalRequest {
  tool: BaseTool;
  /** The arguments as the model sent them (not yet validated). */
  args: unknown;
  callId: string;
  context: ExecutionContext;
  /**
   * Why it is asked. `call`: the tool needs approval, or the policy said `ask`.
   * `definition-changed`: the definition of a remote tool (an MCP tool) differs
   * from the one approved before, or its name now belongs to another server's tool
   * (`change` says how); approving accepts the new
   * definition and runs this call, refusing ends it with `TOOL_DEFINITION_CHANGED`.
   */
  kind: 'call' | 'definition-changed';
  /** With `definition-changed`: the server, the fields that differ, the old and the new definition. */
  change?: DefinitionChange;
}

/**
 * `true` (or `{ approved: true }`) runs the call; `false` (or `{ approved: false, reason }`)
 * sends a refusal back to the model. `'pause'`: no answer now; in a run that can pause
 * (an agent's) the run stops with the call pending, to be answered by `resume` (elsewhere
 * the call ends with `APPROVAL_PENDING`, not run). Anything else refuses: only `true` approves.
 * `remember` keeps the answer for the rest of the run: `'tool'` for every call of
 * the tool, `'arguments'` for its calls with the same arguments (a changed
 * definition is still asked about).
 */
export type ApprovalDecision = boolean | 'pause' | { approved: boolean; reason?: string; remember?: 'tool' | 'arguments' };

export type ApprovalCallback = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** What a policy decides for one call: run it, ask the approve callback, or refuse it. */
export type PolicyVerdict = 'allow' | 'ask' | 'deny';

/** What the approval policy sees of a call. */
export interface PolicyRequest {
  tool: BaseTool;
  /** The arguments as the tool will receive them: parsed and validated against its schema. Do not change them. */
  args: Record<string, unknown>;
  callId: string;
  context: ExecutionContext;
  /** What the default rule decides: `ask` for a tool `needsApproval` picks, else `allow`. */
  default: 'allow' | 'ask';
}

/**
 * Decides per call, from the tool and its validated arguments; `undefined`
 * leaves the call to the default rule. It may loosen the default too (`allow`
 * for an untrusted MCP tool): it is the application's own rule.
 */
export type ApprovalPolicy = (request: PolicyRequest) => PolicyVerdict | undefined | Promise<PolicyVerdict | undefined>;

export interface ApprovalOptions {
  /**
   * Asked before each call that needs approval. Without it, such calls are refused.
   * `'pause'`: every such call pauses its run (see `ApprovalDecision`).
   */
  approve?: ApprovalCallback | 'pause';
  /** Which tools' calls need approval; by default `needsApproval`. */
  needsApproval?: (tool: BaseTool) => boolean;
  /**
   * Decides per call from the validated arguments, before the default rule:
   * `({ tool, args }) => tool.name === 'pay' && args.amount > 1000 ? 'ask' : undefined`.
   * A call with invalid arguments ends with the tool's own `INVALID_ARGUMENTS`
   * result before the policy is asked. A policy that throws or answers anything
   * else refuses the call (and is a diagnostic of the run).
   */
  policy?: ApprovalPolicy;
  /**
   * The pinned definitions of remote tools (see `ToolPins`): a fresh set by
   * default, kept as long as the middleware; `false` turns pinning off.
   */
  pins?: ToolPins | false;
}

/**
 * The default rule: a tool marked `requiresApproval`; every tool of a remote
 * source not marked trusted (an MCP server's annotations are hints, and by MCP's
 * defaults a tool without them may be destructive, so an untrusted server's
 * `destructiveHint: false` or `readOnlyHint: true` exempts nothing); and a tool
 * whose annotations say destructive and not read-only (a trusted server's, or
 * your own).
 */
export function needsApproval(tool: BaseTool): boolean {
  if (tool.requiresApproval) return true;
  if (tool.origin !== undefined && tool.origin.trusted !== true) return true;
  return tool.annotations?.destructive === true && tool.annotations.readOnly !== true;
}

/** An answer kept for the rest of a run. */
interface Remembered {
  approved: boolean;
  reason: string | undefined;
}

/**
 * Asks before a call runs. The questions of one run are asked one at a time, in
 * the order the calls started (a turn's calls start in the model's order); a
 * refusal ends the call with `APPROVAL_DENIED` and the tool does not run. Once the
 * run is aborted no question is asked, and one still open is given up (`ABORTED`).
 * A callback that throws, or answers anything but a boolean decision, refuses;
 * that is also a diagnostic of the run.
 *
 * Remote tools (with an `origin`: MCP tools) are pinned when their first call is
 * allowed, approved or not needing approval; a later call whose definition
 * differs asks again (`kind: 'definition-changed'`) and without approval ends
 * with `TOOL_DEFINITION_CHANGED` (also a diagnostic). With a `policy`, each call
 * is decided from its validated arguments.
 *
 * @example
 * const toolset = new Toolset(tools).use(approval({ approve: ({ tool, args }) => askTheUser(tool.name, args) }));
 */
export function approval(options: ApprovalOptions = {}): Middleware {
  const { approve, policy } = options;
  const needs = options.needsApproval ?? needsApproval;
  const pins = options.pins === false ? undefined : (options.pins ?? new ToolPins());
  // The last question of each run (keyed by the run's shared state): the next one waits for it.
  const asking = new WeakMap<object, Promise<unknown>>();
  // Answers remembered for the rest of each run.
  const memory = new WeakMap<object, Map<string, Remembered>>();
  const queue = (call: ToolCall, question: () => Promise<ToolResult | undefined>): Promise<ToolResult | undefined> => {
    const run = call.context.state;
    const answer = (asking.get(run) ?? Promise.resolve()).then(question);
    asking.set(run, answer);
    return answer;
  };
  return {
    name: 'approval',
    before(call: ToolCall): Promise<ToolResult | undefined> | undefined {
      const tool = call.tool;
      if (tool === undefined) return undefined;
      // Local tools without a policy: the plain rule, and no promise for a call that needs no question.
      if (policy === undefined && (pins === undefined || tool.origin === undefined)) {
        if (!needs(tool)) return undefined;
        return queue(call, () => askCall(call, tool, approve, memory));
      }
      return decide(call, tool, { approve, policy, needs, pins, memory, queue, asking });
    },
  };
}

interface Rules {
  approve: ApprovalCallback | 'pause' | undefined;
  policy: ApprovalPolicy | undefined;
  needs: (tool: BaseTool) => boolean;
  pins: ToolPins | undefined;
  memory: WeakMap<object, Map<string, Remembered>>;
  queue: (call: ToolCall, question: () => Promise<ToolResult | undefined>) => Promise<ToolResult | undefined>;
  /** The last question of each run: the next one waits for it. */
  asking: WeakMap<object, Promise<unknown>>;
}

/**
 * The policy's verdict (from the validated arguments), then the pin's state and a
 * question when one is needed. A call decided by the policy keeps its place in the
 * run's line of questions from the moment it starts, so questions are asked in
 * the order the calls started even when the policy or the validation is async.
 */
function decide(call: ToolCall, tool: BaseTool, rules: Rules): Promise<ToolResult | undefined> | undefined {
  const fallback = rules.needs(tool) ? 'ask' : 'allow';
  if (rules.policy === undefined) return settle(call, tool, fallback, rules, undefined);
  // A changed definition is asked about first: the arguments are not checked against a schema nobody
  // approved (the model is shown the approved one), and the policy judges the call once the change is.
  if (rules.pins !== undefined && tool.origin !== undefined && rules.pins.compare(tool).status === 'changed') {
    return settle(call, tool, 'allow', rules, undefined)!.then((refusal) => refusal ?? decide(call, tool, rules));
  }
  const policy = rules.policy;
  const run = call.context.state;
  const before = rules.asking.get(run) ?? Promise.resolve();
  const outcome = tool.checkArguments(call.args).then(async (checked) => {
    if ('result' in checked) return checked.result;
    const ruled = await runPolicy(call, tool, checked.args, fallback, policy);
    if (typeof ruled !== 'string') return ruled;
    if (ruled === 'deny') return refused(call, 'the approval policy refuses it');
    return settle(call, tool, ruled, rules, before);
  });
  // A decision that failed (a throwing validator: MIDDLEWARE_FAILED for its call) does not hold up the next question.
  rules.asking.set(
    run,
    outcome.then(undefined, () => undefined),
  );
  return outcome;
}

/**
 * Runs an allowed call of a tool whose pin holds (pinning it first); otherwise asks,
 * one question of the run at a time: after `before`, or at the end of the run's line.
 */
function settle(
  call: ToolCall,
  tool: BaseTool,
  verdict: 'allow' | 'ask',
  rules: Rules,
  before: Promise<unknown> | undefined,
): Promise<ToolResult | undefined> | undefined {
  const { pins } = rules;
  const pinned = pins === undefined || tool.origin === undefined ? undefined : pins.compare(tool);
  if (verdict === 'allow' && pinned?.status !== 'changed') {
    if (pinned?.status === 'unpinned') pinNow(call, tool, pins!);
    return undefined;
  }
  const question = async (): Promise<ToolResult | undefined> => {
    // An earlier question of the run may have approved the change, or pinned the tool.
    const now = pins === undefined || tool.origin === undefined ? undefined : pins.compare(tool);
    if (now?.status === 'changed') return askChange(call, tool, now.change, rules.approve, pins!);
    if (verdict === 'ask') {
      const refusal = await askCall(call, tool, rules.approve, rules.memory);
      if (refusal !== undefined) return refusal;
    }
    if (now?.status === 'unpinned') pinNow(call, tool, pins!);
    return undefined;
  };
  return before === undefined ? rules.queue(call, question) : before.then(question);
}

async function runPolicy(
  call: ToolCall,
  tool: BaseTool,
  args: Record<string, unknown>,
  fallback: 'allow' | 'ask',
  policy: ApprovalPolicy,
): Promise<PolicyVerdict | ToolResult> {
  const { context } = call;
  let verdict: unknown;
  try {
    verdict = await policy({ tool, args, callId: call.callId, context, default: fallback });
  } catch (error) {
    const message = `the approval policy threw for tool "${tool.name}": ${describeError(error)}`;
    context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
    return refused(call, message);
  }
  if (verdict === undefined) return fallback;
  if (verdict === 'allow' || verdict === 'ask' || verdict === 'deny') return verdict;
  const message = `the approval policy for tool "${tool.name}" returned ${(typeof verdict === 'string' ? JSON.stringify(verdict) : describeError(verdict)).slice(0, 200)}, which is not "allow", "ask", "deny" or undefined`;
  context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
  return refused(call, message);
}

/** Pins the tool; a pin listener that throws (a save that failed) is a diagnostic, and the call goes on. */
function pinNow(call: Asked, tool: BaseTool, pins: ToolPins): void {
  try {
    pins.pin(tool);
  } catch (error) {
    call.context.diagnose({ code: ErrorCode.ListenerFailed, source: 'approval', message: describeError(error), callId: call.callId, tool: tool.name });
  }
}

/** Asks about a changed definition: approved, the new one is pinned and the call runs. */
async function askChange(
  call: Asked,
  tool: BaseTool,
  change: DefinitionChange,
  approve: ApprovalCallback | 'pause' | undefined,
  pins: ToolPins,
): Promise<ToolResult | undefined> {
  const { context } = call;
  const protocol = tool.origin!.protocol.toUpperCase();
  // A name that changed hands is said as such: the approval was given to another server's tool.
  const what =
    change.previousServer === undefined
      ? `the definition of tool "${tool.name}" of ${protocol} server "${change.server}" changed since it was approved (it differs in: ${change.fields.join(', ')})`
      : `tool "${tool.name}" now comes from ${protocol} server "${change.server}", but the one approved came from server "${change.previousServer}" (it differs in: ${change.fields.join(', ')})`;
  context.diagnose({ code: ErrorCode.ToolDefinitionChanged, source: 'approval', message: what, callId: call.callId, tool: tool.name });
  const answer = await ask(call, tool, approve, 'definition-changed', change);
  const code = answer.result?.error?.code;
  if (code === ErrorCode.Aborted || code === ErrorCode.ApprovalPending) return answer.result;
  if (answer.result === undefined) {
    pinNow(call, tool, pins);
    return undefined;
  }
  const why = answer.reason ?? 'the change was not approved';
  return errorResult(
    ErrorCode.ToolDefinitionChanged,
    `The call to tool "${call.name}" did not run: its definition (${change.fields.join(', ')}) changed on server "${change.server}" since the user approved it, and the change was not approved (${why.slice(0, 300)}). Do not retry it; continue without it or ask the user.`,
    `${what}; the call was refused: ${why}. Approve the new definition through the approve callback (a request of kind "definition-changed"), or pin it with ToolPins.pin(tool)`,
  );
}

/** Asks about one call, or answers from what the run remembers. */
async function askCall(
  call: Asked,
  tool: BaseTool,
  approve: ApprovalCallback | 'pause' | undefined,
  memory: WeakMap<object, Map<string, Remembered>>,
): Promise<ToolResult | undefined> {
  const run = call.context.state;
  const kept = memory.get(run);
  const byArgs = argumentsKey(tool, call.args);
  // An answer for these very arguments comes before one for the whole tool.
  const known = (byArgs === undefined ? undefined : kept?.get(byArgs)) ?? kept?.get(toolKey(tool));
  if (known !== undefined) return known.approved ? undefined : refused(call, `${known.reason ?? 'the user refused'}; remembered for this run`);
  const answer = await ask(call, tool, approve, 'call', undefined);
  if (answer.remember !== undefined && answer.result?.error?.code !== ErrorCode.Aborted) {
    const key = answer.remember === 'tool' ? toolKey(tool) : byArgs;
    let map = memory.get(run);
    if (map === undefined) memory.set(run, (map = new Map()));
    if (key !== undefined) map.set(key, { approved: answer.result === undefined, reason: answer.reason });
  }
  return answer.result;
}

function toolKey(tool: BaseTool): string {
  return `tool\u0000${tool.name}`;
}

/** The call's arguments as canonical JSON (JSON text parsed first), or undefined when they are not JSON. */
function argumentsKey(tool: BaseTool, args: unknown): string | undefined {
  try {
    const value = typeof args === 'string' ? (args.trim() === '' ? {} : (JSON.parse(args) as unknown)) : (args ?? {});
    return `args\u0000${tool.name}\u0000${canonicalJson(value)}`;
  } catch {
    return undefined;
  }
}

/**
 * Asks `approve` about one call that does not go through a pipeline (a
 * provider's hosted tool call waiting for approval), by the rules of the
 * `approval` middleware: undefined when approved, else the refusal result
 * (`APPROVAL_DENIED`, or `ABORTED` once the run is stopped). Without a callback
 * the call is refused.
 */
export function askApproval(
  request: Omit<ApprovalRequest, 'kind' | 'change'>,
  approve: ApprovalCallback | 'pause' | undefined,
): Promise<ToolResult | undefined> {
  const call = { name: request.tool.name, args: request.args, callId: request.callId, context: request.context };
  return ask(call, request.tool, approve, 'call', undefined).then((answer) => answer.result);
}

/** What asking needs of a call. */
type Asked = Pick<ToolCall, 'name' | 'args' | 'callId' | 'context'>;

/** The refusal (undefined when approved), the user's reason and what to remember. */
interface Answer {
  result: ToolResult | undefined;
  reason?: string;
  remember?: 'tool' | 'arguments';
}

async function ask(
  call: Asked,
  tool: BaseTool,
  approve: ApprovalCallback | 'pause' | undefined,
  kind: ApprovalRequest['kind'],
  change: DefinitionChange | undefined,
): Promise<Answer> {
  const { context } = call;
  if (context.signal?.aborted) return { result: stopped(call, 'before the approval question was asked') };
  // A resumed run brings the answer a person gave while it was paused.
  const given = takeAnswer(context, call.callId, 'approval', kind);
  if (given !== undefined) {
    if (given.approved) return { result: undefined };
    const reason = given.reason ?? 'the user refused';
    return { result: refused(call, reason), reason };
  }
  if (approve === 'pause') return { result: pause(call, tool, kind, change) };
  if (approve === undefined) {
    const reason = `tool "${tool.name}" needs approval and no approve callback was given (pass { approve } to new Agent, or to approval())`;
    return { result: refused(call, reason), reason };
  }
  const request: ApprovalRequest = { tool, args: call.args, callId: call.callId, context, kind };
  if (change !== undefined) request.change = change;
  let decision: unknown;
  try {
    decision = await untilAborted(() => approve(request), context.signal);
  } catch (error) {
    if (context.signal?.aborted) return { result: stopped(call, 'while waiting for the approval answer') };
    const message = `the approval callback threw for tool "${tool.name}": ${describeError(error)}`;
    context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
    return { result: refused(call, message), reason: message };
  }
  // Only true approves: a truthy stand-in such as { approved: 'false' } refuses.
  try {
    const isObject = typeof decision === 'object' && decision !== null;
    const approved = isObject ? (decision as { approved?: unknown }).approved : decision;
    const remember = isObject ? (decision as { remember?: unknown }).remember : undefined;
    if (remember !== undefined && remember !== 'tool' && remember !== 'arguments') {
      const message = `the approval callback for tool "${tool.name}" answered remember: ${describeError(remember).slice(0, 100)}, which is neither "tool" nor "arguments"; the answer was used for this call only`;
      context.diagnose({ code: ErrorCode.InvalidOptions, source: 'approval', message, callId: call.callId, tool: tool.name });
    }
    const kept: Pick<Answer, 'remember'> = remember === 'tool' || remember === 'arguments' ? { remember } : {};
    if (decision === 'pause') return { result: pause(call, tool, kind, change) };
    if (approved === true) return { result: undefined, ...kept };
    if (approved === false) {
      const given = (decision as { reason?: unknown }).reason;
      const reason = typeof given === 'string' ? given : 'the user refused';
      return { result: refused(call, reason), reason, ...kept };
    }
  } catch {
    // A decision whose fields cannot be read (a revoked proxy) is no decision: refused below.
  }
  const message = `the approval callback for tool "${tool.name}" returned ${describeError(decision).slice(0, 200)}, which is neither true, false nor { approved: boolean }; only true or { approved: true } approves`;
  context.diagnose({ code: ErrorCode.ApprovalDenied, source: 'approval', message, callId: call.callId, tool: tool.name });
  return { result: refused(call, message), reason: message };
}

/** The call waits for an answer given when its run resumes (elsewhere it ends, not run). */
function pause(call: Asked, tool: BaseTool, kind: ApprovalRequest['kind'], change: DefinitionChange | undefined): ToolResult {
  const reason =
    kind === 'call'
      ? `tool "${tool.name}" needs approval`
      : `the definition of tool "${tool.name}" changed since it was approved (${change!.fields.join(', ')})`;
  return interrupt(call.context, {
    kind: 'approval',
    callId: call.callId,
    tool: tool.name,
    reason,
    approval: change === undefined ? { kind } : { kind, change },
  });
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
