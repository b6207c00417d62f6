/** Host names every loopback server accepts. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Whether a bind address is a loopback address. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A bind address as it appears in a Host header or URL (IPv6 in brackets). */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Whether a bind address is a wildcard (every interface). */
export function isWildcard(host: string): boolean {
  const own = urlHost(host).toLowerCase();
  return own === '0.0.0.0' || own === '[::]' || own === '';
}

/**
 * The host names accepted by default for a server bound to `bindHost`. A
 * loopback bind accepts the loopback names; any other bind accepts only its own
 * address (a wildcard bind none): `Host: localhost` reaching a server on the
 * network comes from a client that named it so, maybe to get past this check.
 */
export function defaultAllowedHosts(bindHost: string): string[] {
  const own = urlHost(bindHost).toLowerCase();
  if (isWildcard(bindHost)) return [];
  if (!isLoopback(bindHost)) return [own];
  return LOOPBACK_HOSTS.includes(own) ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, own];
}

function hostnameOf(value: string, withScheme: boolean): string | undefined {
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The DNS-rebinding check of one request: the Host header's host name must be
 * one of `allowedHosts`, and an Origin header, when present, must name one of
 * `allowedOrigins` (host names; `"*"` allows any). Returns the reason a request
 * is refused, or undefined when it passes. Ports are not compared.
 */
export function rebindingProblem(
  host: string | undefined,
  origin: string | undefined,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): string | undefined {
  if (host === undefined || host === '') return 'the request has no Host header';
  const hostname = hostnameOf(host, false);
  if (hostname === undefined || !allowedHosts.includes(hostname)) return `Host "${host}" is not allowed (allowed: ${allowedHosts.join(', ')})`;
  if (origin === undefined || allowedOrigins.includes('*')) return undefined;
  const originHost = origin === 'null' ? undefined : hostnameOf(origin, true);
  if (originHost === undefined || !allowedOrigins.includes(originHost)) return `Origin "${origin}" is not allowed (allowed: ${allowedOrigins.join(', ')})`;
  return undefined;
}
