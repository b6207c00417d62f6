import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AnytoolError, ErrorCode, type Toolset } from '@anytool/core';
import { toError } from '@anytool/core/internal';
import {
  OAuthError,
  OAuthErrorCode,
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  verifyBearerToken,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import type { JwtVerifier } from './jwt.js';
import type { McpAuth } from './mcp-auth.js';
import { isLoopback } from './host-check.js';

export { MCP_AUTH_KEY, mcpAuth, type McpAuth } from './mcp-auth.js';

/** A bearer token of a static list: the secret, who holds it and what it may do. */
export interface StaticToken {
  /** The secret the client sends as `Authorization: Bearer <token>`; at least 16 characters. */
  token: string;
  /** Who holds it (a tool sees it as `mcpAuth(context).subject`; legacy sessions are bound to it). */
  subject: string;
  /** The scopes it carries. Default none. */
  scopes?: string[];
  /** The client it was given to. Default: the subject. */
  clientId?: string;
}

/** Access tokens as JWTs from an identity provider, checked against the provider's keys (JWKS). */
export interface JwtAuthOptions {
  /** The provider's issuer identifier, exactly as its tokens' `iss` claim says it. */
  issuer: string;
  /** Where the provider publishes its keys. Default: the `jwks_uri` of its metadata (RFC 8414, else OpenID discovery). */
  jwksUri?: string;
  /** Audiences accepted in `aud`. Default: the resource (the endpoint's URL, or `auth.resource`). */
  audience?: string | string[];
  /** Signing algorithms accepted. Default: the asymmetric ones jose supports (never `none`). */
  algorithms?: string[];
  /** Clock skew allowed when checking `exp` and `nbf`, in seconds. Default 0. */
  clockToleranceSeconds?: number;
}

/**
 * Who may call a served HTTP endpoint: an OAuth 2.1 resource server. Requests
 * need `Authorization: Bearer <token>`; a missing or bad token gets 401 with a
 * `WWW-Authenticate` challenge pointing to the protected resource metadata
 * (RFC 9728), which this server publishes. Give `tokens`, `jwt`, or both.
 */
export interface McpAuthOptions {
  /** A fixed list of tokens, for simple setups (a few machines, a shared secret per client). */
  tokens?: StaticToken[];
  /** JWT access tokens from an identity provider. */
  jwt?: JwtAuthOptions;
  /**
   * The resource identifier of this endpoint (RFC 8707): the URL clients reach it
   * at, which JWTs must name as their audience. Default: the endpoint's own URL
   * (`http://127.0.0.1:3000/mcp`); set it behind a proxy or on a wildcard bind.
   */
  resource?: string;
  /** Scopes every request needs, whatever the tool. Default none. */
  requiredScopes?: string[];
  /** A name for the resource in its metadata (`resource_name`). */
  resourceName?: string;
}

/** The caller described by verified auth info (ours carries subject, issuer and claims in `extra`). */
export function authOf(info: AuthInfo): McpAuth {
  const extra = info.extra ?? {};
  const subject = typeof extra['subject'] === 'string' ? extra['subject'] : info.clientId;
  const claims = typeof extra['claims'] === 'object' && extra['claims'] !== null ? (extra['claims'] as Record<string, unknown>) : {};
  return Object.freeze({
    subject,
    clientId: 'clientId' in extra ? (typeof extra['clientId'] === 'string' ? extra['clientId'] : undefined) : info.clientId,
    issuer: typeof extra['issuer'] === 'string' ? extra['issuer'] : undefined,
    scopes: Object.freeze([...info.scopes]),
    claims: Object.freeze({ ...claims }),
  });
}

/** Who a caller is, as one string: the same person through two issuers is two principals. */
export function principalOf(info: AuthInfo): string {
  const auth = authOf(info);
  return `${auth.issuer ?? 'static'}\n${auth.subject}`;
}

/** The scopes of `needed` the caller does not hold. */
export function missingScopes(needed: readonly string[] | undefined, held: readonly string[]): string[] {
  if (needed === undefined || needed.length === 0) return [];
  return needed.filter((scope) => !held.includes(scope));
}

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MIN_STATIC_TOKEN_LENGTH = 16;

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * Why `value` cannot be where signing keys come from, or undefined: it must be
 * an https URL (keys and issuer metadata fetched in clear could be swapped on
 * the way), except on a loopback host.
 */
export function insecureUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return 'must use https (http only on a loopback host)';
}

