import type { Client, JSONRPCMessage } from '@modelcontextprotocol/client';
import { isResultResponse } from '../sdk-internals.js';
import { crypto } from '../../shared/builtins.cjs';

/**
 * SHA-256 of the SDK code `dispatchPlainResults` stands in for, in
 * @modelcontextprotocol/client 2.4.0, its ES module and CommonJS builds: the
 * message handler `Protocol.connect` gives the transport, then each
 * `_onresponse` on the client's prototype chain, the `Client`'s first (its
 * `subscriptions/listen` demux), then `Protocol`'s (see `responseDispatchSource`).
 * A release that changes any of them gets the SDK's own dispatch, and
 * `plain-results.test.ts` fails until this list is checked against it.
 */
export const KNOWN_RESPONSE_DISPATCH = new Set([
  'a2b40b54288e035d8ff17483ee594ef924dd7ae5cba4220d996211b89924e65e',
  '0c380a52553566d3c47245188127d1ed1baba34970f58b9a101dc69f2ee3b128',
]);

/** The sources `KNOWN_RESPONSE_DISPATCH` hashes, for the transport's `onmessage` of a connected `client`. */
export function responseDispatchSource(client: Client, onmessage: (...args: never[]) => unknown): string {
  const sources = [onmessage.toString()];
  for (let proto: unknown = Object.getPrototypeOf(client); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    const own = Object.getOwnPropertyDescriptor(proto, '_onresponse')?.value as unknown;
    if (typeof own === 'function') sources.push(own.toString());
  }
  return sources.join('\n');
}

/**
 * Hands a plain result (`{ jsonrpc: "2.0", id, result }` with a numeric id and
 * a result without `_meta`) straight to the request waiting for it, as the
 * SDK's own dispatch would, without its two schema checks of the message.
 *
 * The SDK classifies every message it reads with zod (`isJSONRPCResultResponse`
 * in the transport's `onmessage`, then again in `Protocol._onresponse`); for
 * a result response both checks are true by the schema's definition (the same
 * test as `StdioReadBuffer`'s). Each check is a `safeParse` whose schema is
 * recursive, so zod keeps a `WeakMap` per parse: a large share of what a client
 * allocates per call, which under many calls in flight makes the client's young
 * collections longer and more frequent while the server sits idle
 * (`bench/mcp-eras.mjs --without plain-results` shows it).
 *
 * What the SDK does for such a message, and what this does: the handler of its
 * id is taken from `_responseHandlers` (a `Map` the SDK replaces on close, so it
 * is read on each message), its timeout cleared (`_cleanupTimeout`), its progress
 * handler dropped, and the handler called with the message. A message of any
 * other shape, a string id (the `Client`'s `subscriptions/listen` answers), or
 * an id no request waits for goes to the SDK's handler as before. Installed
 * right after `connect`, while `onmessage` is still the SDK's own (nothing was set
 * on the transport before it); a wrapper set later (`TaskCreations.watch`)
 * wraps this one.
 */
export function dispatchPlainResults(client: Client, problem: (message: string) => void): void {
  const transport = client.transport;
  const sdk = transport?.onmessage;
  if (transport === undefined || sdk === undefined) return;
  const fields = client as unknown as Record<string, unknown>;
  const cleanupTimeout = fields['_cleanupTimeout'];
  const known = KNOWN_RESPONSE_DISPATCH.has(crypto().createHash('sha256').update(responseDispatchSource(client, sdk)).digest('hex'));
  if (!known || !(fields['_responseHandlers'] instanceof Map) || !(fields['_progressHandlers'] instanceof Map) || typeof cleanupTimeout !== 'function') {
    problem(
      "this MCP SDK version hands answers to requests differently: every answer goes through the SDK's own checks (the same results, more work per call)",
    );
    return;
  }
  transport.onmessage = (message, extra) => {
    if (isResultResponse(message) && typeof message.id === 'number') {
      const handlers = fields['_responseHandlers'] as Map<number, (response: JSONRPCMessage) => void>;
      const handler = handlers.get(message.id);
      if (handler !== undefined) {
        handlers.delete(message.id);
        (cleanupTimeout as (id: number) => void).call(client, message.id);
        (fields['_progressHandlers'] as Map<number, unknown>).delete(message.id);
        handler(message);
        return;
      }
    }
    sdk.call(transport, message, extra);
  };
}
