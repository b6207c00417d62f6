import { AnytoolError, ErrorCode } from '@anytool/core';
import { untilAborted } from '../abort.js';
import type { BuiltinToolCall, Model, ModelRequest, ModelResponse, ModelStopReason, ToolMessage, Usage } from '../model.js';

/** A tool call in a script; the id is made up when left out. */
export interface ScriptedToolCall {
  name: string;
  /** An object, or a raw string exactly as a provider would send it (it need not be valid JSON). */
  arguments?: unknown;
  id?: string;
}

/** One model turn in a script. */
export interface ScriptedTurn {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Partial<Usage>;
  stopReason?: ModelStopReason;
  /** Calls of a provider's built-in tool that the provider ran in this turn, with their results (as a real adapter reports them). */
  builtinCalls?: BuiltinToolCall[];
}

/** A turn, or a function that makes the turn from the request (to answer from earlier tool results). */
export type ScriptStep = ScriptedTurn | ((request: ModelRequest, turn: number) => ScriptedTurn | Promise<ScriptedTurn>);

export interface ScriptedModelOptions {
  name?: string;
  /** Usage reported for a turn that gives none: 10 input and 5 output tokens by default. */
  usage?: Partial<Usage>;
}

/**
 * A model that replays a given sequence of turns: for tests and offline
 * demos. Every request it receives is kept in `requests`. Asking for more
 * turns than the script has fails like a model would, with `MODEL_FAILED`.
 *
 * @example
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
 *   (request) => ({ text: `The sum is ${resultText(latestToolResults(request)[0]!.result)}.` }),
 * ]);
 */
export class ScriptedModel implements Model {
  readonly name: string;
  /** Every request received, in order. */
  readonly requests: ModelRequest[] = [];
  private readonly script: readonly ScriptStep[];
  private readonly usage: Partial<Usage>;

  constructor(script: readonly ScriptStep[], options: ScriptedModelOptions = {}) {
    if (!Array.isArray(script)) throw new AnytoolError(ErrorCode.InvalidOptions, 'new ScriptedModel(script): `script` must be an array of turns');
    this.script = script;
    this.name = options.name ?? 'scripted';
    this.usage = options.usage ?? { inputTokens: 10, outputTokens: 5 };
  }

  /** Turns played so far. */
  get turns(): number {
    return this.requests.length;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const index = this.requests.length;
    this.requests.push({ ...request, messages: [...request.messages] });
    const step = this.script[index];
    if (step === undefined) {
      throw new AnytoolError(
        ErrorCode.ModelFailed,
        `ScriptedModel "${this.name}": the script has ${this.script.length} turn(s) and turn ${index + 1} was asked for; add a turn (or lower maxSteps)`,
      );
    }
    // A function step is raced against the request's signal: one that never settles cannot hold up an abort.
    const turn =
      typeof step === 'function'
        ? await untilAborted(
            Promise.resolve().then(() => step(request, index + 1)),
            request.signal,
          )
        : step;
    request.signal?.throwIfAborted();
    const toolCalls = (turn.toolCalls ?? []).map((call, i) => ({
      id: call.id ?? `call_t${index + 1}_${i + 1}`,
      name: call.name,
      arguments: call.arguments ?? {},
    }));
    const inputTokens = turn.usage?.inputTokens ?? this.usage.inputTokens ?? 0;
    const outputTokens = turn.usage?.outputTokens ?? this.usage.outputTokens ?? 0;
    const response: ModelResponse = {
      text: turn.text ?? '',
      toolCalls,
      usage: { inputTokens, outputTokens, totalTokens: turn.usage?.totalTokens ?? inputTokens + outputTokens },
      stopReason: turn.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'end'),
    };
    if (turn.builtinCalls !== undefined) response.builtinCalls = turn.builtinCalls;
    return response;
  }
}

/** The tool results sent with this request (those after the model's last turn), in the model's order. */
export function latestToolResults(request: ModelRequest): ToolMessage[] {
  const out: ToolMessage[] = [];
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== 'tool') break;
    out.unshift(message);
  }
  return out;
}
