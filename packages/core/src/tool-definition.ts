/** A JSON Schema object (any draft anytool emits: draft-07 keywords plus `$defs`). */
export type JsonSchema = { [keyword: string]: unknown };

/** Hints about a tool's behaviour, the neutral form of MCP's tool annotations. */
export interface ToolAnnotations {
  /** The tool does not change its environment. */
  readOnly?: boolean;
  /** The tool may make destructive changes (only meaningful when not read-only). */
  destructive?: boolean;
  /** Calling the tool again with the same arguments has no further effect. */
  idempotent?: boolean;
  /** The tool talks to an open world of external entities (the web, other systems). */
  openWorld?: boolean;
}

/**
 * Where a tool's definition comes from when another party controls it and may
 * change it while it is in use: a tool of an MCP server. Local tools have none.
 * The approval middleware pins such a tool's definition, and believes its
 * annotations only when `trusted`.
 */
export interface ToolOrigin {
  /** The protocol the definition came over: "mcp". */
  readonly protocol: string;
  /** The server's name, as configured. */
  readonly server: string;
  /** Whether its annotations may exempt a call from approval (the source's `trusted` option). */
  readonly trusted: boolean;
}

/**
 * The neutral description of a tool, from which every provider format is made
 * (see `providers/`).
 */
export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  /** JSON Schema of the arguments object; always `type: "object"` at the root. */
  parameters: JsonSchema;
  /** JSON Schema of the structured result, when the tool has one. */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /**
   * Examples of arguments, each valid against `parameters` (the `examples` option, or
   * the build step's reading of `@example` blocks): Anthropic's `input_examples`;
   * the formats with no such field drop them with a lowering note.
   */
  examples?: Record<string, unknown>[];
  /** Set for a provider's built-in tool (see `builtin`): its provider's own declaration. */
  builtin?: BuiltinDeclaration;
  /**
   * The model sees this tool only after finding it with tool search (`Toolset.defer`).
   * Anthropic and the OpenAI Responses API lower it to their own deferred loading;
   * elsewhere the agent's portable search tool loads it.
   */
  deferLoading?: boolean;
}

/** The formats whose providers define tools of their own. */
export type BuiltinFormat = 'openai-responses' | 'anthropic' | 'gemini';

/**
 * How a provider's own tool is declared. In a format with a declaration the
 * declaration is sent as it is; in any other format a tool the provider runs is
 * left out (with a lowering note), and a client tool is sent with its local schema.
 */
export interface BuiltinDeclaration {
  /** `provider`: the provider runs it. `client`: the provider fixes its schema, your code runs it. */
  runs: 'provider' | 'client';
  declarations: Partial<Record<BuiltinFormat, Record<string, unknown>>>;
}
