import { BaseTool } from './base-tool.js';
import { AnytoolError, ErrorCode } from './errors.js';
import type { ExecutionContext } from './execution-context.js';
import { awaitResult } from './interruptions.js';
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

/**
 * What a client tool's implementation receives: the model's arguments (checked against the local schema) and
 * the run's context. `'pause'` instead of a function: the application runs each call itself, outside the run
 * (on a user's machine, say); an agent's run pauses with the call (`kind: 'result'`) and resumes with its result.
 */
export type ClientToolHandler<Args extends object> = ((args: Args, context: ExecutionContext) => unknown) | 'pause';

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
    if (typeof handler !== 'function' && handler !== 'pause') {
      throw new AnytoolError(
        ErrorCode.InvalidToolDefinition,
        `the ${PROVIDER_NAMES[format]} client tool "${options.name}" needs your implementation: pass a function (args, context) => result, or 'pause' to run its calls yourself while the run waits`,
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
    if (this.handler === 'pause') return awaitResult(context, `the application runs the ${PROVIDER_NAMES[this.format]} tool "${this.name}"`);
    return this.handler(args, context);
  }
}

/** Whether a definition is of a tool its provider runs (a `BuiltinTool`'s), not one that runs locally. */
export function isProviderTool(definition: ToolDefinition): boolean {
  return definition.builtin?.runs === 'provider';
}

type Settings = Record<string, unknown>;

/** Settings in the provider's own wire shape (snake_case for OpenAI and Anthropic, camelCase for Gemini), plus the tool's name and description. */
type WithSettings<S = Settings> = S & Settings & BuiltinToolOptions;

/** What sets one provider-run tool apart from the others; `providerTool` makes its constructor. */
interface ProviderToolSpec {
  format: BuiltinFormat;
  /** The provider's declaration for the caller's settings (the tool's own name and description taken out). */
  declaration: (settings: Settings) => Settings;
  /** The tool's name and description unless the caller gives them; of the settings for a tool named after what it reaches. */
  defaults: Required<BuiltinToolOptions> | ((settings: Settings) => Required<BuiltinToolOptions>);
  annotations?: ToolAnnotations;
  /** What is wrong with settings the provider cannot do without, or undefined. */
  problem?: (settings: Settings) => string | undefined;
}

/**
 * The one constructor body of every provider-run tool: split the caller's options into
 * the tool's own and the provider's settings, check them, declare. `Args` is the public
 * signature (whether options are required, and which settings they must hold).
 */
function providerTool<Args extends [options?: BuiltinToolOptions]>(spec: ProviderToolSpec): (...args: Args) => BuiltinTool {
  return (...args: Args): BuiltinTool => {
    const { name, description, ...settings } = (args[0] ?? {}) as WithSettings;
    const problem = spec.problem?.(settings);
    if (problem !== undefined) throw new AnytoolError(ErrorCode.InvalidToolDefinition, problem);
    const defaults = typeof spec.defaults === 'function' ? spec.defaults(settings) : spec.defaults;
    return new BuiltinTool(spec.format, spec.declaration(settings), {
      name: name ?? defaults.name,
      description: description ?? defaults.description,
      ...(spec.annotations === undefined ? {} : { annotations: spec.annotations }),
    });
  };
}

const WEB = { readOnly: true, openWorld: true } satisfies ToolAnnotations;

