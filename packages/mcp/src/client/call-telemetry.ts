import { describeError } from '@anytool/core/internal';
import type { Client, Transport } from '@modelcontextprotocol/client';
import type { Context as TraceContext } from '@opentelemetry/api';
import { isHttpConfig, type McpServerConfig } from './config.js';
import { nextRequestId } from './sdk-internals.js';
import {
  TOOL_ERROR,
  errorTypeOf,
  mcpTelemetryActive,
  startMcpOperation,
  type McpOperation,
  type McpOperationInfo,
  type McpTelemetryOptions,
} from '../telemetry/mcp-telemetry.js';

export type { McpTelemetryOptions } from '../telemetry/mcp-telemetry.js';

/** The span of one `tools/call` a client sends, and how to run the call inside it. */
export interface CallTelemetry {
  readonly operation: McpOperation;
  /** Runs `send` (which sends the request at once) and ends the span with its outcome: `tool_error` for an `isError` result. */
  settle<T>(send: () => Promise<T>): Promise<T>;
}

/**
 * Starts the CLIENT span `tools/call {tool}` of a call to `config`'s server,
 * a child of `parent`: undefined while no OpenTelemetry SDK is registered.
 */
export function callTelemetry(
  config: McpServerConfig,
  client: Client | undefined,
  transport: Transport | undefined,
  tool: string,
  parent: TraceContext | undefined,
  options: McpTelemetryOptions | undefined,
): CallTelemetry | undefined {
  // Nothing registered: not even the span's attributes are gathered.
  if (!mcpTelemetryActive(options)) return undefined;
  const info: McpOperationInfo = {
    method: 'tools/call',
    tool,
    transport: isHttpConfig(config) ? 'tcp' : 'pipe',
    protocolVersion: client?.getNegotiatedProtocolVersion(),
  };
  if (isHttpConfig(config)) Object.assign(info, endpoint(config.url));
  // The 2025 era's HTTP session; the 2026-07-28 era has none.
  const session = (transport as { sessionId?: unknown } | undefined)?.sessionId;
  if (typeof session === 'string') info.sessionId = session;
  const operation = startMcpOperation('client', info, parent, options);
  if (operation === undefined) return undefined;
  return {
    operation,
    settle<T>(send: () => Promise<T>): Promise<T> {
      const before = nextRequestId(client);
      const sent = send();
      // The SDK numbers a request as it sends it: one more on its counter is this request's id.
      if (before !== undefined && nextRequestId(client) === before + 1) operation.requestId(before);
      return sent.then(
        (result) => {
          operation.end((result as { isError?: unknown } | undefined)?.isError === true ? TOOL_ERROR : undefined);
          return result;
        },
        (error: unknown) => {
          operation.end(errorTypeOf(error), describeError(error));
          throw error;
        },
      );
    },
  };
}

/** `server.address` and `server.port` of an HTTP server's URL (its default port when it names none). */
function endpoint(url: string): { address?: string; port?: number } {
  try {
    const parsed = new URL(url);
    const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { address: parsed.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return {};
  }
}
