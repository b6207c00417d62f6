import type { Readable, Writable } from 'node:stream';
import { serializeMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** How many bytes of answers may wait for the client to read them before requests stop being read. */
export const DEFAULT_MAX_UNREAD_BYTES = 1024 * 1024;

/**
 * The SDK's stdio server transport, writing as a stream should be written: while
 * stdout is full, every message waits for one shared 'drain' (the SDK's adds
 * listeners per message), and a stdout that fails (the client closed it: EPIPE)
 * closes the connection instead of crashing the process.
 *
 * A client that sends requests but does not read the answers would have them
 * pile up in memory without end: past `maxUnreadBytes` of answers not yet taken
 * by the client, stdin is no longer read (the client's writes then wait in the
 * pipe) until stdout drains.
 */
export class StdioTransport extends StdioServerTransport {
  private drained: Promise<void> | undefined;
  private isClosed = false;
  private markClosed!: () => void;
  /** Settles when the connection has closed, whoever closed it. */
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  private paused = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    maxBufferSize?: number,
    private readonly maxUnreadBytes = DEFAULT_MAX_UNREAD_BYTES,
  ) {
    super(stdin, stdout, maxBufferSize === undefined ? undefined : { maxBufferSize });
    // Kept after close too: a stream that failed once may report it again, and an unheard 'error' ends the process.
    stdout.on('error', () => void this.close());
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (this.isClosed || this.stdout.destroyed) return Promise.reject(new Error('stdout is closed: the client is gone'));
    if (this.stdout.write(serializeMessage(message))) return Promise.resolve();
    // Only after a write said the buffer is full: then a 'drain' is sure to come and read again.
    if (!this.paused && this.stdout.writableLength > this.maxUnreadBytes) {
      this.paused = true;
      this.stdin.pause();
    }
    return (this.drained ??= new Promise<void>((resolve) => {
      const done = (): void => {
        this.stdout.off('drain', done).off('close', done);
        this.drained = undefined;
        if (this.paused) {
          this.paused = false;
          if (!this.isClosed) this.stdin.resume();
        }
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
