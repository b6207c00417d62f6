import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface Reply {
  /** Never answer (the client must give up or abort). */
  hang?: boolean;
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Server-sent events instead of `body` (`event:` from each one's `type`, when it has one), then the end of the response. */
  events?: Array<Record<string, unknown>>;
  /** Raw text written after `events` (an SSE message no JSON event gives). */
  trailer?: string;
  /** After `events`, keep the response open (the client must abort). */
  hangAfterEvents?: boolean;
}

export interface ProviderServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: ReceivedRequest[];
  /** Requests whose connection the client closed before the response ended (an aborted stream). */
  closedEarly: number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (a free port) that answers each request with
 * the next reply of a script, the way a provider's API would.
 */
export async function startProviderServer(replies: Array<Reply | ((request: ReceivedRequest) => Reply)>): Promise<ProviderServer> {
  const requests: ReceivedRequest[] = [];
  const state = { closedEarly: 0 };
  const server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableEnded) state.closedEarly++;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      requests.push(received);
      const next = replies[requests.length - 1];
      const reply: Reply =
        next === undefined
          ? { status: 500, body: { error: { message: 'the test server has no reply left', type: 'server_error' } } }
          : typeof next === 'function'
            ? next(received)
            : next;
      if (reply.hang === true) return;
      if (reply.events !== undefined) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
        // Chat Completions and Gemini chunks have no `type`: data lines only, as those APIs send them.
        for (const event of reply.events)
          res.write(`${typeof event['type'] === 'string' ? `event: ${event['type']}\n` : ''}data: ${JSON.stringify(event)}\n\n`);
        if (reply.trailer !== undefined) res.write(reply.trailer);
        if (reply.hangAfterEvents !== true) res.end();
        return;
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get closedEarly() {
      return state.closedEarly;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The major of each official client this jest project runs the adapters against (`globals.sdkMajors` in jest.config.ts). */
export function expectedSdkMajor(sdk: 'openai' | 'anthropic'): number {
  const majors = (globalThis as { sdkMajors?: Record<string, number> }).sdkMajors;
  const major = majors?.[sdk];
  if (major === undefined) throw new Error(`jest.config.ts: this project sets no globals.sdkMajors.${sdk}`);
  return major;
}

/** The major version in a client's User-Agent header ("OpenAI/JS 7.59.0", "Anthropic/JS 1.14.0"). */
export function userAgentMajor(request: ReceivedRequest | undefined): number | undefined {
  const match = /\/JS (\d+)\./.exec(String(request?.headers['user-agent']));
  return match === null ? undefined : Number(match[1]);
}
