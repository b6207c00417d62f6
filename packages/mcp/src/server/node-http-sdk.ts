import type * as NodeHttpSdkModule from '@modelcontextprotocol/node';
import { importOptional } from '../shared/optional-dependency.js';

/** The MCP SDK's Node HTTP adapter (`@modelcontextprotocol/node`, with hono): an optional peer, loaded to serve HTTP. */
export type NodeHttpSdk = Pick<typeof NodeHttpSdkModule, 'NodeStreamableHTTPServerTransport' | 'toNodeHandler'>;

let loading: Promise<NodeHttpSdk> | undefined;

/** Loads `@modelcontextprotocol/node` once; a missing package is a MISSING_DEPENDENCY error naming the `npm i`. */
export function loadNodeHttpSdk(): Promise<NodeHttpSdk> {
  loading ??= importOptional(
    () => import('@modelcontextprotocol/node'),
    "serveMcp over HTTP (transport: 'http', or --http)",
    '@modelcontextprotocol/node',
  ).catch((error: unknown) => {
    // Not kept: installing the package while the process runs makes the next try succeed.
    loading = undefined;
    throw error;
  });
  return loading;
}
