import { BaseTool } from './base-tool.js';
import { AnytoolError, ErrorCode } from './errors.js';
import type { ExecutionContext } from './execution-context.js';
import { TOOL_STAGE } from './pipeline/pipeline.js';
import type { BuiltinDeclaration, BuiltinFormat, JsonSchema, ToolAnnotations, ToolDefinition } from './tool-definition.js';
import { errorResult, type ToolResult } from './tool-result.js';

/** The provider each built-in format belongs to, for messages. */
const PROVIDER_NAMES: Record<BuiltinFormat, string> = { 'openai-responses': 'OpenAI (Responses API)', anthropic: 'Anthropic', gemini: 'Gemini' };

/** A provider built-in takes no arguments anytool checks: the provider reads them. */
const OPEN_PARAMETERS: JsonSchema = { type: 'object', properties: {}, additionalProperties: true };

/** Options every built-in constructor takes besides the provider's own settings. */
export interface BuiltinToolOptions {
  /** The tool's name in a toolset (the provider's own name is in the declaration and never changes). */
  name?: string;
  description?: string;
}

/**
 * A tool the provider runs on its side (OpenAI's web search, Anthropic's web
 * fetch, Gemini's Google Search grounding). It sits in a toolset like any other
 * tool; `definitions(format)` sends the provider's own declaration in that
 * provider's format and leaves it out, with a lowering note, in every other
 * format. The model's calls of it and their results come back from the provider
 * and the agent records them as run events. It cannot run locally: `invoke`
 * returns a `PROVIDER_TOOL` error result. Made by the constructors in `builtin`.
 */
export class BuiltinTool extends BaseTool {
  /** The format whose provider runs this tool. */
  readonly format: BuiltinFormat;
  /** The provider's own declaration, sent as it is. */
  readonly declaration: Readonly<Record<string, unknown>>;
  private builtinDefinition: ToolDefinition | undefined;

  constructor(format: BuiltinFormat, declaration: Record<string, unknown>, options: Required<BuiltinToolOptions> & { annotations?: ToolAnnotations }) {
    super({
      name: options.name,
      description: options.description,
      parameters: OPEN_PARAMETERS,
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    });
    this.format = format;
    this.declaration = declaration;
    this.source = `${PROVIDER_NAMES[format]} built-in`;
    this.perCallContext = false;
  }

  override get definition(): ToolDefinition {
    const builtin: BuiltinDeclaration = { runs: 'provider', declarations: { [this.format]: structuredClone(this.declaration) } };
    return (this.builtinDefinition ??= { ...super.definition, builtin });
  }

  execute(): never {
    throw new AnytoolError(ErrorCode.ProviderTool, this.notLocal());
  }

  /** Never runs anything: the one result of a local call says who runs the tool. */
  override [TOOL_STAGE](): ToolResult {
    const text = this.notLocal();
    return errorResult(ErrorCode.ProviderTool, text, `${this.label}: ${text}`);
  }

  private notLocal(): string {
    return `Tool "${this.name}" is a built-in tool of ${PROVIDER_NAMES[this.format]}: only that provider runs it, during a model turn. It cannot be called locally.`;
  }
}

/** What a client tool's implementation receives: the model's arguments (checked against the local schema) and the run's context. */
export type ClientToolHandler<Args extends object> = (args: Args, context: ExecutionContext) => unknown;

/**
 * A tool whose schema its provider fixes (Anthropic's bash, text editor and
 * memory tools) and whose work your code does. The provider's format gets the
 * provider's declaration (the model was trained on it); every other format gets
 * the local JSON Schema, and every call runs `handler` like any local tool.
 */
export class ClientTool<Args extends object = Record<string, unknown>> extends BaseTool<Args> {
  readonly format: BuiltinFormat;
  readonly declaration: Readonly<Record<string, unknown>>;
  private readonly handler: ClientToolHandler<Args>;
  private clientDefinition: ToolDefinition | undefined;

  constructor(
    format: BuiltinFormat,
    declaration: Record<string, unknown>,
    handler: ClientToolHandler<Args>,
    options: { name: string; description: string; parameters: JsonSchema; annotations?: ToolAnnotations },
  ) {
    if (typeof handler !== 'function') {
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        `the ${PROVIDER_NAMES[format]} client tool "${options.name}" needs your implementation: pass a function (args, context) => result`,
      );
    }
    super({
      name: options.name,
      description: options.description,
      parameters: options.parameters,
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    });
    this.format = format;
    this.declaration = declaration;
    this.handler = handler;
    this.source = `${PROVIDER_NAMES[format]} client tool`;
  }

  override get definition(): ToolDefinition {
    const builtin: BuiltinDeclaration = { runs: 'client', declarations: { [this.format]: structuredClone(this.declaration) } };
    return (this.clientDefinition ??= { ...super.definition, builtin });
  }

  execute(context: ExecutionContext, args: Args): unknown {
    return this.handler(args, context);
  }
}

/** Whether a definition is of a tool its provider runs (a `BuiltinTool`'s), not one that runs locally. */
export function isProviderTool(definition: ToolDefinition): boolean {
  return definition.builtin?.runs === 'provider';
}

