import {
  AnytoolError,
  ErrorCode,
  ExecutionContext,
  Pipeline,
  ToolOutputStore,
  ToolPins,
  Toolset,
  approval,
  askApproval,
  errorResult,
  extractTraceContext,
  isAnytoolError,
  isToolset,
  resultText,
  toolSearchTool,
  tracing,
  type ApprovalCallback,
  type BaseTool,
  type ApprovalPolicy,
  type ToolDefinition,
  type RunEvent,
  type TextDeltaEvent,
  type Middleware,
  type OutputBudgetOptions,
  type ToolResult,
  type ToolSearchOptions,
  type ToolSource,
  type TracingOptions,
} from '@anytool/core';
import { randomUUID } from 'node:crypto';
import { allowPausing, canonicalJson, describeError, giveAnswers, needOpenTelemetry, now, providersGiven, takeInterruptions } from '@anytool/core/internal';
import { untilAborted } from './abort.js';
import { callOrder } from './call-order.js';
import { AgentCodeMode, type CodeModeOptions } from './code-mode.js';
import {
  addUsage,
  emptyUsage,
  type AssistantMessage,
  type BuiltinApproval,
  type BuiltinApprovalRequest,
  type Model,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelSettings,
  type ModelToolCall,
  type ToolChoice,
  type ToolMessage,
  type Usage,
} from './model.js';
import { Budgets, RunUsage, checkBudget, type BudgetStopReason, type RunBudget, type TurnUsage } from './budgets.js';
import { runOutput, type OutputSchema, type RunOutput } from './output.js';
import { checkToolChoice, prepareStep, turnToolChoice, type PrepareStep } from './prepare-step.js';
import {
  alreadyResumed,
  checkStateSignature,
  checkTools,
  checkTurn,
  lastAssistantText,
  pausedState,
  pendingCalls,
  readAnswers,
  resumedContext,
  resumedPauses,
  resumedTurn,
  saveOrThrow,
  stepsOf,
  type PausedTurn,
  type Resumption,
} from './pausing.js';
import { AgentTool, markStreamed, takeNestedUsage, type AgentToolOptions } from './agent-tool.js';
import { jsonSafeMessage, userText } from './models/user-parts.js';
import { RunOutputs } from './run-outputs.js';
import { noteDroppedExamples } from './tool-examples.js';
import { checkRunState, type PendingItem, type ResumeAnswers, type RunState } from './run-state.js';
import type { RunStore } from './run-store.js';
import { RunStream } from './run-stream.js';
import { RunTelemetry } from './telemetry.js';
import { StopConditions, type StepResult, type StopCondition } from './stop-condition.js';
import { LoadedTools } from './tool-loading.js';

// The approval types live with the approval middleware in core; the agent's API keeps its names.
export type { ApprovalCallback, ApprovalDecision, ApprovalRequest } from '@anytool/core';

export interface AgentOptions<Output = unknown> {
  model: Model;
  /** Anything a `Toolset` takes (tools, arrays, `@Tool` class instances, MCP toolsets), or a `Toolset`. */
  tools?: ToolSource;
  /** The system prompt. */
  instructions?: string;
  /** Model turns per run (each turn's tool calls included); 10 by default. */
  maxSteps?: number;
  /**
   * Ends the run after a turn whose tool calls ran, when any of these holds
   * (`stepCountIs(3)`, `hasToolCall('answer')`, your own function of the turns so
   * far); the run says `stop_condition`. `maxSteps` still applies.
   */
  stopWhen?: StopCondition | readonly StopCondition[];
  /**
   * Called before each model turn with the turn's number, the turns so far, the
   * messages and the tools it would send: may return, for that turn only, the
   * tools to offer (`activeTools`), a `toolChoice`, or other `messages`.
   */
  prepareStep?: PrepareStep;
  /**
   * Wall-clock limit of a run in milliseconds: 3 600 000 (an hour) by default,
   * `false` for none. When it runs out the run stops with `stopReason: 'timeout'`
   * (and a `TIMEOUT` error event): the model request in flight is cancelled and
   * running tools end with `ABORTED` results.
   */
  timeoutMs?: number | false;
  /**
   * Time limit of each tool call in milliseconds, for tools without a `timeoutMs`
   * of their own (MCP tools included: progress restarts their request timeout, not
   * this one): 60 000 by default, `false` for none. A call that runs longer ends
   * with a `TIMEOUT` result and the run goes on.
   */
  toolTimeoutMs?: number | false;
  /**
   * Asked before running a tool that needs approval: one with `requiresApproval`,
   * or one whose annotations say destructive (as MCP servers mark them), and each
   * call of a remote MCP server that OpenAI holds for approval
   * (`builtin.openai.mcp({ ..., require_approval: 'always' })`). With no callback
   * such calls are refused. `'pause'` (or a callback answering `'pause'`): the run
   * stops with `stopReason: 'interrupted'` and the calls waiting for an answer in
   * `interruptions`; `resume` goes on once a person answered, in any process.
   */
  approve?: ApprovalCallback | 'pause';
  /**
   * Signs each pending item of a paused run (HMAC-SHA256 over the run, the item,
   * the call, the tool and the arguments): `resume` then takes only answers that
   * carry their item's `signature`, so an answer sent through a browser cannot be
   * turned into an answer for another call. Keep it on the server.
   */
  signingSecret?: string | Uint8Array;
  /**
   * Where paused runs are saved (`MemoryRunStore`, `RedisRunStore`, your own): a
   * paused run's state is saved under its run id, and `resume(runId, answers)`
   * takes it back once, whichever process asks. A save that fails rejects the
   * run with the store's error, which carries the run's `state` to keep some other way.
   */
  store?: RunStore;
  /**
   * Decides each call from its validated arguments before the default rule:
   * `'allow'`, `'ask'` (the `approve` callback), `'deny'`, or undefined for the
   * default. See `ApprovalOptions.policy`.
   */
  policy?: ApprovalPolicy;
  /**
   * The approved definitions of MCP tools: a call whose tool's definition changed
   * since is refused (`TOOL_DEFINITION_CHANGED`) until `approve` accepts the change.
   * A fresh set by default, kept for every run of this agent; pass one read with
   * `ToolPins.fromJSON` to keep approvals across processes, or `false` for none.
   */
  pins?: ToolPins | false;
  /** Sent with every model request. */
  settings?: ModelSettings;
  /** The agent's name in traces (`gen_ai.agent.name`). */
  name?: string;
  /**
   * OpenTelemetry spans and metrics of each run, following the GenAI semantic
   * conventions: an `invoke_agent` span, a `chat {model}` span a model turn and an
   * `execute_tool {tool}` span a tool call, sent to the registered SDK. `true`, or
   * options (content capture, providers). Off by default.
   */
  tracing?: boolean | TracingOptions;
  /**
   * Middleware the agent runs around each of its tool calls, outside the
   * toolset's own (after tracing, before the agent's approval and call order).
   */
  middleware?: readonly Middleware[];
  /**
   * The portable tool search over the toolset's deferred tools (`toolset.defer(...)`),
   * used with models that have no tool search of their own: its name, the most
   * tools one search loads, and your own `ranker` (keyword ranking by default).
   */
  toolSearch?: ToolSearchOptions;
  /**
   * The budget of each tool result the model reads: `{ maxTokens: 20_000 }` by
   * default (a token estimated as 4 characters), `false` for none. A larger
   * result reaches the model as its head and tail with a note and a handle;
   * the agent then offers `read_tool_output` (after the other tools) to page
   * through the rest, kept until the run ends. A toolset's, source's or tool's
   * own `outputBudget` (an MCP server's size hint among them) decides first.
   */
  outputBudget?: OutputBudgetOptions | false;
  /**
   * Code mode: the model gets one tool, `run_code`, whose description holds the
   * tools' TypeScript API, and writes a program that calls them in a sandbox
   * (QuickJS; see "Code mode"). Each of the program's calls goes through this
   * agent's approval, middleware and toolset as a direct call does. `true`, or the
   * limits of a program and `beside: true` to offer the tools one by one as well.
   * `'native'` (or `native: true`): programs run in the provider's own code
   * execution where the model can (Anthropic's programmatic tool calling), their
   * calls coming back to this agent as calls from the program; the portable runner
   * with every other model.
   */
  codeMode?: boolean | 'native' | CodeModeOptions;
  /**
   * The final answer's schema: a JSON Schema, a Standard Schema (zod, valibot,
   * arktype) or `schemaOf<T>()`. Each adapter sends it as its provider's structured
   * output; the answer is parsed and validated (`result.output`), and an answer
   * that does not match gets one repair turn with the problems before the run
   * fails with `OUTPUT_INVALID`.
   */
  output?: OutputSchema<Output>;
  /**
   * Whether and which tool the model must call, for every run: `auto`, `required`,
   * `none` or `{ name }`. `required` and `{ name }` hold until the model called a
   * tool, then the turns go on with `auto` (else the run could never answer);
   * `prepareStep` decides per turn and wins.
   */
  toolChoice?: ToolChoice;
  /** What each run may spend: tokens in, out and in total, and tool calls; each reached one stops the run with its stop reason. */
  budget?: RunBudget;
}

