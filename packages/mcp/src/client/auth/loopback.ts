import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnytoolError, ErrorCode } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { http } from '../../shared/builtins.cjs';

/** Options of `startLoopbackRedirect`. */
export interface LoopbackRedirectOptions {
  /** The port to listen on (default: a free one the system picks). */
  port?: number;
  /** The path of the redirect URI (default `/callback`). */
  path?: string;
  /** How long `authorize` waits for the browser to come back, in milliseconds (default 300 000, five minutes). */
  timeoutMs?: number;
  /** The page the browser shows once the redirect arrived. */
  successHtml?: string;
}

/**
 * A redirect URI on this machine for the authorization-code flow of a command-line
 * program (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 that waits for the
 * authorization server to send the browser back with the code.
 */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`: register it with the authorization server (or let dynamic registration do so). */
  readonly redirectUrl: string;
  /**
   * An `authorize` callback for an `authorization_code` server entry: it hands the
   * authorization URL to `open` (print it, or start a browser) and resolves with the
   * URL the browser was sent back to, once its `state` matches the one in the
   * authorization URL. A redirect with another `state` is answered 400 and not taken.
   * It rejects after `timeoutMs`, or at once when the redirect carries an `error`.
   */
  authorize(open: (authorizationUrl: URL) => void | Promise<void>): (authorizationUrl: URL) => Promise<string>;
  /** Stops listening; a wait in progress rejects. */
  close(): Promise<void>;
}

interface Waiter {
  state: string | null;
  resolve(url: string): void;
  reject(error: Error): void;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const DONE_HTML = '<!doctype html><title>Signed in</title><p>Signed in. You can close this window.</p>';

/** Starts the loopback listener on 127.0.0.1 and resolves once it listens. */
export async function startLoopbackRedirect(options: LoopbackRedirectOptions = {}): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const waiters = new Set<Waiter>();
  let closed = false;

  let origin = '';
  const server: Server = http().createServer((req, res) => {
    // Anything can connect to the port: a request that makes no sense is refused, and never ends the program.
    try {
      answer(req, res);
    } catch {
      if (res.headersSent) res.destroy();
      else res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad request');
    }
  });
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    // A fixed base: the Host header is the sender's to choose, and a malformed one must not matter.
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const state = url.searchParams.get('state');
    const waiter = [...waiters].find((w) => w.state === state);
    if (waiter === undefined) {
      // Not the redirect of a flow started here: a stale tab, or a forged request.
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('This sign-in response does not belong to a sign-in in progress (its state does not match). Start again from the application.');
      return;
    }
    waiters.delete(waiter);
    const redirected = `${origin}${url.pathname}${url.search}`;
    if (url.searchParams.has('error')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('Sign-in failed. Return to the application.');
      // The error text comes from whoever sent the browser here: it is named, never shown as it is.
      waiter.reject(
        new AnytoolError(
          ErrorCode.McpAuthFailed,
          `The authorization server sent the browser back with an error (${JSON.stringify(url.searchParams.get('error')?.slice(0, 64))}): the sign-in was refused or cancelled.`,
        ),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(options.successHtml ?? DONE_HTML);
    waiter.resolve(redirected);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUrl = `${origin}${path}`;

  return {
    redirectUrl,
    authorize: (open) => async (authorizationUrl) => {
      if (closed) throw new AnytoolError(ErrorCode.McpAuthFailed, `The loopback redirect listener at ${redirectUrl} was closed; start a new one to sign in.`);
      const state = authorizationUrl.searchParams.get('state');
      const arrived = new Promise<string>((resolve, reject) => {
        const waiter: Waiter = { state, resolve, reject };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new AnytoolError(
              ErrorCode.McpAuthFailed,
              `No sign-in came back to ${redirectUrl} within ${timeoutMs} ms; open the authorization URL and sign in, or raise timeoutMs.`,
            ),
          );
        }, timeoutMs);
        timer.unref();
        waiter.resolve = (url) => {
          clearTimeout(timer);
          resolve(url);
        };
        waiter.reject = (error) => {
          clearTimeout(timer);
          reject(error);
        };
        waiters.add(waiter);
      });
      // The browser may come back (or fail) while `open` still runs: the outcome is kept for the caller, never unhandled.
      arrived.catch(() => undefined);
      try {
        await open(authorizationUrl);
      } catch (error) {
        for (const waiter of waiters)
          if (waiter.state === state)
            waiter.reject(
              new AnytoolError(ErrorCode.McpAuthFailed, `Could not show the authorization URL: ${describeError(error)}`, {
                cause: error,
              }),
            );
        for (const waiter of [...waiters]) if (waiter.state === state) waiters.delete(waiter);
      }
      return arrived;
    },
    close: async () => {
      closed = true;
      for (const waiter of waiters)
        waiter.reject(new AnytoolError(ErrorCode.McpAuthFailed, `The loopback redirect listener at ${redirectUrl} was closed before the sign-in came back.`));
      waiters.clear();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}
