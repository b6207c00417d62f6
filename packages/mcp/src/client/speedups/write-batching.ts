import type { Writable } from 'node:stream';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/**
 * The messages sent in one turn of the event loop go to the server in one write:
 * the server's stdin is corked at the first send of a turn and uncorked in a
 * `nextTick`. Calls sent as answers arrive are sent from promise jobs, and a
 * `nextTick` scheduled from one runs after the turn's promise jobs, so 50 calls
 * in flight cost one system call on each side rather than 50 (a send from
 * outside a promise job is flushed before them: batched less, never later). The
 * transport's own `send` still writes each message, in order; only the flush is
 * later, within the same turn. A stream without `cork` is written as before.
 */
export function batchWrites(transport: StdioClientTransport, stdin: Partial<Writable>): void {
  if (typeof stdin.cork !== 'function' || typeof stdin.uncork !== 'function') return;
  const send = transport.send.bind(transport);
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stdin.uncork!();
  };
  transport.send = (message) => {
    if (!corked) {
      corked = true;
      stdin.cork!();
      process.nextTick(uncork);
    }
    return send(message);
  };
}
