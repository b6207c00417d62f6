/**
 * The code runner as one more tool (`run_code`): the model writes a program against
 * the toolset's typed API (declarations.ts), the program runs in a QuickJS sandbox
 * (sandbox.ts), and each of its tool calls goes through the toolset's `invoke` (or
 * the agent's pipeline in front of it), so validation, approval, the tools' views of
 * the context, budgets, tracing and the run's events hold inside as outside. A call
 * that waits for a person pauses the whole run: the program's finished calls are kept
 * with the pause and answered from there when it runs again on resume, so no call
 * runs twice.
 */
import { BaseTool, type InvokeOptions } from '../base-tool.js';
import { AnytoolError, ErrorCode, describeError, isAnytoolError } from '../errors.js';
import type { ExecutionContext } from '../execution-context.js';
import { canonicalJson } from '../pipeline/tool-pins.js';
import { giveAnswers, recordInterruption, takeAnswers, takeInterruption, type InterruptionAnswer } from '../interruptions.js';
import type { JsonSchema, ToolDefinition } from '../tool-definition.js';
import { errorResult, resultText, toolResult, type ToolResult } from '../tool-result.js';
import type { Toolset } from '../toolset.js';
import { codeApiOf, type CodeApi } from './declarations.js';
import { loadQuickJS, runProgram, type CallReply, type ProgramLimits, type ProgramStop } from './sandbox.js';
import { loadStripper, wrapProgram } from './strip-types.js';

/**
 * Where the program's calls go: the toolset's `invoke` by default. An agent passes
 * its own pipeline (approval, call order, its middleware) in front of its toolset.
 */
export type CodeInvoker = (name: string, args: string, context: ExecutionContext, options: InvokeOptions) => Promise<ToolResult>;

/** Options of `codeTool`. Every limit applies to one program. */
export interface CodeToolOptions {
  /** The tool's name; `run_code` by default. */
  name?: string;
  /** Wall time of a program in milliseconds, its tool calls included: 30 000 by default. */
  timeoutMs?: number;
  /** Memory of the sandbox in bytes: 64 MiB by default. */
  memoryBytes?: number;
  /** Stack of the sandbox in bytes (how deep the program may recurse): 256 KiB by default. */
  stackBytes?: number;
  /** Tool calls one program may make: 200 by default. */
  maxToolCalls?: number;
  /** Characters a program may print and return together: 50 000 by default. */
  maxOutputChars?: number;
  /** Where the program's calls go (see `CodeInvoker`); the toolset's `invoke` by default. */
  invoke?: CodeInvoker;
  /**
   * The definitions as the model may see them, before the API is written: an agent passes
   * the approved version of each pinned tool, so a changed description waiting for
   * approval is not shown.
   */
  show?: (definitions: readonly ToolDefinition[]) => readonly ToolDefinition[];
}

export const DEFAULT_CODE_LIMITS = {
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxToolCalls: 200,
  maxOutputChars: 50_000,
} as const;

const PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', minLength: 1, description: 'The program: TypeScript or JavaScript, the body of an async function.' },
  },
  required: ['code'],
  additionalProperties: false,
};

/** What a pause keeps of a program: its finished calls by their order, and the call that waits. */
interface ProgramJournal {
  codeMode: 1;
  /** The call id of the call that waits. */
  waiting: string;
  /** Finished calls by their number in the program (1, 2, ...): the tool, its arguments as JSON text, the reply. */
  calls: Record<string, { tool: string; args: string; reply: CallReply }>;
}

function isJournal(value: unknown): value is ProgramJournal {
  return typeof value === 'object' && value !== null && (value as ProgramJournal).codeMode === 1 && typeof (value as ProgramJournal).calls === 'object';
}

const PENDING_CODES: ReadonlySet<string> = new Set([ErrorCode.ApprovalPending, ErrorCode.InputRequired, ErrorCode.ResultPending]);

function checkLimit(name: keyof typeof DEFAULT_CODE_LIMITS, value: unknown): number {
  if (value === undefined) return DEFAULT_CODE_LIMITS[name];
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new AnytoolError(ErrorCode.InvalidOptions, `codeTool(): \`${name}\` must be a whole number from 1, got ${describeError(value).slice(0, 60)}`);
}

/**
 * The code runner over a toolset: one tool whose argument is a program and whose
 * description holds the toolset's typed API. Make it with `codeTool(toolset)`.
 */
export class CodeTool extends BaseTool<{ code: string }> {
  private readonly toolset: Toolset;
  private readonly limits: ProgramLimits & { maxToolCalls: number };
  private readonly invoker: CodeInvoker;
  private api: CodeApi | undefined;
  /** What `show` changed when `api` was written: the API is written again when that changes. */
  private apiShown = '';
  private readonly show: ((definitions: readonly ToolDefinition[]) => readonly ToolDefinition[]) | undefined;
  private described: { api: CodeApi; definition: ToolDefinition } | undefined;
  private readonly unsubscribe: () => void;

