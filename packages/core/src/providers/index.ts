import { closestName } from '../closest-name.js';
import { AnytoolError, ErrorCode } from '../errors.js';
import type { BuiltinFormat, ToolDefinition } from '../tool-definition.js';
import {
  anthropicToolSearchTool,
  toAnthropicTools,
  type AnthropicBuiltinTool,
  type AnthropicFormatOptions,
  type AnthropicTool,
  type AnthropicToolSearchTool,
} from './anthropic.js';
import { toGeminiTools, type GeminiBuiltinTool, type GeminiFunctionDeclaration } from './gemini.js';
import type { Lowered, LoweringNote } from './lowering.js';
import { toMcpTools, type McpToolDefinition } from './mcp.js';
import {
  toOpenAIChatTools,
  toOpenAIResponsesTools,
  type OpenAIChatTool,
  type OpenAIFormatOptions,
  type OpenAIResponsesBuiltinTool,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolSearchTool,
} from './openai.js';

export type { Lowered, LoweringNote } from './lowering.js';

/** The formats `Toolset.definitions` speaks. `openai` is the Chat Completions shape. */
export interface FormatMap {
  openai: { tool: OpenAIChatTool; options: OpenAIFormatOptions };
  'openai-responses': { tool: OpenAIResponsesTool | OpenAIResponsesBuiltinTool | OpenAIResponsesToolSearchTool; options: OpenAIFormatOptions };
  anthropic: { tool: AnthropicTool | AnthropicBuiltinTool | AnthropicToolSearchTool; options: AnthropicFormatOptions };
  gemini: { tool: GeminiFunctionDeclaration | GeminiBuiltinTool; options: Record<string, never> };
  mcp: { tool: McpToolDefinition; options: Record<string, never> };
}

export type DefinitionFormat = keyof FormatMap;
export type FormatTool<F extends DefinitionFormat> = FormatMap[F]['tool'];
export type FormatOptions<F extends DefinitionFormat> = FormatMap[F]['options'];

const PROVIDER_NAMES: Record<BuiltinFormat, string> = { 'openai-responses': 'OpenAI Responses API', anthropic: 'Anthropic', gemini: 'Gemini' };

/**
 * Lowers neutral definitions to a provider's format. A provider's built-in tool
 * is sent as its provider's declaration in that provider's format; in another
 * format one the provider runs is left out with a note (never a broken request),
 * and a client tool is lowered from its local schema like any tool.
 */
export function lowerDefinitions<F extends DefinitionFormat>(
  format: F,
  neutral: readonly ToolDefinition[],
  options?: FormatOptions<F>,
): Lowered<FormatTool<F>> {
  // The caller gets its own copy: mutating an emitted definition never changes a tool.
  const definitions = copyDefinitions(neutral);
  if (!definitions.some((d) => d.deferLoading === true)) return lowerAll(format, definitions, options);
  return lowerDeferred(format, definitions, options);
}

/** Deeper than this, `copyDefinitions` leaves the copy to `structuredClone`, which also copes with cycles. */
const MAX_COPY_DEPTH = 64;
const TOO_DEEP_TO_COPY = Symbol('too deep to copy');

/**
 * A copy of the definitions, as `structuredClone` makes it (what it throws on, it throws on),
 * copying plain objects and arrays itself: that is several times faster for definitions,
 * which are JSON data, and an agent with thousands of tools lowers them all at once.
 */
function copyDefinitions(neutral: readonly ToolDefinition[]): ToolDefinition[] {
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value !== 'object' || value === null) return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
    if (depth > MAX_COPY_DEPTH) throw TOO_DEEP_TO_COPY;
    if (Array.isArray(value)) {
      const out: unknown[] = new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) out[i] = copy(value[i], depth + 1);
      return out;
    }
    if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = copy((value as Record<string, unknown>)[key], depth + 1);
      // `__proto__` stays a plain data key, as structuredClone leaves it.
      if (key === '__proto__') Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  };
  try {
    return copy(neutral, 0) as ToolDefinition[];
  } catch (error) {
    if (error !== TOO_DEEP_TO_COPY) throw error;
    return structuredClone(neutral) as ToolDefinition[];
  }
}

/**
 * Lowers definitions some of which are deferred (`deferLoading`). Anthropic and
 * the OpenAI Responses API load deferred tools themselves: the provider's
 * tool-search tool goes before the first deferred tool, and every tool keeps its
 * place, the deferred ones marked `defer_loading: true`. A tool appended to the
 * definitions is appended to the array, so what was sent before stays the same.
 * The other formats cannot carry deferral: every tool is sent in full, in its
 * place, with a note each (the agent's portable tool search sends only what the
 * model loaded).
 */
function lowerDeferred<F extends DefinitionFormat>(format: F, definitions: ToolDefinition[], options?: FormatOptions<F>): Lowered<FormatTool<F>> {
  const search = toolSearchDeclaration(format, options);
  if (search === undefined) {
    const lowered = lowerAll(format, definitions, options);
    const notes = definitions
      .filter((d) => d.deferLoading === true)
      .map((d): LoweringNote => ({
        tool: d.name,
        path: '',
        action: 'changed',
        detail: `deferred, but the ${format} format has no deferred loading: sent in full (an Agent sends only the deferred tools the model loaded with its search tool)`,
      }));
    return { tools: lowered.tools, notes: [...notes, ...lowered.notes] };
  }
  // The search tool goes before the first deferred tool, everything else keeps its place: a tool
  // appended to the definitions (an agent's late tool) is appended to the lowered array too.
  const first = definitions.findIndex((d) => d.deferLoading === true);
  const head = lowerAll(format, definitions.slice(0, first), options);
  const rest = lowerAll(format, definitions.slice(first), options);
  const deferred = new Set(definitions.filter((d) => d.deferLoading === true).map((d) => d.name));
  for (const tool of rest.tools) {
    const lowered = tool as { name?: unknown; defer_loading?: boolean };
    if (typeof lowered.name === 'string' && deferred.has(lowered.name)) lowered.defer_loading = true;
  }
  return { tools: [...head.tools, search, ...rest.tools], notes: [...head.notes, ...rest.notes] };
}

