// One agent run on the ScriptedModel with local tools and the tools of a real
// MCP server from npm (server-everything, a child process over stdio): parallel
// calls, a failing call the model corrects, a refused approval, destructive
// calls kept apart, and the step limit. The context's events tell the story.
import { ErrorCode, Tool, Toolset, resultText, type ExecutionContext, type RunEvent, type ToolCallEvent, type ToolResultEvent } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type ApprovalRequest } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

class Notebook {
  readonly notes = new Map<string, string>([['a', 'buy milk']]);
  running = 0;
  maxRunning = 0;

  /** Waits until the other read-only calls of its turn have started: it can only finish if they overlap. */
  @Tool({
    name: 'read_note',
    description: 'Read a note.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { readOnly: true },
    context: { events: 'read' },
    timeoutMs: 10_000,
  })
  async readNote({ id }: { id: string }, context: ExecutionContext): Promise<string> {
    const started = (): boolean =>
      ['everything_echo', 'everything_get-sum'].every((tool) => context.events.some((e) => e.type === 'tool_call' && e.tool === tool));
    if (!started()) {
      await new Promise<void>((resolve) => {
        const stop = context.subscribe(() => {
          if (started()) {
            stop();
            resolve();
          }
        });
      });
    }
    return this.notes.get(id) ?? `no note ${id}`;
  }

  @Tool({
    name: 'write_note',
    description: 'Write a note (replaces it).',
    parameters: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'] },
    annotations: { destructive: true },
  })
  async writeNote({ id, text }: { id: string; text: string }): Promise<string> {
    this.maxRunning = Math.max(this.maxRunning, ++this.running);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    this.notes.set(id, text);
    this.running--;
    return `wrote ${id}`;
  }

  @Tool({
    name: 'delete_note',
    description: 'Delete a note.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    requiresApproval: true,
  })
  deleteNote({ id }: { id: string }): string {
    this.notes.delete(id);
    return `deleted ${id}`;
  }
}

const serverEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
let mcp: McpToolset;

beforeAll(async () => {
  // Trusted: its annotations decide approval as a local tool's would (an untrusted server's tools would all be asked about).
  mcp = await McpToolset.connect({ mcpServers: { everything: { command: process.execPath, args: [serverEntry, 'stdio'] } } }, { prefix: true, trusted: true });
});
afterAll(async () => {
  await mcp?.close();
});

function span(events: readonly RunEvent[], callId: string): [number, number] {
  const call = events.find((e): e is ToolCallEvent => e.type === 'tool_call' && e.callId === callId);
  const result = events.find((e): e is ToolResultEvent => e.type === 'tool_result' && e.callId === callId);
  if (call === undefined || result === undefined) throw new Error(`no events for ${callId}`);
  return [call.time, result.time];
}

const overlap = (a: [number, number], b: [number, number]): boolean => a[0] < b[1] && b[0] < a[1];

