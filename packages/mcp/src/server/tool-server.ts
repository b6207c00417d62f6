import { AnytoolError, ErrorCode, ExecutionContext, Toolset, isToolset, resultText, type McpToolDefinition, type RunEvent, type ToolSource } from '@anytool/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type ListToolsResult,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { CallSession, MCP_SESSION_KEY, type ConnectionState } from './mcp-session.js';
import { toCallToolResult } from './result-content.js';

/** Options of every MCP server anytool makes, whatever the transport. */
export interface McpServerOptions {
  /** The server name sent in `initialize`. Default `"anytool"`. */
  name?: string;
  /** The server version sent in `initialize`. Default `"0.1.0"`. */
  version?: string;
  /** Instructions sent in `initialize`, which clients may show to their model. */
  instructions?: string;
  /** How many tools one `tools/list` page holds. Default 100. */
  pageSize?: number;
  /** Declare the logging capability, so tools can log to the client through `mcpSession(context).log()`. Default true. */
  logging?: boolean;
  /** Called with errors of the transport or protocol (never with tool failures, which are results). */
  onError?: (error: Error) => void;
}

const DEFAULT_PAGE_SIZE = 100;
const RESPONSE_AFTER_NOTIFICATIONS_MS = 5;

/** Turns anything a Toolset takes into a Toolset (a Toolset is used as it is, so its changes are followed). */
export function asToolset(tools: Toolset | ToolSource): Toolset {
  return isToolset(tools) ? tools : new Toolset(tools);
}

/**
 * The tools of a toolset as MCP sees them, recomputed only when the toolset
 * changes (definitions are lowered once, not on every `tools/list`).
 */
export class ServedTools {
  private cached: McpToolDefinition[] | undefined;
  private readonly unsubscribe: () => void;
  private readonly listeners = new Set<() => void>();

  constructor(readonly toolset: Toolset) {
    this.unsubscribe = toolset.subscribe(() => {
      this.cached = undefined;
      for (const listener of [...this.listeners]) listener();
    });
  }

  get definitions(): McpToolDefinition[] {
    return (this.cached ??= this.toolset.definitions('mcp'));
  }

  /** Whether clients were told this tool returns structured content (it has an object output schema). */
  promisesStructure(name: string): boolean {
    const schema = this.toolset.get(name)?.definition.outputSchema;
    return schema !== undefined && schema['type'] === 'object';
  }

