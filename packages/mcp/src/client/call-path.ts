import { AnytoolError, ErrorCode, injectTraceContext } from '@anytool/core';
import { abortWatch, describeError } from '@anytool/core/internal';
import type { CallToolResult, Client, Progress, RequestOptions, Tool as McpToolInfo } from '@modelcontextprotocol/client';
import type { Context as TraceContext } from '@opentelemetry/api';
import { CALL_RESULT_SCHEMA, checkCallResult } from './call-result.js';
import { callFailureError, classifyCallFailure } from './call-errors.js';
import { callTelemetry, type McpTelemetryOptions } from './call-telemetry.js';
import { checkTelemetryOptions } from '../telemetry/mcp-telemetry.js';
import { isHttpConfig, type McpServerConfig } from './config.js';
import { DEFAULT_MAX_TOTAL_TIMEOUT_MS, progressUntil, totalTimeoutOf } from './progress-deadline.js';
import type { SessionSupervisor } from './supervisor.js';
import type { TaskCalls } from './task-calls.js';
import type { McpTaskHandle, McpTaskStatus, TaskCreations, WireTask } from './tasks.js';
import { redactError } from './url-credentials.js';

/*
 * One `tools/call` of a connection, from its options to its result or its coded error: the
 * SDK request options (timeout, progress and its total deadline, the call's own abort signal)
 * and the params (`_meta` with the trace context), sent on the open session or a restarted
 * one, a forgotten HTTP session renewed, an answer that is a task followed to its end, the
 * result checked and mapped, a failure classified (`call-errors.ts`) and worded. Resuming a
 * task left running takes the same request options and result check.
 */

/** Per-call options of `McpConnection.callTool`. */
export interface McpCallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  onprogress?: ((progress: Progress) => void) | undefined;
  /**
   * The caller's trace (an `ExecutionContext`'s `trace`): the call's span is its
   * child, and its trace context goes to the server in `params._meta`, so the
   * server's spans continue the trace. Defaults to the active OpenTelemetry context.
   */
  trace?: TraceContext | undefined;
  /** Called when a call that became a task changes status or status message (`working`, `input_required`, …). */
  onTaskStatus?: ((status: McpTaskStatus) => void) | undefined;
  /** Entries for the request's `params._meta` (the trace context is added to them when the call is traced). */
  meta?: Record<string, unknown> | undefined;
}

/** The params of a `tools/call` request. */
interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  /** The trace context (`traceparent`, `tracestate`) when the call is traced, and the caller's `meta`. */
  _meta?: Record<string, unknown>;
  /** A later round of a call on the 2026-07-28 era: the answers to the server's input requests, by key. */
  inputResponses?: Record<string, unknown>;
  /** A later round: the server's opaque state, echoed byte for byte. */
  requestState?: string;
}

/**
 * A round of a call whose questions the caller answers itself (`elicitation: 'pause'` on the
 * 2026-07-28 era): the call is sent with the SDK's `allowInputRequired`, so an `input_required`
 * answer comes back as it is (`resultType: 'input_required'`) instead of being fulfilled by the
 * client's handlers; a later round carries the answers and the server's `requestState`.
 */
export interface InputRound {
  inputResponses?: Record<string, unknown> | undefined;
  requestState?: string | undefined;
}

/** What the call path uses of its connection. */
export interface CallPathHost {
  readonly name: string;
  readonly config: McpServerConfig;
  /** Holds the session's client; starts it again, renews a forgotten HTTP session. */
  readonly supervisor: SessionSupervisor;
  /** Tools that declare `x-mcp-header` arguments, by name (see `ToolCatalog.mirrored`). */
  mirrored(): ReadonlyMap<string, McpToolInfo>;
  /** Answers with a task, taken from the transport before the SDK refuses them. */
  readonly taskCreations: TaskCreations;
  readonly tasks: TaskCalls;
  note(message: string): void;
  noteOnce(message: string): void;
  /** A text from the server or the SDK for a message: credentials masked, then cut short. */
  quote(text: string): string;
  redact(text: string): string;
  /** A call failed for want of authorization: the connection tells its listeners. */
  authFailed(error: AnytoolError): void;
}

