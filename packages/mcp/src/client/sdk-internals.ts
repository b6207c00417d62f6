import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The one place that reaches into the SDK's `StdioClientTransport` beyond its
 * public API, each access checked: when a field is missing (a newer SDK moved
 * it), the feature that needed it is skipped and `problem` is called with a
 * diagnostic instead of anything throwing.
 *
 * - `start` is wrapped so the child's pid is known as soon as it is spawned: a
 *   failed `connect` forgets it, and a child that hangs at start must still be killed.
 * - `_process.stdin` gets no listener limit: many concurrent calls each wait for
 *   'drain' on it, which is expected, not a leak.
 */
export function watchStdioStart(transport: StdioClientTransport, onSpawned: (pid: number | undefined, running?: () => boolean) => void, problem: (message: string) => void): void {
  const original = (transport as { start?: unknown }).start;
  if (typeof original !== 'function') {
    problem('the MCP SDK StdioClientTransport has no start() method any more: the pid of a server that hangs at start is not known until it answers');
    return;
  }
  const start = (original as () => Promise<void>).bind(transport);
  transport.start = async () => {
    onSpawned(undefined);
    await start();
    const child = (transport as unknown as Record<string, unknown>)['_process'] as { stdin?: { setMaxListeners?: unknown } | null; exitCode?: unknown; signalCode?: unknown } | undefined;
    // Whether the child still runs (so its pid is not yet free for another process); unknown without the field.
    const running = child !== undefined && 'exitCode' in child ? () => child.exitCode === null && child.signalCode === null : undefined;
    onSpawned(transport.pid ?? undefined, running);
    if (child === undefined || typeof child.stdin?.setMaxListeners !== 'function') {
      problem('the MCP SDK StdioClientTransport has no _process.stdin any more: the listener limit on the server stdin stays at its default (harmless warnings under many concurrent calls)');
      return;
    }
    (child.stdin.setMaxListeners as (n: number) => void).call(child.stdin, 0);
  };
}
