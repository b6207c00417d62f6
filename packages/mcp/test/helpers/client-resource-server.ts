// A small OAuth-protected MCP server for the client auth tests, on the v2 SDK: createMcpHandler behind
// requireBearerAuth, JWT access tokens verified with jose against an OpenID provider's keys (issuer and audience
// checked), protected resource metadata at /.well-known/oauth-protected-resource/mcp. A tool may need a scope the
// endpoint does not: calling it without that scope is answered 403 insufficient_scope at the HTTP layer (the
// challenge names the scope), which is what starts a client's step-up.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OAuthError,
  OAuthErrorCode,
  Server,
  createMcpHandler,
  oauthMetadataResponse,
  requireBearerAuth,
  type AuthInfo,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { OidcProvider } from './oidc';

export interface ResourceServerOptions {
  /** The provider whose tokens are accepted. */
  issuer: OidcProvider;
  /** Scopes every request needs. */
  requiredScopes?: string[];
  /** Scopes a tool needs besides, by tool name. */
  toolScopes?: Record<string, string[]>;
  /** The authorization server its protected resource metadata names (default: the provider's issuer; `self`: this server's origin). */
  authorizationServer?: string;
}

export interface ResourceServer {
  url: string;
  /** Requests that reached /mcp, with the status they were answered. */
  requests: Array<{ method: string | undefined; status: number }>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) res.write(read.value);
  }
  res.end();
}

function toolServer(): Server {
  const server = new Server({ name: 'protected', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [
      { name: 'whoami', description: 'Says who called, with which scopes.', inputSchema: { type: 'object', properties: {} } },
      { name: 'write', description: 'Needs the write scope.', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler('tools/call', (request, ctx) => {
    const caller = ctx.http?.authInfo;
    const text = request.params.name === 'write' ? 'written' : `${caller?.clientId ?? 'nobody'} [${(caller?.scopes ?? []).join(' ')}]`;
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

export async function startResourceServer(options: ResourceServerOptions): Promise<ResourceServer> {
  const { issuer } = options;
  const jwks = createRemoteJWKSet(new URL(issuer.jwksUri));
  const requests: ResourceServer['requests'] = [];
  const handler = createMcpHandler(() => toolServer());
  let url = '';
  const resourceMetadataUrl = (): string => `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;

  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, jwks, { issuer: issuer.issuer, audience: url });
        return {
          token,
          clientId: String(payload['client_id'] ?? payload.sub),
          scopes: String(payload['scope'] ?? '')
            .split(' ')
            .filter(Boolean),
          expiresAt: payload.exp!,
        };
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, `token refused: ${(error as Error).message}`);
      }
    },
  };

  async function handle(request: Request): Promise<Response> {
    if (options.authorizationServer !== undefined && new URL(request.url).pathname === '/.well-known/oauth-protected-resource/mcp') {
      return Response.json({
        resource: url,
        authorization_servers: [options.authorizationServer === 'self' ? new URL(url).origin : options.authorizationServer],
      });
    }
    const metadata = oauthMetadataResponse(request, { oauthMetadata: issuer.metadata as unknown as OAuthMetadata, resourceServerUrl: new URL(url) });
    if (metadata !== undefined) return metadata;
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    const body = request.method === 'POST' ? ((await request.clone().json()) as { method?: string; params?: { name?: string } }) : undefined;
    const gate = await requireBearerAuth({ verifier, requiredScopes: options.requiredScopes ?? [], resourceMetadataUrl: resourceMetadataUrl() })(request);
    const answer = async (): Promise<Response> => {
      if (gate instanceof Response) return gate;
      const needed = body?.method === 'tools/call' ? (options.toolScopes?.[body.params?.name ?? ''] ?? []) : [];
      const missing = needed.filter((scope) => !gate.scopes.includes(scope));
      if (missing.length > 0) {
        return new Response(JSON.stringify({ error: 'insufficient_scope' }), {
          status: 403,
          headers: {
            'content-type': 'application/json',
            'www-authenticate': `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${resourceMetadataUrl()}"`,
          },
        });
      }
      return handler.fetch(request, { authInfo: gate });
    };
    const response = await answer();
    requests.push({ method: body?.method, status: response.status });
    return response;
  }

  const http = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      });
      await send(res, await handle(request));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
