import type { Writable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { directRequest } from './http-direct.js';
import { dispatchPlainResults } from './plain-results.js';
import { useRequestTables } from './request-tables.js';
import { batchWrites } from './write-batching.js';

/*
 * The client's speed tricks, behind this one boundary: a reader of the connection, its
 * transports and its fetch can skip this folder. Each trick reaches past a public API (the
 * SDK's private fields, or undici's dispatcher in place of `fetch`), is installed only where
 * the code it stands in for is the code it was checked against, and otherwise leaves the
 * public path to run (with a diagnostic where a check failed). None changes what a call returns.
 *
 * Each is kept because `bench/mcp-eras.mjs --without <name>` shows it buying a figure a user
 * feels (calls/s, latency or client CPU). `ANYTOOL_MCP_WITHOUT` (names of `Speedup`,
 * comma-separated, or `all`) leaves some out: it is for benchmarking, read when a session starts.
 */

/** The tricks, by the name `ANYTOOL_MCP_WITHOUT` knows them by. */
export type Speedup = 'plain-results' | 'request-tables' | 'batch-writes' | 'read-shortcut' | 'http-direct';

const SPEEDUPS: readonly Speedup[] = ['plain-results', 'request-tables', 'batch-writes', 'read-shortcut', 'http-direct'];

/** The tricks to install for a session starting now: every one but those `ANYTOOL_MCP_WITHOUT` names. */
export function speedups(): ReadonlySet<Speedup> {
  const without = (process.env['ANYTOOL_MCP_WITHOUT'] ?? '').split(',').map((name) => name.trim());
  if (without.includes('all')) return new Set();
  return new Set(SPEEDUPS.filter((name) => !without.includes(name)));
}

/**
 * Installs the tricks on a connected SDK client (`dispatchPlainResults`, `useRequestTables`):
 * both make the many small answers of calls in flight cheaper for the client's garbage collector.
 */
export function speedUpClient(client: Client, problem: (message: string) => void): void {
  const on = speedups();
  if (on.has('plain-results')) dispatchPlainResults(client, problem);
  if (on.has('request-tables')) useRequestTables(client, problem);
}

/** What a stdio transport starting now does faster: its writes batched per turn (`batchWrites`), its plain results read without the schema (`StdioReadBuffer`). */
export function stdioSpeedups(transport: StdioClientTransport): { onStdin: ((stdin: Partial<Writable>) => void) | undefined; readShortcut: boolean } {
  const on = speedups();
  return { onStdin: on.has('batch-writes') ? (stdin) => batchWrites(transport, stdin) : undefined, readShortcut: on.has('read-shortcut') };
}

/** How a streamable HTTP session's requests are sent when no fetch of the caller's is given: `directRequest`, or `fetch` (undefined). */
export function directSender(): typeof directRequest | undefined {
  return speedups().has('http-direct') ? directRequest : undefined;
}
