import type { Readable, Writable } from 'node:stream';
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * The SDK's stdio server transport, writing as a stream should be written: while
 * stdout is full, every message waits for one shared 'drain' (the SDK's adds
 * listeners per message), and a stdout that fails (the client closed it: EPIPE)
 * closes the connection instead of crashing the process.
 */
export class StdioTransport extends StdioServerTransport {
  private drained: Promise<void> | undefined;
  private isClosed = false;
  private markClosed!: () => void;
  /** Settles when the connection has closed, whoever closed it. */
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  constructor(
    stdin: Readable,
    private readonly stdout: Writable,
    maxBufferSize?: number,
  ) {
    super(stdin, stdout, maxBufferSize === undefined ? undefined : { maxBufferSize });
    // Kept after close too: a stream that failed once may report it again, and an unheard 'error' ends the process.
    stdout.on('error', () => void this.close());
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.isClosed || this.stdout.destroyed) return Promise.reject(new Error('stdout is closed: the client is gone'));
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
    if (this.isClosed) return;
    this.isClosed = true;
    await super.close();
    this.markClosed();
  }
}
