// @anytool/agent as a user has it: the packed packages and the official `openai` client
// installed into a fresh project, tools with schemas from `npx anytool build`, and a run
// against a local server speaking Chat Completions. The run uses what a user of today's
// agent leans on: deferred tools and the search tool, the output budget with
// `read_tool_output`, and an approval policy.
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { anytool, createProject, lastJson, ok, packed, removeScratch, run, scratch, userEnv } from './project';

jest.setTimeout(300_000);

interface ChatRequest {
  stream?: boolean;
  tools?: Array<{ function: { name: string } }>;
  messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>;
}

let base: string | undefined;
let project = '';
let server: Server;
let url = '';
const requests: ChatRequest[] = [];
const streamed: ChatRequest[] = [];

/** A streamed answer as Chat Completions sends it: text deltas over server-sent events, a usage chunk, [DONE]. */
const STREAMED_TEXT = ['Hel', 'lo ', 'the', 're, ', '\u00e9t\u00e9 \ud83c\udf0d', '.'];
function streamedAnswer(): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: unknown): string =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-s',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'gpt-test',
      choices: usage === undefined ? [{ index: 0, delta, finish_reason: finish, logprobs: null }] : [],
      ...(usage === undefined ? {} : { usage }),
    })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...STREAMED_TEXT.map((text) => chunk({ content: text }, null)),
    chunk({}, 'stop'),
    chunk({}, null, { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 }),
    'data: [DONE]\n\n',
  ].join('');
}

const LOG_LINES = 30_000;
const logLine = (i: number): string => `${String(i).padStart(6, '0')} GET /api/items 200`;

const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const toolText = (request: ChatRequest, id: string): string => String(request.messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content ?? '');

/** The model's side of the run, one turn per request: search, read the log, page the rest and try a delete, answer. */
function answer(request: ChatRequest): unknown {
  // The turn the request is for, from the request itself (a retried request is the same turn).
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  const reply = (message: Record<string, unknown>, finish: string): unknown => ({
    id: `chatcmpl-${turn}`,
    object: 'chat.completion',
    created: 0,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  if (turn === 0) return reply({ tool_calls: [call('c1', 'search_tools', { query: 'read the server log' })] }, 'tool_calls');
  if (turn === 1) return reply({ tool_calls: [call('c2', 'readLog', { lines: LOG_LINES })] }, 'tool_calls');
  if (turn === 2) {
    const handle = /handle "([^"]+)"/.exec(toolText(request, 'c2'))?.[1] ?? 'none';
    return reply({ tool_calls: [call('c3', 'read_tool_output', { handle, offset: 0 }), call('c4', 'deleteFile', { path: '/var/log/app.log' })] }, 'tool_calls');
  }
  return reply({ content: 'The disk was full.' }, 'stop');
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void body(req)
      .then((text) => {
        const request = JSON.parse(text) as ChatRequest;
        if (request.stream === true) {
          streamed.push(request);
          // Written in small pieces, so events and characters are split across reads.
          const bytes = Buffer.from(streamedAnswer());
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (let at = 0; at < bytes.length; at += 7) res.write(bytes.subarray(at, at + 7));
          res.end();
          return;
        }
        requests.push(request);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(request)));
      })
      .catch((error: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } })));
  });
  // A busy machine may pause between turns longer than Node's 5 s default; the client would then retry on a closed socket.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

  base = scratch();
  const tarballs = await packed(join(base, 'packs'));
  // What docs/getting-started.md and docs/agent.md tell a user to install: core and the agent with the provider's client; the build step as a dev dependency.
  project = await createProject(base, {
    name: 'agent-app',
    type: 'module',
    fixtures: ['agent'],
    dependencies: [tarballs['@anytool/core']!, tarballs['@anytool/agent']!, 'openai@^6'],
    devDependencies: [tarballs['@anytool/schema']!, 'typescript@~5.9.3'],
    tscInit: {},
  });
  const built = await anytool(project, ['build']);
  expect(built.stderr).toBe('');
  expect(built.code).toBe(0);
}, 600_000);