export interface RunOptions {
  /** The run's context: its state and events. A fresh one by default. */
  context?: ExecutionContext;
  /** Aborts the run: the model call in flight and the tools running stop. */
  signal?: AbortSignal;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number;
  /** Overrides the agent's `timeoutMs` for this run (`false`: no limit). */
  timeoutMs?: number | false;
  /** Overrides the agent's `toolChoice` for this run. */
  toolChoice?: ToolChoice;
  /** Overrides the agent's `budget` for this run (each limit given replaces the agent's). */
  budget?: RunBudget;
}

/** Why a run ended; `interrupted`: it paused for the answers its `interruptions` ask for. */
export type StopReason = 'final_answer' | 'max_steps' | 'stop_condition' | 'timeout' | 'aborted' | 'interrupted' | BudgetStopReason;

export interface RunResult<Output = unknown> {
  /** The model's last text: the answer when `stopReason` is `final_answer`. */
  text: string;
  /** With the agent's `output` and `stopReason: 'final_answer'`: the answer, parsed and validated. */
  output?: Output;
  stopReason: StopReason;
  /** Model turns taken. */
  steps: number;
  /** Tokens used by every model call of the run. */
  usage: Usage;
  /** The same tokens by model (its `name`), for the turns this process ran. */
  usageByModel: Record<string, Usage>;
  /** The tokens of each model turn this process ran, in order. */
  turns: TurnUsage[];
  /** The whole conversation, to continue it with `agent.run(messages)`. */
  messages: ModelMessage[];
  /** The run's context; `context.events` tells the story in order (its last 10,000 events by default: see `keepEvents`). */
  context: ExecutionContext;
  /** With `interrupted`: what the run waits for, each with what to show a person and how to answer it. */
  interruptions?: PendingItem[];
  /** With `interrupted`: the paused run as JSON-safe data, for `resume` (saved in the agent's `store` too, when it has one). */
  state?: RunState;
}

/**
 * What `agent.stream` yields, in order: each turn's deltas, the tool results, then
 * the run's result. A delta is the very event recorded in `context.events`
 * (`time`: when the chunk carrying it was read).
 */
export type AgentStreamEvent<Output = unknown> =
  | { type: 'text_delta'; step: number; text: string; time: number }
  | { type: 'tool_call_start'; step: number; callId: string; name: string }
  | { type: 'tool_call_delta'; step: number; callId: string; delta: string; time: number }
  | { type: 'tool_result'; callId: string; tool: string; result: ToolResult }
  | { type: 'nested'; callId: string; tool: string; runId: string; event: RunEvent }
  | { type: 'result'; result: RunResult<Output> };

