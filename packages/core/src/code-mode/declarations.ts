/**
 * The typed API of a toolset (`Toolset.codeApi()`): TypeScript declarations of
 * every tool as one async function, grouped by where the tools come from (local
 * tools in `tools`, each MCP server in a namespace of its own), and the table
 * that tells the code runner which tool each function calls. JSON Schema becomes
 * TypeScript here: the arguments from `parameters`, the result from `outputSchema`
 * (the build step's return type, an MCP server's output schema), descriptions
 * as JSDoc. Pure and deterministic: the same tools give the same text.
 */
import { isProviderTool } from '../builtin-tool.js';
import { canonicalJson } from '../pipeline/tool-pins.js';
import type { JsonSchema, ToolDefinition, ToolOrigin } from '../tool-definition.js';

/** A tool as the API sees it: its definition, and where it comes from (an MCP server's tools share a namespace). */
export interface ApiTool {
  readonly definition: ToolDefinition;
  readonly origin?: ToolOrigin | undefined;
}

/** One function of the API: where it sits and the tool it calls. */
export interface CodeApiFunction {
  /** The namespace: `tools` for local tools, the MCP server's name made an identifier for its tools. */
  namespace: string;
  /** The function's name in its namespace. */
  name: string;
  /** The name of the tool it calls in the toolset. */
  tool: string;
}

/** What `Toolset.codeApi()` gives: the declarations a model programs against, and what each function calls. */
export interface CodeApi {
  /** TypeScript declarations (`declare namespace ... { function ...(args): Promise<...>; }`), valid for `tsc`. */
  declarations: string;
  /** Every function of the declarations, in their order. */
  functions: CodeApiFunction[];
}

/** The namespace of local tools. */
export const LOCAL_NAMESPACE = 'tools';

/** Names the program's global scope already has or the runner gives it: a namespace never takes one. */
const TAKEN_GLOBALS = new Set(
  (
    'console print ToolError globalThis Object Array String Number Boolean Symbol BigInt Math JSON Date RegExp Error Promise Map Set WeakMap WeakSet ' +
    'Proxy Reflect Function Intl undefined NaN Infinity eval isNaN isFinite parseInt parseFloat'
  ).split(' '),
);

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof ' +
    'new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public ' +
    'await async arguments declare namespace type'
  ).split(' '),
);

/** Names a type alias cannot take. */
const TYPE_KEYWORDS = new Set('any unknown never object string number bigint boolean symbol undefined null void intrinsic'.split(' '));

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `text` as an identifier: other characters become `_`, a leading digit or a reserved word gets a `_` in front. */
export function toIdentifier(text: string): string {
  let id = text.replace(/[^A-Za-z0-9_$]/g, '_');
  if (id === '' || /^[0-9]/.test(id) || RESERVED.has(id)) id = `_${id}`;
  return id;
}

