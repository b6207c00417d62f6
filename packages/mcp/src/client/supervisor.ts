import { AnytoolError, ErrorCode, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import { StreamableHTTPClientTransport, type Client, type Transport, type VersionNegotiationOptions } from '@modelcontextprotocol/client';
import { isHttpConfig, type McpServerConfig } from './config.js';
import { assumedDiscover, describeVerdict, negotiationFor, priorOf, startBudget, type EraVerdict, type McpProtocol } from './era.js';
import { closeStdioSession, endExitedGroup, killStarting } from './reaping.js';
import { describeHttpError, httpStatus, isConnectionClosed, isEraNegotiationFailure, isProbeCutShort, isTimeout, refusesStreamableHttp } from './sdk-errors.js';
import { loadStdio } from './stdio-module.js';
import { createTransport, isStdioTransport, stdioPid, type TransportHooks } from './transports.js';
import { OAuthSession, authFailureOf } from './auth/oauth.js';
import type { McpTokenStore } from './auth/token-store.js';
import { redactError, redactUrl } from './url-credentials.js';

/*
 * The life of the session with one server: starting it (the era probe, the
 * fallbacks), starting it again with backoff after it died, opening a new HTTP
 * session when the server forgot one (404), and closing it with every process it
 * started. The connection asks it for a client and uses it; what a session is
 * for (calls, tools, handlers) stays in the connection.
 */

/** How a server that stopped is started again on the next call. */
export interface McpRestartOptions {
  /** Starts tried before a call gives up (default 3). */
  maxAttempts?: number;
  /** Wait before the second attempt, doubled for each further one (default 200 ms). */
  initialDelayMs?: number;
  /** Longest wait between attempts (default 5000 ms). */
  maxDelayMs?: number;
}

/** What the supervisor needs of its connection. */
export interface SupervisorHost {
  readonly name: string;
  readonly config: McpServerConfig;
  /** A new SDK client with the connection's request and notification handlers. */
  createClient(negotiation: VersionNegotiationOptions): Client;
  /** Called once a session is open (`restarted` after the first start): reads the tools. A throw fails the start. */
  opened(client: Client, startTimeout: number, restarted: boolean): Promise<void>;
  note(message: string): void;
  noteOnce(message: string): void;
  redact(text: string): string;
}

/** The settings of a supervisor, resolved from the server entry and the options. */
export interface SupervisorSettings {
  protocol: McpProtocol;
  startTimeout: number;
  maxResultBytes: number;
  restart: McpRestartOptions;
  onStderr?: ((server: string, text: string) => void) | undefined;
  /** Whether the stderr tail of a server that failed during a call may go into what a model reads. */
  stderrToModel: boolean;
  /** Where OAuth tokens are kept when the server's `auth` names no store. */
  tokenStore?: McpTokenStore | undefined;
}

const STDERR_KEEP = 16_384;
const STDERR_TAIL_LINES = 20;
const STDERR_TAIL_CHARS = 2_000;

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Waits `ms`, or less when `signal` aborts. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });

/** A client option that is a positive number, or its default when not given; anything else is refused, never replaced by the default. */
export function positive(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0))
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `MCP client options: "${option}" must be a positive number (got ${JSON.stringify(value) ?? String(value)})`,
    );
  return value;
}

/** Refuses restart options that are not positive numbers (attempts: a whole number), before any server starts. */
export function checkRestartOptions(restart: McpRestartOptions): void {
  positive(restart.initialDelayMs, 0, 'restart.initialDelayMs');
  positive(restart.maxDelayMs, 0, 'restart.maxDelayMs');
  const attempts = restart.maxAttempts;
  if (attempts !== undefined && (typeof attempts !== 'number' || !Number.isSafeInteger(attempts) || attempts < 1))
    throw new AnytoolError(
      ErrorCode.InvalidOptions,
      `MCP client options: "restart.maxAttempts" must be a whole number of 1 or more (got ${JSON.stringify(attempts) ?? String(attempts)})`,
    );
}

