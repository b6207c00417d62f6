import { AnytoolError, ErrorCode, type ExecutionContext, type ToolDefinition } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { ModelMessage, ToolChoice } from './model.js';
import type { StepResult } from './stop-condition.js';

/** What `prepareStep` is told before a model turn. */
export interface PrepareStepOptions {
  /** The turn about to be taken, from 1. */
  step: number;
  /** The turns taken so far, the latest last. */
  steps: readonly StepResult[];
  /** The conversation the turn would send. */
  messages: readonly ModelMessage[];
  /** The definitions the turn would offer (the tools loaded so far, a pinned tool as approved). */
  tools: readonly ToolDefinition[];
  /** The run's context (its state, events and signal). */
  context: ExecutionContext;
}

/** What `prepareStep` may change for one turn; anything left out stays as it was. */
export interface StepSettings {
  /** The names of the tools offered this turn, of those in `tools`; the others are not shown. */
  activeTools?: readonly string[];
  /** Whether and which tool the model must call this turn; the provider's default (`auto`) when left out. */
  toolChoice?: ToolChoice;
  /** The messages sent this turn instead of the conversation; the run's conversation is not changed. */
  messages?: readonly ModelMessage[];
}

/**
 * Called before each model turn: returns what to change for that turn only
 * (the next turn starts from the agent's settings again), or nothing.
 */
export type PrepareStep = (options: PrepareStepOptions) => StepSettings | undefined | PromiseLike<StepSettings | undefined>;

/** One turn's request parts once `prepareStep` had its say. */
export interface PreparedStep {
  messages: readonly ModelMessage[];
  tools: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
}

const CHOICES = new Set(['auto', 'required', 'none']);

/** Runs `prepareStep` for one turn and checks what it returned. */
export async function prepareStep(hook: PrepareStep, options: PrepareStepOptions): Promise<PreparedStep> {
  let settings: StepSettings | undefined;
  try {
    settings = await hook(options);
  } catch (error) {
    throw new AnytoolError(
      ErrorCode.MiddlewareFailed,
      `Agent: \`prepareStep\` threw before turn ${options.step}: ${describeError(error)}; the run stopped. Fix the hook (it is your code).`,
      { cause: error },
    );
  }
  const prepared: PreparedStep = { messages: options.messages, tools: options.tools };
  if (settings === undefined || settings === null) return prepared;
  const bad = (what: string): AnytoolError => new AnytoolError(ErrorCode.InvalidOptions, `Agent: \`prepareStep\` for turn ${options.step}: ${what}`);
  if (typeof settings !== 'object') throw bad(`must return an object ({ activeTools, toolChoice, messages }) or nothing, got ${typeof settings}`);
  if (settings.activeTools !== undefined) prepared.tools = activeTools(settings.activeTools, options.tools, bad);
  if (settings.messages !== undefined) {
    if (!Array.isArray(settings.messages)) throw bad('`messages` must be an array of messages');
    prepared.messages = settings.messages;
  }
  if (settings.toolChoice !== undefined) prepared.toolChoice = toolChoice(settings.toolChoice, prepared.tools, bad);
  return prepared;
}

function activeTools(names: unknown, tools: readonly ToolDefinition[], bad: (what: string) => AnytoolError): ToolDefinition[] {
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) throw bad('`activeTools` must be an array of tool names');
  const wanted = new Set(names as string[]);
  const active = tools.filter((definition) => wanted.has(definition.name));
  if (active.length < wanted.size) {
    const offered = new Set(tools.map((definition) => definition.name));
    const unknown = [...wanted].filter((name) => !offered.has(name));
    throw bad(
      `\`activeTools\` names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, which this turn does not offer; it offers ${[...offered].join(', ') || 'no tools'}`,
    );
  }
  return active;
}

/** Checks the shape of a tool choice given as an option (`where` names it); the tools it names are checked on each turn. */
export function checkToolChoice(choice: unknown, where: string): ToolChoice {
  const name = (choice as { name?: unknown } | null)?.name;
  if ((typeof choice === 'string' && CHOICES.has(choice)) || (typeof choice === 'object' && typeof name === 'string')) {
    return typeof choice === 'string' ? (choice as ToolChoice) : { name: name as string };
  }
  throw new AnytoolError(ErrorCode.InvalidOptions, `${where} must be 'auto', 'required', 'none' or { name }, got ${JSON.stringify(choice) ?? String(choice)}`);
}

/** The run's tool choice checked against the tools a turn offers (`step`: the turn, for the error). */
export function turnToolChoice(choice: ToolChoice, tools: readonly ToolDefinition[], step: number): ToolChoice {
  return toolChoice(choice, tools, (what) => new AnytoolError(ErrorCode.InvalidOptions, `Agent: the run's \`toolChoice\` for turn ${step}: ${what}`));
}

function toolChoice(choice: unknown, tools: readonly ToolDefinition[], bad: (what: string) => AnytoolError): ToolChoice {
  if (typeof choice === 'string') {
    if (!CHOICES.has(choice)) throw bad(`\`toolChoice\` must be 'auto', 'required', 'none' or { name }, got ${JSON.stringify(choice)}`);
    if (choice === 'required' && tools.length === 0) throw bad("`toolChoice: 'required'` needs a tool to call, and this turn offers none");
    return choice as ToolChoice;
  }
  const name = (choice as { name?: unknown } | null)?.name;
  if (typeof name !== 'string') throw bad(`\`toolChoice\` must be 'auto', 'required', 'none' or { name }, got ${JSON.stringify(choice) ?? String(choice)}`);
  const definition = tools.find((offered) => offered.name === name);
  if (definition === undefined) {
    throw bad(`\`toolChoice\` names the tool ${JSON.stringify(name)}, which this turn does not offer; offer it (\`activeTools\`) or pick another`);
  }
  if (definition.builtin !== undefined) {
    throw bad(`\`toolChoice\` names ${JSON.stringify(name)}, a provider's built-in tool; { name } takes a tool the agent runs (or use 'required')`);
  }
  return { name };
}
