import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AnytoolError, ErrorCode, Toolset, describeError, isAnytoolError, isBaseTool, isToolset, toolsFrom, type ToolSource } from '@anytool/core';
import { serveMcp, type McpServerHandle, type ServeMcpOptions } from './serve-mcp.js';

export const SERVE_USAGE = `Usage: anytool serve <module.js> [options]

Serves the tools a JavaScript module exports as an MCP server: tools,
instances of classes with @Tool methods, arrays of them, and Toolsets (when the
module exports a Toolset, only its Toolsets are served). Build TypeScript first
and serve the compiled .js, or run under a TypeScript loader.

Options:
  --http                 serve streamable HTTP instead of stdio
  --port <n>             HTTP port (default 3000; 0 picks a free port)
  --host <address>       HTTP bind address (default 127.0.0.1)
  --path <path>          HTTP endpoint path (default /mcp)
  --allowed-host <name>  accept this Host / Origin host name too (repeatable)
  --export <name>        serve only this export (repeatable)
  --name <name>          server name sent in initialize (default: the module's file name)
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
}

function usageError(problem: string): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidOptions, `anytool serve: ${problem}\n\n${SERVE_USAGE}`);
}

/** Parses the arguments after `anytool serve`; `undefined` means help was asked for. */
export function parseServeArgs(args: readonly string[]): ServeCommandOptions | undefined {
  const options: ServeCommandOptions = { module: '', http: false, port: 3000, host: '127.0.0.1', path: '/mcp', allowedHosts: [], exports: [], name: undefined };
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
      default:
        if (arg.startsWith('-')) throw usageError(`unknown option ${arg}`);
        modules.push(arg);
    }
  }
  if (modules.length !== 1) throw usageError(modules.length === 0 ? 'name the module to serve' : `serve one module at a time, got ${modules.join(', ')}`);
  options.module = modules[0]!;
  return options;
}

/** The tools one export holds, or undefined when it holds none (functions, constants, plain objects). */
function toolsOf(value: unknown): ToolSource | undefined {
  if (isBaseTool(value) || isToolset(value)) return value;
  if (Array.isArray(value)) return value.length > 0 && value.every((item) => toolsOf(item) !== undefined) ? (value as ToolSource[]) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (typeof (value as { subscribe?: unknown }).subscribe === 'function' && Array.isArray((value as { tools?: unknown }).tools)) return value as ToolSource;
  const methods = toolsFrom(value);
  return methods.length > 0 ? methods : undefined;
}

/**
 * The toolset a module's exports make: every export that holds tools (only
 * the Toolsets when there is one, since a Toolset usually holds the module's
 * other exports), or only the exports named in `only`.
 */
export function toolsetFromModule(namespace: Record<string, unknown>, only: readonly string[] = [], label = 'the module'): Toolset {
  const names = Object.keys(namespace).filter((name) => name !== '__esModule');
  const found = new Map<string, ToolSource>();
  if (only.length > 0) {
    for (const name of only) {
      if (!(name in namespace)) throw new AnytoolError(ErrorCode.InvalidOptions, `anytool serve: ${label} has no export "${name}" (it exports: ${names.join(', ') || 'nothing'})`);
      const tools = toolsOf(namespace[name]);
      if (tools === undefined) throw new AnytoolError(ErrorCode.InvalidOptions, `anytool serve: export "${name}" of ${label} holds no tools; export a tool, an instance of a class with @Tool methods, an array of them or a Toolset`);
      found.set(name, tools);
    }
  } else {
    for (const name of names) {
      const tools = toolsOf(namespace[name]);
      if (tools !== undefined) found.set(name, tools);
    }
    const toolsets = [...found].filter(([, tools]) => isToolset(tools));
    if (toolsets.length > 0) {
      found.clear();
      for (const [name, tools] of toolsets) found.set(name, tools);
    }
  }
  if (found.size === 0) {
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `anytool serve: ${label} exports no tools (it exports: ${names.join(', ') || 'nothing'}); export tools, instances of classes with @Tool methods (not the classes), arrays of them or a Toolset`,
    );
  }
  const sources = [...found.values()];
  return sources.length === 1 && isToolset(sources[0]) ? sources[0] : new Toolset(...sources);
}

// Kept as a real dynamic import in the CommonJS build too (tsc would turn `import()` into `require()`, which cannot load ES modules).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

/** Loads the module to serve, relative to the working directory. */
export async function loadToolModule(path: string): Promise<Record<string, unknown>> {
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path);
  try {
    return await importModule(pathToFileURL(file).href);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    let hint = '';
    if (code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(file)) hint = '; check the path (relative to the current directory)';
    else if (code === 'ERR_UNKNOWN_FILE_EXTENSION') hint = '; build TypeScript to JavaScript first (npm run build) and serve the .js, or run under a TypeScript loader';
    throw new AnytoolError(ErrorCode.InvalidOptions, `anytool serve: cannot load ${path} (${describeError(error)})${hint}`, { cause: error });
  }
}

/**
 * `anytool serve <module>`: serves the tools a module exports over stdio or
 * streamable HTTP until the client disconnects (stdio) or the process gets
 * SIGINT / SIGTERM, then shuts down gracefully and ends the process. Status
 * goes to stderr (stdout belongs to the protocol over stdio). A problem before
 * serving (bad arguments, a module that cannot load or holds no tools) is
 * printed to stderr and ends the process with exit code 1.
 */
export async function runServeCommand(args: string[]): Promise<void> {
  // Modules are loaded as ES modules, and their tools are instances of the ES build of @anytool/core; when this
  // is the CommonJS build (a CommonJS caller), hand over to the ES build so `instanceof` checks hold.
  const esm = (await importModule('@anytool/mcp')) as { runServeCommand?: typeof runServeCommand };
  if (typeof esm.runServeCommand === 'function' && esm.runServeCommand !== runServeCommand) return esm.runServeCommand(args);
  let server: McpServerHandle;
  let size: number;
  let module: string;
  try {
    const options = parseServeArgs(args);
    if (options === undefined) {
      process.stdout.write(SERVE_USAGE);
      return;
    }
    module = options.module;
    const namespace = await loadToolModule(options.module);
    const toolset = toolsetFromModule(namespace, options.exports, options.module);
    size = toolset.size;
    server = await serveMcp(toolset, serveOptionsFor(options));
  } catch (error) {
    process.stderr.write(`${isAnytoolError(error) ? error.message : `anytool serve: ${describeError(error)}`}\n`);
    process.exit(1);
  }
  process.stderr.write(`anytool serve: ${size} tools from ${module} ${server.url === undefined ? 'over stdio' : `at ${server.url}`}\n`);
  await server.closed;
  process.stderr.write('anytool serve: stopped\n');
  // A command ends when serving ends, even if the module left handles open (MCP clients, timers); a caller that
  // still has work to do in this tick finishes it first.
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
}

function serveOptionsFor(options: ServeCommandOptions): ServeMcpOptions {
  const name = options.name ?? options.module.replace(/^.*[\\/]/, '').replace(/\.[cm]?js$/, '');
  const common = { name, handleSignals: true, onError: (error: Error) => void process.stderr.write(`anytool serve: ${error.message}\n`) };
  if (!options.http) return { ...common, transport: 'stdio' };
  const http: ServeMcpOptions = { ...common, transport: 'http', port: options.port, host: options.host, path: options.path };
  if (options.allowedHosts.length > 0) http.allowedHosts = [...new Set([...options.allowedHosts, 'localhost', '127.0.0.1', '[::1]'])];
  return http;
}
