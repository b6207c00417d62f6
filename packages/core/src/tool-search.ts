import { AnytoolError, ErrorCode, describeError } from './errors.js';
import { FunctionTool } from './function-tool.js';
import type { JsonSchema, ToolDefinition } from './tool-definition.js';
import { errorResult, toolResult, type ToolResult } from './tool-result.js';
import type { Toolset } from './toolset.js';

/**
 * Ranks deferred tools for a query: the names of the best matches, best first,
 * at most `limit`. May be async (an embedding index, a remote service).
 */
export type ToolRanker = (query: string, tools: readonly ToolDefinition[], limit: number) => readonly string[] | Promise<readonly string[]>;

/** Options of `toolSearchTool`. */
export interface ToolSearchOptions {
  /** The search tool's name; `search_tools` by default. */
  name?: string;
  /** What the model reads about the search tool. */
  description?: string;
  /** Ranks the deferred tools for a query; `keywordRanker` by default. */
  ranker?: ToolRanker;
  /** Most tools one search loads, unless the model asks for fewer; 5 by default. */
  maxResults?: number;
  /**
   * The definitions as the model may see them, before ranking and in the result: an
   * agent passes the approved version of each pinned tool, so a changed description
   * waiting for approval is neither searched nor shown.
   */
  show?: (definitions: readonly ToolDefinition[]) => readonly ToolDefinition[];
}

/** The structured value of a search tool's result: the tools it loaded, best first. */
export interface ToolSearchResult {
  query: string;
  tools: string[];
}

const DEFAULT_NAME = 'search_tools';
const DEFAULT_MAX_RESULTS = 5;
const DESCRIPTION =
  'Search for more tools and load the best matches. Many tools are not loaded yet: when no loaded tool fits the task, ' +
  'search with a few keywords (what the tool should do, the service or object it works on). Tools it finds can be called by name from the next step on.';

const PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, description: 'Keywords: what the tool should do, the service or object it works on.' },
    limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Most tools to load (5 by default).' },
  },
  required: ['query'],
};

/**
 * The portable search tool over a toolset's deferred tools (`Toolset.defer`), for
 * providers without their own tool search: the model calls it with keywords, it
 * ranks the deferred tools and answers with the names and descriptions of the
 * best matches; its structured value (`ToolSearchResult`) names them, and the
 * agent sends their definitions from the next turn on. Read-only: it needs no
 * approval.
 *
 * @example
 * const search = toolSearchTool(toolset, { maxResults: 3 });
 * const result = await search.invoke(context, { query: 'create github issue' });
 */
export function toolSearchTool(toolset: Toolset, options: ToolSearchOptions = {}): FunctionTool {
  const name = options.name ?? DEFAULT_NAME;
  const ranker = options.ranker ?? keywordRanker;
  const maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
  if (!Number.isInteger(maxResults) || maxResults < 1) {
    throw new AnytoolError(ErrorCode.InvalidOptions, `toolSearchTool(): \`maxResults\` must be a positive integer, got ${String(maxResults)}`);
  }
  if (typeof ranker !== 'function') {
    throw new AnytoolError(ErrorCode.InvalidOptions, 'toolSearchTool(): `ranker` must be a function (query, tools, limit) => names, best first');
  }
  const search = async (args: { query: string; limit?: number }): Promise<ToolResult> => {
    const all = toolset.neutralDefinitions();
    const deferred = (options.show === undefined ? all : options.show(all)).filter((d) => d.deferLoading === true);
    const limit = Math.min(args.limit ?? maxResults, maxResults);
    let ranked: readonly string[];
    try {
      ranked = await ranker(args.query, deferred, limit);
    } catch (error) {
      return errorResult(ErrorCode.ToolFailed, 'The tool search failed; try again with other keywords.', `${name}: the ranker threw: ${describeError(error)}`);
    }
    const byName = new Map(deferred.map((d) => [d.name, d]));
    const unknown = Array.isArray(ranked) ? ranked.filter((n) => !byName.has(n)) : [];
    if (!Array.isArray(ranked) || unknown.length > 0) {
      const what = Array.isArray(ranked) ? `names of no deferred tool (${unknown.slice(0, 5).join(', ')})` : `${typeof ranked}, not an array of names`;
      return errorResult(
        ErrorCode.ToolFailed,
        'The tool search failed; try again with other keywords.',
        `${name}: the ranker returned ${what}; a ranker returns names of the tools it was given, best first`,
      );
    }
    const found = [...new Set(ranked)].slice(0, limit).map((n) => byName.get(n)!);
    const structured: ToolSearchResult = { query: args.query, tools: found.map((d) => d.name) };
    const text =
      found.length === 0
        ? `No tool matches ${JSON.stringify(args.query)}. Try other keywords: what the tool should do, or the service it belongs to.`
        : `Loaded ${found.length} tool(s); call them by name:\n${found.map((d) => `- ${d.name}: ${firstSentence(d.description)}`).join('\n')}`;
    return toolResult({ content: [{ type: 'text', text }], structured, isError: false });
  };
  const searchTool = new FunctionTool(search, {
    name,
    description: options.description ?? DESCRIPTION,
    parameters: PARAMETERS,
    annotations: { readOnly: true, idempotent: true },
  });
  searchTool.source = 'tool search';
  return searchTool;
}