/** The default of `toolTimeoutMs`. */
const TOOL_TIMEOUT_MS = 60_000;
/** The default of `timeoutMs`: no run should outlive it by accident, however slow its model and tools. */
const RUN_TIMEOUT_MS = 3_600_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The call ids of the assistant messages of a conversation. */
function callIdsOf(messages: readonly ModelMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) ids.add(call.id);
  return ids;
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
export class Agent<Output = unknown> {
  readonly model: Model;
  readonly toolset: Toolset;
  readonly instructions: string | undefined;
  readonly maxSteps: number;
  /** Wall-clock limit of each run in milliseconds, or false for none. */
  readonly timeoutMs: number | false;
  /** Time limit of each tool call without its own `timeoutMs`, or false for none. */
  readonly toolTimeoutMs: number | false;
  readonly name: string | undefined;
  private readonly settings: ModelSettings | undefined;
  /** `maxSteps` and `stopWhen`: what ends a run between turns. */
  private readonly stopWhen: StopConditions;
  private readonly prepareStep: PrepareStep | undefined;
  private readonly tracing: TracingOptions | undefined;
  /** The agent's middleware in front of the toolset: tracing, the caller's, call order, approval. */
  private readonly calls: Pipeline;
  /** Per run (keyed by its shared state): the current turn's calls that repeated an id, by their new id. */
  private readonly repeated = new WeakMap<object, ReadonlyMap<string, string>>();
  private readonly approve: ApprovalCallback | 'pause' | undefined;
  private readonly signingSecret: string | Uint8Array | undefined;
  /** Where paused runs are saved; undefined when the application keeps states itself. */
  readonly store: RunStore | undefined;
  private readonly toolSearch: ToolSearchOptions | undefined;
  /** The portable search tool over the toolset's deferred tools, and a toolset holding just it; made when first needed. */
  private search: { tool: BaseTool; toolset: Toolset } | undefined;
  /** The budget and the output reader in front of the toolset. */
  private readonly outputs: RunOutputs;
  /** The approved definitions of remote tools (see `AgentOptions.pins`); undefined when pinning is off. */
  readonly pins: ToolPins | undefined;
  /** Code mode's runner and tool list; undefined without code mode. */
  private readonly codeMode: AgentCodeMode | undefined;
  /** The toolset and the runner, in code mode: what a pause digests and a resume checks. */
  private readonly codeToolset: Toolset | undefined;
  /** The final answer's schema and its check; undefined for a text answer. */
  private readonly output: RunOutput<Output> | undefined;
  private readonly toolChoice: ToolChoice | undefined;
  private readonly budget: RunBudget | undefined;
  private readonly budgets = new Budgets();