function optionsError(problem: string): AnytoolError {
  return new AnytoolError(ErrorCode.InvalidOptions, `serveMcp(): auth: ${problem}`);
}

function checkScopes(scopes: readonly unknown[] | undefined, where: string): void {
  const bad = scopes?.find((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope));
  if (bad !== undefined)
    throw optionsError(`${where} must be OAuth scope names (printable characters, no spaces, quotes or backslashes), got ${JSON.stringify(bad)}`);
}

/**
 * The resource-server half of a served endpoint: verifies bearer tokens, builds
 * the 401 / 403 challenges and the protected resource metadata document.
 */
export class ResourceServer {
  /** The resource identifier, as given (or the endpoint's URL): what metadata and JWT audiences name. */
  readonly resource: string;
  /** Where the metadata document is (the path-suffixed RFC 9728 location, as challenges name it). */
  readonly metadataUrl: string;
  readonly requiredScopes: string[];
  private readonly resourceUrl: URL;
  /** A short line for logs: how callers are authenticated. */
  readonly mode: string;
  private readonly staticTokens = new Map<string, StaticToken>();
  private readonly jwt: JwtAuthOptions | undefined;
  private jwtVerifier: Promise<JwtVerifier> | undefined;

  constructor(
    private readonly options: McpAuthOptions,
    endpoint: string,
    private readonly toolset: Toolset,
    private readonly onError: ((error: Error) => void) | undefined,
  ) {
    if (options.tokens === undefined && options.jwt === undefined) throw optionsError('give tokens (a static list), jwt (an identity provider), or both');
    this.resource = options.resource ?? endpoint;
    let url: URL;
    try {
      url = new URL(this.resource);
    } catch {
      throw optionsError(`resource must be an absolute URL (the endpoint as clients reach it), got ${JSON.stringify(options.resource)}`);
    }
    if (url.hash !== '') throw optionsError(`resource must have no fragment (RFC 8707), got ${JSON.stringify(this.resource)}`);
    this.resourceUrl = url;
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(url);
    checkScopes(options.requiredScopes, 'requiredScopes');
    this.requiredScopes = [...(options.requiredScopes ?? [])];
    for (const [i, entry] of (options.tokens ?? []).entries()) {
      if (typeof entry.token !== 'string' || entry.token.length < MIN_STATIC_TOKEN_LENGTH) {
        throw optionsError(
          `tokens[${i}].token must be a secret of at least ${MIN_STATIC_TOKEN_LENGTH} characters (make one with: node -e "console.log(crypto.randomBytes(32).toString('base64url'))")`,
        );
      }
      if (typeof entry.subject !== 'string' || entry.subject === '') throw optionsError(`tokens[${i}].subject must name who holds the token`);
      checkScopes(entry.scopes, `tokens[${i}].scopes`);
      const key = digest(entry.token);
      if (this.staticTokens.has(key)) throw optionsError(`tokens[${i}] repeats the token of an earlier entry; give each holder its own`);
      this.staticTokens.set(key, entry);
    }
    this.jwt = options.jwt;
    if (this.jwt !== undefined) {
      const issuerProblem = insecureUrl(this.jwt.issuer);
      if (issuerProblem !== undefined)
        throw optionsError(`jwt.issuer must be the identity provider's issuer URL: ${JSON.stringify(this.jwt.issuer)} ${issuerProblem}`);
      const keysProblem = this.jwt.jwksUri === undefined ? undefined : insecureUrl(this.jwt.jwksUri);
      if (keysProblem !== undefined) throw optionsError(`jwt.jwksUri must be the URL of the issuer's keys: ${JSON.stringify(this.jwt.jwksUri)} ${keysProblem}`);
    }
    const modes = [];
    if (this.staticTokens.size > 0) modes.push(`${this.staticTokens.size} static token${this.staticTokens.size === 1 ? '' : 's'}`);
    if (this.jwt !== undefined) modes.push(`JWT from ${this.jwt.issuer}`);
    this.mode = `${modes.join(' and ')}, resource ${this.resource}`;
  }

