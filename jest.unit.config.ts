import type { Config } from 'jest';
import config from './jest.config';

// `npm run test:unit`: the fast subset. Every project of jest.config.ts but the
// end-to-end and consumer ones, without the tests that start builds (`anytool build`,
// tspc, the built packages imported from Node), MCP servers in processes of their own
// (the servers from npm, fixture servers, `anytool serve`) or redis-server. What is
// left runs in the test's own process: the tools, decorators, schemas, provider
// formats, the agent loop, the model adapters and served endpoints on a local HTTP
// server; and a few tests start Node for a moment (what a module loads: on-first-use,
// index.side-effects, lazy-server; a run paused in one process and resumed in another:
// agent.pause-resume.process).
const slow = [
  '/test/e2e/',
  '/packages/[^/]+/test/package-smoke\\.test\\.ts$',
  '/packages/core/test/(brands|build-info)\\.test\\.ts$',
  '/packages/schema/test/(cli/build-command|cli/build-record|compile/file-compiler|schema/class-validator|index|ways-in|cli/main|transformer/kept-decorators|typescript\\.versions)\\.test\\.ts$',
  // The agent package built, then run in Node.
  '/packages/agent/test/run-outputs\\.test\\.ts$',
  '/packages/mcp/test/cli/main\\.test\\.ts$',
  '/packages/mcp/test/client/',
  '/packages/mcp/test/server/(conformance|gateway|serve-command|serve-http|serve-stdio|hostile-[a-z]+|eras|inspector|tasks|shared-store|scale-out)\\.test\\.ts$',
  // OAuth and bearer tokens against an identity provider and served endpoints.
  '/packages/mcp/test/server/(auth|auth\\.gateway|jwt|serve-command\\.auth|session-event-store)\\.test\\.ts$',
  '/packages/mcp/test/helpers/oidc\\.test\\.ts$',
  // redis-server, and the served module in child processes.
  '/packages/mcp/test/store/(store|redis-outage)\\.test\\.ts$',
  '/packages/mcp/test/server/(task-queue|task-queue-limits|task-answer|rolling-restart)\\.test\\.ts$',
  '/packages/agent/test/(redis-run-store|agent\\.run-store)\\.test\\.ts$',
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
