/**
 * One program in a QuickJS sandbox (WebAssembly, `quickjs-emscripten-core` with its
 * release build `@jitl/quickjs-wasmfile-release-sync`): a fresh runtime and context per
 * program, with a memory limit, a stack limit and an interrupt handler for the wall-time
 * limit. Only strings cross the boundary: the program's arguments leave as JSON text
 * made inside the sandbox, a call's reply comes back as JSON text, printed lines as
 * text. The sandbox has no file system, network, timers, environment or host objects:
 * its one way out is `call`, which the code tool (code-tool.ts) sends through the
 * toolset's `invoke`.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule, newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import { AnytoolError, ErrorCode, describeError } from '../errors.js';
import type { CodeApiFunction } from './declarations.js';

/** What a tool call of the program gets back: its value, or the error it throws inside the program. */
export type CallReply = { value: unknown } | { error: { code: string; message: string } };

/** How one program ended. */
export type ProgramOutcome =
  { ok: true; output: string; value: unknown; returned: boolean } | { ok: false; code: ErrorCode; text: string; detail?: string; output: string };

/** A stop the host asks for: the program ends now with this outcome's code and text. */
export interface ProgramStop {
  code: ErrorCode;
  text: string;
  detail?: string;
}

export interface ProgramLimits {
  timeoutMs: number;
  maxToolCalls: number;
  memoryBytes: number;
  stackBytes: number;
  maxOutputChars: number;
}

export interface ProgramHost {
  /**
   * Runs one call of the program. Resolves with the reply, or with a stop that
   * ends the whole program (a limit, a pause). Must not reject.
   */
  call(tool: string, argsJson: string): Promise<CallReply | { stop: ProgramStop }>;
  /** Aborted when the program must end its calls at once (its time ran out, it did not await them). */
  readonly ended: AbortController;
  /** The run's signal: the program stops when it aborts. */
  readonly signal?: AbortSignal | undefined;
}

let loading: Promise<QuickJSWASMModule> | undefined;

/** The QuickJS module of the process, compiled once: the optional peer dependencies loaded on first use. */
export function loadQuickJS(): Promise<QuickJSWASMModule> {
  return (loading ??= (async () => {
    type Core = { newQuickJSWASMModuleFromVariant: typeof newQuickJSWASMModuleFromVariant };
    let core: Core;
    let variant: unknown;
    try {
      const imported = (await import('quickjs-emscripten-core')) as Partial<Core> & { default?: Core };
      core = typeof imported.newQuickJSWASMModuleFromVariant === 'function' ? (imported as Core) : imported.default!;
      const loaded = (await import('@jitl/quickjs-wasmfile-release-sync')) as { default?: object };
      // The variant's own loader imports the Emscripten module with `import()`, which a CommonJS host
      // without ESM support (jest, some bundlers) cannot run: it is imported here, as this build imports.
      // A subpath the CommonJS build's type resolution (node10) cannot see: imported by name.
      const subpath: string = '@jitl/quickjs-wasmfile-release-sync/emscripten-module';
      const emscripten = (await import(subpath)) as { default?: unknown };
      const loader = emscripten.default ?? emscripten;
      variant = { ...(loaded.default ?? loaded), importModuleLoader: () => Promise.resolve(loader) };
    } catch (error) {
      loading = undefined;
      throw new AnytoolError(
        ErrorCode.MissingDependency,
        `code mode runs programs in QuickJS, which is not installed (${describeError(error).split('\n')[0]!}); install it next to @anytool/core: npm i quickjs-emscripten-core @jitl/quickjs-wasmfile-release-sync amaro`,
        { cause: error },
      );
    }
    return core.newQuickJSWASMModuleFromVariant(variant as Parameters<typeof newQuickJSWASMModuleFromVariant>[0]);
  })());
}

