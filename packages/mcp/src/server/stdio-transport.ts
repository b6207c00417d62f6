import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's stdio server transport, writing as a stream should be written: while
 * stdout is full, every message waits for one shared 'drain' (the SDK's adds a
 * listener per message, and Node warns past ten), and a stdout that fails (the
 * client closed it: EPIPE) closes the connection instead of crashing the process.
 */
export class StdioTransport extends StdioServerTransport {
  private drained: Promise<void> | undefined;
  private closed = false;

  constructor(
    stdin: Readable,
    private readonly stdout: Writable,
  ) {
    super(stdin, stdout);
    // Kept after close too: a stream that failed once may report it again, and an unheard 'error' ends the process.
    stdout.on('error', () => void this.close());
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.stdout.destroyed) return Promise.reject(new Error('stdout is closed: the client is gone'));
    if (this.stdout.write(serializeMessage(message))) return Promise.resolve();
    return (this.drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.stdout.off('drain', done).off('close', done);
        this.drained = undefined;
        resolve();
      };
      this.stdout.on('drain', done).on('close', done);
    }));
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await super.close();
  }
}
