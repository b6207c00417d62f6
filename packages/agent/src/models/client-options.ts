/** The connection options the official clients take. */
export interface ClientConnectionOptions {
  /** The API key; defaults to the provider's environment variable (each adapter names it), the client's own default. */
  apiKey?: string;
  /** Another endpoint than the provider's: a proxy, or any server that speaks the same API. */
  baseURL?: string;
  /** Retries of a failed request (408, 429, 5xx), done by the official client (its default is 2). */
  maxRetries?: number;
  /** Request timeout in milliseconds, enforced by the official client. */
  timeout?: number;
}

/** What the options of every adapter start with: the model, and a client or the options to make one. */
export interface ModelOptions<Client> extends ClientConnectionOptions {
  /** The model id. */
  model: string;
  /** A client you configured yourself; the connection options are ignored when given. */
  client?: Client;
}

/** The options of both OpenAI adapters (Chat Completions and Responses). */
export interface OpenAIToolOptions {
  /** Strict mode (structured outputs) for tool arguments; on by default. */
  strict?: boolean;
  /** Whether the model may ask for several tool calls in one turn; the provider's default when left out. */
  parallelToolCalls?: boolean;
}

/** The connection options an adapter was given, with the ones left out left out (the client's defaults apply). */
export function clientOptionsFrom(options: ClientConnectionOptions): ClientConnectionOptions {
  const out: ClientConnectionOptions = {};
  if (options.apiKey !== undefined) out.apiKey = options.apiKey;
  if (options.baseURL !== undefined) out.baseURL = options.baseURL;
  if (options.maxRetries !== undefined) out.maxRetries = options.maxRetries;
  if (options.timeout !== undefined) out.timeout = options.timeout;
  return out;
}