/** The settings of the call path, resolved from the server entry and the options. */
export interface CallPathSettings {
  /** A call's timeout when it names none, in ms. */
  defaultTimeout: number;
  /** `maxTotalTimeoutMs` of the options; by default the larger of 10 minutes and the call's timeout. */
  maxTotalTimeout: number | undefined;
  telemetry: McpTelemetryOptions | undefined;
}

/** What the server is told when a call is cancelled: never the run's abort reason, which may hold anything (a secret, a user's text). */
const CANCEL_REASON = 'cancelled by the client';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `tools/call` on the SDK client. `Client.callTool` adds an async frame around the same
 * request, to refuse task-only tools (never listed here) and to check structured content
 * against output schemas it cached in its own `listTools` (unused here: `mapCallResult`
 * checks it, with messages that name the problems). The result is requested with the
 * permissive `ResultSchema` (`CALL_RESULT_SCHEMA`) and checked by `checkCallResult`, whose errors are short.
 */
function callOn(client: Client, params: CallParams, request: RequestOptions, mirrored: ReadonlyMap<string, McpToolInfo>): Promise<Record<string, unknown>> {
  const tool = mirrored.size === 0 ? undefined : mirrored.get(params.name);
  // A tool that declares `x-mcp-header` arguments has them mirrored into Mcp-Param-* headers on the modern era over
  // HTTP: only the SDK's callTool does that (its result is then checked by the SDK's schema too).
  if (tool !== undefined && client.getProtocolEra() === 'modern') {
    // The SDK would check an `input_required` answer against the output schema and refuse it; the result is checked later anyway.
    const { outputSchema: _checkedLater, ...definition } = tool;
    const toolDefinition = request.allowInputRequired === true ? definition : tool;
    return client.callTool(params, { ...request, toolDefinition }) as Promise<Record<string, unknown>>;
  }
  return client.request({ method: 'tools/call', params: params as unknown as Record<string, unknown> }, CALL_RESULT_SCHEMA, request);
}

export class CallPath {
  constructor(
    private readonly host: CallPathHost,
    private readonly settings: CallPathSettings,
  ) {
    checkTelemetryOptions(settings.telemetry, 'McpConnection');
  }

  /**
   * Calls a tool (see `McpConnection.callTool`), with `map` applied to the result in the same
   * promise step when given. An error thrown by `map` rejects the returned promise as it is.
   * With `round`, an `input_required` answer is returned as it is, unmapped (see `InputRound`).
   */
  call<T>(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
    map: ((result: CallToolResult) => T) | undefined,
    round?: InputRound,
  ): Promise<T | CallToolResult> {
    const signal = options.signal;
    if (signal?.aborted === true)
      return Promise.reject(
        new AnytoolError(ErrorCode.Aborted, `Tool "${name}" on MCP server "${this.host.name}" was not called: the run was already aborted.`, {
          cause: signal.reason,
        }),
      );
    const { request, own } = this.requestOptions(options);
    const params: CallParams = { name, arguments: args };
    if (round !== undefined) {
      request.allowInputRequired = true;
      if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
      if (round.requestState !== undefined) params.requestState = round.requestState;
    }
    const onstatus = options.onTaskStatus;
    const supervisor = this.host.supervisor;
    const telemetry = callTelemetry(this.host.config, supervisor.client, supervisor.openTransport, name, options.trace, this.settings.telemetry);
    if (telemetry === undefined) {
      if (options.meta !== undefined) params._meta = { ...options.meta };
      return this.dispatch(params, request, signal, map, onstatus, own);
    }
    const meta: Record<string, unknown> = { ...options.meta };
    injectTraceContext(telemetry.operation.trace, meta);
    params._meta = meta;
    return telemetry.settle(() => this.dispatch(params, request, signal, map, onstatus, own));
  }

  /**
   * The SDK request options of a call: its timeout, restarted by progress. A call that asks for
   * progress gets a signal of its own (`own`), which cancels it once it runs past its total time.
   */
  private requestOptions(options: McpCallOptions): { request: RequestOptions; own: AbortController | undefined } {
    const timeout = options.timeoutMs ?? this.settings.defaultTimeout;
    const request: RequestOptions = { timeout, resetTimeoutOnProgress: true };
    if (options.onprogress === undefined) return { request, own: undefined };
    const own = new AbortController();
    progressUntil(request, own, options.onprogress, this.settings.maxTotalTimeout ?? Math.max(DEFAULT_MAX_TOTAL_TIMEOUT_MS, timeout));
    return { request, own };
  }