/** OpenAI's hosted tools of the Responses API (`tools` of `responses.create`). */
const openai = {
  /** Web search (`{ type: 'web_search' }`); settings such as `search_context_size`, `filters`, `user_location`. */
  webSearch: providerTool<[options?: WithSettings]>({
    format: 'openai-responses',
    declaration: (settings) => ({ type: 'web_search', ...settings }),
    defaults: { name: 'openai_web_search', description: 'Search the web (run by OpenAI).' },
    annotations: WEB,
  }),
  /** File search over your vector stores (`vector_store_ids` is required). */
  fileSearch: providerTool<[options: WithSettings<{ vector_store_ids: string[] }>]>({
    format: 'openai-responses',
    problem: (settings) =>
      Array.isArray(settings['vector_store_ids']) ? undefined : 'builtin.openai.fileSearch(): pass { vector_store_ids: [...] }, the vector stores to search',
    declaration: (settings) => ({ type: 'file_search', ...settings }),
    defaults: { name: 'openai_file_search', description: 'Search the uploaded files (run by OpenAI).' },
    annotations: { readOnly: true },
  }),
  /** The code interpreter; runs in an automatic container unless `container` says otherwise. */
  codeInterpreter: providerTool<[options?: WithSettings]>({
    format: 'openai-responses',
    declaration: (settings) => ({ type: 'code_interpreter', container: { type: 'auto' }, ...settings }),
    defaults: { name: 'openai_code_interpreter', description: 'Run Python code in a sandbox (run by OpenAI).' },
  }),
  /** Image generation; settings such as `size`, `quality`, `output_format`. */
  imageGeneration: providerTool<[options?: WithSettings]>({
    format: 'openai-responses',
    declaration: (settings) => ({ type: 'image_generation', ...settings }),
    defaults: { name: 'openai_image_generation', description: 'Generate an image (run by OpenAI).' },
  }),
  /**
   * A remote MCP server that OpenAI calls itself (`server_label` and `server_url` or `connector_id`).
   * `require_approval` defaults to "never". With `'always'` or a per-tool filter
   * (`{ never: { tool_names: [...] } }`), each call OpenAI holds for approval goes
   * to the agent's `approve` callback (refused without one) and the answer goes
   * back on the next turn.
   */
  mcp: providerTool<[options: WithSettings<{ server_label: string }>]>({
    format: 'openai-responses',
    problem: (settings) =>
      typeof settings['server_label'] === 'string'
        ? undefined
        : 'builtin.openai.mcp(): pass { server_label, server_url } (or connector_id) of the remote MCP server',
    declaration: (settings) => ({ type: 'mcp', require_approval: 'never', ...settings }),
    defaults: (settings) => {
      const label = settings['server_label'] as string;
      return { name: `openai_mcp_${label.replace(/[^A-Za-z0-9_-]/g, '_')}`, description: `Tools of the remote MCP server "${label}" (called by OpenAI).` };
    },
  }),
};

/** Anthropic's server tools (run by Anthropic) and client tools (schema fixed by Anthropic, run by your code). */
const anthropic = {
  /** Web search (`web_search_20250305`); settings such as `max_uses`, `allowed_domains`, `user_location`. */
  webSearch: providerTool<[options?: WithSettings]>({
    format: 'anthropic',
    declaration: (settings) => ({ type: 'web_search_20250305', name: 'web_search', ...settings }),
    defaults: { name: 'anthropic_web_search', description: 'Search the web (run by Anthropic).' },
    annotations: WEB,
  }),
  /** Web fetch (`web_fetch_20250910`); settings such as `max_uses`, `allowed_domains`, `citations`. */
  webFetch: providerTool<[options?: WithSettings]>({
    format: 'anthropic',
    declaration: (settings) => ({ type: 'web_fetch_20250910', name: 'web_fetch', ...settings }),
    defaults: { name: 'anthropic_web_fetch', description: 'Fetch a web page or PDF (run by Anthropic).' },
    annotations: WEB,
  }),
  /** Code execution (`code_execution_20250825`): bash and file editing in Anthropic's sandbox. */
  codeExecution: providerTool<[options?: WithSettings]>({
    format: 'anthropic',
    declaration: (settings) => ({ type: 'code_execution_20250825', name: 'code_execution', ...settings }),
    defaults: { name: 'anthropic_code_execution', description: 'Run code in a sandbox (run by Anthropic).' },
  }),
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
export interface MemoryArgs extends Omit<TextEditorArgs, 'command' | 'path'> {
  command: TextEditorArgs['command'] | 'delete' | 'rename';
  path?: string;
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
  googleSearch: providerTool<[options?: WithSettings]>({
    format: 'gemini',
    declaration: (settings) => ({ googleSearch: settings }),
    defaults: { name: 'gemini_google_search', description: 'Ground the answer in Google Search (run by Gemini).' },
    annotations: WEB,
  }),
  /** Code execution (`{ codeExecution: {} }`): Python run by Gemini. */
  codeExecution: providerTool<[options?: BuiltinToolOptions]>({
    format: 'gemini',
    declaration: () => ({ codeExecution: {} }),
    defaults: { name: 'gemini_code_execution', description: 'Run Python code (run by Gemini).' },
  }),
  /** URL context (`{ urlContext: {} }`): Gemini reads the pages the prompt links. */
  urlContext: providerTool<[options?: BuiltinToolOptions]>({
    format: 'gemini',
    declaration: () => ({ urlContext: {} }),
    defaults: { name: 'gemini_url_context', description: 'Read the web pages linked in the prompt (run by Gemini).' },
    annotations: WEB,
  }),
};

/**
 * Constructors of providers' built-in tools, to hold in a toolset next to local and MCP tools.
 *
 * @example
 * const toolset = new Toolset(weather, mcpTools, builtin.openai.webSearch(), builtin.anthropic.webFetch({ max_uses: 3 }));
 * toolset.definitions('openai-responses'); // weather, the MCP tools and { type: 'web_search' }
 */
export const builtin = { openai, anthropic, gemini };
