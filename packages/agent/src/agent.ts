import {
  AnytoolError,
  ErrorCode,
  ExecutionContext,
  Toolset,
  describeError,
  errorResult,
  isAnytoolError,
  isToolset,
  now,
  type BaseTool,
  type ToolResult,
  type ToolSource,
} from '@anytool/core';
import { untilAborted } from './abort.js';
import { addUsage, emptyUsage, type AssistantMessage, type Model, type ModelMessage, type ModelResponse, type ModelSettings, type ModelToolCall, type Usage } from './model.js';

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

export interface AgentOptions {
  model: Model;
  /** Anything a `Toolset` takes (tools, arrays, `@Tool` class instances, MCP toolsets), or a `Toolset`. */
  tools?: ToolSource;
  /** The system prompt. */
  instructions?: string;
  /** Model turns per run (each turn's tool calls included); 10 by default. */
  maxSteps?: number;
  /** Wall-clock limit of a run in milliseconds; none by default. */
  timeoutMs?: number;
  /**
   * Time limit of each tool call in milliseconds, for tools without their own
   * (`timeoutMs`, or an MCP tool's request timeout): 60 000 by default, `false`
   * for none. A call that runs longer ends with a `TIMEOUT` result and the run goes on.
   */
  toolTimeoutMs?: number | false;
  /**
   * Asked before running a tool that needs approval: one with `requiresApproval`,
   * or one whose annotations say destructive (as MCP servers mark them). With no
   * callback such calls are refused.
   */
  approve?: ApprovalCallback;
  /** Sent with every model request. */
  settings?: ModelSettings;
}

export interface RunOptions {
  /** The run's context: its state and events. A fresh one by default. */
  context?: ExecutionContext;
  /** Aborts the run: the model call in flight and the tools running stop. */
  signal?: AbortSignal;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number;
  /** Overrides the agent's `timeoutMs` for this run. */
  timeoutMs?: number;
}

/** Why a run ended. */
export type StopReason = 'final_answer' | 'max_steps' | 'timeout' | 'aborted';

export interface RunResult {
  /** The model's last text: the answer when `stopReason` is `final_answer`. */
  text: string;
  stopReason: StopReason;
  /** Model turns taken. */
  steps: number;
  /** Tokens used by every model call of the run. */
  usage: Usage;
  /** The whole conversation, to continue it with `agent.run(messages)`. */
  messages: ModelMessage[];
  /** The run's context; `context.events` tells the whole story in order. */
  context: ExecutionContext;
}

/** Why a call that needed approval did not run. */
interface Refusal {
  code: typeof ErrorCode.ApprovalDenied | typeof ErrorCode.Aborted;
  reason: string;
}

/** The default of `toolTimeoutMs`. */
const TOOL_TIMEOUT_MS = 60_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The call ids of the assistant messages of a conversation. */
function callIdsOf(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
}

/**
 * Whether a tool's calls are serial: destructive or not idempotent (and not
 * read-only). Serial calls of a turn run one at a time among themselves, in
 * model order (two never overlap); they may overlap the turn's other
 * (non-serial) calls, which run concurrently as usual.
 */
function runsAlone(tool: BaseTool | undefined): boolean {
  const annotations = tool?.annotations;
  return annotations !== undefined && annotations.readOnly !== true && (annotations.destructive === true || annotations.idempotent === false);
}

function needsApproval(tool: BaseTool | undefined): boolean {
  if (tool === undefined) return false;
  return tool.requiresApproval || (tool.annotations?.destructive === true && tool.annotations.readOnly !== true);
}

/**
 * An agent: a model, the tools it may call and instructions. `run` loops: it
 * sends the conversation and the tool definitions to the model, runs the tool
 * calls the model asked for through `toolset.invoke`, sends the results back
 * and repeats until the model answers without tool calls or a limit is hit.
 *
 * The tool calls of one turn run concurrently, except tools marked destructive
 * or not idempotent, which run one at a time among themselves in the model's
 * order (alongside the turn's other calls). Every tool
 * failure (unknown tool, bad arguments, exception, timeout, refusal) goes back
 * to the model as a tool result it can act on. A model call that still fails
 * after the client's own retries ends the run with a `MODEL_FAILED` error.
 *
 * @example
 * const agent = new Agent({ model, tools: [calculator, new WeatherTools()], instructions: 'Be brief.' });
 * const { text, stopReason, usage, context } = await agent.run('What is 17 * 23?');
 */
