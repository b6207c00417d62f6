import { readFileSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { AnytoolError, ErrorCode, toolsetFromModule, tracing, type Toolset } from '@anytool/core';
import { closestName, describeError, loadToolModule } from '@anytool/core/internal';
import type { McpAuthOptions, StaticToken } from './auth.js';
import { defaultAllowedHosts, isLoopback, isWildcard } from './host-check.js';
import type { McpServerHandle, ServeMcpOptions } from './serve-mcp.js';
import { loadServer, runTaskWorker, serveMcp } from './lazy-server.js';
import { RedisStore } from '../store/redis-store.js';
import { BullmqTaskQueue } from './tasks/bullmq-queue.js';

/** The help of `serve`; `command` is how the user ran it (`anytool serve`, `anytool-mcp serve`). */
export const serveUsage = (command = 'anytool serve'): string => `Usage: ${command} <module.js> [options]

Serves the tools a JavaScript module (ES or CommonJS) exports as an MCP server:
tools, instances of classes with @Tool methods, arrays of them, and Toolsets (when
the module exports a Toolset, only its Toolsets are served). Build TypeScript first
and serve the compiled .js, or run under a TypeScript loader. Over stdio, stdout
carries the protocol: what the module writes to stdout goes to stderr instead.

Options:
  --http                 serve streamable HTTP instead of stdio
  --port <n>             HTTP port (default 3000; 0 picks a free port)
  --host <address>       HTTP bind address (default 127.0.0.1)
  --path <path>          HTTP endpoint path (default /mcp)
  --allowed-host <name>  accept this Host / Origin host name too (repeatable)
  --tokens-file <file>   require bearer tokens from this JSON file: an array of
                         { "token", "subject", "scopes": [...] } (keep it private)
  --jwt-issuer <url>     require JWT access tokens from this identity provider
  --jwks-uri <url>       where the provider's keys are (default: from its metadata)
  --resource <url>       this endpoint's URL as clients reach it, the JWT audience
                         (default: the listening URL)
  --allow-unauthenticated  serve without tokens on an address other than loopback
  --store <redis-url>    share state with the other instances of this endpoint in
                         Redis (redis://host:port): tool list changes, resumable
                         streams; for several processes behind a load balancer
  --task-queue           run tasks on a BullMQ queue in the --store Redis (needs
                         the bullmq package): any worker runs them, and they
                         outlive the process that started them
  --no-worker            with --task-queue: serve only, run no tasks here
  --worker-only          run the tools of queued tasks, with no endpoint (needs
                         --store; implies --task-queue)
  --task-lock-ms <n>     how soon a dead worker's tasks are found, ms (default 30000)
  --task-concurrency <n> tasks a worker runs at once (default 50; for CPU-bound
                         tools, about one)
  --task-grace-ms <n>    on SIGTERM, how long running tasks get to finish before
                         they are handed over or failed, ms (default 20000)
  --task-lease-ms <n>    with --store: how long a task's lease lasts; a dead
                         instance's tasks are failed after two, ms (default 15000)
  --task-answer-within-ms <n>
                         answer a call with its result when its task completes
                         within n ms, else with the task (default 0: the task
                         at once)
  --export <name>        serve only this export (repeatable)
  --name <name>          server name sent in initialize (default: the module's file name)
  --trace-content        put each call's arguments and result on its span (traces
                         are recorded when an OpenTelemetry SDK is registered, as by
                         node --import ./telemetry.mjs; off by default: they may
                         hold personal or secret data)
  -h, --help             show this help
`;

/** What `anytool serve` was asked to do. */
export interface ServeCommandOptions {
  module: string;
  http: boolean;
  port: number;
  host: string;
  path: string;
  allowedHosts: string[];
  exports: string[];
  name: string | undefined;
  tokensFile: string | undefined;
  jwtIssuer: string | undefined;
  jwksUri: string | undefined;
  resource: string | undefined;
  allowUnauthenticated: boolean;
  traceContent: boolean;
  /** `--store`: the Redis URL of the store shared with the other instances. */
  store: string | undefined;
  /** `--task-queue` (or implied by the two below): tasks are jobs of a BullMQ queue in the store's Redis. */
  taskQueue: boolean;
  /** `--no-worker`: this process runs no queued task. */
  noWorker: boolean;
  /** `--worker-only`: this process only runs queued tasks (no endpoint). */
  workerOnly: boolean;
  taskLockMs: number | undefined;
  taskGraceMs: number | undefined;
  taskLeaseMs: number | undefined;
  taskAnswerWithinMs: number | undefined;
  taskConcurrency: number | undefined;
}

/** The options of serve, read from its help (one line each), for the "did you mean" of a mistyped one. */
const SERVE_OPTIONS = [...serveUsage().matchAll(/^ {2}(?:-[a-z], )?(--[a-z-]+)/gm)].map((match) => match[1]!);

function unknownOption(arg: string): string {
  const near = closestName(arg.split('=')[0]!, SERVE_OPTIONS);
  return `unknown option ${arg}${near === undefined ? '' : ` (did you mean ${near}?)`}`;
}

function usageErrorOf(problem: string, command: string): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidUsage, `${problem}; run ${command} --help for the usage`);
}

