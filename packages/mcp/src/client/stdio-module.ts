import type * as StdioModule from '@modelcontextprotocol/client/stdio';

/*
 * The SDK's stdio transport is loaded by the first stdio start, not when @anytool/mcp is
 * imported: it brings cross-spawn and Node's child_process, which a program that only
 * reaches servers over HTTP never needs.
 */

let loaded: typeof StdioModule | undefined;

/** Loads the SDK's stdio transport (once); a stdio start awaits this before it makes its transport. */
export async function loadStdio(): Promise<typeof StdioModule> {
  return (loaded ??= await import('@modelcontextprotocol/client/stdio'));
}

/** The SDK's stdio transport module, once a start has loaded it; undefined before, when no transport can be one. */
export function loadedStdio(): typeof StdioModule | undefined {
  return loaded;
}

/** The module, for code that only runs on a stdio transport (which exists only once the module is loaded). */
export function stdioModule(): typeof StdioModule {
  if (loaded === undefined) throw new Error('the MCP SDK stdio transport is used before a stdio start loaded it');
  return loaded;
}