export class SessionSupervisor {
  private readonly host: SupervisorHost;
  private readonly settings: SupervisorSettings;
  private current: Client | undefined;
  private transport: Transport | undefined;
  private opening: Promise<Client> | undefined;
  private closing: Promise<void> | undefined;
  private isClosed = false;
  private stderrText = '';
  private startCount = 0;
  private startingPid: number | undefined;
  /** Whether the child of the start in progress still runs (its pid is not free for another process). */
  private startingRunning: (() => boolean) | undefined;
  /** The client and transport of a start in progress (close() ends them at once). */
  private starting: { client: Client; transport: Transport } | undefined;
  /** Stdio transports whose server leads its own process group. */
  private readonly grouped = new WeakSet<Transport>();
  /** Clients whose HTTP session the server forgot (404): their calls are sent again on a new session. */
  private readonly expired = new WeakSet<Client>();
  /** Aborted by close(): cuts short the backoff between restarts. */
  private readonly stopping = new AbortController();
  /** The era the server was found to speak, kept for every later start. */
  private known: EraVerdict | undefined;
  /** OAuth for an HTTP server whose entry has `auth`: kept across restarts and new sessions, as its tokens are. */
  private readonly oauth: OAuthSession | undefined;
  private readonly authHook: TransportHooks['auth'];

  constructor(host: SupervisorHost, settings: SupervisorSettings) {
    this.host = host;
    this.settings = settings;
    const config = host.config;
    const auth = isHttpConfig(config) ? config.auth : undefined;
    if (auth?.type === 'provider') this.authHook = { authProvider: auth.provider };
    else if (auth !== undefined && isHttpConfig(config)) {
      this.oauth = new OAuthSession(host.name, new URL(config.url), auth, settings.tokenStore, { note: (message) => host.note(message) });
      const session = this.oauth;
      this.authHook = { authProvider: session.authProvider, wrap: (fetch) => session.wrap(fetch) };
    }
  }

  /**
   * The error of a request refused for want of authorization (401 after renewal,
   * 403 insufficient_scope after one step-up, a failed OAuth flow), as
   * `MCP_AUTH_FAILED` naming the server and the fix; undefined for any other error.
   */
  authFailure(error: unknown, request: string): AnytoolError | undefined {
    return authFailureOf(error, this.host.name, request, this.oauth?.failure);
  }

  /** The client of the open session, undefined while none is open. */
  get client(): Client | undefined {
    return this.current;
  }

  /** The transport of the open session. */
  get openTransport(): Transport | undefined {
    return this.transport;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get verdict(): EraVerdict | undefined {
    return this.known;
  }

  get starts(): number {
    return this.startCount;
  }

  /** Whether the server's stderr may go into the errors of calls, which a model reads (see `stderrToModel`). */
  get stderrToModel(): boolean {
    return this.settings.stderrToModel;
  }

  /** What the server wrote to stderr since it was last started (the last 16 KB). */
  get stderr(): string {
    return this.stderrText;
  }

  /** The open client, or a new session (the server started again when it stopped). */
  session(): Promise<Client> {
    return this.current !== undefined ? Promise.resolve(this.current) : this.reconnect();
  }

  /** Starts the server (or connects to it) the first time. */
  open(): Promise<Client> {
    return this.start(false);
  }

  /** Starts the server again (with backoff); every caller shares one restart. */
  reconnect(): Promise<Client> {
    if (this.isClosed) return Promise.reject(this.closedError());
    return (this.opening ??= this.restart().finally(() => {
      this.opening = undefined;
    }));
  }

  /** Whether a call's failure on `client` means the server forgot the HTTP session (its call is then sent again). */
  sessionExpired(error: unknown, client: Client): boolean {
    if (this.isClosed) return false;
    if (this.expired.has(client)) return isConnectionClosed(error) || httpStatus(error) === 404;
    // A modern server keeps no sessions: its 404 is not a forgotten one.
    return httpStatus(error) === 404 && client.transport instanceof StreamableHTTPClientTransport && client.getProtocolEra() !== 'modern';
  }

  /**
   * Marks a client whose HTTP session the server forgot and returns the new
   * session: new calls no longer go to the old one, and its other calls in
   * flight, cut off when it is closed here, are sent again on the new session
   * rather than failing. Every call of the expired session shares one new
   * session: the one already open, or the one being opened.
   */
  renew(client: Client): Promise<Client> {
    this.expire(client);
    return this.current !== undefined && !this.expired.has(this.current) ? Promise.resolve(this.current) : this.reconnect();
  }

  /**
   * Ends the session and the server's process with everything it started.
   * A restart in progress is cut short: the server being started is killed and
   * the backoff wait ends.
   */
  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.isClosed = true;
    this.stopping.abort();
    const client = this.current;
    const transport = this.transport;
    const opening = this.opening;
    const starting = this.starting;
    this.current = undefined;
    this.starting = undefined;
    this.closing = (async () => {
      const ending: Array<Promise<void>> = [];
      // A server still starting has nothing worth waiting for: kill it, which ends the start at once.
      if (starting !== undefined) ending.push(this.abandon(starting.client, starting.transport));
      if (client !== undefined && transport !== undefined && client !== starting?.client) ending.push(this.endSession(client, transport));
      await Promise.all(ending);
      if (opening !== undefined) await opening.catch(() => undefined);
    })();
    return this.closing;
  }