/** The prelude: takes the two host functions out of the global scope and builds `console`, `ToolError` and the API's namespaces. */
function prelude(functions: readonly CodeApiFunction[]): string {
  const api: Record<string, Record<string, string>> = {};
  for (const f of functions) (api[f.namespace] ??= {})[f.name] = f.tool;
  return `(() => {
  const call = globalThis.__anytool_call, print = globalThis.__anytool_print;
  delete globalThis.__anytool_call; delete globalThis.__anytool_print;
  class ToolError extends Error {
    constructor(code, message, tool) { super(message); this.name = 'ToolError'; this.code = code; this.tool = tool; }
  }
  const show = (v) => { if (typeof v === 'string') return v; try { const t = JSON.stringify(v); return t === undefined ? String(v) : t; } catch { return String(v); } };
  const log = (...values) => print(values.map(show).join(' '));
  globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });
  globalThis.print = log;
  globalThis.ToolError = ToolError;
  const api = ${JSON.stringify(api)};
  for (const ns of Object.keys(api)) {
    const target = {};
    for (const fn of Object.keys(api[ns])) {
      const tool = api[ns][fn];
      target[fn] = async (args) => {
        let text;
        try { text = JSON.stringify(args === undefined ? {} : args); } catch (e) { throw new ToolError('INVALID_ARGUMENTS', tool + ': the arguments are not JSON (' + String(e && e.message) + ')', tool); }
        const reply = JSON.parse(await call(tool, text === undefined ? '{}' : text));
        if (reply.error) throw new ToolError(reply.error.code, reply.error.message, tool);
        return reply.value;
      };
    }
    globalThis[ns] = Object.freeze(target);
  }
  // Settles the program's promise into one JSON text: its value, or the error it ended with.
  return (program) => program.then(
    (value) => {
      if (value === undefined) return JSON.stringify({ returned: false });
      if (typeof value !== 'function' && typeof value !== 'symbol') { try { return JSON.stringify({ returned: true, value }); } catch {} }
      return JSON.stringify({ returned: true, value: String(value) });
    },
    (e) => { try { return JSON.stringify({ thrown: { name: String(e && e.name), message: String(e && e.message !== undefined ? e.message : e), code: e && typeof e.code === 'string' ? e.code : undefined, stack: e && typeof e.stack === 'string' ? e.stack : undefined } }); } catch { return JSON.stringify({ thrown: { name: 'Error', message: 'the program threw a value that cannot be read' } }); } },
  );
})()`;
}

/** What a fresh sandbox costs to make: the module, then a runtime and context with the prelude evaluated. */
export interface SandboxTiming {
  startMs: number;
}

/**
 * Runs `js`, the program wrapped in an async function and its types stripped
 * (`wrapProgram`), with the API's namespaces in scope. Never throws: every ending
 * is an outcome. Calls still running when it returns are the host's to end.
 */
export async function runProgram(
  module: QuickJSWASMModule,
  js: string,
  functions: readonly CodeApiFunction[],
  limits: ProgramLimits,
  host: ProgramHost,
): Promise<ProgramOutcome> {
  const program = new Program(module, limits, host);
  try {
    return await program.run(js, functions);
  } catch (error) {
    // The interpreter itself failed (the host's stack ran out under it, a WebAssembly trap): its memory may be
    // inconsistent, so this module is dropped and the next program gets a fresh one.
    program.poisoned = true;
    if (loading !== undefined && (await loading.catch(() => undefined)) === module) loading = undefined;
    const detail = describeError(error);
    host.ended.abort(new AnytoolError(ErrorCode.CodeMemoryLimit, 'the sandbox failed'));
    return {
      ok: false,
      code: ErrorCode.CodeMemoryLimit,
      text: /call stack/i.test(detail)
        ? "The program's recursion went too deep and it was stopped. Use a loop instead."
        : 'The sandbox failed while running the program, which was stopped. Work on less at a time.',
      detail,
      output: '',
    };
  } finally {
    program.dispose();
  }
}

class Program {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly deadline: number;
  private output = '';
  private calls = 0;
  private stop: ProgramStop | undefined;
  /** Calls sent and not answered yet, with the promise handles the program waits on. */
  private readonly inflight = new Set<{ settle?: () => void }>();
  private wake: (() => void) | undefined;
  private disposed = false;
  private readonly handles: QuickJSHandle[] = [];

