import {
  Client,
  type ClientCapabilities,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestParams,
  type ElicitResult,
  type Implementation,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from './tasks.js';
import { VERSION } from '../version.js';

/*
 * The SDK client of a session as this connection offers it to a server: the capabilities it
 * declares (sampling, elicitation, roots, the tasks extension) and the handlers that answer the
 * server's requests to the client, directly or, inside a task, through `answerInput`.
 */

/** Answers a server's `sampling/createMessage` request (an LLM completion the server asks the client for). */
export type SamplingHandler = (
  params: CreateMessageRequestParams,
  extra: { server: string; signal: AbortSignal },
) => CreateMessageResult | Promise<CreateMessageResult>;

/** Answers a server's `elicitation/create` request (asks the user for input). */
export type ElicitationHandler = (params: ElicitRequestParams, extra: { server: string; signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;

/**
 * How the connection answers a server's questions to the user: a handler that answers
 * during the call, or `'pause'`, which pauses the call's run with the question (see
 * `McpClientOptions.elicitation`).
 */
export type ElicitationOption = ElicitationHandler | 'pause';

/** A root the client exposes to servers (`roots/list`). */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** The options of the connection that shape its SDK client (see `McpClientOptions`). */
export interface ClientSetupOptions {
  clientInfo?: Implementation | undefined;
  sampling?: SamplingHandler | undefined;
  elicitation?: ElicitationOption | undefined;
  /** Offered when given (even empty); the current roots are `ClientSetupHost.roots()`. */
  roots?: readonly McpRoot[] | undefined;
  tasks?: boolean | undefined;
}

/** What the client's handlers need of their connection. */
export interface ClientSetupHost {
  readonly name: string;
  readonly options: ClientSetupOptions;
  /** The roots offered now (`setRoots` replaces them). */
  roots(): readonly McpRoot[];
  /** The server said its tool list changed (`notifications/tools/list_changed`) on `client`. */
  toolsChanged(client: Client): void;
  /** With `elicitation: 'pause'`: a 2025-era `elicitation/create` request, held for the paused run of the call that asked. */
  heldElicitation(params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult>;
}

const CLIENT_INFO: Implementation = { name: 'anytool', version: VERSION };

/** A new SDK client with the capabilities the options offer and the handlers that serve them. */
export function createClient(host: ClientSetupHost, versionNegotiation: VersionNegotiationOptions): Client {
  const options = host.options;
  const capabilities: ClientCapabilities = {};
  if (options.sampling !== undefined) capabilities.sampling = {};
  // Form defaults are filled in by the SDK when the user accepts a form without them (SEP-1034).
  if (options.elicitation !== undefined) capabilities.elicitation = { form: { applyDefaults: true } };
  if (options.roots !== undefined) capabilities.roots = { listChanged: true };
  if (options.tasks !== false) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const client = new Client(options.clientInfo ?? CLIENT_INFO, { capabilities, versionNegotiation });
  const sampling = options.sampling;
  if (sampling !== undefined)
    client.setRequestHandler('sampling/createMessage', (request, context) => sampling(request.params, { server: host.name, signal: context.mcpReq.signal }));
  const elicitation = options.elicitation;
  if (elicitation === 'pause')
    client.setRequestHandler('elicitation/create', (request, context) => host.heldElicitation(request.params, context.mcpReq.signal));
  else if (elicitation !== undefined)
    client.setRequestHandler('elicitation/create', (request, context) => elicitation(request.params, { server: host.name, signal: context.mcpReq.signal }));
  if (options.roots !== undefined) client.setRequestHandler('roots/list', () => ({ roots: host.roots().map((r) => ({ ...r })) }));
  client.setNotificationHandler('notifications/tools/list_changed', () => host.toolsChanged(client));
  return client;
}

/** An input request of a task, answered by the handler that answers the same request outside tasks. */
export async function answerInput(
  host: ClientSetupHost,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const extra = { server: host.name, signal };
  const { elicitation, sampling, roots } = host.options;
  if (method === 'elicitation/create') {
    if (elicitation === undefined) throw new Error('the client has no elicitation handler (the "elicitation" option)');
    // A task runs on without a call to pause: its question has no run to wait in.
    if (elicitation === 'pause')
      throw new Error(
        'the client pauses runs for questions ("elicitation": "pause"), and a task\'s question belongs to no paused run; give an elicitation handler to answer tasks',
      );
    return (await elicitation(params as unknown as ElicitRequestParams, extra)) as unknown as Record<string, unknown>;
  }
  if (method === 'sampling/createMessage') {
    if (sampling === undefined) throw new Error('the client has no sampling handler (the "sampling" option)');
    return (await sampling(params as unknown as CreateMessageRequestParams, extra)) as unknown as Record<string, unknown>;
  }
  if (method === 'roots/list') {
    if (roots === undefined) throw new Error('the client offers no roots (the "roots" option)');
    return { roots: host.roots().map((r) => ({ ...r })) };
  }
  throw new Error(`"${method.slice(0, 64)}" is not a request a task may ask the client`);
}
