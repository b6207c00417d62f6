import { isBaseTool } from './base-tool.js';
import { readToolRecords } from './decorators/records.js';
import { AnytoolError, ErrorCode, describeError } from './errors.js';
import { isPlainObject } from './is-record.js';
import { hasToolRecords, toolsFrom } from './method-tool.js';
import { Toolset, type DynamicToolSource, type ToolSource } from './toolset.js';

/** How `toolsetFromModule` and `loadToolModule` read a module. */
export interface ModuleToolsOptions {
  /** Take only these exports (names as the module exports them). */
  only?: readonly string[];
  /** How messages name the module: the path the user gave. Default "the module". */
  label?: string;
}

/** What counts as tools, for messages. */
const WHAT_COUNTS =
  'tools are tool() and defineTool() tools, BaseTool instances, instances of classes with @Tool methods (not the classes), arrays of them and Toolsets';

function isDynamicSource(value: unknown): value is DynamicToolSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { subscribe?: unknown }).subscribe === 'function' &&
    Array.isArray((value as { tools?: unknown }).tools)
  );
}

// A Toolset from this copy of @anytool/core or another one (an ES module and a CommonJS module each get their own build).
function isToolsetLike(value: unknown): value is DynamicToolSource {
  return (
    value instanceof Toolset ||
    (isDynamicSource(value) &&
      typeof (value as { invoke?: unknown }).invoke === 'function' &&
      typeof (value as { definitions?: unknown }).definitions === 'function')
  );
}

/** The tools one export holds, or undefined when it holds none (functions, classes, constants, plain objects). */
function toolsOf(value: unknown): ToolSource | undefined {
  if (isBaseTool(value) || isDynamicSource(value)) return value;
  if (Array.isArray(value)) return value.length > 0 && value.every((item) => toolsOf(item) !== undefined) ? (value as ToolSource[]) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  return hasToolRecords(value) ? toolsFrom(value) : undefined;
}

/**
 * The exports of a module namespace as a user thinks of them. Importing a
 * CommonJS module gives `default` (its `module.exports`) plus the names Node
 * could detect statically, which may be none; an object under `default` is
 * read as the module's exports (TypeScript's CommonJS output included), and a
 * `default` that is itself a tool or toolset stays an export named `default`.
 */
function moduleExports(namespace: object): Map<string, unknown> {
  const exports = new Map<string, unknown>();
  const record = namespace as Record<string, unknown>;
  const container = record['default'];
  const unwrap = isPlainObject(container) && toolsOf(container) === undefined;
  for (const name of Object.keys(record)) {
    if (name === '__esModule' || name === 'module.exports' || (unwrap && name === 'default')) continue;
    exports.set(name, record[name]);
  }
  if (unwrap) {
    for (const name of Object.keys(container)) {
      if (name !== '__esModule' && !exports.has(name)) exports.set(name, container[name]);
    }
  }
  return exports;
}

/** What an export is, for a message: `a function`, `a class with @Tool methods (export an instance: new Weather())`... */
function describeExport(value: unknown): string {
  if (value === null) return 'null';
  if (isBaseTool(value)) return `a tool (${value.name})`;
  if (isToolsetLike(value)) return 'a Toolset';
  if (isDynamicSource(value)) return 'a dynamic tool source';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'function': {
      const name = value.name || 'X';
      const records = readToolRecords(value).length > 0;
      if (records) return `a class with @Tool methods: export an instance, new ${name}(), not the class`;
      return /^class[\s{]/.test(Function.prototype.toString.call(value))
        ? 'a class with no @Tool methods'
        : 'a function: wrap it with tool() to make it a tool';
    }
    case 'object': {
      if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array that is not all tools';
      if (value instanceof Promise) return 'a promise: export what it resolves to';
      if (isPlainObject(value)) return 'a plain object';
      const name = (value as { constructor?: { name?: string } }).constructor?.name;
      return `an instance of ${name || 'a class'} with no @Tool methods`;
    }
    default:
      return `a ${typeof value}`;
  }
}

function listExports(exports: ReadonlyMap<string, unknown>): string {
  if (exports.size === 0) return 'it exports nothing';
  return `it exports ${[...exports].map(([name, value]) => `${name} (${describeExport(value)})`).join(', ')}`;
}

/**
 * The toolset a module's exports make: every export that holds tools (only
 * the Toolsets when there is one, since a Toolset usually holds the module's
 * other exports), or only the exports named in `only`. ES and CommonJS
 * modules alike (see `moduleExports`). A module with no tools, or a named
 * export that is missing or holds none, throws `INVALID_TOOL_MODULE` naming what
 * the module does export.
 *
 * @example
 * const toolset = toolsetFromModule(await import('./tools.js'));
 */