/** The provider's own tool-search tool, for a format whose provider loads deferred tools itself. */
function toolSearchDeclaration<F extends DefinitionFormat>(format: F, options?: FormatOptions<F>): FormatTool<F> | undefined {
  if (format === 'anthropic') return anthropicToolSearchTool((options as AnthropicFormatOptions | undefined)?.toolSearch) as FormatTool<F>;
  if (format === 'openai-responses') return { type: 'tool_search' } satisfies OpenAIResponsesToolSearchTool as FormatTool<F>;
  return undefined;
}

function lowerAll<F extends DefinitionFormat>(format: F, definitions: ToolDefinition[], options?: FormatOptions<F>): Lowered<FormatTool<F>> {
  if (!definitions.some((d) => d.builtin !== undefined)) return lowerPlain(format, definitions, options);
  const notes: LoweringNote[] = [];
  const plain = definitions.filter((d) => d.builtin === undefined || (declarationIn(d, format) === undefined && d.builtin.runs === 'client'));
  const lowered = lowerPlain(format, plain, options);
  const tools: Array<FormatTool<F>> = [];
  let next = 0;
  for (const d of definitions) {
    const declaration = declarationIn(d, format);
    if (declaration !== undefined) {
      tools.push(declaration as FormatTool<F>);
    } else if (d.builtin?.runs === 'provider') {
      const owners = Object.keys(d.builtin.declarations).map((f) => `the ${PROVIDER_NAMES[f as BuiltinFormat] ?? f} format`);
      notes.push({
        tool: d.name,
        path: '',
        action: 'dropped',
        detail: `a provider's built-in tool, declared only for ${owners.join(' and ')}; the ${format} format cannot carry it, so it is left out`,
      });
    } else {
      tools.push(lowered.tools[next++]!);
    }
  }
  return { tools, notes: [...notes, ...lowered.notes] };
}

function declarationIn(definition: ToolDefinition, format: DefinitionFormat): Record<string, unknown> | undefined {
  return (definition.builtin?.declarations as Partial<Record<DefinitionFormat, Record<string, unknown>>> | undefined)?.[format];
}

/**
 * The definitions lowered to the format; a format with no field for examples of
 * arguments (all but Anthropic's) drops them with a note each.
 */
function lowerPlain<F extends DefinitionFormat>(format: F, definitions: ToolDefinition[], options?: FormatOptions<F>): Lowered<FormatTool<F>> {
  const lowered = lowerFormat(format, definitions, options);
  if (format === 'anthropic' || !definitions.some((d) => d.examples !== undefined && d.examples.length > 0)) return lowered;
  const notes = definitions
    .filter((d) => d.examples !== undefined && d.examples.length > 0)
    .map((d): LoweringNote => ({
      tool: d.name,
      path: '',
      action: 'dropped',
      detail: `its ${d.examples!.length} example(s) of arguments: the ${format} format has no field for them (Anthropic's input_examples has)`,
    }));
  return { tools: lowered.tools, notes: [...notes, ...lowered.notes] };
}

function lowerFormat<F extends DefinitionFormat>(format: F, definitions: ToolDefinition[], options?: FormatOptions<F>): Lowered<FormatTool<F>> {
  switch (format) {
    case 'openai':
      return toOpenAIChatTools(definitions, options as OpenAIFormatOptions) as Lowered<FormatTool<F>>;
    case 'openai-responses':
      return toOpenAIResponsesTools(definitions, options as OpenAIFormatOptions) as Lowered<FormatTool<F>>;
    case 'anthropic':
      return toAnthropicTools(definitions) as Lowered<FormatTool<F>>;
    case 'gemini':
      return toGeminiTools(definitions) as Lowered<FormatTool<F>>;
    case 'mcp':
      return toMcpTools(definitions) as Lowered<FormatTool<F>>;
    default:
      throw new AnytoolError(ErrorCode.InvalidOptions, unknownFormatMessage(format));
  }
}

const FORMATS: readonly DefinitionFormat[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

/** What a call with no format, or one that is not a format, is told: the formats, and where the neutral ones are. */
function unknownFormatMessage(format: unknown): string {
  const formats = `${FORMATS.slice(0, -1).join(', ')} or ${FORMATS.at(-1)!}`;
  const neutral = 'for the neutral definitions (the `neutral` format of `anytool list`), call toolset.neutralDefinitions()';
  if (format === undefined) return `no definition format given: name one of ${formats}, as in toolset.definitions('openai'); ${neutral}`;
  if (format === 'neutral') return `"neutral" is not a provider format: ${neutral} (provider formats: ${formats})`;
  const near = typeof format === 'string' ? closestName(format, FORMATS) : undefined;
  return `unknown definition format ${JSON.stringify(format) ?? String(format)}; ${near === undefined ? '' : `did you mean ${near}? `}use ${formats}; ${neutral}`;
}