  /** The last lines of the server's stderr, for an error message. */
  stderrTail(): string {
    const lines = this.stderrText.trimEnd().split('\n');
    const tail = lines.slice(-STDERR_TAIL_LINES).join('\n');
    return tail.length > STDERR_TAIL_CHARS ? tail.slice(tail.length - STDERR_TAIL_CHARS) : tail;
  }

  closedError(): AnytoolError {
    return new AnytoolError(
      ErrorCode.McpConnectionClosed,
      `MCP server "${this.host.name}": the connection was closed with close(); open a new one to call its tools.`,
    );
  }

  private async restart(): Promise<Client> {
    const restart = this.settings.restart;
    const attempts = restart.maxAttempts ?? 3;
    const initial = positive(restart.initialDelayMs, 200, 'restart.initialDelayMs');
    const longest = positive(restart.maxDelayMs, 5_000, 'restart.maxDelayMs');
    let last: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const delay = attempt > 1 ? Math.min(initial * 2 ** (attempt - 2), longest) : 0;
      if (delay > 0) await sleep(delay, this.stopping.signal);
      if (this.isClosed) throw this.closedError();
      try {
        this.host.note(
          `${isHttpConfig(this.host.config) ? 'connecting to the server again' : 'starting the server again'} (attempt ${attempt} of ${attempts}, after waiting ${delay} ms)`,
        );
        return await this.start(true);
      } catch (error) {
        if (this.isClosed) throw this.closedError();
        last = error;
      }
    }
    // The last start's stderr stays in its detail, as it did there (see startError).
    const detail = isAnytoolError(last) ? last.detail : undefined;
    throw redactError(
      new AnytoolError(
        ErrorCode.McpConnectFailed,
        `MCP server "${this.host.name}" stopped and could not be started again in ${attempts} attempts: ${describeError(last)}`,
        detail === undefined ? { cause: last } : { cause: last, detail },
      ),
      (text) => this.host.redact(text),
    );
  }

  /** `forCall`: a start again for a call, whose error a model reads. */
  private async start(forCall: boolean): Promise<Client> {
    const { protocol, startTimeout } = this.settings;
    this.stderrText = '';
    // A server already connected to is not probed again: its verdict is handed to the SDK.
    const known = this.known;
    // A user signing in during the first request must not be cut off by the probe's short budget.
    const budget = startBudget(startTimeout, known === undefined && protocol !== 'legacy', this.oauth?.interactive === true);
    if (!isHttpConfig(this.host.config)) {
      await loadStdio();
      if (this.isClosed) throw this.closedError();
    }
    let transport = this.createTransport(false);
    let client = this.createClient(negotiationFor(protocol, budget.probe));
    let assumed = false;
    this.starting = { client, transport };
    try {
      await client.connect(transport, known === undefined ? { timeout: budget.connect } : { timeout: budget.connect, prior: priorOf(known) });
    } catch (error) {
      await this.abandon(client, transport);
      if (this.isClosed) throw this.closedError();
      if (known === undefined && protocol === 'modern' && isEraNegotiationFailure(error) && !isProbeCutShort(error)) {
        // Pinned to the modern era, and the server answered no server/discover: speak modern to it all the same.
        assumed = true;
        transport = this.createTransport(false);
        client = this.createClient(negotiationFor(protocol, budget.probe));
        this.starting = { client, transport };
        try {
          await client.connect(transport, { timeout: budget.connect, prior: { kind: 'modern', discover: assumedDiscover() } });
        } catch (pinnedError) {
          await this.abandon(client, transport);
          if (this.isClosed) throw this.closedError();
          throw await this.startError(pinnedError, 'initialize', forCall);
        }
      } else if (known === undefined && protocol === 'auto' && !isHttpConfig(this.host.config) && isProbeCutShort(error)) {
        // The server ended on the probe, which stdio probes on the session's own process (see transports.ts): the shape
        // of servers that exit on any request before initialize, which speak the 2025 era. Started again with that era.
        transport = this.createTransport(false);
        client = this.createClient({ mode: 'legacy' });
        this.starting = { client, transport };
        try {
          await client.connect(transport, { timeout: budget.connect, prior: { kind: 'legacy' } });
        } catch (legacyError) {
          await this.abandon(client, transport);
          if (this.isClosed) throw this.closedError();
          throw await this.startError(legacyError, 'initialize', forCall);
        }
      } else {
        if (!(transport instanceof StreamableHTTPClientTransport) || !refusesStreamableHttp(error)) throw await this.startError(error, 'initialize', forCall);
        // An old server that only speaks HTTP+SSE (the 2024 transport: the legacy era only).
        this.host.note(`streamable HTTP was refused (${describeHttpError(error)}): trying the HTTP+SSE transport`);
        transport = this.createTransport(true);
        client = this.createClient({ mode: 'legacy' });
        this.starting = { client, transport };
        try {
          await client.connect(transport, { timeout: startTimeout });
        } catch (sseError) {
          await this.abandon(client, transport);
          if (this.isClosed) throw this.closedError();
          // Say why both failed: the streamable HTTP answer is often the real problem (a wrong path, a missing header).
          const both = new AnytoolError(
            ErrorCode.McpConnectFailed,
            `streamable HTTP: ${describeHttpError(error)}; SSE fallback: ${describeHttpError(sseError)}`,
            { cause: sseError },
          );
          throw await this.startError(both, 'initialize', forCall, true);
        }
      }
    }
    if (this.isClosed) {
      this.starting = undefined;
      await client.close().catch(() => undefined);
      throw this.closedError();
    }
    this.current = client;
    this.transport = transport;
    this.startCount++;
    this.remember(client, known, assumed);
    try {
      await this.host.opened(client, startTimeout, this.startCount > 1);
    } catch (error) {
      if (this.starting?.client === client) this.starting = undefined;
      await this.abandon(client, transport);
      if (this.current === client) {
        this.current = undefined;
        this.transport = undefined;
      }
      if (this.isClosed) throw this.closedError();
      throw await this.startError(error, 'tools/list', forCall);
    }
    if (this.starting?.client === client) this.starting = undefined;
    return client;
  }

  /** The connection's client, with the lifecycle handlers: a closed session is dropped, errors become diagnostics. */
  private createClient(negotiation: VersionNegotiationOptions): Client {
    const client = this.host.createClient(negotiation);
    client.onclose = () => {
      if (this.current !== client) return;
      this.current = undefined;
      if (!this.isClosed) this.host.note('the server closed the connection; the next call starts it again');
    };
    client.onerror = (error) => {
      // The requests an expired session had in flight are aborted when it is closed: expected, and each is sent again.
      if (this.expired.has(client)) return;
      this.host.note(describeError(error));
    };
    return client;
  }

  private createTransport(sse: boolean): Transport {
    const { transport, grouped } = createTransport(this.host.config, sse, {
      maxResultBytes: this.settings.maxResultBytes,
      note: (problem) => this.host.note(problem),
      onSpawned: (pid, running) => {
        this.startingPid = pid;
        this.startingRunning = running;
      },
      // Unless close() ends it, the server's group ends when the server does.
      onExit: (pid) => {
        if (!this.isClosed) endExitedGroup(pid);
      },
      onStderr: (text) => {
        const kept = this.stderrText + text;
        this.stderrText = kept.length > STDERR_KEEP ? kept.slice(kept.length - STDERR_KEEP) : kept;
        this.settings.onStderr?.(this.host.name, text);
      },
      auth: this.authHook,
    });
    if (grouped) this.grouped.add(transport);
    return transport;
  }

  /**
   * Keeps the era the server was found to speak, for every later start (the SDK's
   * `prior`), and says it once in the diagnostics.
   */
  private remember(client: Client, known: EraVerdict | undefined, assumed: boolean): void {
    if (known !== undefined) return;
    const era = client.getProtocolEra() ?? 'legacy';
    const discover = era === 'modern' ? (client.getDiscoverResult() ?? assumedDiscover()) : undefined;
    this.known = { era, ...(discover === undefined ? {} : { discover }), how: this.settings.protocol === 'auto' ? 'probed' : 'pinned' };
    this.host.noteOnce(describeVerdict(this.known, assumed));
  }

  private expire(client: Client): void {
    if (this.expired.has(client)) return;
    this.expired.add(client);
    this.host.note('the server answered 404 for the session: initializing a new session');
    if (this.current === client) {
      this.current = undefined;
      this.transport = undefined;
    }
    void client.close().catch(() => undefined);
  }

  /** Closes a client whose start failed; a stdio child is killed at once, with every process it started, rather than waited for. */
  private async abandon(client: Client, transport: Transport): Promise<void> {
    const pid = stdioPid(transport) ?? (isStdioTransport(transport) ? this.startingPid : undefined);
    const running = this.startingRunning;
    if (this.starting?.client === client) {
      this.starting = undefined;
      this.startingPid = undefined;
      this.startingRunning = undefined;
    }
    killStarting(pid, running, this.grouped.has(transport));
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }

  /**
   * Ends an open session: DELETE for HTTP; for stdio the SDK's close (stdin end, SIGTERM, SIGKILL),
   * then whatever the server started that outlived it: its process group, and what descends from it.
   */
  private async endSession(client: Client, transport: Transport): Promise<void> {
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) await transport.terminateSession().catch(() => undefined);
    await closeStdioSession(stdioPid(transport), this.grouped.has(transport), () => client.close());
  }

  private describeServer(): string {
    const config = this.host.config;
    if (isHttpConfig(config)) return `MCP server "${this.host.name}" at ${redactUrl(config.url)}`;
    return `MCP server "${this.host.name}" (${[config.command, ...(config.args ?? [])].join(' ')})`;
  }

  /**
   * The coded error of a failed start, with the server's stderr tail: in the message of a first
   * start (the developer's `open`), and for a start again for a call only in its `detail` (a
   * server may log secrets there, and a call's error reaches a model) unless `stderrToModel`.
   */
  private async startError(error: unknown, step: 'initialize' | 'tools/list', forCall: boolean, wrap = false): Promise<AnytoolError> {
    if (!wrap && isAnytoolError(error) && error.code === ErrorCode.McpConnectFailed) return error;
    // A tools/list past a limit keeps its code: what to raise is in it.
    if (isAnytoolError(error) && error.code === ErrorCode.McpToolListLimit)
      return redactError(new AnytoolError(error.code, `Could not start ${this.describeServer()}: ${error.message}`, { cause: error }), (text) =>
        this.host.redact(text),
      );
    const denied = this.authFailure(error, step);
    if (denied !== undefined) {
      const what = denied.message.startsWith(`MCP server "${this.host.name}"`)
        ? denied.message.slice(`MCP server "${this.host.name}"`.length).replace(/^:\s*/, '')
        : denied.message;
      return redactError(
        new AnytoolError(ErrorCode.McpAuthFailed, `Could not connect to ${this.describeServer()}: ${what}`, { cause: denied.cause ?? error }),
        (text) => this.host.redact(text),
      );
    }
    await tick(); // let the last stderr chunks of a dead process arrive
    let reason: string;
    if (isConnectionClosed(error)) reason = `it exited (or closed its output) before answering ${step}`;
    else if (isTimeout(error)) reason = `it did not answer ${step} within ${this.settings.startTimeout} ms (startTimeoutMs)`;
    else if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
      reason = `the command was not found (${describeError(error)}); check "command" and PATH`;
    else reason = describeError(error);
    const isStdio = !isHttpConfig(this.host.config);
    const tail = isStdio ? this.stderrTail() : '';
    const what = `Could not start ${this.describeServer()}: ${reason.replace(/\.$/, '')}.`;
    let made: AnytoolError;
    if (!isStdio) made = new AnytoolError(ErrorCode.McpConnectFailed, what, { cause: error });
    else if (tail === '') made = new AnytoolError(ErrorCode.McpConnectFailed, `${what} It wrote nothing to stderr.`, { cause: error });
    else if (!forCall || this.settings.stderrToModel)
      made = new AnytoolError(ErrorCode.McpConnectFailed, `${what}\nLast lines of its stderr:\n${tail}`, { cause: error });
    else made = new AnytoolError(ErrorCode.McpConnectFailed, what, { cause: error, detail: `Last lines of its stderr:\n${tail}` });
    return redactError(made, (text) => this.host.redact(text));
  }
}