  /**
   * Polls a task started earlier to its end (see `McpConnection.resumeTask`), with `map`
   * applied to the result. The signal cancels the task (`tasks/cancel`).
   */
  async resume<T>(handle: McpTaskHandle, options: McpCallOptions, map: (result: CallToolResult) => T): Promise<T> {
    if (handle.server !== this.host.name)
      throw new AnytoolError(
        ErrorCode.UnknownServer,
        `Task "${handle.taskId}" belongs to MCP server "${handle.server}", not "${this.host.name}": resume it on that server's connection.`,
      );
    const own = new AbortController();
    const stop = options.signal === undefined ? () => undefined : abortWatch(options.signal, () => own.abort(CANCEL_REASON));
    try {
      const request: RequestOptions = { timeout: options.timeoutMs ?? this.settings.defaultTimeout, signal: own.signal };
      // The first poll at once: the task may have ended while no client watched it.
      const first: WireTask = { taskId: handle.taskId, status: 'working', pollIntervalMs: 0 };
      const result = await this.host.tasks.followTask(first, { ...handle }, request, options.onTaskStatus);
      return map(checkCallResult(result, `Tool "${handle.tool}" on MCP server "${this.host.name}"`, (problem) => this.host.note(problem)));
    } finally {
      stop();
    }
  }

  /**
   * Sends a call. Each call gets a signal of its own, aborted with a fixed reason: the SDK tells the
   * server the reason of the signal it is given, and a run's abort reason may hold anything.
   */
  private dispatch<T>(
    params: CallParams,
    request: RequestOptions,
    signal: AbortSignal | undefined,
    map: ((result: CallToolResult) => T) | undefined,
    onstatus: ((status: McpTaskStatus) => void) | undefined,
    own: AbortController | undefined,
  ): Promise<T | CallToolResult> {
    if (own !== undefined) request.signal = own.signal;
    return signal === undefined ? this.send(params, request, map, onstatus) : this.callWithSignal(params, request, signal, map, onstatus, own);
  }

  private send<T>(
    params: CallParams,
    request: RequestOptions,
    map: ((result: CallToolResult) => T) | undefined,
    onstatus?: (status: McpTaskStatus) => void,
  ): Promise<T | CallToolResult> {
    const host = this.host;
    const client = host.supervisor.client;
    const done = (result: Record<string, unknown>): T | CallToolResult => {
      // A round's question goes back to its caller as the server sent it (see `InputRound`).
      if (request.allowInputRequired === true && result['resultType'] === 'input_required') return result as unknown as CallToolResult;
      const checked = checkCallResult(result, `Tool "${params.name}" on MCP server "${host.name}"`, (problem) => host.note(problem));
      return map === undefined ? checked : map(checked);
    };
    // A server of the tasks extension may answer with a task: the call follows it to its end.
    const failed = (error: unknown, on: Client): Promise<Record<string, unknown>> => {
      const created = host.taskCreations.take(error);
      return created === undefined ? this.recover(error, on, params, request) : host.tasks.follow(created, params.name, request, onstatus);
    };
    // The hot path: no extra async frame or promise step between the caller and the SDK.
    if (client !== undefined) return callOn(client, params, request, host.mirrored()).then(done, (error: unknown) => failed(error, client).then(done));
    return host.supervisor
      .reconnect()
      .then((fresh) => callOn(fresh, params, request, host.mirrored()).then(done, (error: unknown) => failed(error, fresh).then(done)));
  }

