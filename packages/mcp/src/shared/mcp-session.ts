// What a tool served over MCP sees of the call: read by the server, which provides
// it, and by the client, whose tools forward progress when the call they run in asked for it.
import type { ExecutionContext } from '@anytool/core';
import { unrestrictedContext } from '@anytool/core/internal';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  RequestOptions,
} from '@modelcontextprotocol/server';

/** The key under which a served call's `McpSession` sits in `context.state`. Read it with `mcpSession(context)`. */
export const MCP_SESSION_KEY = 'anytool.mcp.session';

/**
 * What a tool served by `serveMcp` can ask of the MCP client that called it.
 * Everything sent from here travels with the call (over HTTP: on the call's own
 * response stream), so the client can tie it to the request.
 *
 * Get it with `mcpSession(context)` in a tool that asked for the context; it is
 * `undefined` when the tool runs outside an MCP server (in an agent, in a test).
 *
 * @example
 * @Tool({ description: 'Summarize a text with the client’s model.', parameters, context: true })
 * async summarize({ text }: { text: string }, context: ExecutionContext) {
 *   const session = mcpSession(context);
 *   if (session === undefined) return text.slice(0, 200);
 *   await session.log('info', 'asking the client to summarize');
 *   const reply = await session.createMessage({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 200 });
 *   return reply.content.type === 'text' ? reply.content.text : '';
 * }
 */
export interface McpSession {
  /** The MCP session id (streamable HTTP), or undefined over stdio. */
  readonly sessionId: string | undefined;
  /** The JSON-RPC id of the `tools/call` request being served. */
  readonly requestId: string | number;
  /**
   * Whether the client asked for progress on this call (its request carried a
   * progress token). Progress the tool records is sent only then; an `McpTool`
   * called inside this call asks its own server for progress in turn, so a
   * gateway passes progress through.
   */
  readonly progressRequested: boolean;
  /**
   * The protocol era of the call: `'legacy'` (2025: `initialize`, sessions,
   * server-to-client requests) or `'modern'` (2026-07-28: stateless, every
   * request carries the client's identity, questions to the client travel as
   * `input_required` results).
   */
  readonly era: 'legacy' | 'modern';
  /** The client's name and version: from `initialize` (legacy), or from the request itself (modern). */
  readonly clientInfo: Implementation | undefined;
  /** What the client supports: from `initialize` (legacy), or as the request declares it (modern). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /**
   * Sends a log message to the client (`notifications/message`) when the server
   * has logging on and the level is at or above the client's threshold: set with
   * `logging/setLevel` (legacy; none set: every level), or carried by the request
   * (modern; none carried: no logs). Resolves to whether it was sent.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<boolean>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). When the
   * client did not declare sampling: throws (2025 era), or the call is answered
   * with error -32021 (2026-07-28 era). Check `clientCapabilities` first to fall back.
   */
  createMessage(params: CreateMessageRequestParams, options?: McpAskOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (`elicitation/create`). Without the client's elicitation capability: as `createMessage`. */
  elicitInput(params: ElicitRequestFormParams | ElicitRequestURLParams, options?: McpAskOptions): Promise<ElicitResult>;
  /** The client's roots (`roots/list`). Without the client's roots capability: as `createMessage`. */
  listRoots(options?: McpAskOptions): Promise<ListRootsResult>;
  /**
   * Closes this call's SSE stream while the call goes on, so the client polls:
   * it reconnects with `Last-Event-ID` and gets what follows, the result
   * included. Only over HTTP with an `eventStore`; returns whether it closed.
   */
  closeStream(): boolean;
  /**
   * Makes the rest of the call a task, for a tool marked `task` and
   * `deferTask`: the request in progress is answered with the task, and the
   * tool runs on as it (its signal aborts on `tasks/cancel`, its progress is
   * the task's status message, its questions the task's `input_required`, its
   * result the task's). Resolves `true` once the call is a task (at once when
   * it is one already), `false` when it cannot become one (the client did not
   * declare the Tasks extension, a 2025-era call, a tool not marked `task`):
   * the tool then just goes on in the request. Call it while no question to
   * the client is open. It rejects when the task cannot be stored (the
   * server's store unreachable): the call then fails like any tool error.
   */
  startTask(): Promise<boolean>;
  /**
   * Saves where the work of a task is (`data`, JSON, at most the server's
   * `maxTaskResultBytes`) with the task. When the worker running the task dies
   * and the tool is `resumable`, the task runs again on another worker, and
   * the tool reads what it saved last as `lastCheckpoint`. Resolves `true`
   * once kept; `false` where nothing would read it (a call that is not a task
   * on a task queue). Save where the work is (an offset, the ids done), not
   * its data.
   *
   * @example
   * const start = (mcpSession(context)?.lastCheckpoint as { done: number } | undefined)?.done ?? 0;
   * for (let i = start; i < items.length; i++) {
   *   await process(items[i]);
   *   await mcpSession(context)?.checkpoint({ done: i + 1 });
   * }
   */
  checkpoint(data: unknown): Promise<boolean>;
  /** What an earlier run of this task saved last with `checkpoint()`; undefined on a first run. */
  readonly lastCheckpoint: unknown;
}

/**
 * Options of a question to the client. On the 2025 era it is a request of the
 * server to the client, and the SDK's request options apply (`timeout`,
 * `signal`). On the 2026-07-28 era it is one entry of an `input_required`
 * result, under `inputKey`; questions asked together (`Promise.all`) go out in
 * one round.
 */
export interface McpAskOptions extends RequestOptions {
  /** The key of this question in `inputRequests` (modern era). Default: the method and a counter, as `elicitation-1`. */
  inputKey?: string;
}

/**
 * The MCP session of a call served by `serveMcp`, or `undefined` when the tool
 * is not running inside an MCP server. The tool must take the context
 * (`@Tool({ context: true })`, a context parameter, or `execute(context, args)`);
 * it needs no declaration of `MCP_SESSION_KEY` for it.
 */
export function mcpSession(context: ExecutionContext): McpSession | undefined {
  // The session is the call's own line to its client, not the run's data: a tool gets it without declaring the key.
  return unrestrictedContext(context).state.get(MCP_SESSION_KEY) as McpSession | undefined;
}