/** Parses the arguments after `anytool serve`; `undefined` means help was asked for. */
export function parseServeArgs(args: readonly string[], command = 'anytool serve'): ServeCommandOptions | undefined {
  const usageError = (problem: string): AnytoolError => usageErrorOf(problem, command);
  const options: ServeCommandOptions = {
    module: '',
    http: false,
    port: 3000,
    host: '127.0.0.1',
    path: '/mcp',
    allowedHosts: [],
    exports: [],
    name: undefined,
    tokensFile: undefined,
    jwtIssuer: undefined,
    jwksUri: undefined,
    resource: undefined,
    allowUnauthenticated: false,
    traceContent: false,
    store: undefined,
    taskQueue: false,
    noWorker: false,
    workerOnly: false,
    taskLockMs: undefined,
    taskGraceMs: undefined,
    taskLeaseMs: undefined,
    taskAnswerWithinMs: undefined,
    taskConcurrency: undefined,
  };
  const modules: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined || next.startsWith('--')) throw usageError(`${arg} needs a value`);
      return next;
    };
    switch (arg) {
      case '-h':
      case '--help':
        return undefined;
      case '--http':
        options.http = true;
        break;
      case '--port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw usageError(`--port must be a number from 0 to 65535, got "${text}"`);
        options.port = port;
        break;
      }
      case '--host':
        options.host = value();
        break;
      case '--path':
        options.path = value();
        break;
      case '--allowed-host':
        options.allowedHosts.push(value().toLowerCase());
        break;
      case '--export':
        options.exports.push(value());
        break;
      case '--name':
        options.name = value();
        break;
      case '--tokens-file':
        options.tokensFile = value();
        break;
      case '--jwt-issuer':
        options.jwtIssuer = value();
        break;
      case '--jwks-uri':
        options.jwksUri = value();
        break;
      case '--resource':
        options.resource = value();
        break;
      case '--allow-unauthenticated':
        options.allowUnauthenticated = true;
        break;
      case '--trace-content':
        options.traceContent = true;
        break;
      case '--task-queue':
        options.taskQueue = true;
        break;
      case '--no-worker':
        options.noWorker = options.taskQueue = true;
        break;
      case '--worker-only':
        options.workerOnly = options.taskQueue = true;
        break;
      case '--task-lock-ms':
      case '--task-grace-ms':
      case '--task-lease-ms': {
        const text = value();
        if (!/^\d+$/.test(text) || Number(text) < 100) throw usageError(`${arg} must be a whole number of milliseconds, at least 100, got "${text}"`);
        if (arg === '--task-lock-ms') options.taskLockMs = Number(text);
        else if (arg === '--task-grace-ms') options.taskGraceMs = Number(text);
        else options.taskLeaseMs = Number(text);
        break;
      }
      case '--task-answer-within-ms': {
        const text = value();
        if (!/^\d+$/.test(text) || Number(text) > 2 ** 31 - 1)
          throw usageError(`--task-answer-within-ms must be a whole number of milliseconds from 0 to ${2 ** 31 - 1}, got "${text}"`);
        options.taskAnswerWithinMs = Number(text);
        break;
      }
      case '--task-concurrency': {
        const text = value();
        if (!/^\d+$/.test(text) || Number(text) < 1) throw usageError(`--task-concurrency must be a whole number, at least 1, got "${text}"`);
        options.taskConcurrency = Number(text);
        break;
      }
      case '--store':
        options.store = value();
        if (!/^rediss?:\/\//.test(options.store))
          throw usageError(`--store takes a Redis URL (redis://host:port), got "${options.store.replace(/\/\/[^@/]*@/, '//')}"`);
        break;
      default:
        if (arg.startsWith('-')) throw usageError(unknownOption(arg));
        modules.push(arg);
    }
  }
  if (modules.length !== 1) throw usageError(modules.length === 0 ? 'name the module to serve' : `serve one module at a time, got ${modules.join(', ')}`);
  options.module = modules[0]!;
  const authFlags = options.tokensFile !== undefined || options.jwtIssuer !== undefined;
  if (!options.http && (authFlags || options.resource !== undefined))
    throw usageError('--tokens-file, --jwt-issuer and --resource apply to --http (over stdio the client that starts the server is the only one)');
  if (options.workerOnly && (options.http || options.noWorker)) throw usageError('--worker-only runs no endpoint: leave out --http and --no-worker');
  if (options.taskAnswerWithinMs !== undefined && options.workerOnly)
    throw usageError('--task-answer-within-ms applies to the instances that answer calls, not to --worker-only');
  if (options.taskLeaseMs !== undefined && options.store === undefined)
    throw usageError('--task-lease-ms applies to --store (a lease tells the other instances that a task still runs)');
  if (options.taskQueue && options.store === undefined)
    throw usageError(`${options.workerOnly ? '--worker-only' : '--task-queue'} needs --store <redis-url>: the queue and the tasks' records live in that Redis`);
  if (options.taskQueue && !options.http && !options.workerOnly) throw usageError('--task-queue applies to --http (or --worker-only)');
  if (options.store !== undefined && !options.http && !options.workerOnly)
    throw usageError('--store applies to --http (a stdio server has one client and nothing to share)');
  if (options.jwksUri !== undefined && options.jwtIssuer === undefined) throw usageError('--jwks-uri needs --jwt-issuer');
  if (options.jwtIssuer !== undefined && options.resource === undefined && isWildcard(options.host)) {
    throw usageError(
      `--jwt-issuer on ${options.host} (every interface) needs --resource, the URL clients reach the endpoint at: tokens are bound to it as their audience`,
    );
  }
  if (options.http && !authFlags && !options.allowUnauthenticated && !isLoopback(options.host)) {
    throw usageError(
      `refusing to serve without authentication on ${options.host}, which is not a loopback address; give --tokens-file or --jwt-issuer, or --allow-unauthenticated to serve it open behind a proxy that authenticates`,
    );
  }
  return options;
}

