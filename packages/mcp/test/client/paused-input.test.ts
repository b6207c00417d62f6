// `elicitation: 'pause'` on the 2026-07-28 era: a server's question (an `input_required` answer to tools/call)
// pauses the agent's run with an `input` item; the run's state goes to JSON, and a resume, in this process or
// another, sends the answer in a new round with the server's requestState, byte for byte. The server is a real
// process on the official SDK (test/fixtures/asking-server.mjs) that keeps nothing between rounds and writes each
// side effect to a file. The processes of the first test run the built packages: build them first
// (`node scripts/build.mjs core mcp agent`).
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type ToolResult } from '@anytool/core';
import { Agent, ScriptedModel, type ModelMessage, type ModelRequest, type RunState } from '@anytool/agent';
import { mcpSession, serveMcp, type McpToolsetOptions } from '@anytool/mcp';
import { elicitResultOf } from '../../src/client/paused-input';
import { connectForEachTest, tempDir } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const root = join(__dirname, '..', '..', '..', '..');
const SERVER = join(__dirname, '..', 'fixtures', 'asking-server.mjs');
const AGENT = join(__dirname, '..', 'fixtures', 'asking-agent.mjs');
const GUESTS = { type: 'object', properties: { guests: { type: 'integer', minimum: 1, description: 'Number of guests' } }, required: ['guests'] };

let server: ChildProcessWithoutNullStreams;
let url: string;
let dir: string;
const logFile = (): string => join(dir, 'asked.log');
const sideEffects = (): string[] => (existsSync(logFile()) ? readFileSync(logFile(), 'utf8').trim().split('\n') : []);

beforeAll(async () => {
  dir = tempDir('paused-input');
  server = spawn(process.execPath, [SERVER, 'modern'], { env: { ...process.env, ASKED_LOG: join(dir, 'asked.log') }, stdio: 'pipe' });
  let stderr = '';
  url = await new Promise<string>((resolve, reject) => {
    server.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    server.once('exit', (code) => reject(new Error(`the asking server exited with ${String(code)}:\n${stderr}`)));
  });
});
afterAll(async () => {
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  await exited;
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => rmSync(logFile(), { force: true }));

const connect = connectForEachTest();
const pausing = (options: McpToolsetOptions = {}) => connect({ asking: { url } }, { elicitation: 'pause', ...options });

/** The model reads the last tool result back as its answer. */
const echo = (request: ModelRequest) => {
  const last = request.messages[request.messages.length - 1];
  return { text: last?.role === 'tool' ? resultText(last.result) : '' };
};

/** An agent over the server's tools; `calls` is its first turn. */
async function agentWith(turns: ConstructorParameters<typeof ScriptedModel>[0]): Promise<Agent> {
  return new Agent({ model: new ScriptedModel(turns), tools: [await pausing()], approve: () => true });
}

/** The state as it travels: through JSON. */
const asJson = (state: RunState | undefined): RunState => JSON.parse(JSON.stringify(state)) as RunState;

/** The last tool result of a run's messages. */
function lastToolResult(messages: readonly ModelMessage[]): ToolResult {
  const last = [...messages].reverse().find((message) => message.role === 'tool');
  if (last?.role !== 'tool') throw new Error('the run has no tool result');
  return last.result;
}

function half(args: string[]): Promise<{ stopReason: string; items: Array<Record<string, unknown>>; text: string; error?: { code: string } }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [AGENT, ...args], { cwd: root, encoding: 'utf8', timeout: scaled(20_000) }, (error, stdout, stderr) =>
      error === null ? resolve(JSON.parse(stdout) as never) : reject(new Error(`${args[0]} failed: ${stderr}`)),
    ),
  );
}

