// An agent whose model calls an MCP tool that floods progress and never answers (a real
// server in a child process): the agent's tool timeout ends the call, the model gets the
// TIMEOUT result and the run goes on; the server is told to cancel.
import { join } from 'node:path';
import { ErrorCode, resultText, type RunProgressEvent } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { scaled } from '../../packages/core/test/helpers/time-scale';

jest.setTimeout(scaled(60_000));

const SERVER = join(__dirname, '..', '..', 'packages', 'mcp', 'test', 'fixtures', 'broken-server', 'server.mjs');

describe('an agent over an MCP tool that floods progress', () => {
  let mcp: McpToolset | undefined;
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
  });

  it('ends the call by toolTimeoutMs, 1 s (bound 1 s + 5 s), feeds TIMEOUT to the model, and the run goes on', async () => {
    mcp = await McpToolset.connect({ main: { command: process.execPath, args: [SERVER, 'stdio', 'progress-flood'] } }, { prefix: true, progress: true });
    const model = new ScriptedModel([{ toolCalls: [{ id: 'c1', name: 'main_progress_flood', arguments: { burst: 20 } }] }, { text: 'gave up on it' }]);
    const started = performance.now();
    // The guard only catches a hang (a call nothing ends): the run would then stop as aborted, not answered.
    const result = await new Agent({ model, tools: mcp, toolTimeoutMs: 1_000, approve: () => true }).run('go', { signal: AbortSignal.timeout(scaled(20_000)) });
    const ms = performance.now() - started;
    process.stdout.write(`agent over a progress flood, toolTimeoutMs 1000: run ended in ${Math.round(ms)} ms\n`);

    expect(result.stopReason).toBe('final_answer');
    expect(result.text).toBe('gave up on it');
    expect(ms).toBeLessThan(1_000 + scaled(5_000));
    const [sent] = latestToolResults(model.requests[1]!);
    expect(sent!.result.error?.code).toBe(ErrorCode.Timeout);
    expect(resultText(sent!.result)).toMatch(/timed out after 1000 ms/);
    const progress = result.context.events.filter((e): e is RunProgressEvent => e.type === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    // A burst of 10, then one per 100 ms for a call of about a second.
    expect(progress.length).toBeLessThanOrEqual(25);

    // The call's signal aborted at the timeout: the server was told to cancel.
    const seen = async (): Promise<{ sent: number; ended: string }> =>
      JSON.parse(resultText(await mcp!.get('main_progress_flood_seen')!.invoke(result.context, {}))) as { sent: number; ended: string };
    let last = await seen();
    const deadline = Date.now() + scaled(5_000);
    while (last.ended === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      last = await seen();
    }
    expect(last.sent).toBeGreaterThan(100);
    expect(last.ended).toBe('cancelled');
  });
});
