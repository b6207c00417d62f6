/**
 * An agent used as a tool (`agent.asTool`): the outer run's model calls it with a
 * task, and the agent runs it in a context of its own. What crosses the boundary,
 * and how:
 * - state: only the keys the tool declares (`state.read` copied in, `state.write`
 *   copied back), as any tool's context access;
 * - events: each of the inner run's events is recorded in the outer run as a
 *   `nested` event under the call; spans: the inner `invoke_agent` span is a child
 *   of the call's `execute_tool` span (the call's trace context);
 * - usage: reported to the outer agent's run (`takeNestedUsage`), which adds it to its own;
 * - pauses: an inner run that stops for an answer (`interrupted`) pauses the outer
 *   run with the inner item (its kind, reason and questions), the inner run's state
 *   kept in the outer item's `resume`; the outer resume runs the call again, and the
 *   call resumes the inner run with the answer.
 */
import {
  AnytoolError,
  ErrorCode,
  ExecutionContext,
  BaseTool,
  errorResult,
  type ContextAccess,
  type InterruptionAnswer,
  type JsonSchema,
  type RunEvent,
  type StandardSchemaV1,
  type ToolAnnotations,
} from '@anytool/core';
import { canPause, describeError, interrupt, takeOwnAnswer, unrestrictedContext } from '@anytool/core/internal';
import type { Agent, RunResult } from './agent.js';
import { addUsage, emptyUsage, type ModelMessage, type Usage } from './model.js';
import type { PendingItem, ResumeAnswer, RunState } from './run-state.js';

export interface AgentToolOptions<Args extends object = { task: string }> {
  /** The tool's name, as the outer model calls it. */
  name: string;
  /** What the agent does and when to call it, for the outer model. */
  description: string;
  /**
   * The JSON Schema (or a Standard Schema) of the call's arguments: `{ task: string }`
   * by default. With your own, give `input` too, unless it has a string `task`.
   */
  parameters?: JsonSchema | StandardSchemaV1;
  /** The inner run's input made from the call's arguments: `args.task` by default. */
  input?: (args: Args) => string | readonly ModelMessage[];
  /**
   * The outer run's `state` keys the inner run may see (`read`: copied into its
   * state when it starts) and give back (`write`: copied out when it ends). Nothing
   * else of the outer run's state reaches it.
   */
  state?: { read?: readonly string[]; write?: readonly string[] };
  /** What the call returns, from the inner run's result: its text by default. */
  output?: (result: RunResult) => unknown;
  /** Turns of each inner run (the agent's `maxSteps` by default). */
  maxSteps?: number;
  annotations?: ToolAnnotations;
  /** The outer agent asks its approval before each call. */
  requiresApproval?: boolean;
  /** Time limit of a call in milliseconds: the inner agent's own `timeoutMs` by default. */
  timeoutMs?: number;
}

/** The default arguments of an agent tool. */
const TASK_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: { task: { type: 'string', description: 'The task for the agent, with everything it needs to know: it sees nothing else of this conversation.' } },
  required: ['task'],
  additionalProperties: false,
};

/** The tag of what an agent tool keeps in its call's interruption: the inner run's state and the item the outer run asks about. */
const NESTED = 'anytool.agent-tool.v1';

interface NestedPause {
  format: typeof NESTED;
  /** The inner agent's tool name: a pause is resumed by the tool that made it. */
  tool: string;
  state: RunState;
  /** The inner item the outer item stands for. */
  item: Pick<PendingItem, 'id' | 'kind' | 'signature' | 'questions'>;
}

function isNestedPause(value: unknown, tool: string): value is NestedPause {
  return typeof value === 'object' && value !== null && (value as NestedPause).format === NESTED && (value as NestedPause).tool === tool;
}

/** The runs read as streams (`agent.stream`), keyed by their shared state: their agent tools stream too, so inner deltas reach the reader. */
const streamedRuns = new WeakSet<object>();

/** Marks the run as streamed (see `streamedRuns`). */
export function markStreamed(context: ExecutionContext): void {
  streamedRuns.add(unrestrictedContext(context).state);
}

/** Usage reported by nested runs of a run, keyed by its shared state as its other records are. */
const nestedUsage = new WeakMap<object, Usage>();

