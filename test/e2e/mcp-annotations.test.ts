// MCP tools get MCP's annotation defaults: a server that sends an annotations
// object without readOnlyHint: true means destructive and not idempotent unless
// it says otherwise, so the agent asks approval and runs such calls one at a time.
// The server is trusted here; an untrusted server's annotations exempt nothing.
import { resultText, type RunEvent, type ToolCallEvent, type ToolResultEvent } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import * as path from 'node:path';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

let mcp: McpToolset;
beforeAll(async () => {
  // Trusted: the agent believes its annotations (see docs/approval.md for untrusted servers).
  mcp = await McpToolset.connect(
    { mcpServers: { notes: { command: process.execPath, args: [path.join(__dirname, 'fixtures', 'annotated-server.mjs')] } } },
    { trusted: true },
  );
});
afterAll(async () => {
  await mcp?.close();
});

function span(events: readonly RunEvent[], callId: string): [number, number] {
  const call = events.find((e): e is ToolCallEvent => e.type === 'tool_call' && e.callId === callId)!;
  const result = events.find((e): e is ToolResultEvent => e.type === 'tool_result' && e.callId === callId)!;
  return [call.time, result.time];
}

describe('MCP annotation defaults in an agent run', () => {
  it('maps { readOnlyHint: false } to destructive and not idempotent; no annotations object means no hints', () => {
    expect(mcp.get('append_line')!.annotations).toEqual({ readOnly: false, destructive: true, idempotent: false });
    expect(mcp.get('count_lines')!.annotations).toEqual({ readOnly: true });
    expect(mcp.get('plain')!.annotations).toBeUndefined();
  });

  it('asks approval for a tool that only says { readOnlyHint: false } and runs its calls one at a time', async () => {
    const asked: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a1', name: 'append_line', arguments: { text: 'one' } },
          { id: 'c1', name: 'count_lines' },
          { id: 'a2', name: 'append_line', arguments: { text: 'two' } },
        ],
      },
      { text: 'done' },
    ]);
    const result = await new Agent({ model, tools: mcp, approve: ({ callId }) => (asked.push(callId), true) }).run('append two lines');
    expect(asked).toEqual(['a1', 'a2']);
    const [a1, a2] = [span(result.context.events, 'a1'), span(result.context.events, 'a2')];
    expect(a2[0]).toBeGreaterThanOrEqual(a1[1]);
    expect(latestToolResults(model.requests[1]!).map((m) => resultText(m.result))).toEqual([
      'appended (max at once: 1)',
      expect.any(String),
      'appended (max at once: 1)',
    ]);
  });
});
