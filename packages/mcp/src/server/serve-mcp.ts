import type { Readable, Writable } from 'node:stream';
import { AnytoolError, ErrorCode, type Toolset, type ToolSource } from '@anytool/core';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { closing } from './closing.js';
import { listenHttp, type HttpServeOptions } from './http.js';
import { DEFAULT_MAX_UNREAD_BYTES, StdioTransport } from './stdio-transport.js';
import { ServedTools, asToolset } from './served-tools.js';
import { startTaskWorker } from './task-worker.js';
import { createMcpServer, type McpServerOptions } from './tool-server.js';

/** Options of `serveMcp` over stdio (the client started this process). */
export interface StdioServeOptions extends McpServerOptions {
  transport: 'stdio';
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. Nothing else may write to it while serving. */
  stdout?: Writable;
  /** The longest message line read from stdin; a longer one closes the connection. Default 10 MiB (the SDK's). */
  maxMessageBytes?: number;
  /**
   * How many bytes of answers may wait for the client to read them (stdout's buffer)
   * before the server stops reading requests from stdin; it reads on once the client
   * has read them. Bounds the memory of a client that writes requests but does not
   * read. Default 1 MiB (at least stdout's own high-water mark takes effect).
   */
  maxUnreadBytes?: number;
}

export type ServeMcpOptions = (StdioServeOptions | HttpServeOptions) & {
  /** Close gracefully on SIGINT / SIGTERM (what a command-line server wants). Default false. */
  handleSignals?: boolean;
};

/** A running MCP server. */
export interface McpServerHandle {
  readonly transport: 'stdio' | 'http';
  /** The endpoint, over HTTP (`http://127.0.0.1:PORT/mcp`). */
  readonly url: string | undefined;
  /** The bound host, over HTTP. */
  readonly host: string | undefined;
  /** The bound port, over HTTP (the real one when 0 was asked for). */
  readonly port: number | undefined;
  /** How callers are authenticated, over HTTP: `'none'`, or the tokens accepted and the resource. */
  readonly authMode: string | undefined;
  /** The toolset being served; adding or removing tools tells connected clients. */
  readonly toolset: Toolset;
  /** Open sessions (HTTP) or 1 while the stdio client is connected. */
  readonly sessionCount: number;
  /** Stops serving: ends every session (in-flight calls see their signal abort), closes the listener. */
  close(): Promise<void>;
  /** Settles when the server has stopped, whatever stopped it (close(), stdin ending, a signal). */
  readonly closed: Promise<void>;
}

/**
 * Serves tools as an MCP server, over stdio or streamable HTTP. Takes a
 * `Toolset` (its later changes reach clients as `tools/list_changed`) or
 * anything a Toolset takes: tools, decorated class instances, arrays, MCP toolsets.
 *
 * @example
 * const server = await serveMcp(new Toolset(new WeatherTools(), calculator), { transport: 'http', port: 3000 });
 * console.log(`MCP endpoint: ${server.url}`);
 * // later
 * await server.close();
 */
export async function serveMcp(tools: Toolset | ToolSource, options: ServeMcpOptions): Promise<McpServerHandle> {
  const toolset = asToolset(tools);
  const served = new ServedTools(toolset, options);
  // Now, so a missing bullmq package or an unreachable Redis stops the start rather than the first task.
  await options.taskQueue?.connect().catch((error: unknown) => {
    served.dispose();
    throw error;
  });
  let stop: () => Promise<void>;
  let sessions: () => number;
  let http: { url: string; host: string; port: number; authMode: string } | undefined;

  if (options.transport === 'stdio') {
    const stdin = options.stdin ?? process.stdin;
    const maxUnread = options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
    if (!Number.isInteger(maxUnread) || maxUnread < 1) {
      served.dispose();
      throw new AnytoolError(
        ErrorCode.InvalidOptions,
        `serveMcp(): maxUnreadBytes must be a positive whole number of bytes, got ${String(options.maxUnreadBytes)}`,
      );
    }
    const transport = new StdioTransport(stdin, options.stdout ?? process.stdout, options.maxMessageBytes, maxUnread);
    let open = true;
    // The first message decides the era of the connection (initialize: 2025; a request with its envelope:
    // 2026-07-28); the SDK then makes the one server instance that serves it.
    const connection = serveStdio(({ era }) => createMcpServer(served, options, { era, rounds: served.rounds, transport: 'stdio' }), {
      legacy: 'serve',
      transport,
      ...(options.onError === undefined ? {} : { onerror: options.onError }),
    });
    transport.closed.then(() => {
      open = false;
      void handle.close();
    });
    const onEnd = (): void => void handle.close();
    stdin.once('end', onEnd);
    stop = async () => {
      stdin.off('end', onEnd);
      if (open) await connection.close();
      await transport.close();
    };
    sessions = () => (open ? 1 : 0);
  } else if (options.transport === 'http') {
    let listener: Awaited<ReturnType<typeof listenHttp>>;
    try {
      listener = await listenHttp(served, options);
    } catch (error) {
      served.dispose();
      throw error;
    }
    http = listener;
    stop = () => listener.close();
    sessions = () => listener.sessionCount;
  } else {
    served.dispose();
    const given = (options as { transport?: unknown }).transport;
    throw new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): transport must be "stdio" or "http", got ${JSON.stringify(given)}`);
  }

  if (options.taskQueue !== undefined && options.taskWorker !== false) {
    try {
      await startTaskWorker(served, options);
    } catch (error) {
      await stop().catch(() => undefined);
      served.dispose();
      throw error;
    }
  }

  const { close, closed } = closing(served, stop, options.handleSignals);
  const handle: McpServerHandle = {
    transport: options.transport,
    url: http?.url,
    host: http?.host,
    port: http?.port,
    authMode: http?.authMode,
    toolset,
    get sessionCount() {
      return sessions();
    },
    closed,
    close,
  };
  return handle;
}