/** The first free name of `base`, `base_2`, `base_3`, ... */
function unique(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/** The tools an API can call: every tool but those only a provider runs. */
function callable(tools: readonly ApiTool[]): ApiTool[] {
  return tools.filter((tool) => !isProviderTool(tool.definition));
}

/**
 * The API of `tools`: a namespace a source, a function a tool. An MCP tool's
 * function drops the `<server>_` prefix its toolset may have given its name.
 */
export function codeApiOf(tools: readonly ApiTool[]): CodeApi {
  const groups = new Map<string, { server: string | undefined; tools: ApiTool[] }>();
  for (const tool of callable(tools)) {
    const server = tool.origin?.server;
    const key = server === undefined ? '' : `mcp:${server}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { server, tools: [] }));
    group.tools.push(tool);
  }
  // Local tools first, then the servers in the order their first tool came.
  const ordered = [...groups.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : 0));
  const namespaces = new Set<string>(TAKEN_GLOBALS);
  const functions: CodeApiFunction[] = [];
  const blocks: string[] = [];
  for (const [, group] of ordered) {
    const namespace = unique(group.server === undefined ? LOCAL_NAMESPACE : toIdentifier(group.server), namespaces);
    namespaces.add(namespace);
    const aliases = new AliasTable();
    const shared = sharedProperties(group.tools, aliases);
    const names = new Set<string>();
    const members: string[] = [];
    for (const tool of group.tools) {
      const definition = tool.definition;
      const prefix = group.server === undefined ? undefined : `${group.server}_`;
      const bare =
        prefix !== undefined && definition.name.startsWith(prefix) && definition.name.length > prefix.length
          ? definition.name.slice(prefix.length)
          : definition.name;
      const name = unique(toIdentifier(bare), names);
      names.add(name);
      functions.push({ namespace, name, tool: definition.name });
      members.push(functionDeclaration(name, definition, aliases, shared));
    }
    const header = group.server === undefined ? '/** Local tools. */' : `/** Tools of the MCP server ${JSON.stringify(group.server)}. */`;
    blocks.push(`${header}\ndeclare namespace ${namespace} {\n${[...aliases.declarations(), ...members].join('\n')}\n}`);
  }
  return { declarations: blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`, functions };
}

/**
 * A JSON Schema as the TypeScript type `codeApi()` writes for it, the named types of its
 * defs on the lines after it (`{ customers: Customer[] }` then `type Customer = ...;`):
 * for a tool's description where no declarations go (a provider's own code execution).
 */
export function schemaType(schema: JsonSchema): string {
  const aliases = new AliasTable();
  const type = new TypeWriter(schema, aliases, 'result').type(schema, '', 0);
  return [type, ...aliases.declarations()].join('\n');
}

/** `text` safe inside a `/** ... *\/` comment, its lines prefixed for the indentation. */
function jsDoc(text: string | undefined, indent: string): string {
  const lines = (text ?? '')
    .trim()
    .split(/\r?\n|[\r\u2028\u2029]/)
    .map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`;
}

/** The least number of a namespace's functions that must share an argument (its name, type and description) for it to be named once. */
const SHARED_MIN = 3;

/** The key of an argument: its name and its schema. */
function argumentKey(name: string, schema: unknown): string {
  return `${name}\u0000${canonicalJson(schema)}`;
}

/**
 * The arguments that several functions of a namespace share, each declared once
 * as a type named after it, carrying its description (`// Most results per page.`
 * over `type limit = number;`): its uses then read `limit?: limit`, where its
 * description would be repeated on every function. Only where that is shorter.
 */
function sharedProperties(tools: readonly ApiTool[], aliases: AliasTable): Map<string, string> {
  const counts = new Map<string, { name: string; schema: JsonSchema; count: number }>();
  for (const tool of tools) {
    const properties = tool.definition.parameters['properties'];
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) continue;
    for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
      if (!IDENTIFIER.test(name) || typeof schema !== 'object' || schema === null || Array.isArray(schema)) continue;
      if (!isOneLine(String((schema as JsonSchema)['description'] ?? ''))) continue;
      const key = argumentKey(name, schema);
      // A reference names a def of its own tool's schema: the same text may mean other types in other tools.
      if (key.includes('"$ref"')) continue;
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, { name, schema: schema as JsonSchema, count: 1 });
      else seen.count++;
    }
  }
  const shared = new Map<string, string>();
  for (const [key, { name, schema, count }] of counts) {
    if (count < SHARED_MIN) continue;
    const { description, ...bare } = schema;
    const type = new TypeWriter(bare, aliases, name).type(bare, '', 0);
    // In characters: the description and the type written once more than the name on each further use.
    const saved = (count - 1) * (String(description).length + 4) - count * Math.max(0, name.length - type.length) - (name.length + type.length + 12);
    if (type.includes('\n') || saved <= 0) continue;
    shared.set(key, aliases.named(name, type, String(description).trim()));
  }
  return shared;
}

