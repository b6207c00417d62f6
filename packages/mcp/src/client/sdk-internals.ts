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

/**
 * The abort signal of one SDK request, tied to the caller's signal while the
 * call runs. Of a request's signal the SDK's `Protocol.request` uses only
 * `throwIfAborted()`, `aborted`, `reason` and one 'abort' listener, which it
 * never removes. Handing it the run's own signal would leave a listener per
 * finished call on it (and an abort late in the run would "cancel" every
 * finished request); a fresh `AbortController` per call costs about 5 us in
 * Node 20 (making its signal and adding the first listener), more than the rest
 * of the call. This stand-in costs next to nothing and goes with the request.
 * The tests abort calls through it over stdio and HTTP, so an SDK release that
 * needs more of a signal (`onabort`, `AbortSignal.any`) fails there first.
 */
export class RequestSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<(event: { type: 'abort' }) => void> = [];

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener.call(this, { type: 'abort' });
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    // As with an AbortSignal, a listener added after the abort is never called.
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  /** This object where the SDK's types ask for an `AbortSignal`. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