type Settings = Record<string, unknown>;

function builtinTool(
  format: BuiltinFormat,
  declaration: Settings,
  defaults: Required<BuiltinToolOptions>,
  options: BuiltinToolOptions | undefined,
  annotations?: ToolAnnotations,
): BuiltinTool {
  return new BuiltinTool(format, declaration, {
    name: options?.name ?? defaults.name,
    description: options?.description ?? defaults.description,
    ...(annotations === undefined ? {} : { annotations }),
  });
}

/** Settings in the provider's own wire shape (snake_case for OpenAI and Anthropic, camelCase for Gemini), plus the tool's name and description. */
type WithSettings<S = Settings> = S & Settings & BuiltinToolOptions;

function split<S extends Settings>(options: WithSettings<S> | undefined): { settings: Settings; own: BuiltinToolOptions } {
  const { name, description, ...settings } = options ?? ({} as WithSettings<S>);
  const own: BuiltinToolOptions = {};
  if (name !== undefined) own.name = name;
  if (description !== undefined) own.description = description;
  return { settings, own };
}

const WEB = { readOnly: true, openWorld: true } satisfies ToolAnnotations;

/** OpenAI's hosted tools of the Responses API (`tools` of `responses.create`). */
const openai = {
  /** Web search (`{ type: 'web_search' }`); settings such as `search_context_size`, `filters`, `user_location`. */
  webSearch(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'openai-responses',
      { type: 'web_search', ...settings },
      { name: 'openai_web_search', description: 'Search the web (run by OpenAI).' },
      own,
      WEB,
    );
  },
  /** File search over your vector stores (`vector_store_ids` is required). */
  fileSearch(options: WithSettings<{ vector_store_ids: string[] }>): BuiltinTool {
    const { settings, own } = split(options);
    if (!Array.isArray(settings['vector_store_ids']))
      throw new AnytoolError(ErrorCode.InvalidToolDefinition, 'builtin.openai.fileSearch(): pass { vector_store_ids: [...] }, the vector stores to search');
    return builtinTool(
      'openai-responses',
      { type: 'file_search', ...settings },
      { name: 'openai_file_search', description: 'Search the uploaded files (run by OpenAI).' },
      own,
      { readOnly: true },
    );
  },
  /** The code interpreter; runs in an automatic container unless `container` says otherwise. */
  codeInterpreter(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'openai-responses',
      { type: 'code_interpreter', container: { type: 'auto' }, ...settings },
      { name: 'openai_code_interpreter', description: 'Run Python code in a sandbox (run by OpenAI).' },
      own,
    );
  },
  /** Image generation; settings such as `size`, `quality`, `output_format`. */
  imageGeneration(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'openai-responses',
      { type: 'image_generation', ...settings },
      { name: 'openai_image_generation', description: 'Generate an image (run by OpenAI).' },
      own,
    );
  },
  /**
   * A remote MCP server that OpenAI calls itself (`server_label` and `server_url` or `connector_id`).
   * `require_approval` defaults to "never". With `'always'` or a per-tool filter
   * (`{ never: { tool_names: [...] } }`), each call OpenAI holds for approval goes
   * to the agent's `approve` callback (refused without one) and the answer goes
   * back on the next turn.
   */
  mcp(options: WithSettings<{ server_label: string }>): BuiltinTool {
    const { settings, own } = split(options);
    if (typeof settings['server_label'] !== 'string')
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        'builtin.openai.mcp(): pass { server_label, server_url } (or connector_id) of the remote MCP server',
      );
    const label = settings['server_label'] as string;
    return builtinTool(
      'openai-responses',
      { type: 'mcp', require_approval: 'never', ...settings },
      { name: `openai_mcp_${label.replace(/[^A-Za-z0-9_-]/g, '_')}`, description: `Tools of the remote MCP server "${label}" (called by OpenAI).` },
      own,
    );
  },
};