/** The names a search tool's result loaded (`ToolSearchResult.tools`); none for an error result or another tool's. */
export function toolSearchFound(result: ToolResult): string[] {
  if (result.isError) return [];
  const tools = (result.structured as Partial<ToolSearchResult> | undefined)?.tools;
  return Array.isArray(tools) ? tools.filter((t): t is string => typeof t === 'string') : [];
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  const end = line.search(/\.(\s|$)/);
  const sentence = end < 0 ? line : line.slice(0, end + 1);
  return sentence.length > 200 ? `${sentence.slice(0, 199)}…` : sentence;
}

const STOP_WORDS = new Set(
  'a an and are as at be by for from has have i in is it its me my of on or so that the this to was were will with you your'.split(' '),
);

/** Lower-case words of `text`: camelCase, snake_case and kebab-case split, a plural `s` cut. */
function searchTerms(text: string): string[] {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  const terms: string[] = [];
  for (const word of words) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    terms.push(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return terms;
}

/** A tool's searchable words, weighted: its name three times, parameter names twice, descriptions once. */
function documentTerms(definition: ToolDefinition): string[] {
  const name = searchTerms(definition.name);
  const terms = [...name, ...name, ...name, ...searchTerms(definition.title ?? ''), ...searchTerms(definition.description)];
  const properties = definition.parameters['properties'];
  if (typeof properties === 'object' && properties !== null) {
    for (const [parameter, schema] of Object.entries(properties as Record<string, unknown>)) {
      const parameterTerms = searchTerms(parameter);
      terms.push(...parameterTerms, ...parameterTerms);
      const description = (schema as { description?: unknown } | null)?.description;
      if (typeof description === 'string') terms.push(...searchTerms(description));
    }
  }
  return terms;
}

const K1 = 1.2;
const B = 0.75;

/**
 * The default ranker: BM25 over each tool's name, description and parameter names
 * (and their descriptions), with a tool whose exact name is in the query first.
 * Tools that share no word with the query are never returned.
 */
export const keywordRanker = (query: string, tools: readonly ToolDefinition[], limit: number): string[] => {
  const queryTerms = [...new Set(searchTerms(query))];
  const exact = query.trim().toLowerCase();
  const documents = tools.map((tool) => {
    const counts = new Map<string, number>();
    const terms = documentTerms(tool);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { tool, counts, length: terms.length };
  });
  const average = documents.reduce((sum, d) => sum + d.length, 0) / Math.max(documents.length, 1);
  const frequency = new Map<string, number>();
  for (const term of queryTerms) frequency.set(term, documents.filter((d) => d.counts.has(term)).length);
  const scored = documents.map((d) => {
    let score = d.tool.name.toLowerCase() === exact ? 1000 : 0;
    for (const term of queryTerms) {
      const tf = d.counts.get(term) ?? 0;
      if (tf === 0) continue;
      const df = frequency.get(term) ?? 0;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / (average || 1)));
    }
    return { name: d.tool.name, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.name);
};
