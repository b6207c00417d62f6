import type { Config } from 'jest';
import config from './jest.config';

// `npm run test:unit`: the fast subset. Every project of jest.config.ts but the
// end-to-end and consumer ones, without the tests that start child processes (the built
// packages imported from Node, `anytool build`, tspc) or MCP servers (the
// servers from npm, fixture servers, `serveMcp` over stdio or HTTP). What is
// left starts no process of its own: the tools, decorators, schemas, provider formats,
// the agent loop and the model adapters against a local HTTP server.
const slow = [
  '/test/e2e/',
  '/packages/[^/]+/test/package-smoke\\.test\\.ts$',
  '/packages/core/test/(brands|build-info)\\.test\\.ts$',
  '/packages/schema/test/(cli/build-command|schema/class-validator|index|ways-in|cli/main|transformer/kept-decorators|typescript\\.versions)\\.test\\.ts$',
  '/packages/mcp/test/client/',
  '/packages/mcp/test/server/(conformance|gateway|serve-command|serve-http|serve-stdio|hostile-[a-z]+|eras|inspector|tasks|shared-store|scale-out)\\.test\\.ts$',
  // OAuth and bearer tokens against an identity provider and served endpoints.
  '/packages/mcp/test/server/(auth|auth\\.gateway|jwt|serve-command\\.auth|session-event-store)\\.test\\.ts$',
  '/packages/mcp/test/helpers/oidc\\.test\\.ts$',
  // redis-server, and the served module in child processes.
  '/packages/mcp/test/store/(store|redis-outage)\\.test\\.ts$',
  '/packages/agent/test/redis-run-store\\.test\\.ts$',
  '/packages/mcp/test/telemetry/trace-across\\.test\\.ts$',
  '/packages/mcp/test/interop/',
  // The version in the handshake, over a served HTTP endpoint.
  '/packages/mcp/test/version\\.test\\.ts$',
];

type Project = NonNullable<Config['projects']>[number] & object & { displayName?: unknown; testPathIgnorePatterns?: string[] };

const unit: Config = {
  ...config,
  projects: (config.projects as Project[])
    .filter((project) => project.displayName !== 'e2e' && project.displayName !== 'consumer')
    .map((project) => ({ ...project, testPathIgnorePatterns: [...(project.testPathIgnorePatterns ?? ['/node_modules/']), ...slow] })),
};

export default unit;