  constructor(toolset: Toolset, options: CodeToolOptions = {}) {
    if (typeof toolset?.invoke !== 'function' || typeof toolset.subscribe !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'codeTool(): pass the Toolset whose tools the programs call');
    }
    if (options.show !== undefined && typeof options.show !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'codeTool(): `show` must be a function (definitions) => definitions');
    }
    if (options.invoke !== undefined && typeof options.invoke !== 'function') {
      throw new AnytoolError(ErrorCode.InvalidOptions, 'codeTool(): `invoke` must be a function (name, args, context, options) => Promise<ToolResult>');
    }
    const limits = {
      timeoutMs: checkLimit('timeoutMs', options.timeoutMs),
      memoryBytes: checkLimit('memoryBytes', options.memoryBytes),
      stackBytes: checkLimit('stackBytes', options.stackBytes),
      maxToolCalls: checkLimit('maxToolCalls', options.maxToolCalls),
      maxOutputChars: checkLimit('maxOutputChars', options.maxOutputChars),
    };
    // Its own time limit, past the program's: a caller's default for tools (an agent's toolTimeoutMs) does not cut a program short.
    super({ name: options.name ?? 'run_code', description: 'Runs a program against the tools.', parameters: PARAMETERS, timeoutMs: limits.timeoutMs + 5_000 });
    this.source = 'code mode';
    this.toolset = toolset;
    this.limits = limits;
    this.show = options.show;
    this.invoker = options.invoke ?? ((name, args, context, invokeOptions) => toolset.invoke(name, args, context, invokeOptions));
    // The API follows the toolset: an MCP server's new tools are in the next description.
    this.unsubscribe = toolset.subscribe(() => {
      this.api = undefined;
    });
  }

  /** The typed API the programs call: every tool of the toolset but provider-run ones and code runners. */
  codeApi(): CodeApi {
    const tools = this.toolset.tools.filter((tool) => !(tool instanceof CodeTool));
    if (this.show === undefined) return (this.api ??= codeApiOf(tools));
    const own = tools.map((tool) => tool.definition);
    const shown = this.show(own);
    // The definitions `show` replaced, as text: the API is kept while they stay the same.
    const key = shown.map((definition, i) => (definition === own[i] ? '' : canonicalJson(definition))).join('\n');
    if (this.api !== undefined && this.apiShown === key) return this.api;
    this.apiShown = key;
    return (this.api = codeApiOf(tools.map((tool, i) => ({ definition: shown[i] ?? tool.definition, origin: tool.origin }))));
  }

  /** The definition, its description holding the API as it is now. */
  override get definition(): ToolDefinition {
    const api = this.codeApi();
    if (this.described?.api === api) return this.described.definition;
    const definition = { ...super.definition, description: describe(api, this.limits) };
    this.described = { api, definition };
    return definition;
  }

  /** Loads the sandbox and the type stripper now (they load on the first program otherwise); rejects with `MISSING_DEPENDENCY` when one is not installed. */
  async ready(): Promise<void> {
    await Promise.all([loadQuickJS(), loadStripper()]);
  }

  /** Stops following the toolset. */
  dispose(): void {
    this.unsubscribe();
  }

  async execute(context: ExecutionContext, args: { code: string }): Promise<ToolResult> {
    let module, strip;
    try {
      [module, strip] = await Promise.all([loadQuickJS(), loadStripper()]);
    } catch (error) {
      const code = isAnytoolError(error) ? error.code : ErrorCode.MissingDependency;
      return errorResult(code, 'The code runner is not available here; call the tools directly.', describeError(error));
    }
    const wrapped = wrapProgram(strip, args.code);
    if ('error' in wrapped) return errorResult(ErrorCode.CodeFailed, wrapped.error);
    const outer = context.callId ?? context.nextCallId();
    const journal = this.resumedJournal(context, outer);
    const api = this.codeApi();
    const ended = new AbortController();
    const signal = context.signal === undefined ? ended.signal : AbortSignal.any([context.signal, ended.signal]);
    const callContext = context.withSignal(signal);
    const running = new Set<Promise<unknown>>();
    const finished: ProgramJournal['calls'] = {};
    let count = 0;
    let pause: { callId: string; tool: string } | undefined;

    const call = async (tool: string, argsJson: string): Promise<CallReply | { stop: ProgramStop }> => {
      const n = ++count;
      const replayed = journal?.calls[String(n)];
      if (replayed !== undefined) {
        if (replayed.tool !== tool || replayed.args !== argsJson) {
          return {
            stop: {
              code: ErrorCode.CodeReplayDiverged,
              text: `The program was run again after its pause, and its call ${n} differs from before (it called "${tool}", before "${replayed.tool}" with other arguments); it was stopped. Run it again as a new program.`,
            },
          };
        }
        finished[String(n)] = replayed;
        return replayed.reply;
      }
      const callId = `${outer}/${n}`;
      const invoked = this.invoker(tool, argsJson, callContext, { callId });
      running.add(invoked);
      let result: ToolResult;
      try {
        result = await invoked;
      } catch (error) {
        result = errorResult(ErrorCode.ToolFailed, `Tool "${tool}" failed: ${describeError(error)}`);
      } finally {
        running.delete(invoked);
      }
      const code = result.error?.code;
      if (result.isError && code !== undefined && PENDING_CODES.has(code)) {
        const waits = takeInterruption(context, callId);
        if (waits !== undefined && pause === undefined) {
          pause = { callId, tool };
          recordInterruption(context, {
            ...waits,
            callId: outer,
            tool: this.name,
            reason: `its program's call ${n}, to "${tool}" with ${argsJson.slice(0, 300)}: ${waits.reason}`,
            resume: { codeMode: 1, waiting: callId, calls: finished } satisfies ProgramJournal,
          });
        }
        return { stop: { code: code as ErrorCode, text: `The program stopped at its call to "${tool}": ${resultText(result)}` } };
      }
      const reply: CallReply = result.isError
        ? { error: { code: typeof code === 'string' ? code : ErrorCode.ToolFailed, message: resultText(result) } }
        : { value: result.structured !== undefined ? result.structured : resultText(result) };
      finished[String(n)] = { tool, args: argsJson, reply };
      return reply;
    };

    const started = Date.now();
    const outcome = await runProgram(module, wrapped.js, api.functions, this.limits, { call, ended, signal: context.signal });
    if (pause !== undefined) {
      // The calls still running finish and are kept with the pause: on resume they are answered from there.
      await settleWithin(running, Math.max(0, started + this.limits.timeoutMs - Date.now()));
    } else {
      ended.abort(new AnytoolError(ErrorCode.Aborted, 'the program ended'));
    }
    if (outcome.ok) {
      const parts: string[] = [];
      if (outcome.output !== '') parts.push(outcome.output);
      if (outcome.returned) parts.push(typeof outcome.value === 'string' ? outcome.value : JSON.stringify(outcome.value));
      const text = parts.length === 0 ? 'The program finished without printing or returning anything.' : parts.join('\n');
      return toolResult({ content: [{ type: 'text', text }], isError: false });
    }
    const printed = outcome.output === '' ? '' : `\nWhat it printed before:\n${outcome.output}`;
    return errorResult(outcome.code, `${outcome.text}${printed}`, outcome.detail === undefined ? outcome.text : `${outcome.text}\n${outcome.detail}`);
  }

  /** On resume: the journal of the program's paused run, its answers handed to the call that waited. */
  private resumedJournal(context: ExecutionContext, outer: string): ProgramJournal | undefined {
    const answers = takeAnswers(context, outer);
    const journal = answers.map((answer) => answer.resume).find(isJournal);
    if (journal === undefined) {
      if (answers.length > 0) giveAnswers(context, new Map([[outer, answers]]));
      return undefined;
    }
    const handed: InterruptionAnswer[] = answers.map(({ resume: _resume, ...answer }) => answer as InterruptionAnswer);
    giveAnswers(context, new Map([[journal.waiting, handed]]));
    return journal;
  }
}

