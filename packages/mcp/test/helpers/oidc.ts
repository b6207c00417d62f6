import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * A real OpenID provider for tests (the `oidc-provider` package, run as a child
 * process on 127.0.0.1 on a free port): JWT access tokens bound to the resource
 * a client names (RFC 8707), client credentials, authorization code + PKCE with
 * the login and consent steps completing by themselves, rotating refresh tokens.
 * Start two for two issuers.
 */

/** A client registered with the provider at start. */
export interface OidcClientConfig {
  clientId: string;
  /**
   * A confidential client's secret. With no `redirectUris` the client may use
   * client credentials only; with them, the code flow.
   */
  clientSecret?: string;
  /** The scopes this client may have. Default: all of the provider's `scopes`. */
  scopes?: string[];
  /**
   * Redirect URIs of a code-flow client. A client without a secret is public
   * (PKCE, no secret) and native: a loopback redirect URI matches on any port.
   */
  redirectUris?: string[];
  /** The lifetime of this client's access tokens, in seconds (short ones test expiry). */
  accessTokenTtlSeconds?: number;
}

export interface OidcProviderOptions {
  /** The scopes the provider knows (besides openid and offline_access); every resource accepts them. */
  scopes: string[];
  clients: OidcClientConfig[];
  /** Access token lifetime, in seconds, for clients that set none. Default 600. */
  accessTokenTtlSeconds?: number;
  /** Refresh token lifetime, in seconds. Default 3600. */
  refreshTokenTtlSeconds?: number;
  /** The account the login step logs in when the request names none. Default `user-1`. */
  account?: string;
  /** Accept dynamic client registration (RFC 7591) at the registration endpoint. Default false. */
  dynamicRegistration?: boolean;
}

/** A token endpoint's answer. */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  id_token?: string;
}

/** A token endpoint's refusal. */
export class OidcTokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(`token endpoint answered ${status} ${error}${description === undefined ? '' : `: ${description}`}`);
  }
}

export interface CodeFlowOptions {
  clientId: string;
  /** A confidential code-flow client's secret (public clients have none). */
  clientSecret?: string;
  redirectUri: string;
  /** The resource the token is for (the MCP server's URL). */
  resource: string;
  scopes: string[];
  /** The account that logs in. Default: the provider's `account`. */
  account?: string;
}

export interface OidcProvider {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  readonly authorizationEndpoint: string;
  /** The provider's discovery document (`/.well-known/openid-configuration`). */
  readonly metadata: Record<string, unknown>;
  /** A token for a confidential client by client credentials, bound to `resource`. */
  tokenByClientCredentials(options: { clientId: string; clientSecret: string; resource: string; scopes?: string[] }): Promise<TokenResponse>;
  /** An authorization URL with PKCE, and the verifier that redeems its code. */
  authorizationUrl(options: Omit<CodeFlowOptions, 'account' | 'clientSecret'> & { state?: string }): { url: URL; codeVerifier: string; state: string };
  /**
   * Plays the browser: opens an authorization URL (built here or by a client
   * under test), lets the login (as `account`) and consent steps complete, and
   * returns the URL the provider redirects to (the redirect URI with `code` and
   * `state`, or `error`).
   */
  authorize(url: string | URL, options?: { account?: string }): Promise<URL>;
  /** Redeems an authorization code. */
  exchangeCode(options: {
    clientId: string;
    clientSecret?: string | undefined;
    code: string;
    codeVerifier: string;
    redirectUri: string;
    resource?: string | undefined;
  }): Promise<TokenResponse>;
  /** The whole code flow: authorization URL, browser step, code exchange. */
  codeFlow(options: CodeFlowOptions): Promise<TokenResponse>;
  /** Uses a refresh token (each is good once: a new one comes back). */
  refresh(options: { clientId: string; clientSecret?: string | undefined; refreshToken: string; resource?: string | undefined }): Promise<TokenResponse>;
  /** Stops the provider process. */
  stop(): Promise<void>;
}

const SCRIPT = join(__dirname, '..', 'fixtures', 'oidc-provider.mjs');
const START_TIMEOUT_MS = 20_000;

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** Starts an OpenID provider and waits until it listens. */
export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProvider> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  let issuer: string;
  try {
    issuer = await readyLine(child, () => stderr);
  } catch (error) {
    child.kill();
    throw error;
  }
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    return provider(issuer, metadata, options, stop);
  } catch (error) {
    await stop();
    throw error;
  }
}

