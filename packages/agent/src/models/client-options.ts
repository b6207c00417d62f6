/** The connection options both official clients take. */
export interface ClientConnectionOptions {
  apiKey?: string;
  baseURL?: string;
  maxRetries?: number;
  timeout?: number;
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
