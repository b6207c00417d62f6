import { AnytoolError, ErrorCode, isAnytoolError } from '@anytool/core';
import { describeError } from '@anytool/core/internal';
import type { McpProtocol } from './era.js';
import type { McpOAuthConfig } from './auth/oauth.js';

/** Settings anytool reads on top of the desktop `mcpServers` shape; desktop clients ignore them. */
export interface McpServerTuning {
  /** Per-request timeout in milliseconds for this server's tools (restarted by progress, when progress is asked for). */
  timeoutMs?: number;
  /** Per-tool timeouts in milliseconds, by the server's own tool name. */
  toolTimeouts?: Record<string, number>;
  /** Ask this server for progress notifications on every call (overrides the toolset's `progress` option). */
  progress?: boolean;
  /**
   * The run's `context.state` keys sent to this server with every call, in the
   * request's `params._meta` under `"dev.anytool/context"` (`{ key: value }`, set
   * keys only). Nothing of the run's state is sent otherwise. Overrides the
   * toolset's `contextMeta` option.
   */
  contextMeta?: string[];
  /** How long the server may take to start and answer `initialize`. */
  startTimeoutMs?: number;
  /** A cap on the whole life of a call this server turned into a task (default: none; see `taskTimeoutMs` of the client options). */
  taskTimeoutMs?: number;
  /** The largest message read from this server, in bytes (default 10 MiB): a result over it fails that call with `RESULT_TOO_LARGE`. */
  maxResultBytes?: number;
  /** The most tools this server may list (default 1 000; see `maxTools` of the client options). */
  maxTools?: number;
  /** The most JSON this server's whole `tools/list` may be, in bytes (default 16 MiB; see the client options). */
  maxToolListBytes?: number;
  /** How long a call's arguments may take to validate against a costly schema of this server, off the event loop (default 500; see the client options). */
  validationTimeoutMs?: number;
  /**
   * Which MCP protocol era to speak to this server: `"auto"` (the default) asks with `server/discover` whether it
   * speaks the 2026-07-28 revision and falls back to the 2025 `initialize`; `"legacy"` skips the probe (2025 only);
   * `"modern"` speaks 2026-07-28 and fails loudly on a server that does not.
   */
  protocol?: McpProtocol;
  /** Believe this server's tool annotations (`readOnlyHint`, `destructiveHint`) when deciding approval; see `McpToolsetOptions.trusted`. */
  trusted?: boolean;
  /** Skip this server (the desktop clients' switch). */
  disabled?: boolean;
}

/** A server started as a child process and spoken to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpServerTuning {
  type?: 'stdio';
  command: string;
  args?: string[];
  /** Added to the safe default environment (PATH, HOME, USER, ...); it never replaces it. */
  env?: Record<string, string>;
  cwd?: string;
  /** Pass the parent's whole environment (under `env`) instead of only the safe defaults. */
  inheritEnv?: boolean;
  /**
   * Put the last lines of the server's stderr into the error result a model reads when the
   * server dies during a call (default false: they go to the developer only, in the result's
   * `error.message` and the connection's `diagnostics`, as a server may log secrets there).
   * Overrides the `stderrToModel` option.
   */
  stderrToModel?: boolean;
}

/** A server reached over HTTP: streamable HTTP, falling back to the old HTTP+SSE transport when the server is that old. */
export interface McpHttpServerConfig extends McpServerTuning {
  /** `"sse"` goes straight to the old HTTP+SSE transport; anything else tries streamable HTTP first. */
  type?: 'http' | 'streamable-http' | 'streamableHttp' | 'sse';
  url: string;
  headers?: Record<string, string>;
  /**
   * OAuth for a server that requires it: `client_credentials` for a machine, `authorization_code`
   * (PKCE) for a user who signs in, or `provider` for an SDK `OAuthClientProvider` of your own.
   * See "Connecting to OAuth-protected servers" in docs/mcp-client.md.
   */
  auth?: McpOAuthConfig;
}

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** The JSON that desktop MCP clients use: `{ "mcpServers": { "<name>": { "command": ... } } }`. */
export interface McpServersConfig {
  mcpServers: Record<string, McpServerConfig>;
}

export function isHttpConfig(config: McpServerConfig): config is McpHttpServerConfig {
  return 'url' in config && typeof config.url === 'string';
}