function readyLine(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(new Error(`the OpenID provider did not start within ${START_TIMEOUT_MS} ms; stderr: ${stderr()}`)), START_TIMEOUT_MS);
    function fail(error: Error): void {
      clearTimeout(timer);
      lines.close();
      reject(error);
    }
    child.once('exit', (code) => fail(new Error(`the OpenID provider exited with ${String(code)} before it started; stderr: ${stderr()}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      lines.close();
      try {
        resolve((JSON.parse(line) as { issuer: string }).issuer);
      } catch {
        reject(new Error(`the OpenID provider printed ${JSON.stringify(line)} instead of its issuer; stderr: ${stderr()}`));
      }
    });
  });
}

function provider(issuer: string, metadata: Record<string, unknown>, config: OidcProviderOptions, stop: () => Promise<void>): OidcProvider {
  const tokenEndpoint = metadata['token_endpoint'] as string;
  const authorizationEndpoint = metadata['authorization_endpoint'] as string;

  async function token(params: Record<string, string | undefined>, client: { clientId: string; clientSecret?: string | undefined }): Promise<TokenResponse> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) if (value !== undefined) body.set(key, value);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (client.clientSecret === undefined) body.set('client_id', client.clientId);
    else
      headers['authorization'] = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
    const response = await fetch(tokenEndpoint, { method: 'POST', headers, body });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new OidcTokenError(response.status, String(json['error']), json['error_description'] as string | undefined);
    return json as unknown as TokenResponse;
  }

  const api: OidcProvider = {
    issuer,
    jwksUri: metadata['jwks_uri'] as string,
    tokenEndpoint,
    authorizationEndpoint,
    metadata,
    tokenByClientCredentials({ clientId, clientSecret, resource, scopes }) {
      return token({ grant_type: 'client_credentials', resource, scope: scopes?.join(' ') }, { clientId, clientSecret });
    },
    authorizationUrl({ clientId, redirectUri, resource, scopes, state = base64url(randomBytes(12)) }) {
      const codeVerifier = base64url(randomBytes(32));
      const url = new URL(authorizationEndpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: scopes.join(' '),
        resource,
        state,
        code_challenge: base64url(createHash('sha256').update(codeVerifier).digest()),
        code_challenge_method: 'S256',
      }).toString();
      return { url, codeVerifier, state };
    },
    async authorize(url, options = {}) {
      const account = options.account ?? config.account;
      const jar = new Map<string, string>();
      let next = new URL(url);
      for (let hop = 0; hop < 12; hop++) {
        const headers: Record<string, string> = {};
        if (jar.size > 0) headers['cookie'] = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        if (account !== undefined) headers['x-test-account'] = account;
        const response = await fetch(next, { redirect: 'manual', headers });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair = '', ...attributes] = cookie.split(';');
          const at = pair.indexOf('=');
          const name = pair.slice(0, at).trim();
          const value = pair.slice(at + 1).trim();
          const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
          if (value === '' || expired) jar.delete(name);
          else jar.set(name, value);
        }
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || location === null) {
          throw new Error(`the authorization step stopped at ${next.pathname} with ${response.status}: ${(await response.text()).slice(0, 500)}`);
        }
        await response.body?.cancel();
        next = new URL(location, next);
        if (next.origin !== new URL(issuer).origin) return next;
      }
      throw new Error('the authorization step redirected more than 12 times');
    },
    exchangeCode({ clientId, clientSecret, code, codeVerifier, redirectUri, resource }) {
      return token({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri, resource }, { clientId, clientSecret });
    },
    async codeFlow(options) {
      const { url, codeVerifier, state } = api.authorizationUrl(options);
      const back = await api.authorize(url, options.account === undefined ? {} : { account: options.account });
      const code = back.searchParams.get('code');
      if (code === null || back.searchParams.get('state') !== state) throw new Error(`the authorization step came back without a code: ${back.toString()}`);
      return api.exchangeCode({
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        code,
        codeVerifier,
        redirectUri: options.redirectUri,
        resource: options.resource,
      });
    },
    refresh({ clientId, clientSecret, refreshToken, resource }) {
      return token({ grant_type: 'refresh_token', refresh_token: refreshToken, resource }, { clientId, clientSecret });
    },
    stop,
  };
  return api;
}