  constructor(options: AgentOptions<Output>) {
    if (typeof options?.model?.generate !== 'function') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        'new Agent(): `model` must be a Model (an object with generate(request)); use OpenAIModel, AnthropicModel or ScriptedModel',
      );
    }
    const maxSteps = options.maxSteps ?? 10;
    checkLimit('maxSteps', maxSteps);
    const timeoutMs = options.timeoutMs ?? RUN_TIMEOUT_MS;
    checkRunTimeout(timeoutMs);
    const toolTimeoutMs = options.toolTimeoutMs ?? TOOL_TIMEOUT_MS;
    if (toolTimeoutMs !== false && !(Number.isInteger(toolTimeoutMs) && toolTimeoutMs >= 1 && toolTimeoutMs <= MAX_TIMEOUT_MS)) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `Agent: \`toolTimeoutMs\` must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or false for none; got ${String(toolTimeoutMs)}`,
      );
    }
    this.toolTimeoutMs = toolTimeoutMs;
    this.stopWhen = new StopConditions(options.stopWhen);
    if (options.prepareStep !== undefined && typeof options.prepareStep !== 'function') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `Agent: \`prepareStep\` must be a function called before each model turn, got ${typeof options.prepareStep}`,
      );
    }
    this.prepareStep = options.prepareStep;
    this.output = options.output === undefined ? undefined : runOutput(options.output);
    this.toolChoice = options.toolChoice === undefined ? undefined : checkToolChoice(options.toolChoice, 'Agent: `toolChoice`');
    this.budget = checkBudget(options.budget, 'Agent');
    this.model = options.model;
    this.toolset = isToolset(options.tools) ? options.tools : new Toolset(...(options.tools === undefined ? [] : [options.tools]));
    this.toolSearch = options.toolSearch;
    // Checked now: a bad option is the developer's error, not a run's.
    if (this.toolSearch !== undefined) this.searchTools();
    // The program's calls go through the agent's pipeline into its toolset, as the model's direct calls do.
    this.codeMode =
      options.codeMode === undefined || options.codeMode === false
        ? undefined
        : new AgentCodeMode(
            this.toolset,
            options.codeMode,
            (name, args, context, callOptions) =>
              this.calls.invoke(
                this.toolset,
                name,
                args,
                context,
                this.toolTimeoutMs === false ? callOptions : { ...callOptions, defaultTimeoutMs: this.toolTimeoutMs },
              ),
            // The API shows a pinned tool as approved, as the tool list does.
            (definitions) => this.shownTools(definitions),
          );
    this.codeToolset = this.codeMode === undefined ? undefined : new Toolset(this.toolset, this.codeMode.tool);
    this.outputs = new RunOutputs(this.codeToolset ?? this.toolset, options.outputBudget);
    this.instructions = options.instructions;
    this.maxSteps = maxSteps;
    this.timeoutMs = timeoutMs;
    this.settings = options.settings;
    this.name = options.name;
    this.tracing = options.tracing === true ? {} : options.tracing === false ? undefined : options.tracing;
    if (this.tracing !== undefined && providersGiven(this.tracing)) needOpenTelemetry('Agent: `tracing` with a tracer or meter provider');
    const approve = options.approve;
    if (approve !== undefined && approve !== 'pause' && typeof approve !== 'function') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `Agent: \`approve\` must be a function answering each approval question, or 'pause' to pause the run with the question; got ${describeError(approve).slice(0, 60)}`,
      );
    }
    this.approve = approve;
    const secret = options.signingSecret;
    if (secret !== undefined && !(typeof secret === 'string' ? secret.length >= 16 : secret instanceof Uint8Array && secret.length >= 16)) {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'Agent: `signingSecret` must be a string or bytes of at least 16 characters (use 32 random bytes)');
    }
    this.signingSecret = secret;
    if (options.store !== undefined && (typeof options.store?.save !== 'function' || typeof options.store.take !== 'function')) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        'Agent: `store` must be a RunStore (MemoryRunStore, RedisRunStore, or an object with save, load, take and delete)',
      );
    }
    this.store = options.store;
    const pins = options.pins === false ? false : (options.pins ?? new ToolPins());
    this.pins = pins === false ? undefined : pins;
    this.calls = new Pipeline(
      ...(this.tracing === undefined ? [] : [tracing(this.tracing)]),
      ...(options.middleware ?? []),
      this.budgets.middleware(),
      callOrder(this.repeated),
      approval({ ...(approve === undefined ? {} : { approve }), ...(options.policy === undefined ? {} : { policy: options.policy }), pins }),
    );
  }

  /**
   * This agent as one more tool of another agent (or of a toolset, or an MCP
   * server): the caller's model gives it a task (`{ task }`, or your own
   * `parameters` with `input`), and each call runs this agent on it in a context
   * of its own. Its events are recorded under the call (`nested` events), its
   * spans under the call's span, its tokens in the caller's usage; when it pauses
   * for an answer, the calling run pauses with the question, and its resume
   * resumes this one.
   *
   * @example
   * const researcher = new Agent({ model, tools: [search], name: 'researcher' });
   * const lead = new Agent({ model, tools: [researcher.asTool({ name: 'research', description: 'Researches a topic.' })] });
   */
  asTool<Args extends object = { task: string }>(options: AgentToolOptions<Args>): AgentTool<Args> {
    return new AgentTool<Args>(this, options);
  }

  /**
   * Runs the loop for one input: a user message, or a whole conversation (for
   * example `result.messages` of an earlier run plus a new user message).
   */
  run<T = Output>(input: string | readonly ModelMessage[], options: RunOptions = {}): Promise<RunResult<T>> {
    // `T` is the caller's word for what the output schema describes (a JSON Schema carries no type).
    return this.loop(input, options, undefined) as Promise<unknown> as Promise<RunResult<T>>;
  }

  /**
   * Runs the loop like `run`, yielding typed events as they happen: the model's
   * text and tool-call deltas (from a model with `stream`; others yield a turn's
   * text at once), each tool result (also in `context.events`), and the result
   * last. Leaving the loop early (`break`) or aborting `options.signal` aborts the
   * run and the request in flight. A failed model call throws `MODEL_FAILED` from
   * the iteration, as `run` rejects.
   *
   * @example
   * for await (const event of agent.stream('Weather in Oslo?')) if (event.type === 'text_delta') process.stdout.write(event.text);
   */
  stream(input: string | readonly ModelMessage[], options: RunOptions = {}): AsyncIterableIterator<AgentStreamEvent<Output>> {
    return this.streamed(options, (signal, stream, watch) =>
      this.loop(input, { ...options, context: watch(options.context ?? new ExecutionContext()), signal }, stream),
    );
  }

  /**
   * `resume`, yielding events as `stream` does: the resumed turn's tool results,
   * then each later turn's deltas and results, then the result. A resume that is
   * refused (a bad answer, a pause resumed already) throws from the iteration.
   */
  resumeStream(from: RunState | string, answers: ResumeAnswers = {}, options: RunOptions = {}): AsyncIterableIterator<AgentStreamEvent<Output>> {
    return this.streamed(options, async (signal, stream, watch) => {
      const resumed = await this.prepareResume(from, answers, options);
      const context = watch(options.context ?? resumedContext(resumed.state));
      return this.loop(undefined, { ...options, context, signal }, stream, resumed);
    });
  }

  /** A run as a stream of events: `start` runs it, after `watch` subscribes the stream to its context. */
  private streamed(
    options: RunOptions,
    start: (signal: AbortSignal, stream: RunStream, watch: (context: ExecutionContext) => ExecutionContext) => Promise<RunResult<Output>>,
  ): AsyncIterableIterator<AgentStreamEvent<Output>> {
    const stop = new AbortController();
    const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
    let unsubscribe = (): void => {};
    let running: Promise<void> = Promise.resolve();
    // Leaving early aborts the run, then waits for it to wind down.
    const stream = new RunStream(stop.signal, async () => {
      unsubscribe();
      stop.abort(new AnytoolError(ErrorCode.Aborted, 'the stream was closed by its reader'));
      stream.endTurn(stop.signal.reason);
      await running;
    });
    // Tool results reach the reader as they are recorded (a streamed turn's deltas are read from the model directly).
    const watch = (context: ExecutionContext): ExecutionContext => {
      markStreamed(context);
      unsubscribe = context.subscribe((event) => {
        if (event.type === 'tool_result') stream.queue.push({ type: 'tool_result', callId: event.callId, tool: event.tool, result: event.result });
        else if (event.type === 'nested') stream.queue.push({ type: 'nested', callId: event.callId, tool: event.tool, runId: event.runId, event: event.event });
      });
      return context;
    };
    running = start(signal, stream, watch).then(
      (result) => {
        unsubscribe();
        stream.queue.end({ type: 'result', result });
      },
      (error: unknown) => {
        unsubscribe();
        stream.queue.fail(error);
      },
    );
    // The stream's result events carry this agent's results: RunResult<Output>.
    return stream as AsyncIterableIterator<AgentStreamEvent> as AsyncIterableIterator<AgentStreamEvent<Output>>;
  }

  /**
   * Continues a paused run with the answers to its pending items (by item id), in
   * this process or any other with the same tools: approved calls run, refused
   * ones end with `APPROVAL_DENIED`, answered questions go back to their tool, a
   * result the application gives becomes its call's result; then the loop goes on.
   * An item left unanswered is asked again. `from` is the paused run's `state`, or
   * its run id when the agent has a `store`.
   *
   * A state is resumed once: with a store, `take` hands each pause to one caller;
   * without one, this process refuses a pause it resumed already. Either way a
   * second resume ends with `RUN_ALREADY_RESUMED` and runs nothing.
   *
   * @example
   * const paused = await agent.run('Delete the old reports');
   * // later, maybe elsewhere:
   * const done = await agent.resume(paused.state!, { [paused.interruptions![0]!.id]: { approved: true } });
   */
  async resume(from: RunState | string, answers: ResumeAnswers = {}, options: RunOptions = {}): Promise<RunResult<Output>> {
    return this.loop(undefined, options, undefined, await this.prepareResume(from, answers, options));
  }

  /** The checks of a resume, then the pause taken: what the loop goes on with. */
  private async prepareResume(from: RunState | string, answers: ResumeAnswers, options: RunOptions): Promise<Resumption> {
    // Everything that could refuse the resume is checked before the pause is taken: a refused resume leaves it as it was.
    checkLimit('maxSteps', options.maxSteps ?? this.maxSteps);
    checkRunTimeout(options.timeoutMs ?? this.timeoutMs);
    checkBudget(options.budget, 'Agent.resume()');
    if (options.toolChoice !== undefined) checkToolChoice(options.toolChoice, 'Agent.resume(): `toolChoice`');
    if (options.signal?.aborted === true) {
      throw new AnytoolError(ErrorCode.Aborted, 'Agent.resume(): the signal was aborted before the resume; the paused run was left as it was');
    }
    let state: RunState;
    if (typeof from === 'string') {
      if (this.store === undefined) {
        throw new AnytoolError(
          ErrorCode.InvalidOptions,
          `Agent.resume("${from.slice(0, 80)}"): resuming by run id needs the agent's \`store\`; pass the paused run's state instead`,
        );
      }
      const loaded = await this.store.load(from);
      if (loaded === undefined) throw alreadyResumed(from, 'the store holds no paused run of that id (it was resumed already, expired, or never paused)');
      state = checkRunState(loaded);
    } else {
      state = checkRunState(from);
      if (this.store !== undefined) {
        // The store's copy is the truth: a state given by hand must be the pause the store holds.
        const stored = await this.store.load(state.runId);
        if (stored === undefined) throw alreadyResumed(state.runId, 'the store holds no pause of it (it was resumed already, or expired)');
        if (canonicalJson(stored) !== canonicalJson(state)) {
          throw new AnytoolError(
            ErrorCode.RunStateInvalid,
            `Agent.resume(): the state given for run "${state.runId}" differs from the paused run the store holds (an older pause, or an edited copy); resume it by its run id`,
          );
        }
      }
    }
    if (options.context !== undefined && options.context.runId !== state.runId) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `Agent.resume(): the \`context\` given has run id "${options.context.runId}", but the paused run is "${state.runId}"; make it with new ExecutionContext({ runId: state.runId }), or leave it out`,
      );
    }
    if (this.signingSecret !== undefined) checkStateSignature(this.signingSecret, state);
    checkTurn(state);
    checkTools(this.codeToolset ?? this.toolset, state);
    const given = readAnswers(state, answers, this.signingSecret);
    if (this.store !== undefined) {
      const taken = await this.store.take(state.runId, state.pauseId);
      if (taken === undefined) throw alreadyResumed(state.runId, 'another resume took it from the store first');
    } else if (!resumedPauses.claim(state.pauseId)) {
      throw alreadyResumed(state.runId, 'this process resumed the same pause before');
    }
    return { state, ...given };
  }

  private async loop(
    input: string | readonly ModelMessage[] | undefined,
    options: RunOptions,
    stream: RunStream | undefined,
    resumed?: Resumption,
  ): Promise<RunResult<Output>> {
    const maxSteps = options.maxSteps ?? this.maxSteps;
    checkLimit('maxSteps', maxSteps);
    const budget = options.budget === undefined ? this.budget : { ...this.budget, ...checkBudget(options.budget, 'Agent.run()') };
    let toolChoice = options.toolChoice === undefined ? this.toolChoice : checkToolChoice(options.toolChoice, 'Agent.run(): `toolChoice`');
    // A run pauses on a turn with calls: a forcing choice was met before it paused.
    if (resumed !== undefined && toolChoice !== 'none') toolChoice = undefined;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    checkRunTimeout(timeoutMs);

    const deadline = timeoutMs === false ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [options.context?.signal, options.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
    const paused = resumed?.state;
    // A resumed run keeps its id and goes on in the trace it paused in.
    const trace = paused?.trace === undefined ? undefined : extractTraceContext(paused.trace);
    const context =
      options.context ??
      new ExecutionContext({
        ...(signal === undefined ? {} : { signal }),
        // Unique across processes: a run store keys paused runs by it.
        runId: paused?.runId ?? `run_${randomUUID()}`,
        ...(trace === undefined ? {} : { trace }),
      });
    allowPausing(context);
    const telemetry = this.tracing === undefined ? undefined : RunTelemetry.start(this.tracing, this.model, this.name, context.trace);
    let runContext = signal === undefined || signal === context.signal ? context : context.withSignal(signal);
    if (telemetry !== undefined) runContext = runContext.withTrace(telemetry.trace);

    const messages: ModelMessage[] =
      paused !== undefined ? [...paused.messages] : typeof input === 'string' ? [{ role: 'user', content: input }] : input!.map(jsonSafeMessage);
    const inputLength = paused?.inputLength ?? messages.length;
    // Every call id of the conversation: an id made up for a call never equals one of them.
    const usedIds = callIdsOf(messages);
    // Hosted calls the user approved: their call is recorded, their result comes in a later turn.
    const approved = new Set<string>();
    if (paused === undefined) {
      if (this.instructions !== undefined) context.record({ type: 'message', role: 'system', text: this.instructions });
      const last = messages[messages.length - 1];
      if (last?.role === 'user') context.record({ type: 'message', role: 'user', text: userText(last.content) });
    }

    const usage = paused === undefined ? emptyUsage() : { ...paused.usage };
    const runUsage = new RunUsage();
    // A resumed run counts the tool calls that ran before it paused (those of the paused turn too) against its budget.
    const ranBefore =
      paused === undefined
        ? 0
        : [...messages.slice(inputLength).flatMap((m) => (m.role === 'tool' ? [m.result] : [])), ...Object.values(paused.turn.results)].filter(
            (result) => result.error?.code !== ErrorCode.BudgetExceeded,
          ).length;
    this.budgets.open(context.state, budget, ranBefore);
    let output: Output | undefined;
    let repaired = false;
    let text = paused === undefined ? '' : lastAssistantText(messages);
    // The run's calls go through the agent's toolset with the output budget and reader, made for the run.
    const runToolset = this.outputs.open();
    if (paused?.outputs !== undefined) {
      const store = ToolOutputStore.of(context);
      for (const output of paused.outputs) store.restore(output);
    }
    const finish = (stopReason: StopReason, steps: number, errorType?: string, pause?: Pick<RunResult, 'interruptions' | 'state'>): RunResult<Output> => {
      telemetry?.end(usage, stopReason, steps, errorType);
      this.outputs.release(context, runToolset);
      const result: RunResult<Output> = { text, stopReason, steps, usage, usageByModel: runUsage.byModel, turns: runUsage.turns, messages, context, ...pause };
      if (output !== undefined) result.output = output;
      return result;
    };
    const interrupted = (steps: number): RunResult<Output> => {
      const timedOut = deadline?.aborted === true;
      const code = timedOut ? ErrorCode.Timeout : ErrorCode.Aborted;
      const why = timedOut
        ? `the run's time limit of ${timeoutMs} ms ran out`
        : `the run was aborted${signal?.reason === undefined ? '' : ` (${describeError(signal.reason)})`}`;
      context.record({ type: 'error', code, message: `Agent stopped after ${steps} model turn(s): ${why}` });
      return finish(timedOut ? 'timeout' : 'aborted', steps, code);
    };

    // A streamed run only its reader can stop: leaving the loop ends the turn itself, so a turn needs no race
    // against the signal (an abort listener costs a few µs; the client still aborts its request on the signal).
    const readerOnly = stream !== undefined && signal === stream.signal && this.model.stream !== undefined;
    const tools = this.runTools(runToolset, messages);
    const steps: StepResult[] = paused === undefined ? [] : stepsOf(messages, inputLength);
    // A hook of the developer's that failed (prepareStep, stopWhen) ends the run as a failed model call does.
    const failed = (failure: AnytoolError, taken: number): AnytoolError => {
      context.record({ type: 'error', code: failure.code, message: failure.message });
      telemetry?.end(usage, 'hook_failed', taken, failure.code);
      this.outputs.release(context, runToolset);
      return failure;
    };
    if (resumed !== undefined) giveAnswers(runContext, resumed.answers);
    const examplesNoted = new Set<string>();
    let step = paused?.steps ?? 1;
    const runToolChoice = (choice: ToolChoice, offered: readonly ToolDefinition[]): ToolChoice => {
      try {
        return turnToolChoice(choice, offered, step);
      } catch (error) {
        throw failed(error as AnytoolError, step - 1);
      }
    };
    for (; ; step++) {
      if (signal?.aborted) return interrupted(step - 1);
      let turn: PausedTurn;
      if (resumed !== undefined && step === paused!.steps) {
        // The paused turn: its model answer is in the messages, what is left of it is run now.
        turn = resumedTurn(resumed, messages);
        // Hosted calls left unanswered are asked again, as the resuming agent asks (its callback may answer now).
        if (turn.hostedPending.length > 0) {
          const asked = await this.answerApprovals(turn.hostedPending, runContext, approved);
          turn.assistant.approvals = [...(turn.assistant.approvals ?? []), ...asked.approvals];
          turn.hostedPending = asked.pending;
        }
      } else {
        // A tool whose definition changed since it was approved is shown as approved until the change is.
        const late = this.outputs.extraDefinitions(context);
        const offered = tools.definitions(late);
        const definitions = this.shownTools(this.codeMode === undefined ? offered : this.codeMode.definitions(offered, late, this.model));
        noteDroppedExamples(this.model, definitions, context, examplesNoted);
        let request: ModelRequest;
        if (this.prepareStep === undefined) {
          request = this.request(messages, definitions, signal);
          if (toolChoice !== undefined) request.toolChoice = runToolChoice(toolChoice, definitions);
        } else {
          let prepared;
          try {
            prepared = await prepareStep(this.prepareStep, { step, steps, messages, tools: definitions, context: runContext });
          } catch (error) {
            throw failed(error as AnytoolError, step - 1);
          }
          request = this.request(prepared.messages, prepared.tools, signal);
          if (prepared.toolChoice !== undefined) request.toolChoice = prepared.toolChoice;
          else if (toolChoice !== undefined) request.toolChoice = runToolChoice(toolChoice, prepared.tools);
          if (signal?.aborted) return interrupted(step - 1);
        }
        const chat = telemetry?.chat(request);
        let response: ModelResponse;
        try {
          const model = stream === undefined ? this.model.generate(request) : this.streamTurn(stream, request, step, context);
          // Raced against the run's signal: a model that ignores request.signal cannot outlive the time limit or an abort.
          response = await (readerOnly ? model : untilAborted(model, signal));
        } catch (error) {
          stream?.endTurn();
          if (signal?.aborted) {
            chat?.(undefined, deadline?.aborted === true ? ErrorCode.Timeout : ErrorCode.Aborted);
            return interrupted(step - 1);
          }
          const failure = modelFailure(this.model, step, error);
          chat?.(undefined, failure.code);
          context.record({ type: 'error', code: failure.code, message: failure.message });
          telemetry?.end(usage, 'model_failed', step - 1, failure.code);
          this.outputs.release(context, runToolset);
          throw failure;
        }
        chat?.(response);
        addUsage(usage, response.usage);
        runUsage.add(step, this.model.name, response.usage);
        text = response.text;
        const { calls, repeated } = this.callIds(response.toolCalls, usedIds, context);
        const assistant: AssistantMessage = { role: 'assistant', content: response.text };
        if (calls.length > 0) assistant.toolCalls = calls;
        if (response.providerItems !== undefined) assistant.providerItems = response.providerItems;
        messages.push(assistant);
        context.record({
          type: 'message',
          role: 'assistant',
          text: response.text,
          data: { step, model: this.model.name, toolCalls: calls, usage: response.usage, stopReason: response.stopReason },
        });
        recordBuiltinCalls(response, context, this.model.provider ?? this.model.name, approved);
        for (const diagnostic of response.diagnostics ?? []) context.diagnose({ ...diagnostic, source: this.model.name });
        const approvalRequests = response.approvalRequests ?? [];
        // A paused turn goes back as it is, and the provider goes on with it (a turn of its own).
        if (calls.length === 0 && approvalRequests.length === 0 && response.paused !== true) {
          if (this.output === undefined) return finish('final_answer', step);
          const checked = await this.output.check(response.text);
          if (checked.ok) {
            output = checked.value;
            return finish('final_answer', step);
          }
          // One repair turn, with what was wrong; a second miss (or no turn left for it) fails the run.
          if (repaired || step >= maxSteps) {
            const failure = this.output.failure(checked.problems, response.text, step);
            context.record({ type: 'error', code: failure.code, message: failure.message });
            telemetry?.end(usage, 'output_invalid', step, failure.code);
            this.outputs.release(context, runToolset);
            throw failure;
          }
          repaired = true;
          const repair = this.output.repairText(checked.problems);
          messages.push({ role: 'user', content: repair });
          context.record({ type: 'message', role: 'user', text: repair });
          steps.push({ step, response, toolCalls: [], toolResults: [] });
          continue;
        }
        // The run's `required` or `{ name }` is met once the model called a tool: later turns may answer.
        if (toolChoice !== undefined && toolChoice !== 'none' && calls.length > 0) toolChoice = undefined;
        turn = { response, assistant, calls, repeated, finished: new Map(), hostedPending: [] };
        if (approvalRequests.length > 0) {
          const answered = await this.answerApprovals(approvalRequests, runContext, approved);
          assistant.approvals = answered.approvals;
          turn.hostedPending = answered.pending;
        }
      }

      const { response, assistant, calls } = turn;
      const results = calls.length === 0 ? [] : await this.runTurn(turn, runContext, tools);
      // What agents called as tools spent is the run's too.
      const nested = takeNestedUsage(runContext);
      if (nested !== undefined) addUsage(usage, nested);
      const waiting = pendingCalls(calls, results, takeInterruptions(runContext));
      if (waiting.size > 0 || turn.hostedPending.length > 0) {
        const pause = pausedState(
          { toolset: this.codeToolset ?? this.toolset, name: this.name, signingSecret: this.signingSecret },
          {
            runId: context.runId,
            step,
            messages,
            inputLength,
            usage,
            turn,
            results,
            waiting,
            resumed,
            context: runContext,
            telemetry,
          },
        );
        const result = finish('interrupted', step, undefined, pause);
        if (this.store !== undefined) await saveOrThrow(this.store, pause.state!);
        return result;
      }
      const toolResults: ToolMessage[] = [];
      if (calls.length > 0) {
        tools.record(calls, results);
        calls.forEach((call, i) => {
          const message: ToolMessage = { role: 'tool', callId: call.id, name: call.name, result: results[i]! };
          messages.push(message);
          toolResults.push(message);
        });
      }
      if (assistant.approvals?.length === 0) delete assistant.approvals;
      if (signal?.aborted) return interrupted(step);
      steps.push({ step, response, toolCalls: calls, toolResults });
      let stop: StopReason | undefined;
      try {
        const spent = this.budgets.reached(context.state, budget, usage);
        if (spent !== undefined) {
          context.record({ type: 'error', code: ErrorCode.BudgetExceeded, message: Budgets.stopText(spent, budget!, usage, step) });
          return finish(spent, step, ErrorCode.BudgetExceeded);
        }
        stop = await this.stopWhen.check(steps, maxSteps);
      } catch (error) {
        throw failed(error as AnytoolError, step);
      }
      if (stop !== undefined) return finish(stop, step);
    }
  }

  /** Runs the calls of a turn not finished yet (all of a fresh turn's), and gives every call's result in the model's order. */
  private async runTurn(turn: PausedTurn, context: ExecutionContext, tools: LoadedTools): Promise<ToolResult[]> {
    const { calls, finished } = turn;
    if (finished.size === 0) return this.runCalls(calls, turn.repeated, context, tools);
    const left = calls.filter((call) => !finished.has(call.id));
    const ran = await this.runCalls(left, new Map(), context, tools);
    const byId = new Map(left.map((call, i) => [call.id, ran[i]!]));
    return calls.map((call) => finished.get(call.id) ?? byId.get(call.id)!);
  }

  /** One turn's request to the model. */
  private request(messages: readonly ModelMessage[], tools: readonly ToolDefinition[], signal: AbortSignal | undefined): ModelRequest {
    const request: ModelRequest = { messages, tools };
    if (this.instructions !== undefined) request.instructions = this.instructions;
    if (this.settings !== undefined) request.settings = this.settings;
    if (signal !== undefined) request.signal = signal;
    if (this.output !== undefined) request.output = this.output.format;
    const programmatic = this.codeMode?.programmatic(tools, this.model);
    if (programmatic !== undefined) request.programmatic = programmatic;
    return request;
  }

  /** The definitions as the model is shown them: a pinned tool's as approved, while a change to it waits for approval. */
  private shownTools(definitions: readonly ToolDefinition[]): readonly ToolDefinition[] {
    return this.pins === undefined ? definitions : this.pins.shown(definitions, (name) => this.toolset.get(name));
  }

  /**
   * The tool list of a run's turns: every tool, or, when the toolset defers some
   * and the model has no tool search of its own, the tools always loaded, the
   * search tool and the deferred tools the model loaded so far (see `LoadedTools`),
   * those of the conversation it continues first.
   */
  private runTools(calls: Toolset, messages: readonly ModelMessage[]): LoadedTools {
    const tools = new LoadedTools(this.toolset, calls, () => this.searchTools(), this.model.nativeToolSearch === true);
    tools.resume(messages);
    return tools;
  }

  private searchTools(): { tool: BaseTool; toolset: Toolset } {
    if (this.search !== undefined) return this.search;
    // The search shows what the model may see: a pinned tool as approved, not a change waiting for approval.
    const own = this.toolSearch?.show;
    const show = (definitions: readonly ToolDefinition[]) => {
      const shown = this.shownTools(definitions);
      return own === undefined ? shown : own(shown);
    };
    const searchTool = toolSearchTool(this.toolset, { ...this.toolSearch, show });
    return (this.search = { tool: searchTool, toolset: new Toolset(searchTool) });
  }

  /**
   * One model turn, streamed: the reader reads the model's stream and records its
   * deltas in `context` (a model without `stream` gives its text at once).
   */
  private async streamTurn(stream: RunStream, request: ModelRequest, step: number, context: ExecutionContext): Promise<ModelResponse> {
    if (this.model.stream === undefined) {
      const response = await this.model.generate(request);
      if (response.text !== '') stream.queue.push(context.record({ type: 'text_delta', step, text: response.text }) as TextDeltaEvent);
      for (const call of response.toolCalls) {
        context.record({ type: 'tool_call_start', step, callId: call.id, tool: call.name });
        stream.queue.push({ type: 'tool_call_start', step, callId: call.id, name: call.name });
      }
      return response;
    }
    return stream.streamTurn(this.model.stream(request)[Symbol.asyncIterator](), step, context, this.model.name);
  }

  /**
   * Asks the `approve` callback about each hosted call the provider holds for
   * approval, one at a time in the provider's order, by the rules local tools
   * follow (no callback refuses). Each is recorded as a `tool_call`; a refusal
   * also as its `tool_result`, an approved call's result comes with a later turn.
   */
  private async answerApprovals(
    requests: readonly BuiltinApprovalRequest[],
    context: ExecutionContext,
    approved: Set<string>,
  ): Promise<{ approvals: BuiltinApproval[]; pending: BuiltinApprovalRequest[] }> {
    const answers: BuiltinApproval[] = [];
    const pending: BuiltinApprovalRequest[] = [];
    for (const request of requests) {
      const started = now();
      context.record({ type: 'tool_call', callId: request.id, tool: request.name, args: request.arguments, time: started });
      const tool = this.toolset.get(request.name);
      const refusal =
        tool === undefined
          ? errorResult(
              ErrorCode.ApprovalDenied,
              `The call to "${request.name}" was not approved: the toolset has no tool of that name to ask about. It did not run.`,
            )
          : await askApproval({ tool, args: request.arguments, callId: request.id, context }, this.approve);
      if (refusal === undefined) {
        approved.add(request.id);
        answers.push({ id: request.id, approved: true });
        continue;
      }
      // No answer now: the run pauses, and the answer given on resume goes to the provider.
      if (refusal.error?.code === ErrorCode.ApprovalPending) {
        pending.push(request);
        continue;
      }
      const ended = now();
      context.record({ type: 'tool_result', callId: request.id, tool: request.name, result: refusal, durationMs: ended - started, time: ended });
      answers.push({ id: request.id, approved: false, reason: resultText(refusal) });
    }
    return { approvals: answers, pending };
  }

  /**
   * Gives every call of a turn its own id: a call without one gets a made-up id
   * no call of the conversation has, and so does a call repeating an id used
   * earlier in the same turn (`repeated` maps its index to the model's id; it is
   * not run).
   */
  private callIds(
    toolCalls: readonly ModelToolCall[],
    usedIds: Set<string>,
    context: ExecutionContext,
  ): { calls: ModelToolCall[]; repeated: Map<number, string> } {
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
   * Runs one turn's calls, all started at once in model order through the
   * agent's middleware (approval questions one at a time in that order, serial
   * calls one at a time, repeated ids refused) into the toolset.
   */
  private runCalls(
    calls: readonly ModelToolCall[],
    repeated: ReadonlyMap<number, string>,
    context: ExecutionContext,
    tools: LoadedTools,
  ): Promise<ToolResult[]> {
    const byId = new Map<string, string>();
    for (const [i, modelId] of repeated) byId.set(calls[i]!.id, modelId);
    this.repeated.set(context.state, byId);
    const limit = this.toolTimeoutMs;
    return Promise.all(
      calls.map((call) =>
        this.calls.invoke(
          // A program's call (in the provider's code execution) answers the program, not the model's context: no output budget.
          call.caller === undefined ? tools.toolsetFor(call.name) : this.toolset,
          call.name,
          call.arguments,
          context,
          limit === false ? { callId: call.id } : { callId: call.id, defaultTimeoutMs: limit },
        ),
      ),
    );
  }
}

