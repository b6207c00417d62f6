import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type FetchLike,
  type OAuthClientProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isHttpConfig, type McpServerConfig } from './config.js';
import { limitedFetch } from './http-limits.js';
import { startInOwnGroup, useStdioReadBuffer, watchStdioStart } from './sdk-internals.js';
import { stdioSpeedups } from './speedups/speedups.js';
import { loadedStdio, stdioModule } from './stdio-module.js';
import { moveCredentials } from './url-credentials.js';

/*
 * Making the SDK transport for one server entry. The SDK's own classes are used as
 * they are, but for stdio's (see `InPlaceStdioTransport`); what this code adds is set
 * on the instance.
 */

/**
 * The SDK's stdio transport under a name of its own. The SDK runs the `server/discover`
 * probe of its base `StdioClientTransport` on a sibling process it spawns for that alone,
 * then starts the server again for the session; a subclass is probed in place, on the
 * session's own process (the SDK documents both). One process per start: a pinned era
 * has no fallback for a sibling to protect, and under `auto` the one kind of server a
 * probe in place costs its process (one that exits on any request before `initialize`)
 * is started again by the supervisor with the 2025 era, which is what the sibling would
 * have cost every server.
 */
let inPlaceClass: typeof StdioClientTransport | undefined;

/** `InPlaceStdioTransport`, made once the SDK's stdio transport is loaded (see stdio-module.ts). */
function inPlaceStdioTransport(): typeof StdioClientTransport {
  return (inPlaceClass ??= class InPlaceStdioTransport extends stdioModule().StdioClientTransport {});
}

/** What a transport reports to its connection. */
export interface TransportHooks {
  /** The largest message read from the server, in bytes. */
  maxResultBytes: number;
  note(problem: string): void;
  /** A stdio start began (pid undefined) or spawned its child; `running` says whether that child still runs. */
  onSpawned(pid: number | undefined, running?: () => boolean): void;
  /** A stdio server that leads its own process group has ended. */
  onExit(pid: number): void;
  /** A chunk the stdio server wrote to stderr. */
  onStderr(text: string): void;
  /** OAuth for an HTTP server: the transport's `authProvider`, and what wraps its `fetch` (see `OAuthSession`). */
  auth?: { authProvider: AuthProvider | OAuthClientProvider; wrap?(fetch: FetchLike): FetchLike } | undefined;
}

/** The transport, and whether its stdio server leads a process group of its own (`detached`). */
export interface MadeTransport {
  transport: Transport;
  grouped: boolean;
}

/**
 * Streamable HTTP, the old HTTP+SSE transport (`sse`, or `type: "sse"`), or a stdio child process (after `loadStdio()`).
 */
export function createTransport(config: McpServerConfig, sse: boolean, hooks: TransportHooks): MadeTransport {
  if (isHttpConfig(config)) {
    const { url, headers } = moveCredentials(config.url, config.headers);
    const requestInit: RequestInit = headers === undefined ? {} : { headers };
    // Every response goes through a fetch that holds no message over maxResultBytes.
    const limited = limitedFetch(hooks.maxResultBytes, (problem) => hooks.note(problem));
    const auth = hooks.auth;
    const fetch = auth?.wrap === undefined ? limited : auth.wrap(limited);
    const options = auth === undefined ? { requestInit, fetch } : { requestInit, fetch, authProvider: auth.authProvider };
    if (sse || config.type === 'sse') return { transport: new SSEClientTransport(url, options), grouped: false };
    return { transport: new StreamableHTTPClientTransport(url, options), grouped: false };
  }
  const base = config.inheritEnv === true ? definedEnv(process.env) : stdioModule().getDefaultEnvironment();
  const params: ConstructorParameters<typeof StdioClientTransport>[0] = {
    command: config.command,
    args: config.args ?? [],
    env: { ...base, ...config.env },
    stderr: 'pipe',
    maxBufferSize: hooks.maxResultBytes,
  };
  if (config.cwd !== undefined) params.cwd = config.cwd;
  const transport = new (inPlaceStdioTransport())(params);
  const problem = (message: string): void => hooks.note(message);
  // The server leads a process group of its own; when it ends, so does what it left running.
  const grouped = startInOwnGroup(transport, (pid) => hooks.onExit(pid), problem);
  const faster = stdioSpeedups(transport);
  watchStdioStart(transport, (pid, running) => hooks.onSpawned(pid, running), problem, faster.onStdin);
  useStdioReadBuffer(transport, problem, faster.readShortcut);
  transport.stderr?.on('data', (chunk: Buffer | string) => hooks.onStderr(chunk.toString()));
  return { transport, grouped };
}

/** Whether a transport is the SDK's stdio one (none is before a stdio start loads it). */
export function isStdioTransport(transport: Transport | undefined): transport is StdioClientTransport {
  const stdio = loadedStdio();
  return stdio !== undefined && transport instanceof stdio.StdioClientTransport;
}

/** The pid of a stdio transport's child while it runs. */
export function stdioPid(transport: Transport | undefined): number | undefined {
  return isStdioTransport(transport) ? (transport.pid ?? undefined) : undefined;
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
