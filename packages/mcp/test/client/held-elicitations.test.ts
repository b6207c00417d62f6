// `elicitation: 'pause'` on the 2025 era: a server's question is an `elicitation/create` request in the middle of the
// call, which lives only in this process. The run pauses while the request is held open here; a resume in the same
// process answers it and gets the call's own result; once the request has ended (connection closed, held too long)
// the call ends with INPUT_EXPIRED. The server is a real 2025 server on the official SDK (1.x), over stdio
// (test/fixtures/asking-server.mjs), that writes each side effect to a file.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, Toolset, resultText, type ToolResult } from '@anytool/core';
import { Agent, ScriptedModel, type ModelMessage, type ModelRequest, type RunState } from '@anytool/agent';
import type { McpServerConfig, McpToolset, McpToolsetOptions } from '@anytool/mcp';
import { connectForEachTest, tempDir, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const SERVER = join(__dirname, '..', 'fixtures', 'asking-server.mjs');
const GUESTS = { type: 'object', properties: { guests: { type: 'integer', minimum: 1, description: 'Number of guests' } }, required: ['guests'] };

let dir: string;
beforeAll(() => (dir = tempDir('held-elicitations')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => rmSync(join(dir, 'asked.log'), { force: true }));
const sideEffects = (): string[] => (existsSync(join(dir, 'asked.log')) ? readFileSync(join(dir, 'asked.log'), 'utf8').trim().split('\n') : []);

const server = (): McpServerConfig => ({ command: process.execPath, args: [SERVER, 'legacy'], env: { ASKED_LOG: join(dir, 'asked.log') }, protocol: 'legacy' });
const connect = connectForEachTest();
const pausing = (options: McpToolsetOptions = {}): Promise<McpToolset> => connect({ asking: server() }, { elicitation: 'pause', ...options });

const echo = (request: ModelRequest) => {
  const last = request.messages[request.messages.length - 1];
  return { text: last?.role === 'tool' ? resultText(last.result) : '' };
};
const agentOn = (mcp: McpToolset, turns: ConstructorParameters<typeof ScriptedModel>[0]): Agent =>
  new Agent({ model: new ScriptedModel(turns), tools: [mcp], approve: () => true });
const booking = [{ toolCalls: [{ id: 'b1', name: 'book_table', arguments: { restaurant: 'Noma' } }] }, echo];
const asJson = (state: RunState | undefined): RunState => JSON.parse(JSON.stringify(state)) as RunState;

function lastToolResult(messages: readonly ModelMessage[]): ToolResult {
  const last = [...messages].reverse().find((message) => message.role === 'tool');
  if (last?.role !== 'tool') throw new Error('the run has no tool result');
  return last.result;
}

describe("a 2025-era MCP server's question, with elicitation: 'pause'", () => {
  it('pauses the run while the request is held, and a resume in the same process answers it', async () => {
    const mcp = await pausing();
    const paused = await agentOn(mcp, booking).run('Book a table');
    expect(paused.stopReason).toBe('interrupted');
    expect(paused.interruptions).toEqual([
      expect.objectContaining({ kind: 'input', tool: 'book_table', questions: { answer: { message: 'How many guests at Noma?', schema: GUESTS } } }),
    ]);
    expect(mcp.connections[0]!.held?.size).toBe(1);
    expect(sideEffects()).toEqual([]);

    const state = asJson(paused.state);
    // A new agent in the same process: the held request takes the answer, and the call's own result comes back.
    const done = await agentOn(mcp, [echo]).resume(state, { [state.pending[0]!.id]: { input: { guests: 3 } } });
    expect(done).toMatchObject({ stopReason: 'final_answer', text: 'Booked a table for 3 at Noma.' });
    expect(sideEffects()).toEqual(['booked 3 at Noma']);
    expect(mcp.connections[0]!.held?.size).toBe(0);
  });

  it('pauses again for the next question of the same call', async () => {
    const mcp = await pausing();
    const first = await agentOn(mcp, [{ toolCalls: [{ id: 'r1', name: 'register', arguments: { event: 'JSConf' } }] }, echo]).run('Register me');
    const one = asJson(first.state);
    const second = await agentOn(mcp, [echo]).resume(one, { [one.pending[0]!.id]: { input: { name: 'Ada' } } });
    expect(second.interruptions).toEqual([expect.objectContaining({ questions: { answer: expect.objectContaining({ message: 'Your email, Ada?' }) } })]);
    const two = asJson(second.state);
    const done = await agentOn(mcp, [echo]).resume(two, { [two.pending[0]!.id]: { input: 'ada@example.org' } });
    expect(done.text).toBe('Registered Ada <ada@example.org> for JSConf.');
    expect(sideEffects()).toEqual(['registered Ada ada@example.org for JSConf']);
  });

  it('ends the call with INPUT_EXPIRED when resumed after the connection was closed', async () => {
    const first = await pausing();
    const state = asJson((await agentOn(first, booking).run('Book a table')).state);
    await first.close();

    const done = await agentOn(await pausing(), [echo]).resume(state, { [state.pending[0]!.id]: { input: { guests: 2 } } });
    const result = lastToolResult(done.messages);
    expect(result.error).toMatchObject({ code: ErrorCode.InputExpired, message: expect.stringContaining('2025-era connection') });
    expect(resultText(result)).toMatch(/2025-era MCP connection.*request that asked, and that request has ended.*call the tool again/s);
    expect(sideEffects().filter((line) => line.startsWith('booked'))).toEqual([]);
  });

  it('cancels a question held past heldElicitations.ttlMs: the server gets cancel, the resume INPUT_EXPIRED', async () => {
    const mcp = await pausing({ heldElicitations: { ttlMs: scaled(300) } });
    const state = asJson((await agentOn(mcp, booking).run('Book a table')).state);
    await until(() => sideEffects().includes('cancelled at Noma'), 5_000, 'the server to get cancel');
    expect(mcp.connections[0]!.held?.size).toBe(0);
    expect(mcp.connections[0]!.diagnostics.join('\n')).toContain('heldElicitations.ttlMs');

    const done = await agentOn(mcp, [echo]).resume(state, { [state.pending[0]!.id]: { input: { guests: 2 } } });
    expect(lastToolResult(done.messages).error?.code).toBe(ErrorCode.InputExpired);
    expect(sideEffects()).toEqual(['cancelled at Noma']);
  });

  it('holds at most heldElicitations.max questions a connection: one more ends its call with SERVER_BUSY', async () => {
    const mcp = await pausing({ heldElicitations: { max: 1 } });
    const first = await agentOn(mcp, booking).run('Book a table');
    expect(first.stopReason).toBe('interrupted');
    const second = await agentOn(mcp, booking).run('Book another');
    expect(second.stopReason).toBe('final_answer');
    expect(lastToolResult(second.messages).error).toMatchObject({ code: ErrorCode.ServerBusy, message: expect.stringContaining('heldElicitations.max') });
    expect(mcp.connections[0]!.held?.size).toBe(1);
  });

  it('refuses the question of a call whose run cannot pause, and says why', async () => {
    const mcp = await pausing();
    const result = await new Toolset(mcp).invoke('book_table', { restaurant: 'Noma' }, new ExecutionContext());
    expect(resultText(result)).toContain('cannot pause its run');
    expect(mcp.connections[0]!.diagnostics.join('\n')).toContain('asked the user a question (elicitation/create) during a call that cannot pause');
    expect(sideEffects()).toEqual([]);
  });

  it('leaves an elicitation handler answering during the call', async () => {
    const mcp = await connect({ asking: server() }, { elicitation: () => ({ action: 'accept', content: { guests: 5 } }) });
    const result = await new Toolset(mcp).invoke('book_table', { restaurant: 'Noma' }, new ExecutionContext());
    expect(resultText(result)).toBe('Booked a table for 5 at Noma.');
  });
});