/** The tokens that agents used as tools spent in this run since the last take (zero when none). */
export function takeNestedUsage(context: ExecutionContext): Usage | undefined {
  const key = unrestrictedContext(context).state;
  const usage = nestedUsage.get(key);
  if (usage !== undefined) nestedUsage.delete(key);
  return usage;
}

function reportUsage(context: ExecutionContext, usage: Usage): void {
  const key = unrestrictedContext(context).state;
  addUsage(nestedUsage.get(key) ?? nestedUsage.set(key, emptyUsage()).get(key)!, usage);
}

/**
 * An `Agent` as one more `BaseTool` (made by `agent.asTool`). Each call runs the
 * agent on the task in a context of its own; see the module's header for what
 * crosses between the runs.
 */
export class AgentTool<Args extends object = { task: string }> extends BaseTool<Args> {
  private readonly input: (args: Args) => string | readonly ModelMessage[];
  private readonly output: ((result: RunResult) => unknown) | undefined;
  private readonly stateKeys: { read: readonly string[]; write: readonly string[] };
  private readonly maxSteps: number | undefined;

  constructor(
    readonly agent: Agent,
    options: AgentToolOptions<Args>,
  ) {
    if (typeof options !== 'object' || options === null || typeof options.name !== 'string' || typeof options.description !== 'string') {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `agent.asTool(): give the tool a \`name\` and a \`description\` (what the agent does, for the model that calls it), got ${describeError(options).slice(0, 80)}`,
      );
    }
    if (options.parameters !== undefined && options.input === undefined && !hasTaskString(options.parameters)) {
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `agent.asTool({ name: "${options.name}" }): \`parameters\` has no string \`task\`, so give \`input\`, a function making the agent's input from the arguments`,
      );
    }
    const read = [...(options.state?.read ?? [])];
    const write = [...(options.state?.write ?? [])];
    const access: ContextAccess = { events: 'record', state: { read, write } };
    super({
      name: options.name,
      description: options.description,
      parameters: options.parameters ?? TASK_PARAMETERS,
      context: access,
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
      ...(options.requiresApproval === undefined ? {} : { requiresApproval: options.requiresApproval }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    this.source = `agent ${agent.name ?? options.name}`;
    // The inner run ends at its own time limit: the outer agent's per-call limit does not cut it short.
    this.ownDeadline = agent.timeoutMs !== false;
    this.input = options.input ?? ((args) => (args as { task: string }).task);
    this.output = options.output;
    this.stateKeys = { read, write };
    this.maxSteps = options.maxSteps;
  }

  async execute(context: ExecutionContext, args: Args): Promise<unknown> {
    const callId = context.callId;
    const given = takeOwnAnswer(context, callId, (answer) => isNestedPause(answer.resume, this.name));
    const paused = given === undefined ? undefined : (given.resume as NestedPause);
    const inner = paused === undefined ? this.innerContext(context, undefined) : this.innerContext(context, paused.state.runId);
    const forward = inner.subscribe((event: RunEvent) => {
      context.record({ type: 'nested', callId: callId ?? '', tool: this.name, runId: inner.runId, event });
    });
    let result: RunResult;
    try {
      const options = { context: inner, ...(context.signal === undefined ? {} : { signal: context.signal }), ...this.limits() };
      if (streamedRuns.has(unrestrictedContext(context).state)) {
        // A streamed run's agent tools stream too: their deltas reach its reader as nested events.
        const events =
          paused === undefined ? this.agent.stream(this.inputOf(args), options) : this.agent.resumeStream(paused.state, answersFor(paused, given!), options);
        let last: RunResult | undefined;
        for await (const event of events) if (event.type === 'result') last = event.result;
        result = last!;
      } else {
        result =
          paused === undefined ? await this.agent.run(this.inputOf(args), options) : await this.agent.resume(paused.state, answersFor(paused, given!), options);
      }
    } finally {
      forward();
    }
    // A resumed run's usage starts from the paused run's: only what it spent since is new.
    reportUsage(context, paused === undefined ? result.usage : subtract(result.usage, paused.state.usage));
    for (const key of this.stateKeys.write) if (inner.state.has(key)) context.state.set(key, inner.state.get(key));
    if (result.stopReason === 'interrupted') return this.pause(context, result);
    if (result.stopReason === 'timeout' || result.stopReason === 'aborted') {
      const code = result.stopReason === 'timeout' ? ErrorCode.Timeout : ErrorCode.Aborted;
      return errorResult(code, `The agent "${this.name}" stopped before answering (${result.stopReason}, after ${result.steps} turn(s)).`);
    }
    return this.output === undefined ? result.text : this.output(result);
  }

  /** The inner run's context: a fresh run (or the paused one's id) in the call's trace, with the declared state keys. */
  private innerContext(context: ExecutionContext, runId: string | undefined): ExecutionContext {
    const state = new Map<string, unknown>();
    for (const key of this.stateKeys.read) if (context.state.has(key)) state.set(key, context.state.get(key));
    return new ExecutionContext({ state, ...(runId === undefined ? {} : { runId }), ...(context.trace === undefined ? {} : { trace: context.trace }) });
  }

  private limits(): { maxSteps?: number } {
    return this.maxSteps === undefined ? {} : { maxSteps: this.maxSteps };
  }

  private inputOf(args: Args): string | readonly ModelMessage[] {
    const input = this.input(args);
    if (typeof input === 'string' || Array.isArray(input)) return input;
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `agent tool "${this.name}": \`input\` must return the agent's input (a string or messages), got ${describeError(input).slice(0, 60)}`,
    );
  }

  /**
   * The inner run waits for an answer: the outer run pauses with its first item
   * (the others are asked when the inner run resumes and asks again). A run that
   * cannot pause ends the call with the item's pending result.
   */
  private pause(context: ExecutionContext, result: RunResult): unknown {
    const item = result.interruptions![0]!;
    const kept: NestedPause = {
      format: NESTED,
      tool: this.name,
      state: result.state!,
      item: {
        id: item.id,
        kind: item.kind,
        ...(item.signature === undefined ? {} : { signature: item.signature }),
        ...(item.questions === undefined ? {} : { questions: item.questions }),
      },
    };
    const reason = `the agent "${this.name}" waits: ${item.reason} (its call to "${item.tool}" with ${JSON.stringify(item.args).slice(0, 300)})`;
    if (!canPause(context)) {
      return interrupt(context, { kind: item.kind, callId: context.callId ?? '', tool: this.name, reason: `${reason}; this run cannot pause for it` });
    }
    return interrupt(context, {
      kind: item.kind,
      callId: context.callId ?? '',
      tool: this.name,
      reason,
      ...(item.approval === undefined ? {} : { approval: { kind: item.approval.kind } }),
      ...(item.questions === undefined ? {} : { questions: item.questions }),
      resume: kept,
    });
  }
}