afterAll(async () => {
  removeScratch(base);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('a run over the official OpenAI client: deferred tools load through the search, a large result is cut and paged, the policy refuses', async () => {
  const env = { ...userEnv(), OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test' };
  const ran = ok(await run(process.execPath, ['src/agent.js'], project, { env }), 'node src/agent.js');
  const out = lastJson(ran.stdout) as { text: string; stopReason: string; results: Array<{ tool: string; isError: boolean; chars: number }> };
  expect(out).toMatchObject({ text: 'The disk was full.', stopReason: 'final_answer' });
  // One request per turn: nothing failed and was retried.
  expect(requests.map((request) => request.messages.filter((m) => m.role === 'assistant').length)).toEqual([0, 1, 2, 3]);

  const names = requests.map((request) => (request.tools ?? []).map((t) => t.function.name));
  // First the kept tool and the search; the deferred ones only once the search loaded them.
  expect(names[0]).toEqual(['weather', 'search_tools']);
  expect(names[1]).toEqual(expect.arrayContaining(['weather', 'search_tools', 'readLog']));
  // The reader comes once an output was kept, after every other tool.
  expect(names[3]!.at(-1)).toBe('read_tool_output');

  // 30,000 lines (over 800,000 characters): the model reads the head, a note with the handle, the tail.
  const whole = Array.from({ length: LOG_LINES }, (_, i) => logLine(i)).join('\n');
  const cut = toolText(requests[2]!, 'c2');
  expect(cut.length).toBeLessThanOrEqual(80_000);
  expect(cut.startsWith(logLine(0))).toBe(true);
  expect(cut.endsWith(logLine(LOG_LINES - 1))).toBe(true);
  expect(cut).toMatch(/handle "[^"]+"/);
  // The page the model asked for starts where the log does, and is within the budget too.
  const page = toolText(requests[3]!, 'c3');
  expect(page.length).toBeLessThanOrEqual(80_000);
  expect(whole.startsWith(page.slice(0, page.indexOf('\n', 40_000)))).toBe(true);
  // The policy's deny reaches the model as an error result; the file was never deleted.
  const denied = toolText(requests[3]!, 'c4');
  expect(denied).toMatch(/"deleteFile"[^]*(did not run|not approved)/);
  expect(denied).not.toContain('deleted /var/log/app.log');
  expect(out.results.find((r) => r.tool === 'deleteFile')).toMatchObject({ isError: true });
  expect(out.results.find((r) => r.tool === 'readLog')!.chars).toBeLessThanOrEqual(80_000);
});

test('the CommonJS entries of the agent, its adapter and its Redis run store load with require()', async () => {
  const ran = ok(await run(process.execPath, ['src/require.cjs'], project), 'node src/require.cjs');
  expect(JSON.parse(ran.stdout.trim())).toEqual(['function', 'function', 'function', 'function', 'function', 'function']);
});

test('without redis (an optional peer, not installed), the agent runs and only a RedisRunStore that connects asks for it', async () => {
  expect(existsSync(join(project, 'node_modules', 'redis'))).toBe(false);
  const ran = ok(await run(process.execPath, ['src/run-store.js'], project), 'node src/run-store.js');
  expect(lastJson(ran.stdout)).toEqual({
    text: 'hi',
    code: 'MISSING_DEPENDENCY',
    message: expect.stringMatching(
      /^RedisRunStore\.connect\(\): cannot load the redis package \(.*redis.*\); install it next to @anytool\/agent: npm i redis$/,
    ),
  });
});

test('a streamed run over the official OpenAI client, from ES modules and from CommonJS: the deltas in order, then the result', async () => {
  const env = { ...userEnv(), OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test' };
  for (const file of ['src/stream.js', 'src/stream.cjs']) {
    const ran = ok(await run(process.execPath, [file], project, { env }), `node ${file}`);
    expect(lastJson(ran.stdout)).toEqual({ deltas: STREAMED_TEXT, stopReason: 'final_answer' });
  }
  expect(streamed).toHaveLength(2);
  expect(streamed[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
});

test('schemaOf<T>() from the installed agent is filled in by `anytool build`, and types and checks the output', async () => {
  const ran = ok(await run(process.execPath, ['src/structured.js'], project), 'node src/structured.js');
  expect(lastJson(ran.stdout)).toEqual({
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city', 'days'],
      additionalProperties: false,
    },
    output: { city: 'Oslo', days: 3 },
    days: 3,
    steps: 2,
  });
});
