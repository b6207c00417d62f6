// What a served tool reads of its caller: apart from the rest of auth.ts, which needs @modelcontextprotocol/server
// (an optional peer, loaded only to serve), so importing @anytool/mcp loads no server code.
import type { ExecutionContext } from '@anytool/core';
import { unrestrictedContext } from '@anytool/core/internal';

/** The authenticated caller of a tool served over MCP with `auth`. */
export interface McpAuth {
  /** Who the token speaks for: a static token's subject, a JWT's `sub`. */
  readonly subject: string;
  /** The client the token was issued to (`client_id` of a JWT), when known. */
  readonly clientId: string | undefined;
  /** The issuer of a JWT; undefined for a static token. */
  readonly issuer: string | undefined;
  readonly scopes: readonly string[];
  /** The JWT's claims (empty for a static token). */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The key under which a served call's caller sits in `context.state`. Read it with `mcpAuth(context)`. */
export const MCP_AUTH_KEY = 'anytool.mcp.auth';

/**
 * The authenticated caller of the tool call being served, for a tool that asked
 * for its context: `undefined` when the endpoint has no authentication (stdio,
 * an HTTP server without `auth`) or the tool runs outside an MCP server.
 *
 * @example
 * const whoami = tool((context: ExecutionContext) => mcpAuth(context)?.subject ?? 'anonymous', { description: 'Who is calling', context: true });
 */
export function mcpAuth(context: ExecutionContext): McpAuth | undefined {
  // The caller is the server's to tell: a tool needs no state key for it.
  return unrestrictedContext(context).state.get(MCP_AUTH_KEY) as McpAuth | undefined;
}