/** Waits for `running` to settle, at most `ms`. */
async function settleWithin(running: ReadonlySet<Promise<unknown>>, ms: number): Promise<void> {
  if (running.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.allSettled([...running]), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function describe(api: CodeApi, limits: ProgramLimits & { maxToolCalls: number }): string {
  const example = api.functions[0];
  const call = example === undefined ? 'tools.name({ ... })' : `${example.namespace}.${example.name}({ ... })`;
  return [
    'Run a program that calls the tools below, and get what it prints and returns. Call many tools in one program: loop, filter, join and add up in code, and print or return only what answers the question.',
    `- TypeScript or JavaScript, the body of an async function: \`const r = await ${call};\` then \`return\` a value. console.log prints.`,
    '- A failed call throws a ToolError with `code` and `message`.',
    '- No imports, fetch, timers, files or process.',
    `- Limits: ${limits.timeoutMs / 1000} s, ${limits.maxToolCalls} tool calls, ${limits.maxOutputChars} characters of output.`,
    '',
    api.declarations.trimEnd(),
  ].join('\n');
}

/**
 * The code runner over `toolset`: a `run_code` tool whose description holds the
 * toolset's typed API (`toolset.codeApi()`), and whose program runs in a QuickJS
 * sandbox with the tools as its only way out. Needs the optional peers
 * `quickjs-emscripten-core`, `@jitl/quickjs-wasmfile-release-sync` and `amaro`.
 *
 * @example
 * const runner = codeTool(toolset, { timeoutMs: 10_000 });
 * const result = await runner.invoke(context, { code: 'const c = await tools.customers({}); return c.length;' });
 */
export function codeTool(toolset: Toolset, options?: CodeToolOptions): CodeTool {
  return new CodeTool(toolset, options);
}
