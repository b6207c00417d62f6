import { describeError } from '@anytool/core/internal';
import { OAuthError, OAuthErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { insecureUrl, type JwtAuthOptions } from './auth.js';

// Loaded only when an endpoint verifies JWTs: jose is an ES module, which the CommonJS build of this package can
// require on Node 20.19+ (and 22.12+) only.

/** Verifies one access token; throws an `OAuthError` (invalid_token) for a token it refuses. */
export type JwtVerifier = (token: string) => Promise<AuthInfo>;

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const METADATA_TIMEOUT_MS = 10_000;

/** The well-known metadata URLs of an issuer: RFC 8414 (path inserted), then OpenID discovery (path appended). */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

/** The issuer's `jwks_uri`, from its metadata, which must name the same issuer (no mix-up). */
async function discoverJwksUri(issuer: string): Promise<string> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
      if (!response.ok) {
        problems.push(`${url}: HTTP ${response.status}`);
        continue;
      }
      const metadata = (await response.json()) as Record<string, unknown>;
      if (metadata['issuer'] !== issuer) throw new Error(`the metadata at ${url} is for issuer ${JSON.stringify(metadata['issuer'])}, not ${issuer}`);
      if (typeof metadata['jwks_uri'] !== 'string') throw new Error(`the metadata at ${url} has no jwks_uri`);
      const problem = insecureUrl(metadata['jwks_uri']);
      if (problem !== undefined) throw new Error(`the metadata at ${url} names a jwks_uri that ${problem}`);
      return metadata['jwks_uri'];
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('the metadata')) throw error;
      problems.push(`${url}: ${describeError(error)}`);
    }
  }
  throw new Error(`auth: could not find the keys of issuer ${issuer} (${problems.join('; ')}); set auth.jwt.jwksUri`);
}

function scopesOf(payload: JWTPayload): string[] {
  // RFC 9068 says `scope` (a space-separated string); some providers send `scp`, as a list or a string.
  const claim = payload['scope'] ?? payload['scp'];
  if (typeof claim === 'string') return claim.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === 'string');
  return [];
}

/** Why a token was refused, in words a client's developer can act on. */
function refusal(error: unknown, options: JwtAuthOptions, audiences: string[]): OAuthError | undefined {
  if (error instanceof errors.JWTExpired) return new OAuthError(OAuthErrorCode.InvalidToken, 'The token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return new OAuthError(OAuthErrorCode.InvalidToken, `The token is for another audience; this server accepts ${audiences.join(', ')}`);
    if (error.claim === 'iss') return new OAuthError(OAuthErrorCode.InvalidToken, `The token is from another issuer; this server accepts ${options.issuer}`);
    return new OAuthError(OAuthErrorCode.InvalidToken, `The token's ${error.claim} claim is not acceptable (${error.reason})`);
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JWSSignatureVerificationFailed) {
    return new OAuthError(OAuthErrorCode.InvalidToken, `The token is not signed by a key of ${options.issuer}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new OAuthError(OAuthErrorCode.InvalidToken, 'The token is signed with an algorithm this server does not accept');
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid || error instanceof errors.JOSENotSupported)
    return new OAuthError(OAuthErrorCode.InvalidToken, 'The token is not a valid JWT');
  return undefined;
}

/**
 * `jwtVerify` against the issuer's key set. A token without `kid` that several
 * keys could verify (during a key rotation) is tried against each of them, as
 * jose documents; none verifying it is a bad signature.
 */
async function verifyWithKeySet(token: string, keys: ReturnType<typeof createRemoteJWKSet>, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, keys, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const key of error) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** A verifier of JWT access tokens from one issuer, for the given audiences. Keys are fetched once and on rotation. */
export function createJwtVerifier(options: JwtAuthOptions, audiences: string[]): JwtVerifier {
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  let finding: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const keySet = (): Promise<ReturnType<typeof createRemoteJWKSet>> => {
    if (keys !== undefined) return Promise.resolve(keys);
    finding ??= (options.jwksUri === undefined ? discoverJwksUri(options.issuer) : Promise.resolve(options.jwksUri)).then(
      (uri) => (keys = createRemoteJWKSet(new URL(uri))),
      (error: unknown) => {
        // Tried again at the next request: the provider may be back.
        finding = undefined;
        throw error;
      },
    );
    return finding;
  };
  return async (token) => {
    // The issuer is checked before any key is looked up: a token of another provider says so, and costs no fetch.
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token is not a valid JWT');
    }
    if (iss !== options.issuer) throw new OAuthError(OAuthErrorCode.InvalidToken, `The token is from another issuer; this server accepts ${options.issuer}`);
    let payload: JWTPayload;
    const keys = await keySet();
    try {
      payload = await verifyWithKeySet(token, keys, {
        issuer: options.issuer,
        audience: audiences,
        algorithms: options.algorithms ?? ASYMMETRIC,
        requiredClaims: ['exp'],
        ...(options.clockToleranceSeconds === undefined ? {} : { clockTolerance: options.clockToleranceSeconds }),
      });
    } catch (error) {
      throw refusal(error, options, audiences) ?? error;
    }
    if (payload.sub !== undefined && typeof payload.sub !== 'string')
      throw new OAuthError(OAuthErrorCode.InvalidToken, "The token's sub claim is not a string");
    const clientId = typeof payload['client_id'] === 'string' ? payload['client_id'] : typeof payload['azp'] === 'string' ? payload['azp'] : undefined;
    // A token of a client acting for itself is that client's, under a name no user's sub can take.
    const subject = payload.sub ?? (clientId === undefined ? undefined : `client:${clientId}`);
    if (subject === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The token names no subject (sub) and no client (client_id)');
    return {
      token,
      clientId: clientId ?? subject,
      scopes: scopesOf(payload),
      expiresAt: payload.exp!,
      extra: { subject, issuer: options.issuer, clientId, claims: payload },
    };
  };
}
