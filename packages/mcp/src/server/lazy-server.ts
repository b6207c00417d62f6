// The server's entry points as the package exports them: what serves loads @modelcontextprotocol/server (an optional
// peer: a program that only connects to MCP servers neither installs nor loads it) the first time it is called.
import { AnytoolError, ErrorCode, type Toolset, type ToolSource } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { Server } from '@modelcontextprotocol/server';
import type { McpServerHandle, ServeMcpOptions } from './serve-mcp.js';
import type { TaskWorkerHandle, TaskWorkerOptions } from './task-worker.js';
import type * as ToolServerModule from './tool-server.js';
import { requireToolServer } from './server-modules.cjs';

const SERVER_SDK = '@modelcontextprotocol/server';

/** `what` failed to load: when the server SDK is what is missing, a MISSING_DEPENDENCY error naming the `npm i`. */
function loadError(error: unknown, owner: string): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ERR_REQUIRE_ESM')
    return new AnytoolError(
      ErrorCode.MissingDependency,
      `${owner} loads the MCP server on first use with require() of an ES module, which needs Node 20.19 or later (22.12 on Node 22); this is Node ${process.version}: upgrade Node, or use the CommonJS build (require('@anytool/mcp'))`,
      { cause: error },
    );
  const missing = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && describeError(error).includes(`'${SERVER_SDK}`);
  if (!missing) return error;
  return new AnytoolError(
    ErrorCode.MissingDependency,
    `${owner} needs the ${SERVER_SDK} package, which is not installed; install it next to @anytool/mcp to serve MCP: npm i ${SERVER_SDK}`,
    { cause: error },
  );
}

async function load<T>(importer: () => Promise<T>, owner: string): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw loadError(error, owner);
  }
}

/**
 * Loads the server now (the SDK's server with it), or rejects as `serveMcp` would: what serves a
 * user's module checks this first, so a missing SDK is reported before the module runs.
 */
export async function loadServer(owner: string): Promise<void> {
  await load(() => import('./serve-mcp.js'), owner);
}

/**
 * Serves tools as an MCP server, over stdio or streamable HTTP. Takes a
 * `Toolset` (its later changes reach clients as `tools/list_changed`) or
 * anything a Toolset takes: tools, decorated class instances, arrays, MCP toolsets.
 * Needs the `@modelcontextprotocol/server` package (`npm i @modelcontextprotocol/server`).
 *
 * @example
 * const server = await serveMcp(new Toolset(new WeatherTools(), calculator), { transport: 'http', port: 3000 });
 * console.log(`MCP endpoint: ${server.url}`);
 * // later
 * await server.close();
 */
export async function serveMcp(tools: Toolset | ToolSource, options: ServeMcpOptions): Promise<McpServerHandle> {
  const { serveMcp: serve } = await load(() => import('./serve-mcp.js'), 'serveMcp()');
  return serve(tools, options);
}

/**
 * Runs the tools of queued tasks with no MCP endpoint of its own: a worker process beside the
 * processes that serve the endpoint (`serveMcp` with the same `taskQueue` and `store`), so
 * long tasks run on machines of their own. `anytool-mcp serve --worker-only` runs it.
 * Needs the `@modelcontextprotocol/server` package, as `serveMcp` does.
 *
 * @example
 * const url = 'redis://127.0.0.1:6379';
 * const worker = await runTaskWorker(tools, { taskQueue: new BullmqTaskQueue({ url }), store: new RedisStore({ url }), handleSignals: true });
 * await worker.closed;
 */
export async function runTaskWorker(tools: Toolset | ToolSource, options: TaskWorkerOptions): Promise<TaskWorkerHandle> {
  const { runTaskWorker: run } = await load(() => import('./task-worker.js'), 'runTaskWorker()');
  return run(tools, options);
}

let toolServer: typeof ToolServerModule | undefined;

/**
 * One MCP connection's low-level SDK `Server`, answering `tools/list` (paged)
 * and `tools/call` from a toolset, in either protocol era. Each call runs with
 * a fresh `ExecutionContext` whose signal aborts when the client cancels;
 * progress the tool records goes out as `notifications/progress` when the
 * request carried a progress token; error events and `mcpSession(context).log()`
 * go out as MCP log messages. Tool failures of every kind are `isError`
 * results, never protocol errors.
 *
 * Most users call `serveMcp`; use this to connect a transport of your own, or
 * as the factory of the SDK's serving entries (`createMcpHandler`, `serveStdio`).
 * Needs the `@modelcontextprotocol/server` package (`npm i @modelcontextprotocol/server`).
 *
 * @example
 * const server = createMcpServer(new Toolset(new WeatherTools()), { name: 'weather' });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(...args: Parameters<typeof ToolServerModule.createMcpServer>): Server {
  if (toolServer === undefined) {
    try {
      toolServer = requireToolServer() as typeof ToolServerModule;
    } catch (error) {
      throw loadError(error, 'createMcpServer()');
    }
  }
  return toolServer.createMcpServer(...args);
}