export class Agent {
  readonly model: Model;
  readonly toolset: Toolset;
  readonly instructions: string | undefined;
  readonly maxSteps: number;
  readonly timeoutMs: number | undefined;
  /** Time limit of each tool call without its own `timeoutMs`, or false for none. */
  readonly toolTimeoutMs: number | false;
  private readonly approve: ApprovalCallback | undefined;
  private readonly settings: ModelSettings | undefined;

  constructor(options: AgentOptions) {
    if (typeof options?.model?.generate !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'new Agent(): `model` must be a Model (an object with generate(request)); use OpenAIModel, AnthropicModel or ScriptedModel');
    }
    const maxSteps = options.maxSteps ?? 10;
    checkLimit('maxSteps', maxSteps);
    if (options.timeoutMs !== undefined) checkLimit('timeoutMs', options.timeoutMs);
    const toolTimeoutMs = options.toolTimeoutMs ?? TOOL_TIMEOUT_MS;
    if (toolTimeoutMs !== false && !(Number.isInteger(toolTimeoutMs) && toolTimeoutMs >= 1 && toolTimeoutMs <= MAX_TIMEOUT_MS)) {
      throw new AnytoolError(ErrorCode.InvalidOptions, `Agent: \`toolTimeoutMs\` must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or false for none; got ${String(toolTimeoutMs)}`);
    }
    this.toolTimeoutMs = toolTimeoutMs;
    this.model = options.model;
    this.toolset = isToolset(options.tools) ? options.tools : new Toolset(...(options.tools === undefined ? [] : [options.tools]));
    this.instructions = options.instructions;
    this.maxSteps = maxSteps;
    this.timeoutMs = options.timeoutMs;
    this.approve = options.approve;
    this.settings = options.settings;
  }

  /**
   * Runs the loop for one input: a user message, or a whole conversation (for
   * example `result.messages` of an earlier run plus a new user message).
   */
  async run(input: string | readonly ModelMessage[], options: RunOptions = {}): Promise<RunResult> {
    const maxSteps = options.maxSteps ?? this.maxSteps;
    checkLimit('maxSteps', maxSteps);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    if (timeoutMs !== undefined) checkLimit('timeoutMs', timeoutMs);

    const deadline = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [options.context?.signal, options.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
    const context = options.context ?? new ExecutionContext(signal === undefined ? {} : { signal });
    const runContext = signal === undefined || signal === context.signal ? context : context.withSignal(signal);

    const messages: ModelMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
    // Every call id of the conversation: an id made up for a call never equals one of them.
    const usedIds = callIdsOf(messages);
    if (this.instructions !== undefined) context.record({ type: 'message', role: 'system', text: this.instructions });
    const last = messages[messages.length - 1];
    if (last?.role === 'user') context.record({ type: 'message', role: 'user', text: last.content });

    const usage = emptyUsage();
    let text = '';
    const finish = (stopReason: StopReason, steps: number): RunResult => ({ text, stopReason, steps, usage, messages, context });
    const interrupted = (steps: number): RunResult => {
      const timedOut = deadline?.aborted === true;
      const code = timedOut ? ErrorCode.Timeout : ErrorCode.Aborted;
      const why = timedOut ? `the run's time limit of ${timeoutMs} ms ran out` : `the run was aborted${signal?.reason === undefined ? '' : ` (${describeError(signal.reason)})`}`;
      context.record({ type: 'error', code, message: `Agent stopped after ${steps} model turn(s): ${why}` });
      return finish(timedOut ? 'timeout' : 'aborted', steps);
    };

    for (let step = 1; step <= maxSteps; step++) {
      if (signal?.aborted) return interrupted(step - 1);
      let response: ModelResponse;
      try {
        // Raced against the run's signal: a model that ignores request.signal cannot outlive the time limit or an abort.
        response = await untilAborted(
          this.model.generate({
            ...(this.instructions === undefined ? {} : { instructions: this.instructions }),
            messages,
            tools: this.toolset.neutralDefinitions(),
            ...(this.settings === undefined ? {} : { settings: this.settings }),
            ...(signal === undefined ? {} : { signal }),
          }),
          signal,
        );
      } catch (error) {
        if (signal?.aborted) return interrupted(step - 1);
        const failure = modelFailure(this.model, step, error);
        context.record({ type: 'error', code: failure.code, message: failure.message });
        throw failure;
      }
      addUsage(usage, response.usage);
      text = response.text;
      const { calls, repeated } = this.callIds(response.toolCalls, usedIds, context);
      const assistant: AssistantMessage = { role: 'assistant', content: response.text };
      if (calls.length > 0) assistant.toolCalls = calls;
      messages.push(assistant);
      context.record({
        type: 'message',
        role: 'assistant',
        text: response.text,
        data: { step, model: this.model.name, toolCalls: calls, usage: response.usage, stopReason: response.stopReason },
      });
      if (calls.length === 0) return finish('final_answer', step);

      const results = await this.runCalls(calls, repeated, runContext);
      calls.forEach((call, i) => messages.push({ role: 'tool', callId: call.id, name: call.name, result: results[i]! }));
      if (signal?.aborted) return interrupted(step);
    }
    return finish('max_steps', maxSteps);
  }

  /**
   * Gives every call of a turn its own id: a call without one gets a made-up id
   * no call of the conversation has, and so does a call repeating an id used
   * earlier in the same turn (`repeated` maps its index to the model's id; it is
   * not run).
   */
  private callIds(toolCalls: readonly ModelToolCall[], usedIds: Set<string>, context: ExecutionContext): { calls: ModelToolCall[]; repeated: Map<number, string> } {
    for (const call of toolCalls) if (call.id !== '') usedIds.add(call.id);
    const fresh = (): string => {
      let id = context.nextCallId();
      while (usedIds.has(id)) id = context.nextCallId();
      usedIds.add(id);
      return id;
    };
    const turn = new Set<string>();
    const repeated = new Map<number, string>();
    const calls = toolCalls.map((call, i) => {
      if (call.id === '') return { ...call, id: fresh() };
      if (!turn.has(call.id)) {
        turn.add(call.id);
        return call;
      }
      repeated.set(i, call.id);
      return { ...call, id: fresh() };
    });
    return { calls, repeated };
  }

  /**
   * Runs one turn's calls. The approval questions are asked first, one at a
   * time in model order; each call runs once its answer is in. Calls run
   * concurrently, except serial ones (see `runsAlone`), which run one at a time
   * among themselves, in model order.
   */
  private runCalls(calls: readonly ModelToolCall[], repeated: ReadonlyMap<number, string>, context: ExecutionContext): Promise<ToolResult[]> {
    const tools = calls.map((call) => this.toolset.get(call.name));
    let questions: Promise<unknown> = Promise.resolve();
    const answers = calls.map((call, i): Promise<Refusal | undefined> => {
      const tool = tools[i];
      if (repeated.has(i) || !needsApproval(tool)) return Promise.resolve(undefined);
      const answer = questions.then(() => this.approved(call, tool!, context));
      questions = answer;
      return answer;
    });
    let queue: Promise<unknown> = Promise.resolve();
    const pending = calls.map((call, i) => {
      const modelId = repeated.get(i);
      if (modelId !== undefined) {
        const text = `The model gave call id ${JSON.stringify(modelId)} to more than one tool call in one turn; this repeated call to tool "${call.name}" did not run (the first one did). Give each tool call its own id.`;
        return Promise.resolve(this.notRun(call, errorResult(ErrorCode.DuplicateCallId, text, `${call.name}: not run: call id ${JSON.stringify(modelId)} repeated in one turn (renamed ${call.id})`), context));
      }
      const run = (): Promise<ToolResult> =>
        answers[i]!.then((refusal) =>
          refusal === undefined
            ? this.toolset.invoke(call.name, call.arguments, context, this.toolTimeoutMs === false ? { callId: call.id } : { callId: call.id, defaultTimeoutMs: this.toolTimeoutMs })
            : this.refuse(call, refusal, context),
        );
      if (!runsAlone(tools[i])) return run();
      const next = queue.then(run);
      queue = next;
      return next;
    });
    return Promise.all(pending);
  }

  /**
   * Asks the approval callback; returns the refusal, or undefined when approved.
   * Not asked once the run is aborted or out of time, and a question still open
   * then is given up (the call is refused with `ABORTED`).
   */
  private async approved(call: ModelToolCall, tool: BaseTool, context: ExecutionContext): Promise<Refusal | undefined> {
    const aborted = (when: string): Refusal => ({ code: ErrorCode.Aborted, reason: `the run was stopped ${when}` });
    if (context.signal?.aborted) return aborted('before the approval question was asked');
    if (this.approve === undefined) return { code: ErrorCode.ApprovalDenied, reason: `tool "${tool.name}" needs approval and the agent has no approve callback (pass { approve } to new Agent)` };
    try {
      const decision: unknown = await untilAborted(Promise.resolve(this.approve({ tool, args: call.arguments, callId: call.id, context })), context.signal);
      // Only true approves: a truthy stand-in such as { approved: 'false' } refuses.
      const approved = typeof decision === 'object' && decision !== null ? (decision as { approved?: unknown }).approved : decision;
      if (approved === true) return undefined;
      if (approved === false) {
        const reason = (decision as { reason?: unknown }).reason;
        return { code: ErrorCode.ApprovalDenied, reason: typeof reason === 'string' ? reason : 'the user refused' };
      }
      const message = `the approval callback for tool "${tool.name}" returned ${describeError(decision).slice(0, 200)}, which is neither true, false nor { approved: boolean }; only true or { approved: true } approves`;
      context.record({ type: 'error', code: ErrorCode.ApprovalDenied, message, callId: call.id, tool: tool.name });
      return { code: ErrorCode.ApprovalDenied, reason: message };
    } catch (error) {
      if (context.signal?.aborted) return aborted('while waiting for the approval answer');
      const message = `the approval callback threw for tool "${tool.name}": ${describeError(error)}`;
      context.record({ type: 'error', code: ErrorCode.ApprovalDenied, message, callId: call.id, tool: tool.name });
      return { code: ErrorCode.ApprovalDenied, reason: message };
    }
  }

  private refuse(call: ModelToolCall, { code, reason }: Refusal, context: ExecutionContext): ToolResult {
    const result =
      code === ErrorCode.Aborted
        ? errorResult(code, `The call to tool "${call.name}" did not run: ${reason}.`, `${call.name}: not run: ${reason}`)
        : errorResult(
            code,
            `The call to tool "${call.name}" was not approved (${reason}). It did not run. Do not retry it with the same arguments; continue without it or ask the user.`,
            `${call.name}: approval denied: ${reason}`,
          );
    return this.notRun(call, result, context);
  }

  /** Records a call that did not run, with its result. */
  private notRun(call: ModelToolCall, result: ToolResult, context: ExecutionContext): ToolResult {
    const started = now();
    context.record({ type: 'tool_call', callId: call.id, tool: call.name, args: call.arguments, time: started });
    const ended = now();
    context.record({ type: 'tool_result', callId: call.id, tool: call.name, result, durationMs: ended - started, time: ended });
    return result;
  }
}

function checkLimit(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0 || (name === 'maxSteps' && !Number.isInteger(value))) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `Agent: \`${name}\` must be a positive ${name === 'maxSteps' ? 'integer' : 'number'}, got ${String(value)}`);
  }
}

function modelFailure(model: Model, step: number, error: unknown): AnytoolError {
  if (isAnytoolError(error) && error.code === ErrorCode.ModelFailed) return error;
  return new AnytoolError(ErrorCode.ModelFailed, `Agent: model ${model.name} failed on turn ${step}: ${describeError(error)}`, { cause: error });
}