function functionDeclaration(name: string, definition: ToolDefinition, aliases: AliasTable, shared: ReadonlyMap<string, string>): string {
  const writer = new TypeWriter(definition.parameters, aliases, definition.name, shared);
  const parameters = writer.type(definition.parameters, '', 0);
  const required = definition.parameters['required'];
  const optional = !Array.isArray(required) || required.length === 0;
  const result =
    definition.outputSchema === undefined ? 'unknown' : new TypeWriter(definition.outputSchema, aliases, definition.name).type(definition.outputSchema, '', 0);
  const destructive = definition.annotations?.readOnly !== true && definition.annotations?.destructive === true;
  const description = `${definition.description.trim()}${destructive ? ' (destructive)' : ''}`;
  const doc = isOneLine(description) ? `// ${description}\n` : jsDoc(description, '');
  return `${doc}function ${name}(args${optional ? '?' : ''}: ${parameters}): Promise<${result}>;`;
}

/** Named types from `$defs` / `definitions`, shared by the functions of one namespace when they are the same schema. */
class AliasTable {
  private readonly byKey = new Map<string, string>();
  private readonly names = new Set<string>();
  private readonly bodies: Array<{ name: string; body: string; doc?: string }> = [];

  /** A type of its own, `name` (or the first free name after it), described by `doc`. */
  named(name: string, body: string, doc: string): string {
    const id = toIdentifier(name);
    const alias = unique(TYPE_KEYWORDS.has(id) ? `${id}_` : id, this.names);
    this.names.add(alias);
    this.bodies.push({ name: alias, body, doc });
    return alias;
  }

  /** The alias of the def `defName` of `root` (written when first asked for). */
  alias(root: JsonSchema, defName: string, schema: unknown, owner: string): string {
    const key = `${defName}\u0000${canonicalJson(schema)}`;
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const name = unique(toIdentifier(defName), this.names);
    this.names.add(name);
    this.byKey.set(key, name);
    const slot = { name, body: 'unknown' };
    this.bodies.push(slot);
    slot.body = new TypeWriter(root, this, owner).type(schema, '', 0);
    return name;
  }

  declarations(): string[] {
    return this.bodies.map(({ name, body, doc }) => `${doc === undefined ? '' : `// ${doc}\n`}type ${name} = ${body};`);
  }
}

/** Deepest nesting written out; deeper schemas are `unknown`. */
const MAX_DEPTH = 24;

const PRIMITIVES: Readonly<Record<string, string>> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

/** Writes the TypeScript type of a JSON Schema (draft-07 / 2020-12 keywords as the providers take them). */
class TypeWriter {
  constructor(
    private readonly root: JsonSchema,
    private readonly aliases: AliasTable,
    private readonly owner: string,
    /** The shared arguments of the namespace (see `sharedProperties`), named in the root object. */
    private readonly shared?: ReadonlyMap<string, string>,
  ) {}