  /** Calls `listener` after the toolset changed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.unsubscribe();
    this.listeners.clear();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** tools/call with any params: they are checked by the handler, which can say what is wrong. */
const LOOSE_CALL_TOOL_REQUEST = CallToolRequestSchema.omit({ params: true }).loose();

/**
 * The SDK puts whole messages into some error texts ("Received a response for an
 * unknown message ID: {...}"), such as a user's answer to an elicitation, passwords
 * included. Keeps the id and the kind of the message, never its content.
 */
function withoutPayload(error: Error): Error {
  const match = /^([^{]*?):? (\{.*\})$/s.exec(error.message);
  if (match === null) return error;
  let message: Record<string, unknown> = {};
  try {
    message = JSON.parse(match[2]!) as Record<string, unknown>;
  } catch {
    // not JSON after all: the kind stays unknown
  }
  const kind = 'result' in message ? 'a result' : 'error' in message ? 'an error' : typeof message['method'] === 'string' ? `method ${message['method'].slice(0, 80)}` : 'a message';
  const id = 'id' in message ? `request id ${JSON.stringify(message['id']).slice(0, 80)}` : 'no id';
  return new Error(`${match[1]} (${id}, ${kind}; its content is not logged)`);
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match === null) throw new McpError(McpErrorCode.InvalidParams, `tools/list: the cursor ${JSON.stringify(cursor)} is not one this server gave out; call tools/list without a cursor to start over`);
  return Number(match[1]);
}

/**
 * One MCP connection's low-level SDK `Server`, answering `tools/list` (paged)
 * and `tools/call` from a toolset. Each call runs with a fresh
 * `ExecutionContext` whose signal aborts when the client cancels; progress the
 * tool records goes out as `notifications/progress` when the request carried
 * a progress token; error events and `mcpSession(context).log()` go out as MCP
 * log messages. Tool failures of every kind are `isError` results, never
 * protocol errors.
 *
 * Most users call `serveMcp`; use this to connect a transport of your own.
 *
 * @example
 * const server = createMcpServer(new Toolset(new WeatherTools()), { name: 'weather' });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(tools: Toolset | ToolSource | ServedTools, options: McpServerOptions = {}): Server {
  const served = tools instanceof ServedTools ? tools : new ServedTools(asToolset(tools));
  const ownsServed = !(tools instanceof ServedTools);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `createMcpServer(): pageSize must be a positive integer, got ${String(pageSize)}`);
  }
  const logging = options.logging ?? true;
  const capabilities: ServerCapabilities = { tools: { listChanged: true } };
  if (logging) capabilities.logging = {};
  const info = { name: options.name ?? 'anytool', version: options.version ?? '0.1.0' };
  const server = new Server(info, options.instructions === undefined ? { capabilities } : { capabilities, instructions: options.instructions });
  const connection: ConnectionState = { logging, logLevel: undefined };
  const onError = options.onError;
  if (onError) server.onerror = (error) => onError(withoutPayload(error));

  if (logging) {
    // Replaces the SDK's own handler: the level is kept per connection (this server), which is what a call session reads.
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      connection.logLevel = request.params.level;
      return {};
    });
  }

  server.setRequestHandler(ListToolsRequestSchema, (request): ListToolsResult => {
    const all = served.definitions;
    const cursor = request.params?.cursor;
    const start = cursor === undefined ? 0 : decodeCursor(cursor);
    const end = start + pageSize;
    const result: ListToolsResult = { tools: all.slice(start, end) };
    if (end < all.length) result.nextCursor = encodeCursor(end);
    return result;
  });

  // Registered past Server.setRequestHandler, whose own check of tools/call answers a malformed request with -32603
  // and the validator's dump: here a call without a tool name is a clean -32602, and arguments of any shape reach
  // the toolset, which answers bad ones with an isError result the model can act on.
  Protocol.prototype.setRequestHandler.call(server, LOOSE_CALL_TOOL_REQUEST, async (request, extra): Promise<CallToolResult> => {
    const params: Record<string, unknown> = isRecord(request['params']) ? request['params'] : {};
    const name = params['name'];
    if (typeof name !== 'string') {
      throw new McpError(McpErrorCode.InvalidParams, `tools/call needs params.name, the name of the tool to call (a string), got ${name === undefined ? 'none' : typeof name}; tools/list gives the names`);
    }
    const args = params['arguments'];
    const context = new ExecutionContext({ signal: extra.signal });
    const session = new CallSession(server, extra, connection, name);
    context.state.set(MCP_SESSION_KEY, session);
    const meta = params['_meta'];
    const token = isRecord(meta) ? meta['progressToken'] : undefined;
    const progressToken = typeof token === 'string' || typeof token === 'number' ? token : undefined;
    // Notifications are sent asynchronously; the result waits until they are written, so none is sent after it.
    const sending: Promise<unknown>[] = [];
    const unsubscribe = context.subscribe((event: RunEvent) => {
      if (event.type === 'progress' && progressToken !== undefined) {
        const progress: { progressToken: string | number; progress: number; total?: number; message?: string } = { progressToken, progress: event.progress };
        if (event.total !== undefined) progress.total = event.total;
        if (event.message !== undefined) progress.message = event.message;
        sending.push(extra.sendNotification({ method: 'notifications/progress', params: progress }).catch(report));
      } else if (event.type === 'error') {
        sending.push(session.log('error', { code: event.code, message: event.message, tool: event.tool ?? name }, 'anytool').catch(report));
      }
    });
    try {
      const result = await served.toolset.invoke(name, args ?? {}, context, { callId: String(extra.requestId) });
      if (sending.length > 0) {
        await Promise.all(sending);
        // The SDK client handles a notification a microtask later but a response at once, so a progress notification
        // read in the same chunk as the response is dropped. Writing the response a moment later keeps them apart.
        await new Promise((resolve) => setTimeout(resolve, RESPONSE_AFTER_NOTIFICATIONS_MS));
      }
      if (!result.isError && !isRecord(result.structured) && served.promisesStructure(name)) {
        // A client checks structured content against the output schema and fails the whole call without it:
        // say what went wrong as a result instead.
        return {
          content: [{ type: 'text', text: `Tool "${name}" declares an output schema but returned no structured object; it returned: ${resultText(result).slice(0, 500)}` }],
          isError: true,
        };
      }
      return toCallToolResult(result);
    } finally {
      unsubscribe();
    }
  });

  function report(error: unknown): void {
    options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  const stopListening = served.onChange(() => {
    // Only a connected, initialized client can be told; a failed send (client gone) is not the toolset's problem.
    if (server.transport !== undefined && server.getClientCapabilities() !== undefined) server.sendToolListChanged().catch(report);
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stopListening();
    if (ownsServed) served.dispose();
    previousOnClose?.();
  };
  return server;
}