/** Anthropic's server tools (run by Anthropic) and client tools (schema fixed by Anthropic, run by your code). */
const anthropic = {
  /** Web search (`web_search_20250305`); settings such as `max_uses`, `allowed_domains`, `user_location`. */
  webSearch(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'anthropic',
      { type: 'web_search_20250305', name: 'web_search', ...settings },
      { name: 'anthropic_web_search', description: 'Search the web (run by Anthropic).' },
      own,
      WEB,
    );
  },
  /** Web fetch (`web_fetch_20250910`); settings such as `max_uses`, `allowed_domains`, `citations`. */
  webFetch(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'anthropic',
      { type: 'web_fetch_20250910', name: 'web_fetch', ...settings },
      { name: 'anthropic_web_fetch', description: 'Fetch a web page or PDF (run by Anthropic).' },
      own,
      WEB,
    );
  },
  /** Code execution (`code_execution_20250825`): bash and file editing in Anthropic's sandbox. */
  codeExecution(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'anthropic',
      { type: 'code_execution_20250825', name: 'code_execution', ...settings },
      { name: 'anthropic_code_execution', description: 'Run code in a sandbox (run by Anthropic).' },
      own,
    );
  },
  /** The bash tool (`bash_20250124`): the model sends `{ command }` or `{ restart: true }`, `handler` runs it. */
  bash(handler: ClientToolHandler<{ command?: string; restart?: boolean }>): ClientTool<{ command?: string; restart?: boolean }> {
    return new ClientTool('anthropic', { type: 'bash_20250124', name: 'bash' }, handler, {
      name: 'bash',
      description: 'Run a shell command in a persistent bash session; restart the session with { restart: true }.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', description: 'The command to run.' }, restart: { type: 'boolean', description: 'Restart the session.' } },
      },
      annotations: { destructive: true, openWorld: true },
    });
  },
  /** The text editor tool (`text_editor_20250728`, named `str_replace_based_edit_tool`): view, create, str_replace, insert. */
  textEditor(handler: ClientToolHandler<TextEditorArgs>): ClientTool<TextEditorArgs> {
    return new ClientTool('anthropic', { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' }, handler, {
      name: 'str_replace_based_edit_tool',
      description: 'View, create and edit text files: view a file or directory, create a file, replace a unique string, insert text after a line.',
      parameters: editorSchema(['view', 'create', 'str_replace', 'insert']),
      annotations: { destructive: true },
    });
  },
  /** The memory tool (`memory_20250818`): files under /memories the model reads and writes across conversations. */
  memory(handler: ClientToolHandler<MemoryArgs>): ClientTool<MemoryArgs> {
    const parameters = editorSchema(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']);
    (parameters['properties'] as Record<string, unknown>)['old_path'] = { type: 'string', description: 'rename: the current path.' };
    (parameters['properties'] as Record<string, unknown>)['new_path'] = { type: 'string', description: 'rename: the new path.' };
    parameters['required'] = ['command'];
    return new ClientTool('anthropic', { type: 'memory_20250818', name: 'memory' }, handler, {
      name: 'memory',
      description: 'Read and write memory files under /memories that persist across conversations.',
      parameters,
      annotations: { destructive: true },
    });
  },
};

/** The arguments of Anthropic's text editor tool. */
export interface TextEditorArgs {
  command: 'view' | 'create' | 'str_replace' | 'insert';
  path: string;
  file_text?: string;
  old_str?: string;
  new_str?: string;
  insert_line?: number;
  insert_text?: string;
  view_range?: [number, number];
}

/** The arguments of Anthropic's memory tool. */
export interface MemoryArgs {
  command: 'view' | 'create' | 'str_replace' | 'insert' | 'delete' | 'rename';
  path?: string;
  file_text?: string;
  old_str?: string;
  new_str?: string;
  insert_line?: number;
  insert_text?: string;
  view_range?: [number, number];
  old_path?: string;
  new_path?: string;
}

function editorSchema(commands: string[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      command: { type: 'string', enum: commands },
      path: { type: 'string', description: 'The file or directory.' },
      file_text: { type: 'string', description: 'create: the whole file.' },
      old_str: { type: 'string', description: 'str_replace: the exact text to replace (must occur once).' },
      new_str: { type: 'string', description: 'str_replace: the replacement.' },
      insert_line: { type: 'integer', minimum: 0, description: 'insert: the line after which to insert (0 = the top).' },
      insert_text: { type: 'string', description: 'insert: the text.' },
      view_range: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'view: first and last line (-1 = the end).' },
    },
    required: ['command', 'path'],
  };
}

/** Gemini's built-in tools (`config.tools` of `generateContent`). */
const gemini = {
  /** Grounding with Google Search (`{ googleSearch: {} }`). */
  googleSearch(options?: WithSettings): BuiltinTool {
    const { settings, own } = split(options);
    return builtinTool(
      'gemini',
      { googleSearch: settings },
      { name: 'gemini_google_search', description: 'Ground the answer in Google Search (run by Gemini).' },
      own,
      WEB,
    );
  },
  /** Code execution (`{ codeExecution: {} }`): Python run by Gemini. */
  codeExecution(options?: BuiltinToolOptions): BuiltinTool {
    return builtinTool('gemini', { codeExecution: {} }, { name: 'gemini_code_execution', description: 'Run Python code (run by Gemini).' }, options);
  },
  /** URL context (`{ urlContext: {} }`): Gemini reads the pages the prompt links. */
  urlContext(options?: BuiltinToolOptions): BuiltinTool {
    return builtinTool(
      'gemini',
      { urlContext: {} },
      { name: 'gemini_url_context', description: 'Read the web pages linked in the prompt (run by Gemini).' },
      options,
      WEB,
    );
  },
};

/**
 * Constructors of providers' built-in tools, to hold in a toolset next to local and MCP tools.
 *
 * @example
 * const toolset = new Toolset(weather, mcpTools, builtin.openai.webSearch(), builtin.anthropic.webFetch({ max_uses: 3 }));
 * toolset.definitions('openai-responses'); // weather, the MCP tools and { type: 'web_search' }
 */
export const builtin = { openai, anthropic, gemini };