/**
 * The provider ran these calls during the turn: they are recorded as any tool
 * call is, call then result, the result marked `ranBy` the provider and without
 * a duration (no provider reports one). A call approved on an earlier turn was
 * recorded then: only its result is added.
 */
function recordBuiltinCalls(response: ModelResponse, context: ExecutionContext, ranBy: string, approved: Set<string>): void {
  for (const call of response.builtinCalls ?? []) {
    if (!approved.delete(call.id)) context.record({ type: 'tool_call', callId: call.id, tool: call.name, args: call.arguments });
    context.record({ type: 'tool_result', callId: call.id, tool: call.name, result: call.result, ranBy });
  }
}

function checkRunTimeout(value: unknown): void {
  if (value === false || (typeof value === 'number' && value > 0 && value <= MAX_TIMEOUT_MS)) return;
  throw new AnytoolError(
    ErrorCode.InvalidOptions,
    `Agent: \`timeoutMs\` (the run's time limit) must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or false for none; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  );
}

function checkLimit(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0 || (name === 'maxSteps' && !Number.isInteger(value))) {
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `Agent: \`${name}\` must be a positive ${name === 'maxSteps' ? 'integer' : 'number'}, got ${String(value)}`,
    );
  }
}

function modelFailure(model: Model, step: number, error: unknown): AnytoolError {
  // A request the adapter refused to send (UNSUPPORTED_BY_MODEL) keeps its code: the fix is in the request, not the provider.
  if (isAnytoolError(error) && (error.code === ErrorCode.ModelFailed || error.code === ErrorCode.UnsupportedByModel)) return error;
  return new AnytoolError(ErrorCode.ModelFailed, `Agent: model ${model.name} failed on turn ${step}: ${describeError(error)}`, { cause: error });
}