describe("an MCP server's question on the 2026-07-28 era, with elicitation: 'pause'", () => {
  it('pauses the run with the question, and a new process answers it: the tool finishes once', async () => {
    const paused = await half(['pause', dir, url, 'book_table', JSON.stringify({ restaurant: 'Noma' })]);
    expect(paused.stopReason).toBe('interrupted');
    expect(paused.items).toEqual([
      expect.objectContaining({
        kind: 'input',
        tool: 'book_table',
        args: { restaurant: 'Noma' },
        reason: 'How many guests at Noma?',
        questions: { guests: { message: 'How many guests at Noma?', schema: GUESTS } },
      }),
    ]);
    // The first process has exited; nothing was booked.
    expect(sideEffects()).toEqual([]);

    const resumed = await half(['resume', dir, url, JSON.stringify({ guests: 4 })]);
    expect(resumed).toMatchObject({ stopReason: 'final_answer', text: 'Booked a table for 4 at Noma.', items: [] });
    expect(sideEffects()).toEqual(['booked 4 at Noma']);
  });

  it('pauses twice for a tool that asks twice, each resume on a new connection; the requestState goes back byte for byte', async () => {
    const first = await (await agentWith([{ toolCalls: [{ id: 'r1', name: 'register', arguments: { event: 'JSConf' } }] }, echo])).run('Register me');
    expect(first.interruptions).toEqual([
      expect.objectContaining({ kind: 'input', questions: { name: { message: 'Your name?', schema: expect.any(Object) } } }),
    ]);
    const one = asJson(first.state);

    const second = await (await agentWith([echo])).resume(one, { [one.pending[0]!.id]: { input: { name: 'Ada' } } });
    expect(second.stopReason).toBe('interrupted');
    expect(second.interruptions).toEqual([
      expect.objectContaining({ kind: 'input', callId: 'r1', questions: { email: expect.objectContaining({ message: 'Your email, Ada?' }) } }),
    ]);
    expect(sideEffects()).toEqual([]);
    const two = asJson(second.state);

    // A bare value answers a form of one field.
    const done = await (await agentWith([echo])).resume(two, { [two.pending[0]!.id]: { input: 'ada@example.org' } });
    expect(done).toMatchObject({ stopReason: 'final_answer', text: 'Registered Ada <ada@example.org> for JSConf.' });
    expect(sideEffects()).toEqual(['registered Ada ada@example.org for JSConf']);
  });

  it('shows questions asked together as one item, answered by key', async () => {
    const paused = await (await agentWith([{ toolCalls: [{ id: 't1', name: 'plan_trip', arguments: {} }] }, echo])).run('Plan a trip');
    const item = paused.interruptions![0]!;
    expect(Object.keys(item.questions!)).toEqual(['city', 'nights']);
    const state = asJson(paused.state);
    const done = await (await agentWith([echo])).resume(state, { [item.id]: { input: { city: { city: 'Oslo' }, nights: 3 } } });
    expect(done.text).toBe('Planned 3 nights in Oslo.');
  });

  it('sends a declined question as declined, and ends with INPUT_EXPIRED when the server refuses an altered requestState', async () => {
    const ask = () => agentWith([{ toolCalls: [{ id: 'b1', name: 'book_table', arguments: { restaurant: 'Geranium' } }] }, echo]);
    const declined = asJson((await (await ask()).run('Book')).state);
    const answer = await (await agentWith([echo])).resume(declined, { [declined.pending[0]!.id]: { input: { action: 'decline' } } });
    expect(answer.text).toBe('No table booked at Geranium: the user answered decline.');

    const altered = asJson((await (await ask()).run('Book')).state);
    const resume = altered.pending[0]!.resume as { requestState: string };
    resume.requestState = `${resume.requestState.slice(0, -1)}${resume.requestState.endsWith('A') ? 'B' : 'A'}`;
    const expired = await (await agentWith([echo])).resume(altered, { [altered.pending[0]!.id]: { input: { guests: 2 } } });
    const result = lastToolResult(expired.messages);
    expect(result.error).toMatchObject({ code: ErrorCode.InputExpired, message: expect.stringContaining('no longer holds the round') });
    expect(resultText(result)).toContain('call the tool again');
    expect(sideEffects()).toEqual([]);
  });

  it('lets a tool served by anytool keep running across the pause, and finish once', async () => {
    let runs = 0;
    const orders: string[] = [];
    const order = tool(
      async ({ item }: { item: string }, context: ExecutionContext) => {
        runs++;
        const count = { type: 'object' as const, properties: { count: { type: 'integer' as const } }, required: ['count'] };
        const answer = await mcpSession(context)!.elicitInput({ message: `How many ${item}?`, requestedSchema: count });
        orders.push(`${String(answer.content?.['count'])} ${item}`);
        return `Ordered ${String(answer.content?.['count'])} ${item}.`;
      },
      {
        name: 'order',
        description: 'Orders an item.',
        parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
        context: true,
      },
    );
    const served = await serveMcp(new Toolset(order), { transport: 'http', port: 0 });
    try {
      const shop = async () => connect({ shop: { url: served.url! } }, { elicitation: 'pause' });
      const model = new ScriptedModel([{ toolCalls: [{ id: 'o1', name: 'order', arguments: { item: 'apples' } }] }]);
      const paused = await new Agent({ model, tools: [await shop()], approve: () => true }).run('Order apples');
      expect(paused.interruptions).toEqual([
        expect.objectContaining({ questions: { 'elicitation-1': expect.objectContaining({ message: 'How many apples?' }) } }),
      ]);
      const state = asJson(paused.state);
      const done = await new Agent({ model: new ScriptedModel([echo]), tools: [await shop()], approve: () => true }).resume(state, {
        [state.pending[0]!.id]: { input: 2 },
      });
      expect(done.text).toBe('Ordered 2 apples.');
      expect({ runs, orders }).toEqual({ runs: 1, orders: ['2 apples'] });
    } finally {
      await served.close();
    }
  });

  it('ends a call whose run cannot pause with INPUT_REQUIRED, naming the question', async () => {
    const result = await new Toolset(await pausing()).invoke('book_table', { restaurant: 'Noma' }, new ExecutionContext());
    expect(result.error?.code).toBe(ErrorCode.InputRequired);
    expect(resultText(result)).toContain('How many guests at Noma?');
    expect(sideEffects()).toEqual([]);
  });

  it('leaves an elicitation handler answering during the call', async () => {
    const asked: string[] = [];
    const mcp = await connect(
      { asking: { url } },
      {
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { guests: 2 } };
        },
      },
    );
    const result = await new Toolset(mcp).invoke('book_table', { restaurant: 'Noma' }, new ExecutionContext());
    expect(resultText(result)).toBe('Booked a table for 2 at Noma.');
    expect(asked).toEqual(['How many guests at Noma?']);
  });
});

describe('a person’s answer as the elicitation result the server reads', () => {
  const form = { message: 'How many?', requestedSchema: GUESTS };
  it('passes a result as it is, takes an object as the accepted content, and a bare value as the one field', () => {
    expect(elicitResultOf({ action: 'cancel' }, form)).toEqual({ action: 'cancel' });
    expect(elicitResultOf({ guests: 3 }, form)).toEqual({ action: 'accept', content: { guests: 3 } });
    expect(elicitResultOf(3, form)).toEqual({ action: 'accept', content: { guests: 3 } });
    expect(elicitResultOf(true, { message: 'Sign in', mode: 'url', url: 'https://example.org' })).toEqual({ action: 'accept' });
  });

  it('says what does not fit', () => {
    expect(elicitResultOf([3], form)).toContain('"guests"');
    expect(elicitResultOf('x', { message: 'Two?', requestedSchema: { type: 'object', properties: { a: {}, b: {} } } })).toContain('"a", "b"');
    expect(elicitResultOf({ done: true }, { message: 'Sign in', mode: 'url', url: 'https://example.org' })).toContain('URL-mode');
  });
});
