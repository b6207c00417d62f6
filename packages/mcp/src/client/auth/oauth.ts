import { AnytoolError, ErrorCode, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import {
  AuthorizationServerMismatchError,
  InsecureTokenEndpointError,
  InsufficientScopeError,
  IssuerMismatchError,
  OAuthError,
  RegistrationRejectedError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
  auth,
  computeScopeUnion,
  createPrivateKeyJwtAuth,
  extractWWWAuthenticateParams,
  isStrictScopeSuperset,
  type AddClientAuthentication,
  type AuthProvider,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { crypto } from '../../shared/builtins.cjs';

/** What the transport hands `onUnauthorized` (the SDK does not export its name). */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];
import { MemoryTokenStore, type McpStoredAuth, type McpTokenStore } from './token-store.js';

/*
 * OAuth for an MCP server reached over HTTP, on the SDK's client auth: its `auth()`
 * runs discovery (protected resource metadata, authorization server metadata with
 * its issuer check), registration, the grant, refresh and the RFC 9207 `iss` check.
 * What this file adds around it:
 * - one renewal at a time per server: N calls holding an expired token share one
 *   refresh, so a rotating refresh token is never sent twice;
 * - the interactive step done inline: the application's `authorize` callback gets
 *   the authorization URL and returns where the browser came back to (`state` checked);
 * - step-up on 403 `insufficient_scope`: one re-authorization with the union of the
 *   scopes, then a clear failure, never a loop;
 * - tokens kept in a pluggable store, and errors that name the server and the fix.
 */

/** Settings shared by the OAuth flows of a server entry. */
export interface McpOAuthCommon {
  /**
   * Scopes to ask for (space-separated), added to what the server's challenge names.
   * Without it the SDK's choice holds: the challenge's scope, else the server's
   * `scopes_supported`, else none.
   */
  scope?: string;
  /** Where tokens are kept (default: the `tokenStore` option, else in memory for the life of the process). */
  store?: McpTokenStore;
  /** The entry of the store (default: the server's URL without its query). */
  storeKey?: string;
  /**
   * The issuer the configured client belongs to. A server that sends the client to
   * another authorization server is refused before any credential is sent there.
   * Required with a client secret or private key.
   */
  issuer?: string;
}

/** A machine with no user: the `client_credentials` grant, with a secret or a private key (`private_key_jwt`). */
export interface McpClientCredentialsAuth extends McpOAuthCommon {
  type: 'client_credentials';
  /** The issuer the credentials belong to: required, so they are never sent to another authorization server. */
  issuer: string;
  clientId: string;
  /** The client secret (sent as the authorization server prefers: HTTP Basic, else in the body). */
  clientSecret?: string;
  /** In place of a secret, a private key that signs a client assertion (PEM PKCS#8 text, or a JWK). */
  privateKey?: string | Record<string, unknown>;
  /** The key's algorithm (default `RS256`). */
  algorithm?: string;
}

/** What the `authorize` callback is told. */
export interface McpAuthorizeInfo {
  /** The server's name in the configuration. */
  server: string;
}

/** A user who signs in: the authorization code grant with PKCE. */
export interface McpAuthorizationCodeAuth extends McpOAuthCommon {
  type: 'authorization_code';
  /** Where the authorization server sends the browser back (`startLoopbackRedirect().redirectUrl` for a command-line program). */
  redirectUrl: string;
  /**
   * Shows the user the authorization URL (opens a browser, prints it) and resolves with
   * the URL the browser was sent back to (best: its `iss` is then checked too) or the
   * bare `code`. `startLoopbackRedirect().authorize(open)` makes one for a CLI.
   */
  authorize: (authorizationUrl: URL, info: McpAuthorizeInfo) => string | URL | Promise<string | URL>;
  /** A client registered ahead with the authorization server; without it, a client ID metadata document or dynamic registration is used. */
  clientId?: string;
  clientSecret?: string;
  /**
   * The HTTPS URL of this client's metadata document, used as its client id where the
   * authorization server supports client ID metadata documents (preferred by the MCP
   * specification to dynamic registration, which remains the fallback).
   */
  clientMetadataUrl?: string;
  /** The name dynamic registration gives this client (default "anytool"). */
  clientName?: string;
}

/**
 * Full control: an `OAuthClientProvider` (or a bare `AuthProvider`) of the SDK,
 * handed to its transport as it is. Its redirect, storage and refresh are its own:
 * for an interactive provider the connection fails with the SDK's `UnauthorizedError`
 * after `redirectToAuthorization`, and the application finishes the flow itself.
 */
export interface McpProviderAuth {
  type: 'provider';
  provider: OAuthClientProvider | AuthProvider;
}

/** OAuth for an HTTP server entry (`auth` on the entry). */
export type McpOAuthConfig = McpClientCredentialsAuth | McpAuthorizationCodeAuth | McpProviderAuth;

/** The refresh is done this long before the access token expires (or a tenth of its life, if shorter). */
const EXPIRY_MARGIN_MS = 30_000;
const CLIENT_NAME = 'anytool';

/** What the session does with a challenge: the scope and where the resource metadata is. */
interface Challenge {
  scope?: string | undefined;
  resourceMetadataUrl?: URL | undefined;
}

/**
 * The SDK's `OAuthClientProvider` for one server: tokens and a registered client in
 * the store, the flow's verifier, `state` and discovery in memory, and the
 * authorization URL held for the session to hand to the application.
 */
class StoredProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  addClientAuthentication?: AddClientAuthentication;
  private entry: McpStoredAuth | undefined;
  private loaded: Promise<void> | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private expectedState: string | undefined;
  private authorizationUrl: URL | undefined;
  private readonly metadata: OAuthClientMetadata;
  /** A client configured ahead (pre-registered, or client credentials), stamped with its issuer once known. */
  private configuredClient: StoredOAuthClientInformation | undefined;
  /** Bumped on every save of tokens: a renewal asked for with an older generation is already done. */
  generation = 0;

  constructor(
    private readonly store: McpTokenStore,
    private readonly key: string,
    private readonly config: McpClientCredentialsAuth | McpAuthorizationCodeAuth,
  ) {
    const interactive = config.type === 'authorization_code';
    this.metadata = {
      client_name: interactive ? (config.clientName ?? CLIENT_NAME) : CLIENT_NAME,
      redirect_uris: interactive ? [config.redirectUrl] : [],
      ...(interactive ? { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] } : { grant_types: ['client_credentials'] }),
      ...(config.scope === undefined ? {} : { scope: config.scope }),
    };
    if (config.type === 'client_credentials') {
      this.configuredClient = {
        client_id: config.clientId,
        ...(config.clientSecret === undefined ? {} : { client_secret: config.clientSecret }),
        ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
      };
      if (config.privateKey !== undefined) {
        this.metadata.token_endpoint_auth_method = 'private_key_jwt';
        this.addClientAuthentication = createPrivateKeyJwtAuth({
          issuer: config.clientId,
          subject: config.clientId,
          privateKey: config.privateKey,
          alg: config.algorithm ?? 'RS256',
        });
      }
    } else {
      if (config.clientId !== undefined) {
        this.configuredClient = {
          client_id: config.clientId,
          ...(config.clientSecret === undefined ? {} : { client_secret: config.clientSecret }),
          ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
        };
        this.metadata.token_endpoint_auth_method = config.clientSecret === undefined ? 'none' : 'client_secret_basic';
      }
      if (config.clientMetadataUrl !== undefined) this.clientMetadataUrl = config.clientMetadataUrl;
    }
  }

  get redirectUrl(): string | undefined {
    return this.config.type === 'authorization_code' ? this.config.redirectUrl : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }

  /** Reads the store once; later reads are served from memory (every save goes through here). */
  load(): Promise<void> {
    return (this.loaded ??= Promise.resolve(this.store.get(this.key)).then(
      (entry) => {
        this.entry = entry === undefined ? undefined : { ...entry };
      },
      (error: unknown) => {
        // Read again next time: the store may be fixed (a file's mode corrected) while the connection lives.
        this.loaded = undefined;
        throw error;
      },
    ));
  }

  private async save(change: (entry: McpStoredAuth) => void): Promise<void> {
    await this.load();
    const entry = { ...this.entry };
    change(entry);
    this.entry = entry;
    // A failed save propagates: the authorization server may have rotated the refresh token already.
    await this.store.set(this.key, entry);
  }

  async clientInformation(ctx?: { issuer: string }): Promise<StoredOAuthClientInformation | undefined> {
    await this.load();
    const configured = this.configuredClient;
    // A configured client belongs to one authorization server: it is never offered to another (nor replaced by a registration there).
    if (configured?.issuer !== undefined && ctx !== undefined && configured.issuer.replace(/\/$/, '') !== ctx.issuer.replace(/\/$/, '')) {
      throw new AuthorizationServerMismatchError(configured.issuer, ctx.issuer);
    }
    // Without a configured issuer, the client is bound to the first one it is used with (as the SDK binds what it stores).
    if (configured !== undefined && configured.issuer === undefined && ctx !== undefined) this.configuredClient = { ...configured, issuer: ctx.issuer };
    return this.configuredClient ?? this.entry?.client;
  }

  async saveClientInformation(information: StoredOAuthClientInformation): Promise<void> {
    if (this.configuredClient !== undefined && information.client_id === this.configuredClient.client_id) {
      this.configuredClient = information;
      return;
    }
    await this.save((entry) => {
      entry.client = information;
    });
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    await this.load();
    return this.entry?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const expiresIn = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in * 1000 : undefined;
    await this.save((entry) => {
      entry.tokens = tokens;
      if (expiresIn === undefined) delete entry.expiresAt;
      else entry.expiresAt = Date.now() + expiresIn;
    });
    this.generation++;
  }

  /** Whether the access token has expired, or will within the margin. */
  async expiring(): Promise<boolean> {
    await this.load();
    const expiresAt = this.entry?.expiresAt;
    const life = this.entry?.tokens?.expires_in;
    if (expiresAt === undefined || typeof life !== 'number') return false;
    return Date.now() >= expiresAt - Math.min(EXPIRY_MARGIN_MS, (life * 1000) / 10);
  }

  state(): string {
    this.expectedState = crypto().randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  /** The `state` the last authorization URL carried. */
  get stateSent(): string | undefined {
    return this.expectedState;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  /** The authorization URL the SDK asked to send the user to, once. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.authorizationUrl;
    this.authorizationUrl = undefined;
    return url;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier was saved for this authorization');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.config.type !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope !== '') params.set('scope', scope);
    return params;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
    if (scope === 'all' || scope === 'client' || scope === 'tokens') {
      await this.save((entry) => {
        if (scope !== 'tokens') delete entry.client;
        if (scope !== 'client') {
          delete entry.tokens;
          delete entry.expiresAt;
        }
      });
      if (scope !== 'client') this.generation++;
    }
  }
}

/** The `Authorization: Bearer` value a request was sent with. */
function bearerOf(init: RequestInit | undefined): string | undefined {
  const value = new Headers(init?.headers).get('authorization');
  return value?.toLowerCase().startsWith('bearer ') ? value.slice(7) : undefined;
}

/** The code and `iss` of what the application's `authorize` returned: the redirect URL, or a bare code. */
function callbackParams(returned: string | URL): { code: string | undefined; state: string | null | undefined; iss: string | undefined; error: string | null } {
  const text = String(returned).trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { code: text === '' ? undefined : text, state: undefined, iss: undefined, error: null };
  const params = new URL(text).searchParams;
  return { code: params.get('code') ?? undefined, state: params.get('state'), iss: params.get('iss') ?? undefined, error: params.get('error') };
}

/** What the session tells its connection. */
export interface OAuthSessionHooks {
  note(message: string): void;
}

/**
 * The OAuth state of one server's connection: what its transport is given (`authProvider`
 * and a `fetch` wrapper), and the one renewal in flight.
 */
export class OAuthSession {
  /** Given to the SDK transport as its `authProvider`. */
  readonly authProvider: AuthProvider;
  /** Whether the configuration signs a user in (an interactive flow may take minutes). */
  readonly interactive: boolean;
  private readonly provider: StoredProvider;
  private readonly serverUrl: URL;
  private fetchFn: FetchLike = fetch;
  /** The token each response of the server answered, for `onUnauthorized` to tell a stale token from a refused one. */
  private readonly sent = new WeakMap<Response, string | undefined>();
  /** The renewal in flight: refresh, new grant, or step-up. Every caller waits for this one. */
  private pending: Promise<void> | undefined;
  /** The scopes asked for so far: a step-up asks for their union with the challenged ones. */
  private scope: string | undefined;
  /** Scope sets a step-up was done for: each is tried once, so a server that keeps refusing fails clearly. */
  private readonly steppedUp = new Set<string>();
  /** Why the last renewal or step-up failed, for the error of the request it left refused. */
  private lastFailure: AnytoolError | undefined;

  constructor(
    private readonly server: string,
    url: URL,
    private readonly config: McpClientCredentialsAuth | McpAuthorizationCodeAuth,
    defaultStore: McpTokenStore | undefined,
    private readonly hooks: OAuthSessionHooks,
  ) {
    this.serverUrl = url;
    this.interactive = config.type === 'authorization_code';
    const key = config.storeKey ?? `${url.origin}${url.pathname}`;
    this.provider = new StoredProvider(config.store ?? defaultStore ?? new MemoryTokenStore(), key, config);
    this.scope = config.scope;
    this.authProvider = {
      token: () => this.token(),
      onUnauthorized: (ctx) => this.onUnauthorized(ctx),
    };
  }

  /**
   * The transport's `fetch`: notes the token each request carried and, on a 403
   * `insufficient_scope` from the server, steps up once and sends the request
   * again with the new token. A second refusal reaches the SDK, which rejects the
   * request with `InsufficientScopeError`.
   */
  wrap(inner: FetchLike): FetchLike {
    this.fetchFn = inner;
    return async (url, init) => {
      const token = bearerOf(init);
      let response = await inner(url, init);
      if (response.status === 403 && this.isServer(url)) {
        const challenge = extractWWWAuthenticateParams(response);
        if (challenge.error === 'insufficient_scope' && (await this.stepUp(challenge, token))) {
          await response.body?.cancel().catch(() => undefined);
          const headers = new Headers(init?.headers);
          const fresh = (await this.provider.tokens())?.access_token;
          if (fresh === undefined) headers.delete('authorization');
          else headers.set('authorization', `Bearer ${fresh}`);
          response = await inner(url, { ...init, headers });
          this.sent.set(response, fresh);
          return response;
        }
      }
      this.sent.set(response, token);
      return response;
    };
  }

  /** Why the last renewal or step-up failed (undefined once one succeeds). */
  get failure(): AnytoolError | undefined {
    return this.lastFailure;
  }

  /** The access token for the next request: an expired one is renewed first (once for every caller). */
  private async token(): Promise<string | undefined> {
    if (this.pending !== undefined) await this.pending.catch(() => undefined);
    const generation = this.provider.generation;
    const tokens = await this.provider.tokens();
    // An expired token that can be renewed without the user is renewed before it is sent.
    if (tokens !== undefined && (tokens.refresh_token !== undefined || !this.interactive) && (await this.provider.expiring())) {
      await this.renew(generation, {});
    }
    return (await this.provider.tokens())?.access_token;
  }

  /**
   * The server answered 401. A request sent with a token renewed since is sent again as it
   * is; otherwise the token is renewed (refresh, or a new grant), once for every caller.
   */
  private async onUnauthorized(ctx: UnauthorizedContext): Promise<void> {
    const sent = this.sent.get(ctx.response);
    if (this.pending !== undefined) return this.pending;
    const generation = this.provider.generation;
    const current = (await this.provider.tokens())?.access_token;
    // Sent with another token than the current one (or with none, before a renewal finished): sent again as it is.
    if (current !== undefined && sent !== current) return;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(ctx.response);
    // A token refused outright: the authorization server may have moved; discover it again.
    if (sent !== undefined) await this.provider.invalidateCredentials('discovery');
    return this.renew(generation, { scope, resourceMetadataUrl });
  }

  /** One renewal at a time; a caller whose token was already renewed since it looked waits for nothing. */
  private renew(generation: number, challenge: Challenge, force = false): Promise<void> {
    if (this.pending !== undefined) return this.pending;
    if (generation !== this.provider.generation) return Promise.resolve();
    const run = this.authorize(challenge, force).then(
      () => {
        this.lastFailure = undefined;
      },
      (error: unknown) => {
        this.lastFailure = this.authError(error);
        this.hooks.note(this.lastFailure.message);
        throw this.lastFailure;
      },
    );
    this.pending = run.finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /**
   * A 403 `insufficient_scope`: re-authorize with the union of the scopes asked for so far,
   * the token's and the challenged ones, unless that union was tried already. True when the
   * request should be sent again with the current token.
   */
  private async stepUp(challenge: Challenge, sent: string | undefined): Promise<boolean> {
    if (this.pending !== undefined) {
      await this.pending.catch(() => undefined);
      return (await this.provider.tokens())?.access_token !== sent;
    }
    const generation = this.provider.generation;
    const tokens = await this.provider.tokens();
    if (tokens?.access_token !== sent) return true;
    const union = computeScopeUnion(this.scope, tokens?.scope, challenge.scope);
    const key = union ?? '';
    if (this.steppedUp.has(key)) {
      this.lastFailure = new AnytoolError(
        ErrorCode.McpAuthFailed,
        `MCP server "${this.server}" refused the request for want of the scope ${JSON.stringify(challenge.scope ?? '')} (403 insufficient_scope), and re-authorizing with the scopes ${JSON.stringify(key)} was tried once already: the authorization server did not grant them to this client. Have them granted to the client (or its user), or leave out the tools that need them.`,
      );
      this.hooks.note(this.lastFailure.message);
      return false;
    }
    this.steppedUp.add(key);
    this.scope = union;
    this.hooks.note(
      `the server asked for the scope ${JSON.stringify(challenge.scope ?? '')} (403 insufficient_scope): re-authorizing once with ${JSON.stringify(key)}`,
    );
    try {
      await this.renew(generation, { ...challenge, scope: union }, isStrictScopeSuperset(union, tokens?.scope));
      return true;
    } catch (error) {
      const prefix = `MCP server "${this.server}": `;
      const reason = this.authError(error).message;
      this.lastFailure = new AnytoolError(
        ErrorCode.McpAuthFailed,
        `MCP server "${this.server}" refused the request for want of the scope ${JSON.stringify(challenge.scope ?? '')} (403 insufficient_scope), and re-authorizing with the scopes ${JSON.stringify(key)} failed: ${reason.startsWith(prefix) ? reason.slice(prefix.length) : reason}`,
        { cause: error },
      );
      return false;
    }
  }

  /** Runs the SDK's `auth()`; an interactive flow goes through the application's `authorize` and back. */
  private async authorize(challenge: Challenge, force: boolean): Promise<void> {
    const scope = computeScopeUnion(this.scope, challenge.scope);
    const options = {
      serverUrl: this.serverUrl,
      fetchFn: this.fetchFn,
      ...(scope === undefined ? {} : { scope }),
      ...(challenge.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
    };
    const result = await auth(this.provider, { ...options, forceReauthorization: force });
    if (result === 'AUTHORIZED') return;
    const authorizationUrl = this.provider.takeAuthorizationUrl();
    if (this.config.type !== 'authorization_code' || authorizationUrl === undefined) {
      throw new AnytoolError(
        ErrorCode.McpAuthFailed,
        `MCP server "${this.server}" needs a user to sign in, which the "client_credentials" configuration cannot do; use "authorization_code" with an authorize callback.`,
      );
    }
    let returned: string | URL;
    try {
      returned = await this.config.authorize(authorizationUrl, { server: this.server });
    } catch (error) {
      throw new AnytoolError(ErrorCode.McpAuthFailed, `MCP server "${this.server}": the sign-in did not complete: ${describeError(error)}`, { cause: error });
    }
    const back = callbackParams(returned);
    if (back.state !== undefined && back.state !== this.provider.stateSent) {
      throw new AnytoolError(
        ErrorCode.McpAuthFailed,
        `MCP server "${this.server}": the sign-in response carries another "state" than the authorization request sent; it was refused (a response of another sign-in, or a forged one). Sign in again.`,
      );
    }
    if (back.code === undefined) {
      const error = back.error === null ? 'it carries no "code"' : `the authorization server answered ${JSON.stringify(back.error.slice(0, 64))}`;
      throw new AnytoolError(
        ErrorCode.McpAuthFailed,
        `MCP server "${this.server}": the sign-in did not give an authorization code: ${error}. Sign in again, or check the client's registration (its redirect URL and scopes).`,
      );
    }
    const exchanged = await auth(this.provider, { ...options, authorizationCode: back.code, ...(back.iss === undefined ? {} : { iss: back.iss }) });
    if (exchanged !== 'AUTHORIZED')
      throw new AnytoolError(ErrorCode.McpAuthFailed, `MCP server "${this.server}": the authorization code was not exchanged for a token.`);
  }

  private isServer(url: string | URL): boolean {
    try {
      const target = new URL(String(url));
      return target.origin === this.serverUrl.origin && target.pathname === this.serverUrl.pathname;
    } catch {
      return false;
    }
  }

  /** An OAuth failure as an error that names the server, the step that failed and the fix. */
  authError(error: unknown): AnytoolError {
    if (isAnytoolError(error)) return error;
    const where = `MCP server "${this.server}"`;
    const text = describeError(error).slice(0, 500);
    const fail = (what: string): AnytoolError => new AnytoolError(ErrorCode.McpAuthFailed, `${where}: ${what}`, { cause: error });
    if (error instanceof IssuerMismatchError) {
      return error.kind === 'metadata'
        ? fail(
            `its authorization server's metadata names another issuer than the one it was discovered at (${text}); it was refused as a possible mix-up. Check the server's protected resource metadata ("authorization_servers").`,
          )
        : fail(
            `the sign-in response came from another issuer than the authorization server the sign-in was started with (${text}); it was refused as a possible mix-up attack. Sign in again.`,
          );
    }
    if (error instanceof AuthorizationServerMismatchError) {
      return fail(
        `it sends this client to another authorization server than the one its credentials belong to (${text}); nothing was sent there. Check "issuer" in its "auth" settings, or the server's protected resource metadata.`,
      );
    }
    if (error instanceof InsecureTokenEndpointError)
      return fail(`its authorization server's token endpoint is not HTTPS (${text}); credentials are not sent over plain HTTP except to this machine.`);
    if (error instanceof RegistrationRejectedError) {
      return fail(
        `its authorization server refused dynamic client registration (${text}). Register a client with it and set "clientId" (and "clientSecret"), or give "clientMetadataUrl".`,
      );
    }
    if (error instanceof OAuthError) {
      const fix =
        error.code === 'invalid_client' || error.code === 'unauthorized_client'
          ? 'check "clientId" and "clientSecret" (or the private key) of its "auth" settings'
          : error.code === 'invalid_grant'
            ? 'the grant or refresh token was refused (expired, revoked or already used); sign in again'
            : error.code === 'invalid_scope'
              ? 'ask only for scopes the authorization server grants this client ("scope" of its "auth" settings)'
              : 'check its "auth" settings and the authorization server';
      return fail(`its authorization server refused the request with "${error.code}" (${text}): ${fix}.`);
    }
    if (error instanceof UnauthorizedError) return fail(`authorization did not complete (${text}).`);
    if (error instanceof InsufficientScopeError) return fail(`it needs more scopes than this client was granted (${text}).`);
    return fail(`authorization failed: ${text}. Check its "auth" settings and that its authorization server is reachable.`);
  }
}

/** The error itself, or the one it wraps (an SDK error that carries its cause). */
function unwrapped(error: unknown): unknown[] {
  const out = [error];
  const cause =
    (error as { cause?: unknown; data?: { cause?: unknown } } | undefined)?.cause ?? (error as { data?: { cause?: unknown } } | undefined)?.data?.cause;
  if (cause !== undefined) out.push(cause);
  return out;
}

/**
 * A request refused for want of authorization, as `MCP_AUTH_FAILED` naming the server,
 * the request and the fix (`failure`: why the last OAuth renewal failed, when one did).
 * Undefined for an error that is not about authorization.
 */
export function authFailureOf(error: unknown, server: string, request: string, failure: AnytoolError | undefined): AnytoolError | undefined {
  for (const candidate of unwrapped(error)) {
    if (isAnytoolError(candidate)) {
      if (candidate.code === ErrorCode.McpAuthFailed) return candidate;
      continue;
    }
    const fail = (message: string): AnytoolError => failure ?? new AnytoolError(ErrorCode.McpAuthFailed, message, { cause: candidate });
    if (candidate instanceof InsufficientScopeError) {
      return fail(
        `MCP server "${server}" refused ${request}: it needs the scope ${JSON.stringify(candidate.requiredScope ?? '')} (403 insufficient_scope), which this client's token does not carry. Have the scope granted to the client (or its user) and add it to "scope" of the entry's "auth" settings.`,
      );
    }
    if (candidate instanceof UnauthorizedError) {
      return fail(
        `MCP server "${server}" requires authorization for ${request} (HTTP 401) and none was obtained: give its entry "auth" settings (client_credentials or authorization_code), or, with an OAuthClientProvider of your own, finish the sign-in it started and connect again.`,
      );
    }
    if (candidate instanceof SdkHttpError && candidate.code === SdkErrorCode.ClientHttpAuthentication) {
      return fail(
        `MCP server "${server}" refused ${request} with HTTP 401 even with a token just obtained: the token is not accepted there (issued for another resource or audience, or by an issuer the server does not trust). Check the server's protected resource metadata and the entry's "auth" settings.`,
      );
    }
  }
  return undefined;
}