describe('a full agent run with local and MCP tools on the ScriptedModel', () => {
  it('runs parallel calls, lets the model correct a failure, refuses an approval and stops at the step limit', async () => {
    const notebook = new Notebook();
    const model = new ScriptedModel([
      {
        text: 'Reading in parallel.',
        toolCalls: [
          { id: 'read', name: 'read_note', arguments: { id: 'a' } },
          { id: 'echo', name: 'everything_echo', arguments: { message: 'hello' } },
          { id: 'sum1', name: 'everything_get-sum', arguments: '{"a": 2, "b": 3}' },
        ],
      },
      {
        text: 'Writing two notes and summing again.',
        toolCalls: [
          { id: 'write_b', name: 'write_note', arguments: { id: 'b', text: 'call mum' } },
          { id: 'sum_bad', name: 'everything_get-sum', arguments: { a: 'two', b: 3 } },
          { id: 'write_c', name: 'write_note', arguments: { id: 'c', text: 'pay rent' } },
        ],
      },
      (request) => {
        const failed = latestToolResults(request).find((m) => m.callId === 'sum_bad')!;
        expect(failed.result.error?.code).toBe(ErrorCode.InvalidArguments);
        return {
          text: '`a` must be a number; fixing it. Also deleting note a.',
          toolCalls: [
            { id: 'sum_fixed', name: 'everything_get-sum', arguments: { a: 2, b: 3 } },
            { id: 'delete', name: 'delete_note', arguments: { id: 'a' } },
          ],
        };
      },
      { text: 'One more look.', toolCalls: [{ id: 'echo2', name: 'everything_echo', arguments: { message: 'still here' } }] },
      { text: 'never played: the step limit comes first' },
    ]);
    const asked: string[] = [];
    const approve = ({ tool, callId }: ApprovalRequest): boolean => {
      asked.push(callId);
      return tool.name === 'write_note';
    };
    const toolset = new Toolset(notebook, mcp);
    const agent = new Agent({ model, tools: toolset, instructions: 'Keep notes.', maxSteps: 4, approve });

    const result = await agent.run('Tidy my notes.');

    expect(result).toMatchObject({ stopReason: 'max_steps', steps: 4, text: 'One more look.', usage: { inputTokens: 40, outputTokens: 20, totalTokens: 60 } });
    expect(model.turns).toBe(4);
    const events = result.context.events;

    // The story, in order. Within a turn the results of concurrent calls may come in any order.
    const story = events.map((e) =>
      e.type === 'message' ? `${e.role}` : e.type === 'tool_call' || e.type === 'tool_result' ? `${e.type} ${e.callId}` : e.type,
    );
    const assistants = story.flatMap((s, i) => (s === 'assistant' ? [i] : []));
    expect(story.slice(0, 3)).toEqual(['system', 'user', 'assistant']);
    expect(assistants).toHaveLength(4);
    const turns = assistants.map((start, i) => story.slice(start + 1, assistants[i + 1]));
    expect(turns[0]!.slice(0, 3)).toEqual(['tool_call read', 'tool_call echo', 'tool_call sum1']);
    expect([...turns[0]!].sort()).toEqual(['tool_call echo', 'tool_call read', 'tool_call sum1', 'tool_result echo', 'tool_result read', 'tool_result sum1']);
    expect([...turns[1]!].sort()).toEqual([
      'tool_call sum_bad',
      'tool_call write_b',
      'tool_call write_c',
      'tool_result sum_bad',
      'tool_result write_b',
      'tool_result write_c',
    ]);
    expect(story.indexOf('tool_result write_b')).toBeLessThan(story.indexOf('tool_call write_c'));
    expect([...turns[2]!].sort()).toEqual(['tool_call delete', 'tool_call sum_fixed', 'tool_result delete', 'tool_result sum_fixed']);
    expect(turns[3]).toEqual(['tool_call echo2', 'tool_result echo2']);
    expect(story.at(-1)).toBe('tool_result echo2');

    // Each turn's results went back to the model in the model's order.
    const sent = (turnIndex: number): string[] => latestToolResults(model.requests[turnIndex]!).map((m) => `${m.callId}: ${resultText(m.result)}`);
    expect(sent(1)).toEqual(['read: buy milk', 'echo: Echo: hello', 'sum1: The sum of 2 and 3 is 5.']);
    expect(sent(2)[0]).toBe('write_b: wrote b');
    expect(sent(2)[1]).toMatch(/^sum_bad: Invalid arguments for tool "everything_get-sum":\n- \/a: must be number/);
    expect(sent(2)[2]).toBe('write_c: wrote c');
    expect(sent(3)[0]).toBe('sum_fixed: The sum of 2 and 3 is 5.');
    expect(sent(3)[1]).toMatch(/^delete: The call to tool "delete_note" was not approved/);

    // The approval: asked for the destructive writes and the delete; the refused delete never ran.
    expect(asked).toEqual(['write_b', 'write_c', 'delete']);
    const deleted = events.find((e): e is ToolResultEvent => e.type === 'tool_result' && e.callId === 'delete')!;
    expect(deleted.result.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(notebook.notes.get('a')).toBe('buy milk');
    expect(notebook.notes.get('c')).toBe('pay rent');

    // Local and MCP tools were called the same way; only their source differs.
    expect(toolset.get('read_note')!.source).toBe('Notebook.readNote');
    expect(toolset.get('everything_echo')!.source).toBe('mcp everything');

    // Read-only calls of one turn (local and MCP) overlapped; destructive calls did not.
    expect(overlap(span(events, 'read'), span(events, 'echo'))).toBe(true);
    expect(overlap(span(events, 'read'), span(events, 'sum1'))).toBe(true);
    expect(span(events, 'write_c')[0]).toBeGreaterThanOrEqual(span(events, 'write_b')[1]);
    expect(notebook.maxRunning).toBe(1);
  });
});
