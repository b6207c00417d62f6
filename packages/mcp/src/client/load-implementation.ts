// Loads the client's implementation (implementation.ts) on the first `McpConnection.open()`. Every connection,
// toolset and tool is made after an open() has loaded it, so what they run reads it with `implementation()`.
import type * as Implementation from './implementation.js';

let loaded: typeof Implementation | undefined;

/** The client's implementation, loaded by the first call. */
export async function loadImplementation(): Promise<typeof Implementation> {
  return (loaded ??= await import('./implementation.js'));
}

/** The client's implementation, which the first `McpConnection.open()` loaded. */
export function implementation(): typeof Implementation {
  if (loaded === undefined) throw new Error('@anytool/mcp: the MCP client was used before McpConnection.open() loaded it');
  return loaded;
}