// A real dynamic import in the CommonJS build too (tsc would turn `import()` into `require()`, which cannot load ES modules).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

/**
 * `anytool serve <module>`: serves the tools a module exports (ES or CommonJS,
 * as `toolsetFromModule` finds them) over stdio or streamable HTTP until the
 * client disconnects (stdio) or the process gets SIGINT / SIGTERM, then shuts
 * down gracefully and ends the process. Status goes to stderr. Over stdio,
 * stdout carries the protocol: whatever else writes to it (`console.log` or
 * `process.stdout.write` in the served module, at import or in a tool call)
 * goes to stderr instead. A problem before serving rejects with an error
 * whose message is one line (bad arguments: `INVALID_USAGE`; a module that
 * cannot load or holds no tools: `INVALID_TOOL_MODULE`); the command prints
 * it and exits with 2. `command` is how the user ran it (`anytool serve`,
 * `anytool-mcp serve`), for the help and the status lines.
 */
export async function runServeCommand(args: string[], command = 'anytool serve'): Promise<void> {
  // Served by the ES build, like the ES modules most served modules are (the command itself is loaded as CommonJS).
  const esm = (await importModule('@anytool/mcp/internal')) as { runServeCommand?: typeof runServeCommand };
  if (typeof esm.runServeCommand === 'function' && esm.runServeCommand !== runServeCommand) return esm.runServeCommand(args, command);
  const options = parseServeArgs(args, command);
  if (options === undefined) {
    process.stdout.write(serveUsage(command));
    return;
  }
  // Status lines are not worth a crash: a client that closed stderr just does not see them.
  process.stderr.on('error', () => undefined);
  if (options.workerOnly) return runWorkerOnly(options, command);
  const stdout = options.http ? undefined : takeStdout();
  let server: McpServerHandle;
  let size: number;
  let store: RedisStore | undefined;
  let queue: BullmqTaskQueue | undefined;
  try {
    // A missing server SDK is said before the user's module runs (its imports and top-level code).
    await loadServer('serveMcp()');
    const toolset = toolsetFromModule(await loadToolModule(options.module), { only: options.exports, label: options.module });
    size = toolset.size;
    // Each call gets an execute_tool span under its tools/call span (when an SDK is registered), unless the module's toolset traces its calls already.
    if (!toolset.names.some((name) => toolset.middlewareFor(name).some((middleware) => middleware.name === 'tracing')))
      toolset.use(tracing({ captureContent: options.traceContent }));
    const serveOptions = serveOptionsFor(options, stdout?.protocol, command);
    if (options.store !== undefined && serveOptions.transport === 'http') {
      store = new RedisStore({ url: options.store, onError: (error) => void process.stderr.write(`${command}: store: ${error.message}\n`) });
      // Now, so an unreachable Redis stops the start with a clear line instead of failing the first request.
      await store.connect().catch((error: unknown) => {
        throw usageErrorOf(`--store: ${describeError(error)}`, command);
      });
      serveOptions.store = store;
      if (options.taskLeaseMs !== undefined) serveOptions.taskLeaseMs = options.taskLeaseMs;
      if (options.taskQueue) {
        queue = await connectedQueue(options, command);
        serveOptions.taskQueue = queue;
        serveOptions.taskWorker = !options.noWorker;
        if (options.taskGraceMs !== undefined) serveOptions.taskGraceMs = options.taskGraceMs;
      }
    }
    server = await serveMcp(toolset, serveOptions);
  } catch (error) {
    stdout?.restore();
    await queue?.close();
    await store?.close();
    throw error;
  }
  process.stderr.write(`${command}: ${size} tools from ${options.module} ${server.url === undefined ? 'over stdio' : `at ${server.url}`}\n`);
  if (server.url !== undefined) process.stderr.write(`${command}: auth: ${server.authMode}\n`);
  process.stderr.write(`${command}: tools: ${toolsLine(server.toolset)}\n`);
  if (store !== undefined) process.stderr.write(`${command}: store: ${shownStoreUrl(options.store!)}\n`);
  if (queue !== undefined)
    process.stderr.write(`${command}: task queue: ${queue.queueName} (${options.noWorker ? 'serving only, no worker' : 'worker too'})\n`);
  await server.closed;
  await queue?.close();
  await store?.close();
  process.stderr.write(`${command}: stopped\n`);
  // A command ends when serving ends, even if the module left handles open (MCP clients, timers); a caller that
  // still has work to do in this tick finishes it first.
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
}