  /**
   * A call that settles with `ABORTED` the moment `signal` aborts: while the request runs, while
   * the server is being started again, and while a forgotten HTTP session is opened again for it.
   * It does not count on the SDK to reject the request on time, only to tell the server.
   */
  private callWithSignal<T>(
    params: CallParams,
    request: RequestOptions,
    signal: AbortSignal,
    map: ((result: CallToolResult) => T) | undefined,
    onstatus: ((status: McpTaskStatus) => void) | undefined,
    own = new AbortController(),
  ): Promise<T | CallToolResult> {
    request.signal = own.signal;
    return new Promise<T | CallToolResult>((resolve, reject) => {
      const stop = abortWatch(signal, () => {
        reject(
          new AnytoolError(ErrorCode.Aborted, `Tool "${params.name}" on MCP server "${this.host.name}" was cancelled because the run was aborted.`, {
            cause: signal.reason,
          }),
        );
        this.cancel(own, params.name);
      });
      this.send<CallToolResult>(params, request, undefined, onstatus).then(
        (result) => {
          stop();
          if (map === undefined || (request.allowInputRequired === true && result['resultType'] === 'input_required')) return resolve(result);
          try {
            resolve(map(result));
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
    });
  }

  /** Aborts one request's signal: the SDK sends `notifications/cancelled` with a fixed reason, and rejects the request. */
  private cancel(own: AbortController, tool: string): void {
    try {
      own.abort(CANCEL_REASON);
    } catch (error) {
      this.host.note(`could not tell the server that tools/call "${tool}" was cancelled: ${describeError(error)}`);
    }
  }

  /** A failed call: a forgotten HTTP session (404) is initialized again and the call sent once more; anything else becomes a coded error. */
  private async recover(error: unknown, client: Client, params: CallParams, request: RequestOptions): Promise<Record<string, unknown>> {
    const supervisor = this.host.supervisor;
    if (!supervisor.sessionExpired(error, client)) throw await this.callError(error, params.name, request, client);
    // The server did not run the call: it did not know the session (or the call was cut off when the expired session was closed).
    let fresh: Client;
    try {
      fresh = await supervisor.renew(client);
    } catch (reconnectError) {
      throw await this.callError(reconnectError, params.name, request, undefined);
    }
    try {
      return await callOn(fresh, params, request, this.host.mirrored());
    } catch (retryError) {
      throw await this.callError(retryError, params.name, request, fresh);
    }
  }

  /** The coded error of a failed call on `client`, with no credentials of the server's URL in it. */
  private async callError(error: unknown, tool: string, request: RequestOptions, client: Client | undefined): Promise<AnytoolError> {
    const coded = await this.codeCallError(error, tool, request, client);
    return redactError(coded, this.host.redact);
  }

  /** What a failed call was (see `classifyCallFailure`), after an auth failure, which is told to the listeners. */
  private async codeCallError(error: unknown, tool: string, request: RequestOptions, client: Client | undefined): Promise<AnytoolError> {
    const host = this.host;
    const signal = request.signal;
    const total = totalTimeoutOf(request);
    const denied = total !== undefined || signal?.aborted === true ? undefined : host.supervisor.authFailure(error, `tools/call "${tool}"`);
    if (denied !== undefined) {
      host.authFailed(denied);
      return denied;
    }
    const failure = classifyCallFailure(error, {
      totalTimeout: total,
      aborted: signal?.aborted === true,
      abortReason: signal?.reason,
      connected: host.supervisor.client !== undefined && client?.transport !== undefined,
    });
    if (failure.kind === 'connection-closed') return this.connectionClosed(tool, error);
    return callFailureError(failure, error, {
      server: host.name,
      tool,
      timeout: request.timeout ?? this.settings.defaultTimeout,
      progress: request.onprogress !== undefined,
      quote: (text) => host.quote(text),
    });
  }

  private async connectionClosed(tool: string, cause: unknown): Promise<AnytoolError> {
    const { name, supervisor } = this.host;
    if (supervisor.closed)
      return new AnytoolError(ErrorCode.McpConnectionClosed, `Tool "${tool}" was cut off: the connection to MCP server "${name}" was closed by the client.`, {
        cause,
      });
    if (isHttpConfig(this.host.config))
      return new AnytoolError(
        ErrorCode.McpConnectionClosed,
        `The session with MCP server "${name}" ended while tool "${tool}" was running; the next call opens a new session.`,
        { cause },
      );
    await tick();
    const what = `MCP server "${name}" closed the connection while tool "${tool}" was running; the next call starts it again.`;
    const tail = supervisor.stderrTail();
    if (tail === '') return new AnytoolError(ErrorCode.McpConnectionClosed, what, { cause });
    const stderr = `Last lines of its stderr:\n${tail}`;
    const whole = `${what} ${stderr}`;
    this.host.noteOnce(whole);
    // A server may log anything to stderr (a password, a token): it reaches a model only when the user said so.
    if (supervisor.stderrToModel) return new AnytoolError(ErrorCode.McpConnectionClosed, whole, { cause });
    return new AnytoolError(ErrorCode.McpConnectionClosed, what, { cause, detail: stderr });
  }
}