  constructor(
    module: QuickJSWASMModule,
    private readonly limits: ProgramLimits,
    private readonly host: ProgramHost,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    // Called often while the interpreter runs: a busy loop ends at the deadline or at a stop.
    this.runtime.setInterruptHandler(() => this.stop !== undefined || Date.now() > this.deadline);
    this.context = this.runtime.newContext();
    const signal = host.signal;
    if (signal !== undefined) {
      const onAbort = (): void => {
        this.stop ??= { code: ErrorCode.Aborted, text: 'The program was stopped because the run was aborted; calls still running were cancelled.' };
        this.host.ended.abort(signal.reason);
        this.wake?.();
      };
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.unsubscribe = () => signal.removeEventListener('abort', onAbort);
      }
    }
  }

  private unsubscribe: (() => void) | undefined;

  async run(js: string, functions: readonly CodeApiFunction[]): Promise<ProgramOutcome> {
    const { context } = this;
    const call = context.newFunction('__anytool_call', (nameHandle, argsHandle) => this.onCall(nameHandle, argsHandle));
    const print = context.newFunction('__anytool_print', (textHandle) => {
      this.onPrint(context.typeof(textHandle) === 'string' ? context.getString(textHandle) : '');
    });
    context.setProp(context.global, '__anytool_call', call);
    context.setProp(context.global, '__anytool_print', print);
    call.dispose();
    print.dispose();
    const made = context.evalCode(prelude(functions), 'prelude.js');
    if (made.error !== undefined) {
      const detail = this.dump(made.error);
      made.error.dispose();
      return this.failed(ErrorCode.CodeFailed, 'The code runner could not start.', `the prelude failed: ${detail}`);
    }
    const settle = this.keep(made.value);
    const evaluated = context.evalCode(js, 'program.ts');
    if (evaluated.error !== undefined) return this.thrownAtStart(evaluated.error);
    const running = this.keep(evaluated.value);
    const settled = context.callFunction(settle, context.undefined, running);
    if (settled.error !== undefined) return this.thrownAtStart(settled.error);
    const result = this.keep(settled.value);
    return this.drive(result);
  }

  /** Runs the program's jobs until its promise settles, a limit or stop ends it, or nothing is left that could settle it. */
  private async drive(result: QuickJSHandle): Promise<ProgramOutcome> {
    const timer = { id: undefined as ReturnType<typeof setTimeout> | undefined };
    try {
      for (;;) {
        const jobs = this.runtime.executePendingJobs();
        if (jobs.error !== undefined) {
          const detail = this.dump(jobs.error);
          jobs.error.dispose();
          return this.ended(detail);
        }
        if (this.stop !== undefined) return this.stopped();
        if (Date.now() > this.deadline) return this.timedOut();
        const state = this.context.getPromiseState(result);
        if (state.type === 'fulfilled') {
          const text = this.context.typeof(state.value) === 'string' ? this.context.getString(state.value) : '';
          state.value.dispose();
          return await this.finished(text);
        }
        if (state.type === 'rejected') {
          const detail = this.dump(state.error);
          state.error.dispose();
          return this.ended(detail);
        }
        if (this.runtime.hasPendingJob()) continue;
        if (this.inflight.size === 0) {
          return this.failed(
            ErrorCode.CodeFailed,
            'The program waits for a promise that nothing will settle (the sandbox has no timers or events); await only the tool functions and promises made from them.',
          );
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          timer.id = setTimeout(resolve, Math.max(0, this.deadline - Date.now()) + 1);
        });
        clearTimeout(timer.id);
        this.wake = undefined;
      }
    } finally {
      clearTimeout(timer.id);
    }
  }

  private onCall(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const { context } = this;
    const deferred = context.newPromise();
    if (context.typeof(nameHandle) !== 'string' || context.typeof(argsHandle) !== 'string') {
      const reply = context.newString(JSON.stringify({ error: { code: ErrorCode.InvalidArguments, message: 'a tool was called wrongly' } }));
      deferred.resolve(reply);
      reply.dispose();
      return deferred.handle;
    }
    const tool = context.getString(nameHandle);
    const args = context.getString(argsHandle);
    // Checked here, at once: a loop that starts calls without awaiting them ends at the limit, not later.
    if (++this.calls > this.limits.maxToolCalls) {
      this.stop ??= {
        code: ErrorCode.CodeCallLimit,
        text: `The program made more than ${this.limits.maxToolCalls} tool calls and was stopped; call ${this.calls} (to "${tool}") did not run. Make fewer calls: use tools that take or return many items at once.`,
      };
      disposeQuietly(deferred);
      return context.undefined;
    }
    const entry: { settle?: () => void } = {};
    this.inflight.add(entry);
    // A promise the program still waits on when it ends is disposed with it.
    entry.settle = () => disposeQuietly(deferred);
    void this.host.call(tool, args).then((reply) => {
      this.inflight.delete(entry);
      if (this.disposed) return;
      if ('stop' in reply) {
        this.stop ??= reply.stop;
        disposeQuietly(deferred);
      } else {
        let text: string;
        try {
          text = JSON.stringify(reply);
        } catch (error) {
          text = JSON.stringify({ error: { code: ErrorCode.InvalidResult, message: `${tool}: its result is not JSON (${describeError(error)})` } });
        }
        const handle = context.newString(text);
        deferred.resolve(handle);
        handle.dispose();
      }
      this.wake?.();
    });
    // The library disposes the returned handle once it has handed the promise to the program.
    return deferred.handle;
  }

  private onPrint(text: string): void {
    if (this.stop !== undefined) return;
    const next = this.output === '' ? text : `${this.output}\n${text}`;
    if (next.length > this.limits.maxOutputChars) {
      this.output = next.slice(0, this.limits.maxOutputChars);
      this.stop = this.outputStop();
      return;
    }
    this.output = next;
  }

  private outputStop(): ProgramStop {
    return {
      code: ErrorCode.CodeOutputLimit,
      text: `The program's output went past ${this.limits.maxOutputChars} characters and it was stopped. Print or return less: counts, totals, the few items that answer the question.`,
    };
  }

  private async finished(text: string): Promise<ProgramOutcome> {
    let settled: { returned?: boolean; value?: unknown; thrown?: { name: string; message: string; code?: string; stack?: string } };
    try {
      settled = JSON.parse(text) as typeof settled;
    } catch {
      return this.failed(ErrorCode.CodeFailed, 'The program ended with a value that could not be read.');
    }
    if (settled.thrown !== undefined) return this.threw(settled.thrown);
    const unawaited = this.inflight.size;
    if (unawaited > 0) {
      await this.cancelInflight();
      return this.failed(
        ErrorCode.CodeCallsUnawaited,
        `The program ended while ${unawaited} of its tool calls were still running; they were cancelled. Await every call (await Promise.all([...]) for several at once).`,
      );
    }
    const value = settled.returned === true ? settled.value : undefined;
    const returnedText = settled.returned === true ? (typeof value === 'string' ? value : JSON.stringify(value)) : '';
    if (this.output.length + returnedText.length > this.limits.maxOutputChars) {
      const stop = this.outputStop();
      return this.failed(stop.code, stop.text);
    }
    return { ok: true, output: this.output, value, returned: settled.returned === true };
  }

  /** The program's own error: its message and the line it came from, as the model wrote it. */
  private threw(thrown: { name: string; message: string; code?: string; stack?: string }): ProgramOutcome {
    const where = /program\.ts:(\d+)/.exec(thrown.stack ?? '');
    const line = where === null ? '' : ` (line ${where[1]!})`;
    const message = `${thrown.name}: ${thrown.message}`.slice(0, 2000);
    if (/out of memory|string too long|array too long|invalid array length/i.test(thrown.message)) return this.memory(message);
    if (/stack overflow/i.test(thrown.message)) return this.stackOverflow();
    const code = thrown.code === undefined ? '' : ` [${thrown.code}]`;
    return this.failed(ErrorCode.CodeFailed, `The program threw${line}: ${message}${code}`);
  }

  private thrownAtStart(error: QuickJSHandle): ProgramOutcome {
    const detail = this.dump(error);
    error.dispose();
    return this.ended(detail);
  }

  /** An error that ended the program from outside its own code: the host's stop, a limit, or a syntax error. */
  private ended(detail: string): ProgramOutcome {
    if (this.stop !== undefined) return this.stopped();
    if (Date.now() > this.deadline || /interrupted/i.test(detail)) return this.timedOut();
    if (/out of memory|string too long|array too long|invalid array length/i.test(detail)) return this.memory(detail);
    if (/stack overflow/i.test(detail)) return this.stackOverflow();
    const syntax = /SyntaxError/.test(detail);
    return this.failed(ErrorCode.CodeFailed, `${syntax ? 'The program does not parse' : 'The program failed'}: ${detail.slice(0, 2000)}`);
  }

  private memory(detail: string): ProgramOutcome {
    return this.failed(
      ErrorCode.CodeMemoryLimit,
      `The program ran out of memory (its limit is ${Math.round(this.limits.memoryBytes / 1048576)} MiB) and was stopped. Work on less at a time: filter and aggregate as you go.`,
      detail,
    );
  }

  private stackOverflow(): ProgramOutcome {
    return this.failed(
      ErrorCode.CodeMemoryLimit,
      `The program's recursion went too deep (its stack limit is ${Math.round(this.limits.stackBytes / 1024)} KiB) and it was stopped. Use a loop instead.`,
    );
  }

  private timedOut(): ProgramOutcome {
    this.host.ended.abort(new AnytoolError(ErrorCode.CodeTimeLimit, 'the program ran out of time'));
    return this.failed(
      ErrorCode.CodeTimeLimit,
      `The program ran past its time limit of ${this.limits.timeoutMs} ms and was stopped; calls still running were cancelled. Do less per program, or make fewer calls.`,
    );
  }

  private stopped(): ProgramOutcome {
    const stop = this.stop!;
    return this.failed(stop.code, stop.text, stop.detail);
  }

  private failed(code: ErrorCode, text: string, detail?: string): ProgramOutcome {
    return detail === undefined ? { ok: false, code, text, output: this.output } : { ok: false, code, text, detail, output: this.output };
  }

  /** Aborts the calls still running and waits for them to settle, at most until the deadline. */
  private async cancelInflight(): Promise<void> {
    this.host.ended.abort(new AnytoolError(ErrorCode.CodeCallsUnawaited, 'the program ended without awaiting this call'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.wake = () => {
        if (this.inflight.size === 0) resolve();
      };
      timer = setTimeout(resolve, Math.max(0, this.deadline - Date.now()));
      this.wake();
    });
    clearTimeout(timer);
    this.wake = undefined;
  }

  /** A thrown value as text, never throwing (reading it after running out of memory may fail too). */
  private dump(handle: QuickJSHandle): string {
    try {
      const value = this.context.dump(handle) as unknown;
      if (typeof value === 'object' && value !== null) {
        const { name, message, stack } = value as { name?: unknown; message?: unknown; stack?: unknown };
        const where = typeof stack === 'string' ? /program\.ts:(\d+)/.exec(stack) : null;
        return `${String(name ?? 'Error')}: ${String(message ?? '')}${where === null ? '' : ` (line ${where[1]!})`}`;
      }
      return String(value);
    } catch (error) {
      return `an error that could not be read (${describeError(error)})`;
    }
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  /** Set when the interpreter failed: its runtime is left to the garbage collector, not freed (freeing it may abort the module). */
  poisoned = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unsubscribe?.();
    if (this.poisoned) return;
    for (const entry of this.inflight) entry.settle?.();
    this.inflight.clear();
    for (const handle of this.handles) if (handle.alive) handle.dispose();
    try {
      this.context.dispose();
      this.runtime.dispose();
    } catch {
      // A runtime that ran out of memory may fail its own teardown; the WebAssembly memory goes with it either way.
    }
  }
}

/** Disposes a promise the program may still hold, whatever state its handles are in. */
function disposeQuietly(deferred: { dispose(): void }): void {
  try {
    deferred.dispose();
  } catch {
    // Its handles went with the runtime already.
  }
}
