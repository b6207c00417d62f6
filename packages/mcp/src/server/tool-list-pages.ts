import { ProtocolError, ProtocolErrorCode, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { ToolView } from './served-tools.js';
import type { McpServerOptions } from './tool-server.js';
import { VERSION } from '../version.js';

/** How many tools one `tools/list` page holds unless `pageSize` says otherwise. */
export const DEFAULT_PAGE_SIZE = 100;
export const DEFAULT_TOOLS_LIST_TTL_MS = 60_000;

export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

/**
 * A 2026-07-28 `tools/list` response as the SDK would write it (the page,
 * `resultType`, the cache hints, the server's identity), as bytes up to its
 * request id, built once per toolset version: a stateless server answers a
 * list with no per-request serialisation. `undefined` for a cursor this server
 * did not give out (the SDK path then answers the error).
 */
export function listResponseHead(view: ToolView, options: McpServerOptions, cursor: unknown): Buffer | undefined {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const start = cursor === undefined ? 0 : cursorStart(cursor, view, pageSize);
  if (start === undefined) return undefined;
  const key = `${start}:${pageSize}`;
  let head = view.listJson.get(key);
  if (head === undefined) {
    const result = {
      ...view.page(start, pageSize),
      resultType: 'complete',
      ttlMs: options.toolsListTtlMs ?? DEFAULT_TOOLS_LIST_TTL_MS,
      cacheScope: options.toolsListCacheScope ?? (view.scoped ? 'private' : 'public'),
      _meta: { [SERVER_INFO_META_KEY]: { name: options.name ?? 'anytool', version: options.version ?? VERSION } },
    };
    head = Buffer.from(`{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":`);
    view.listJson.set(key, head);
  }
  return head;
}

/**
 * Where the page of `cursor` starts, if it is a cursor this server can have
 * given out for this view (a page boundary within the list): pages are cached
 * by where they start, so any other number would be a new cache entry on a
 * caller's say-so.
 */
function cursorStart(cursor: unknown, view: ToolView, pageSize: number): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (match === null) return undefined;
  const start = Number(match[1]);
  return start % pageSize === 0 && start < view.definitions.length ? start : undefined;
}

/** Where the page of a `tools/list` cursor starts; a cursor this server did not give out is an invalid-params error. */
export function decodeCursor(cursor: string, view: ToolView, pageSize: number): number {
  const start = cursorStart(cursor, view, pageSize);
  if (start === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `tools/list: the cursor ${JSON.stringify(cursor.slice(0, 100))} is not one this server gave out; call tools/list without a cursor to start over`,
    );
  return start;
}