/** The `--task-queue` queue, connected now: an unreachable Redis or a missing bullmq package stops the start with a clear line. */
async function connectedQueue(options: ServeCommandOptions, command: string): Promise<BullmqTaskQueue> {
  const queue = new BullmqTaskQueue({
    url: options.store!,
    ...(options.taskLockMs === undefined ? {} : { lockMs: options.taskLockMs }),
    ...(options.taskConcurrency === undefined ? {} : { concurrency: options.taskConcurrency }),
  });
  await queue.connect().catch(async (error: unknown) => {
    await queue.close();
    throw usageErrorOf(`--task-queue: ${describeError(error)}`, command);
  });
  return queue;
}

/** `serve --worker-only`: runs the tools of queued tasks until SIGINT / SIGTERM, with no endpoint. */
async function runWorkerOnly(options: ServeCommandOptions, command: string): Promise<void> {
  const onError = (error: Error): void => void process.stderr.write(`${command}: ${error.message}\n`);
  const store = new RedisStore({ url: options.store!, onError: (error) => void process.stderr.write(`${command}: store: ${error.message}\n`) });
  let queue: BullmqTaskQueue | undefined;
  let worker: Awaited<ReturnType<typeof runTaskWorker>>;
  try {
    await loadServer('runTaskWorker()');
    await store.connect().catch((error: unknown) => {
      throw usageErrorOf(`--store: ${describeError(error)}`, command);
    });
    queue = await connectedQueue(options, command);
    const toolset = toolsetFromModule(await loadToolModule(options.module), { only: options.exports, label: options.module });
    if (!toolset.names.some((name) => toolset.middlewareFor(name).some((middleware) => middleware.name === 'tracing')))
      toolset.use(tracing({ captureContent: options.traceContent }));
    worker = await runTaskWorker(toolset, {
      store,
      taskQueue: queue,
      handleSignals: true,
      onError,
      ...(options.taskGraceMs === undefined ? {} : { taskGraceMs: options.taskGraceMs }),
      ...(options.taskLeaseMs === undefined ? {} : { taskLeaseMs: options.taskLeaseMs }),
    });
  } catch (error) {
    await queue?.close();
    await store.close();
    throw error;
  }
  process.stderr.write(`${command}: worker only: ${worker.toolset.size} tools from ${options.module}, no endpoint\n`);
  process.stderr.write(`${command}: task queue: ${queue.queueName} in ${shownStoreUrl(options.store!)}\n`);
  await worker.closed;
  await queue.close();
  await store.close();
  process.stderr.write(`${command}: stopped\n`);
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
}

/**
 * Keeps stdout for the protocol: from now on, anything else written to
 * `process.stdout` (console.log included, which writes through it) goes to
 * stderr. Returns the stream the transport writes to, which reaches the real stdout.
 */