  type(schema: unknown, indent: string, depth: number): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > MAX_DEPTH) return 'unknown';
    const s = schema as JsonSchema;
    const nullable = s['nullable'] === true ? ' | null' : '';
    const ref = s['$ref'];
    if (typeof ref === 'string') return this.reference(ref) + nullable;
    if ('const' in s) return literal(s['const']) + nullable;
    const values = s['enum'];
    if (Array.isArray(values) && values.length > 0) return values.map(literal).join(' | ') + nullable;
    const union = (s['anyOf'] ?? s['oneOf']) as unknown;
    if (Array.isArray(union) && union.length > 0) return this.union(union, indent, depth) + nullable;
    const all = s['allOf'];
    if (Array.isArray(all) && all.length > 0) return all.map((part) => this.wrapped(this.type(part, indent, depth + 1))).join(' & ') + nullable;
    const type = s['type'];
    if (Array.isArray(type)) return [...new Set(type.map((t) => this.ofType(String(t), s, indent, depth)))].join(' | ') + nullable;
    if (typeof type === 'string') return this.ofType(type, s, indent, depth) + nullable;
    if (s['properties'] !== undefined || s['additionalProperties'] !== undefined) return this.object(s, indent, depth) + nullable;
    if (s['items'] !== undefined) return this.array(s, indent, depth) + nullable;
    return 'unknown';
  }

  private union(options: readonly unknown[], indent: string, depth: number): string {
    const parts = [...new Set(options.map((option) => this.wrapped(this.type(option, indent, depth + 1))))];
    return parts.includes('unknown') ? 'unknown' : parts.join(' | ');
  }

  /** A member of a union or intersection, in parentheses when it is itself one (or a function type). */
  private wrapped(type: string): string {
    return /^[^{]*[|&]/.test(type) && !type.startsWith('{') ? `(${type})` : type;
  }

  private ofType(type: string, s: JsonSchema, indent: string, depth: number): string {
    if (type === 'object') return this.object(s, indent, depth);
    if (type === 'array') return this.array(s, indent, depth);
    return PRIMITIVES[type] ?? 'unknown';
  }

  private array(s: JsonSchema, indent: string, depth: number): string {
    const tuple = (s['prefixItems'] ?? (Array.isArray(s['items']) ? s['items'] : undefined)) as unknown;
    if (Array.isArray(tuple)) return `[${tuple.map((item) => this.type(item, indent, depth + 1)).join(', ')}]`;
    const item = this.type(s['items'], indent, depth + 1);
    return /[|&\s]/.test(item) && !item.startsWith('{') ? `Array<${item}>` : `${item}[]`;
  }

  private object(s: JsonSchema, indent: string, depth: number): string {
    const properties = (typeof s['properties'] === 'object' && s['properties'] !== null ? s['properties'] : {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(s['required']) ? (s['required'] as unknown[]).filter((r): r is string => typeof r === 'string') : []);
    const extra = s['additionalProperties'];
    const names = Object.keys(properties);
    if (names.length === 0) {
      if (extra === false) return 'Record<string, never>';
      return `Record<string, ${extra === undefined || extra === true ? 'unknown' : this.type(extra, indent, depth + 1)}>`;
    }
    // One space a level: a token of its own only from two spaces on (o200k_base and cl100k_base join one space to the word after it).
    const inner = `${indent} `;
    const shared = s === this.root ? this.shared : undefined;
    const members: Array<{ doc: string; text: string }> = names.map((name) => {
      const schema = properties[name];
      const alias = shared?.get(argumentKey(name, schema));
      if (alias !== undefined) return { doc: '', text: `${name}${required.has(name) ? '' : '?'}: ${alias}` };
      const description = typeof schema === 'object' && schema !== null ? (schema as JsonSchema)['description'] : undefined;
      const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
      const text = `${key}${required.has(name) ? '' : '?'}: ${this.type(schema, inner, depth + 1)}`;
      return { doc: typeof description === 'string' ? description : '', text };
    });
    // An index signature must admit every property's type: with named properties it admits anything.
    if (extra !== undefined && extra !== false) members.push({ doc: '', text: '[key: string]: unknown' });
    if (members.every((m) => m.doc === '') && members.every((m) => !m.text.includes('\n'))) return `{ ${members.map((m) => m.text).join('; ')} }`;
    // A one-line description follows its property as a line comment: fewer tokens than a JSDoc block.
    // Members on lines of their own need no `;` (a token each).
    return `{\n${members.map((m) => (isOneLine(m.doc) ? `${inner}${m.text} // ${m.doc.trim()}` : `${jsDoc(m.doc, inner)}${inner}${m.text}`)).join('\n')}\n${indent}}`;
  }

  private reference(ref: string): string {
    const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (ref === '#') return this.aliases.alias(this.root, `${this.owner}_args`, this.root, this.owner);
    if (match === null) return 'unknown';
    const defName = decodeURIComponent(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'));
    const defs = this.root[match[1]!] as Record<string, unknown> | undefined;
    if (typeof defs !== 'object' || defs === null || !Object.hasOwn(defs, defName)) return 'unknown';
    return this.aliases.alias(this.root, defName, defs[defName], this.owner);
  }
}

/** Whether a description fits a `//` comment: one line (an empty one needs none). */
function isOneLine(text: string): boolean {
  return text.trim() !== '' && !/[\r\n\u2028\u2029]/.test(text.trim());
}

function literal(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return 'unknown';
}
