// Loads the client's implementation (implementation.ts) on the first `McpConnection.open()`. Each connection keeps the
// implementation that built it (`internals`), and its tools and toolsets read it there: a connection opened by one
// build of the package (ES module or CommonJS) serves a toolset made by the other.
import type * as Implementation from './implementation.js';

export type ClientImplementation = typeof Implementation;

let loaded: ClientImplementation | undefined;

/** The client's implementation, loaded by the first call. */
export async function loadImplementation(): Promise<ClientImplementation> {
  return (loaded ??= await import('./implementation.js'));
}
