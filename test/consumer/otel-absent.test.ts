// @opentelemetry/api is an optional peer of core, mcp and agent: a project that does not install it gets none, and a
// tool call, an MCP call and an agent run work with tracing on (nothing to trace without the API), the W3C trace context
// a caller sends still reaching the tools; a tracer provider given explicitly is refused with the `npm i` to run. Then
// the API and an SDK are installed into the same project, and the same program records its spans.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createProject, lastJson, npm, ok, packed, removeScratch, run, scratch } from './project';

jest.setTimeout(300_000);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const REFUSAL =
  /^MISSING_DEPENDENCY: .+ needs the @opentelemetry\/api package, which is not installed; install it next to @anytool\/core: npm i @opentelemetry\/api$/;

let base: string | undefined;
let project = '';

beforeAll(async () => {
  base = scratch();
  const tarballs = await packed(join(base, 'packs'));
  project = await createProject(base, {
    name: 'otel-absent-app',
    type: 'module',
    fixtures: ['otel-absent'],
    dependencies: [tarballs['@anytool/core']!, tarballs['@anytool/mcp']!, tarballs['@anytool/agent']!, '@modelcontextprotocol/server@^2.4.0'],
    devDependencies: [],
  });
}, 600_000);

afterAll(() => removeScratch(base));

test('without @opentelemetry/api, a tool call, an MCP call and an agent run work, and the caller’s trace reaches the tools', async () => {
  expect(existsSync(join(project, 'node_modules', '@opentelemetry', 'api'))).toBe(false);
  const out = lastJson(ok(await run(process.execPath, ['src/main.js'], project), 'node src/main.js').stdout);
  expect(out).toEqual({
    api: 'absent',
    toolCall: '5',
    carrier: { traceparent: TRACEPARENT, tracestate: 'vendor=abc' },
    mcpTrace: TRACE_ID,
    agent: { text: 'done', trace: TRACE_ID },
    refused: { tracing: expect.stringMatching(REFUSAL), agent: expect.stringMatching(REFUSAL), server: expect.stringMatching(REFUSAL) },
  });
});

test('without @opentelemetry/api, the CommonJS build makes a traced call and reads and writes the trace context', async () => {
  const ran = ok(await run(process.execPath, ['src/require.cjs'], project), 'node src/require.cjs');
  expect(JSON.parse(ran.stdout.trim())).toEqual({ toolCall: '9', carrier: { traceparent: TRACEPARENT } });
});

test('once @opentelemetry/api and an SDK are installed, the same program records its spans', async () => {
  ok(await npm(['install', '@opentelemetry/api@^1.9.0', '@opentelemetry/sdk-trace-base@^2'], project), 'npm install @opentelemetry/api');
  const out = lastJson(ok(await run(process.execPath, ['src/main.js', '--traced'], project), 'node src/main.js --traced').stdout);
  expect(out).toMatchObject({ api: 'installed', toolCall: '5', carrier: { traceparent: TRACEPARENT }, agent: { text: 'done', trace: TRACE_ID } });
  expect(out['refused']).toEqual({ tracing: 'accepted', agent: 'accepted', server: 'accepted' });
  expect(out['spans']).toEqual(['execute_tool add', 'tools/call trace_echo', 'chat scripted', 'execute_tool trace_echo', 'chat scripted', 'invoke_agent echo']);
});