function takeStdout(): { protocol: Writable; restore(): void } {
  const stdout = process.stdout;
  const hadOwn = Object.prototype.hasOwnProperty.call(stdout, 'write');
  const write = stdout.write;
  const writeChunk = write as (chunk: Buffer, callback: (error?: Error | null) => void) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeChunk.call(stdout, chunk, callback);
    },
  });
  // A write that fails (the client closed its end: EPIPE) fails the protocol stream, which ends serving.
  const fail = (error: Error): void => void protocol.destroy(error);
  stdout.on('error', fail);
  stdout.write = function redirected(...args: unknown[]): boolean {
    return (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, args);
  } as typeof stdout.write;
  return {
    protocol,
    restore() {
      stdout.off('error', fail);
      if (hadOwn) stdout.write = write;
      else delete (stdout as { write?: unknown }).write;
    },
  };
}

/** A store URL without its password, for the status line. */
function shownStoreUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

/** The tools served, each with the scopes it needs: what a caller may reach. */
function toolsLine(toolset: Toolset): string {
  return toolset.tools
    .map((tool) => (tool.scopes === undefined || tool.scopes.length === 0 ? tool.name : `${tool.name} [${tool.scopes.join(' ')}]`))
    .join(', ');
}

/** Where in `text` a JSON parse error is, as "line L, column C", or undefined if the parser did not say. */
function jsonErrorPlace(error: unknown, text: string): string | undefined {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  if (match === null) return undefined;
  const before = text.slice(0, Number(match[1])).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

/** A tokens file others on the machine can read gives its tokens away: said on stderr, as the start goes on. */
function warnIfShared(file: string, command: string): void {
  if (process.platform === 'win32') return;
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0)
    process.stderr.write(
      `${command}: warning: --tokens-file ${file} can be read by other users (mode ${mode.toString(8)}); make it owner-only: chmod 600 ${file}\n`,
    );
}

/** The `auth` option from the command's flags; the tokens file is read now, so a bad one stops the start. */
function authFor(options: ServeCommandOptions, command: string): McpAuthOptions | undefined {
  const usageError = (problem: string): AnytoolError => usageErrorOf(problem, command);
  if (options.tokensFile === undefined && options.jwtIssuer === undefined) return undefined;
  const auth: McpAuthOptions = {};
  if (options.tokensFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.tokensFile, 'utf8');
    } catch (error) {
      throw usageError(`--tokens-file ${options.tokensFile}: ${describeError(error)}`);
    }
    warnIfShared(options.tokensFile, command);
    let tokens: unknown;
    try {
      tokens = JSON.parse(text);
    } catch (error) {
      // The parser's message quotes the text around the problem: a part of a token, never shown.
      const place = jsonErrorPlace(error, text);
      throw usageError(
        `--tokens-file ${options.tokensFile} is not valid JSON${place === undefined ? '' : ` (${place})`}; its content is not shown (it holds tokens). It must hold a JSON array of { "token", "subject", "scopes" }`,
      );
    }
    if (!Array.isArray(tokens)) throw usageError(`--tokens-file ${options.tokensFile} must hold a JSON array of { "token", "subject", "scopes" }`);
    auth.tokens = tokens as StaticToken[];
  }
  if (options.jwtIssuer !== undefined)
    auth.jwt = options.jwksUri === undefined ? { issuer: options.jwtIssuer } : { issuer: options.jwtIssuer, jwksUri: options.jwksUri };
  if (options.resource !== undefined) auth.resource = options.resource;
  return auth;
}

function serveOptionsFor(options: ServeCommandOptions, stdout: Writable | undefined, command: string): ServeMcpOptions {
  const name = options.name ?? options.module.replace(/^.*[\\/]/, '').replace(/\.[cm]?js$/, '');
  const common = {
    name,
    handleSignals: true,
    onError: (error: Error) => void process.stderr.write(`${command}: ${error.message}\n`),
    ...(options.taskAnswerWithinMs === undefined ? {} : { taskAnswerWithinMs: options.taskAnswerWithinMs }),
  };
  if (!options.http) return stdout === undefined ? { ...common, transport: 'stdio' } : { ...common, transport: 'stdio', stdout };
  const http: ServeMcpOptions = { ...common, transport: 'http', port: options.port, host: options.host, path: options.path };
  // Named hosts come on top of the loopback names for a loopback bind only: elsewhere the named ones are all.
  if (options.allowedHosts.length > 0) http.allowedHosts = [...new Set([...options.allowedHosts, ...defaultAllowedHosts(options.host)])];
  const auth = authFor(options, command);
  if (auth !== undefined) http.auth = auth;
  if (options.allowUnauthenticated) http.allowUnauthenticated = true;
  return http;
}