const STRING_MAP_KEYS = ['env', 'headers', 'toolTimeouts'] as const;

function fail(where: string, problem: string): never {
  throw new AnytoolError(ErrorCode.InvalidMcpConfig, `${where}: ${problem}`);
}

function checkOne(name: string, value: unknown): McpServerConfig {
  const where = `MCP server "${name}"`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(
      where,
      `its configuration must be an object such as { "command": "npx", "args": [...] } or { "url": "https://..." } (got ${Array.isArray(value) ? 'an array' : typeof value})`,
    );
  const config = value as Record<string, unknown>;
  const hasCommand = config['command'] !== undefined;
  const hasUrl = config['url'] !== undefined;
  if (hasCommand === hasUrl) fail(where, 'give exactly one of "command" (a server started as a child process) or "url" (a server reached over HTTP)');
  if (hasCommand) {
    if (typeof config['command'] !== 'string' || config['command'].trim() === '') fail(where, '"command" must be a non-empty string');
    if (config['args'] !== undefined && (!Array.isArray(config['args']) || config['args'].some((a) => typeof a !== 'string')))
      fail(where, '"args" must be an array of strings');
    if (config['cwd'] !== undefined && typeof config['cwd'] !== 'string') fail(where, '"cwd" must be a string');
  } else {
    if (typeof config['url'] !== 'string') fail(where, '"url" must be a string');
    try {
      const url = new URL(config['url']);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(where, `"url" must be an http or https URL (got ${JSON.stringify(config['url'])})`);
    } catch (error) {
      if (isAnytoolError(error)) throw error;
      fail(where, `"url" is not a valid URL (got ${JSON.stringify(config['url'])})`);
    }
  }
  if (config['auth'] !== undefined) checkAuth(where, config['auth'], hasUrl, config['headers']);
  for (const key of STRING_MAP_KEYS) {
    const map = config[key];
    if (map === undefined) continue;
    const expected = key === 'toolTimeouts' ? 'number' : 'string';
    if (typeof map !== 'object' || map === null || Array.isArray(map) || Object.values(map).some((v) => typeof v !== expected))
      fail(where, `"${key}" must be an object of ${expected} values`);
  }
  const contextMeta = config['contextMeta'];
  if (contextMeta !== undefined && (!Array.isArray(contextMeta) || contextMeta.some((k) => typeof k !== 'string')))
    fail(where, `"contextMeta" must be an array of state keys (strings) (got ${JSON.stringify(contextMeta)})`);
  for (const key of ['progress', 'disabled', 'inheritEnv', 'trusted', 'stderrToModel'] as const) {
    if (config[key] !== undefined && typeof config[key] !== 'boolean') fail(where, `"${key}" must be true or false (got ${JSON.stringify(config[key])})`);
  }
  for (const key of ['timeoutMs', 'startTimeoutMs', 'taskTimeoutMs'] as const) {
    const ms = config[key];
    if (ms !== undefined && (typeof ms !== 'number' || !(ms > 0))) fail(where, `"${key}" must be a positive number of milliseconds`);
  }
  const validationMs = config['validationTimeoutMs'];
  if (validationMs !== undefined && (typeof validationMs !== 'number' || !(validationMs > 0) || validationMs > 2_147_483_647))
    fail(where, `"validationTimeoutMs" must be a positive number of milliseconds up to 2147483647 (got ${JSON.stringify(validationMs)})`);
  const protocol = config['protocol'];
  if (protocol !== undefined && protocol !== 'auto' && protocol !== 'legacy' && protocol !== 'modern')
    fail(where, `"protocol" must be "auto", "legacy" or "modern" (got ${JSON.stringify(protocol)})`);
  for (const key of ['maxResultBytes', 'maxTools', 'maxToolListBytes'] as const) {
    const max = config[key];
    if (max !== undefined && (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0))
      fail(where, `"${key}" must be ${key === 'maxTools' ? 'a positive whole number' : 'a positive whole number of bytes'} (got ${JSON.stringify(max)})`);
  }
  return config as unknown as McpServerConfig;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * A client secret or private key is sent only to the authorization server it
 * belongs to, named ahead: bound to whatever issuer a server's metadata names
 * first, it could be sent to a server of anyone's choosing.
 */
function needIssuer(where: string, auth: Record<string, unknown>): void {
  if (!isText(auth['issuer']))
    fail(
      where,
      '"auth.issuer" is needed with a client secret or private key: the issuer URL of the authorization server the credentials belong to (they are sent nowhere else)',
    );
}

/** The `auth` of an entry: one of the three kinds, with what it needs. */
function checkAuth(where: string, value: unknown, hasUrl: boolean, headers: unknown): void {
  if (!hasUrl) fail(where, '"auth" (OAuth) applies to a server reached over HTTP ("url"), not to a command');
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(where, '"auth" must be an object such as { "type": "client_credentials", "clientId": "...", "clientSecret": "..." }');
  const auth = value as Record<string, unknown>;
  if (headers !== undefined && typeof headers === 'object' && headers !== null && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    fail(where, 'give either "auth" (OAuth) or an "Authorization" header, not both');
  }
  for (const key of ['scope', 'storeKey', 'issuer'] as const) {
    if (auth[key] !== undefined && typeof auth[key] !== 'string') fail(where, `"auth.${key}" must be a string`);
  }
  const store = auth['store'] as Record<string, unknown> | undefined;
  if (
    store !== undefined &&
    (typeof store !== 'object' ||
      store === null ||
      typeof store['get'] !== 'function' ||
      typeof store['set'] !== 'function' ||
      typeof store['clear'] !== 'function')
  ) {
    fail(where, '"auth.store" must be a token store (an object with get, set and clear), such as new FileTokenStore(path)');
  }
  switch (auth['type']) {
    case 'client_credentials':
      if (!isText(auth['clientId'])) fail(where, '"auth.clientId" is needed for "client_credentials"');
      if (!isText(auth['clientSecret']) && auth['privateKey'] === undefined) fail(where, '"client_credentials" needs "auth.clientSecret" or "auth.privateKey"');
      needIssuer(where, auth);
      return;
    case 'authorization_code':
      if (!isText(auth['redirectUrl']))
        fail(where, '"auth.redirectUrl" is needed for "authorization_code" (startLoopbackRedirect() gives one for a command-line program)');
      if (typeof auth['authorize'] !== 'function')
        fail(where, '"auth.authorize" must be a function that shows the user the authorization URL and returns the URL the browser came back to');
      if (auth['clientMetadataUrl'] !== undefined) {
        const url = auth['clientMetadataUrl'];
        if (typeof url !== 'string' || !/^https:\/\/[^/]+\/./.test(url))
          fail(where, `"auth.clientMetadataUrl" must be an https URL with a path (got ${JSON.stringify(url)})`);
      }
      for (const key of ['clientId', 'clientSecret', 'clientName'] as const)
        if (auth[key] !== undefined && !isText(auth[key])) fail(where, `"auth.${key}" must be a non-empty string`);
      if (auth['clientSecret'] !== undefined || auth['privateKey'] !== undefined) needIssuer(where, auth);
      return;
    case 'provider':
      if (typeof auth['provider'] !== 'object' || auth['provider'] === null)
        fail(where, '"auth.provider" must be an OAuthClientProvider (or AuthProvider) of the MCP SDK');
      return;
    default:
      fail(where, `"auth.type" must be "client_credentials", "authorization_code" or "provider" (got ${JSON.stringify(auth['type'])})`);
  }
}

/**
 * Reads the desktop `mcpServers` shape (as an object or its JSON text), or a bare
 * map of server name to configuration, and checks every entry. Bad input throws
 * `INVALID_MCP_CONFIG` naming the server and the field.
 */
export function readMcpServers(input: McpServersConfig | Record<string, McpServerConfig> | string): Map<string, McpServerConfig> {
  let value: unknown = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      fail('MCP configuration', `the text is not valid JSON (${describeError(error)}); paste the { "mcpServers": { ... } } object`);
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('MCP configuration', 'expected { "mcpServers": { "<name>": { ... } } }');
  const servers = 'mcpServers' in value ? (value as { mcpServers: unknown }).mcpServers : value;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    fail('MCP configuration', '"mcpServers" must be an object of server name to configuration');
  const out = new Map<string, McpServerConfig>();
  for (const [name, config] of Object.entries(servers)) {
    if (name.trim() === '') fail('MCP configuration', 'a server name is empty');
    const checked = checkOne(name, config);
    if (checked.disabled === true) continue;
    out.set(name, checked);
  }
  return out;
}