export function toolsetFromModule(namespace: object, options: ModuleToolsOptions = {}): Toolset {
  const label = options.label ?? 'the module';
  const only = options.only ?? [];
  const exports = moduleExports(namespace);
  const found = new Map<string, ToolSource>();
  if (only.length > 0) {
    for (const name of only) {
      if (!exports.has(name)) {
        throw new AnytoolError(ErrorCode.InvalidToolModule, `${label} has no export "${name}"; ${listExports(exports)}`);
      }
      const value = exports.get(name);
      const tools = toolsOf(value);
      if (tools === undefined)
        throw new AnytoolError(ErrorCode.InvalidToolModule, `export "${name}" of ${label} holds no tools: it is ${describeExport(value)}; ${WHAT_COUNTS}`);
      found.set(name, tools);
    }
  } else {
    for (const [name, value] of exports) {
      const tools = toolsOf(value);
      if (tools !== undefined) found.set(name, tools);
    }
    const toolsets = [...found].filter(([, tools]) => isToolsetLike(tools));
    if (toolsets.length > 0) {
      found.clear();
      for (const [name, tools] of toolsets) found.set(name, tools);
    }
  }
  if (found.size === 0) throw new AnytoolError(ErrorCode.InvalidToolModule, `${label} exports no tools; ${listExports(exports)}; ${WHAT_COUNTS}`);
  const sources = [...found.values()];
  return sources.length === 1 && sources[0] instanceof Toolset ? sources[0] : new Toolset(...sources);
}

// A real dynamic import in the CommonJS build too (tsc turns `import()` into `require()` there, which cannot load ES modules).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<object>;

/** What went wrong loading `file`: the first line of the message and, when the stack has it, where in the file. */
function loadFailure(error: unknown, file: string, fileUrl: string): string {
  const message = describeError(error).split('\n')[0]!.trim();
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  // A CommonJS syntax error's stack starts with `file:line`; a throw at import has a frame in the file.
  let at: string | undefined;
  for (const prefix of [fileUrl, file]) {
    const start = stack.indexOf(`${prefix}:`);
    if (start >= 0) {
      at = /^:\d+(?::\d+)?/.exec(stack.slice(start + prefix.length))?.[0];
      if (at !== undefined) break;
    }
  }
  return `${name}${message}${at === undefined ? '' : ` (at line ${at.slice(1).replace(':', ', column ')})`}`;
}

/**
 * Loads a JavaScript module (ES or CommonJS) by path, relative to the working
 * directory, the way `anytool list`, `call` and `serve` do. Every failure is
 * an `INVALID_TOOL_MODULE` error with a one-line message that names the file and
 * the fix: a missing file, TypeScript that was not built, a module that throws
 * or does not parse, a package it imports that is not installed.
 */
export async function loadToolModule(path: string): Promise<object> {
  const [{ existsSync, statSync }, { isAbsolute, resolve }, { pathToFileURL }] = await Promise.all([
    import('node:fs'),
    import('node:path'),
    import('node:url'),
  ]);
  const file = isAbsolute(path) ? path : resolve(process.cwd(), path);
  if (!existsSync(file))
    throw new AnytoolError(
      ErrorCode.InvalidToolModule,
      `cannot load ${path}: there is no such file (${file}); check the path, which is relative to the current directory`,
    );
  if (statSync(file).isDirectory())
    throw new AnytoolError(ErrorCode.InvalidToolModule, `cannot load ${path}: it is a directory; name the JavaScript file that exports the tools`);
  try {
    return await importModule(pathToFileURL(file).href);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const url = pathToFileURL(file).href;
    let hint = 'fix the module';
    if (/\.[cm]?tsx?$/.test(file)) hint = 'build TypeScript to JavaScript first (anytool build) and pass the compiled .js file';
    else if (error instanceof SyntaxError && !(error.stack ?? '').includes(file)) hint = `fix the module; node --check ${path} shows where the error is`;
    else if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') hint = 'install the package it imports, or fix the import';
    else if (code === 'ERR_UNKNOWN_FILE_EXTENSION') hint = 'pass a .js, .mjs or .cjs file';
    throw new AnytoolError(ErrorCode.InvalidToolModule, `cannot load ${path}: ${loadFailure(error, file, url)}; ${hint}`, { cause: error });
  }
}