  /** The caller's verified auth info, or the 401 (or 500) response to send. */
  async authenticate(req: IncomingMessage): Promise<AuthInfo | Response> {
    const header = req.headers.authorization;
    const options = {
      verifier: { verifyAccessToken: (token: string) => this.verify(token) },
      requiredScopes: this.requiredScopes,
      resourceMetadataUrl: this.metadataUrl,
    };
    try {
      return await verifyBearerToken(header, options);
    } catch (error) {
      if (!(error instanceof OAuthError)) this.onError?.(toError(error));
      return bearerAuthChallengeResponse(error, options);
    }
  }

  /** The 403 `insufficient_scope` challenge for a tool call: the scopes that call needs (RFC 6750 3.1; clients add them to what they hold). */
  insufficientScope(tool: string, needed: readonly string[]): Response {
    const scopes = [...new Set([...this.requiredScopes, ...needed])];
    const error = new OAuthError(OAuthErrorCode.InsufficientScope, `Tool "${tool}" needs the scope${needed.length === 1 ? '' : 's'} ${needed.join(' ')}`);
    return bearerAuthChallengeResponse(error, { requiredScopes: scopes, resourceMetadataUrl: this.metadataUrl });
  }

  /**
   * The protected resource metadata document (RFC 9728), for a GET of its
   * well-known path: the path-suffixed form for this endpoint, and the plain
   * one a client tries first for a resource without a path.
   */
  metadataResponse(method: string, pathname: string): Response | undefined {
    const suffixed = new URL(this.metadataUrl).pathname;
    if (pathname !== suffixed && pathname !== '/.well-known/oauth-protected-resource') return undefined;
    const cors = { 'access-control-allow-origin': '*' };
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...cors, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' } });
    if (method !== 'GET' && method !== 'HEAD')
      return Response.json(
        { error: 'method_not_allowed', error_description: `${method} is not allowed here` },
        { status: 405, headers: { ...cors, allow: 'GET, HEAD, OPTIONS' } },
      );
    const scopes = new Set(this.requiredScopes);
    for (const tool of this.toolset.tools) for (const scope of tool.scopes ?? []) scopes.add(scope);
    const document: Record<string, unknown> = { resource: this.resource, bearer_methods_supported: ['header'], scopes_supported: [...scopes] };
    if (this.jwt !== undefined) document['authorization_servers'] = [this.jwt.issuer];
    if (this.options.resourceName !== undefined) document['resource_name'] = this.options.resourceName;
    return Response.json(document, { headers: cors });
  }

  private async verify(token: string): Promise<AuthInfo> {
    const entry = this.staticTokens.get(digest(token));
    if (entry !== undefined) {
      return {
        token,
        clientId: entry.clientId ?? entry.subject,
        scopes: [...(entry.scopes ?? [])],
        // A static token does not expire; the SDK's check wants a time, so it is good for the next hour.
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        resource: this.resourceUrl,
        extra: { subject: entry.subject, clientId: entry.clientId ?? entry.subject },
      };
    }
    if (this.jwt === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token');
    if (!looksLikeJwt(token)) throw new OAuthError(OAuthErrorCode.InvalidToken, this.staticTokens.size > 0 ? 'Unknown token' : 'The token is not a JWT');
    this.jwtVerifier ??= import('./jwt.js').then(({ createJwtVerifier }) => createJwtVerifier(this.jwt!, this.audiences()));
    let verifier: JwtVerifier;
    try {
      verifier = await this.jwtVerifier;
    } catch (error) {
      this.jwtVerifier = undefined;
      throw error;
    }
    return { ...(await verifier(token)), resource: this.resourceUrl };
  }

  private audiences(): string[] {
    const given = this.jwt?.audience;
    if (given === undefined) return [this.resource];
    return Array.isArray(given) ? given : [given];
  }
}

function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