/** The inner run's answers from the outer one: the outer item's answer given to the inner item it stands for. */
function answersFor(paused: NestedPause, given: InterruptionAnswer): Record<string, ResumeAnswer> {
  const { item } = paused;
  const bound = item.signature === undefined ? {} : { signature: item.signature };
  if (given.kind === 'approval') return { [item.id]: { approved: given.approved, ...(given.reason === undefined ? {} : { reason: given.reason }), ...bound } };
  if (given.kind === 'result') return { [item.id]: { result: given.result, ...bound } };
  if (given.kind === 'input') {
    const keys = Object.keys(item.questions ?? {});
    // One question takes the value itself; several take the values by key.
    return { [item.id]: { input: keys.length <= 1 ? given.inputs[keys[0] ?? 'input-1'] : given.inputs, ...bound } };
  }
  // Left unanswered: the inner run is resumed without an answer, and asks again.
  return {};
}

function subtract(total: Usage, before: Usage): Usage {
  return {
    inputTokens: total.inputTokens - before.inputTokens,
    outputTokens: total.outputTokens - before.outputTokens,
    totalTokens: total.totalTokens - before.totalTokens,
  };
}

function hasTaskString(parameters: JsonSchema | StandardSchemaV1): boolean {
  const properties = (parameters as { properties?: Record<string, { type?: unknown }> }).properties;
  return properties?.['task']?.type === 'string';
}
