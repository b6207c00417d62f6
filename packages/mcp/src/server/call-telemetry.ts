import { extractTraceContext } from '@anytool/core';
import { PROTOCOL_VERSION_META_KEY, type CallToolResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Context as TraceContext } from '@opentelemetry/api';
import { TOOL_ERROR, errorTypeOf, mcpTelemetryActive, startMcpOperation, type McpOperationInfo, type McpTelemetryOptions } from '../telemetry/mcp-telemetry.js';

/** The trace a served call runs in, and how its span ends. */
export interface ServedCallTelemetry {
  /** The served call's span (a child of the caller's, from `params._meta`), else the caller's trace: the tool's context continues it. */
  readonly trace: TraceContext | undefined;
  /** Ends the span with the result (`tool_error` when it says it failed) or the error thrown. */
  end(result: CallToolResult | undefined, error?: unknown): void;
}

const UNTRACED: ServedCallTelemetry = { trace: undefined, end: () => undefined };

/**
 * Starts the SERVER span `tools/call {tool}` of a call being served. Its parent
 * is the trace context the client put in `params._meta` (`traceparent`,
 * `tracestate`), so the served tool continues the caller's trace; without an
 * OpenTelemetry SDK registered no span is made, but the caller's trace is still
 * handed on (to the MCP servers the tool calls in turn).
 */
export function servedCallTelemetry(call: {
  server: Server;
  ctx: ServerContext;
  tool: string;
  /** Given by the serving entry; else read from the server's transport. */
  transport: 'stdio' | 'http' | undefined;
  options: McpTelemetryOptions | undefined;
}): ServedCallTelemetry {
  const { server, ctx, tool, transport, options } = call;
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  // Only the trace's own fields: baggage from a client is not trusted, nor handed on to the servers the tool calls.
  const parent =
    meta === undefined || !('traceparent' in meta) ? undefined : extractTraceContext({ traceparent: meta['traceparent'], tracestate: meta['tracestate'] });
  if (!mcpTelemetryActive(options)) return parent === undefined ? UNTRACED : { trace: parent, end: () => undefined };
  const stdio = transport === undefined ? server.transport instanceof StdioServerTransport : transport === 'stdio';
  const claimed = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
  const info: McpOperationInfo = {
    method: 'tools/call',
    tool,
    transport: stdio ? 'pipe' : 'tcp',
    protocolVersion: typeof claimed === 'string' ? claimed : server.getNegotiatedProtocolVersion(),
    sessionId: ctx.sessionId,
    requestId: ctx.mcpReq.id,
  };
  const operation = startMcpOperation('server', info, parent, options);
  if (operation === undefined) return parent === undefined ? UNTRACED : { trace: parent, end: () => undefined };
  return {
    trace: operation.trace,
    end(result, error) {
      if (result === undefined) operation.end(errorTypeOf(error), error instanceof Error ? error.message : undefined);
      else operation.end(result.isError === true ? TOOL_ERROR : undefined);
    },
  };
}
