import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type ToolCallEvent, type ToolResultEvent } from '@anytool/core';

const sleepy = tool(
  async ({ ms, label }: { ms: number; label: string }, context: ExecutionContext) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const seen = (context.state.get('seen') as string[] | undefined) ?? [];
    context.state.set('seen', [...seen, label]);
    return label;
  },
  {
    name: 'sleepy',
    description: 'Waits, then records its label.',
    parameters: { type: 'object', properties: { ms: { type: 'integer' }, label: { type: 'string' } }, required: ['ms', 'label'] },
    context: { state: { read: ['seen'], write: ['seen'] } },
  },
);

describe('ExecutionContext', () => {
  it('is safe when a run calls tools concurrently: unique call ids, every event kept, results to the right caller', async () => {
    const context = new ExecutionContext();
    const toolset = new Toolset(sleepy);
    const labels = Array.from({ length: 50 }, (_, i) => `t${i}`);
    const results = await Promise.all(labels.map((label, i) => toolset.invoke('sleepy', { ms: (i * 7) % 13, label }, context)));
    expect(results.map((r) => resultText(r))).toEqual(labels);
    expect(new Set(context.state.get('seen') as string[])).toEqual(new Set(labels));
    const calls = context.events.filter((e): e is ToolCallEvent => e.type === 'tool_call');
    const done = context.events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
    expect(new Set(calls.map((c) => c.callId)).size).toBe(50);
    expect(new Set(done.map((c) => c.callId))).toEqual(new Set(calls.map((c) => c.callId)));
    for (const result of done) expect(resultText(result.result)).toBe((calls.find((c) => c.callId === result.callId)!.args as { label: string }).label);
    // Calls overlapped: every call started before the first one finished.
    const firstDone = Math.min(...done.map((d) => d.time));
    expect(calls.every((c) => c.time <= firstDone)).toBe(true);
  });

  it('tells listeners about each event; a listener that throws is a diagnostic of the run, said once and counted', () => {
    const context = new ExecutionContext();
    const seen: string[] = [];
    const stop = context.subscribe((e) => seen.push(e.type));
    context.subscribe(() => {
      throw new Error('listener bug');
    });
    context.record({ type: 'message', role: 'user', text: 'hi' });
    stop();
    context.record({ type: 'message', role: 'assistant', text: 'hello' });
    expect(seen).toEqual(['message', 'diagnostic']);
    expect(context.events.map((e) => e.type)).toEqual(['message', 'diagnostic', 'message']);
    expect(context.events[1]).toMatchObject({ type: 'diagnostic', code: ErrorCode.ListenerFailed, count: 2, message: expect.stringContaining('listener bug') });
  });

  it('withSignal shares state and events with the run', () => {
    const context = new ExecutionContext({ runId: 'r' });
    const view = context.withSignal(new AbortController().signal);
    view.state.set('k', 1);
    view.record({ type: 'progress', progress: 1 });
    expect(context.state.get('k')).toBe(1);
    expect(context.events).toHaveLength(1);
    expect(view.runId).toBe('r');
    expect(view.nextCallId()).not.toBe(context.nextCallId());
  });

  it("progress a tool reports carries its call's id and name, so concurrent calls stay apart", async () => {
    const stepper = tool(
      async ({ steps }: { steps: number }, context: ExecutionContext) => {
        for (let i = 1; i <= steps; i++) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          context.progress(i, steps);
        }
        return steps;
      },
      {
        name: 'stepper',
        description: 'Reports progress.',
        parameters: { type: 'object', properties: { steps: { type: 'integer' } }, required: ['steps'] },
        context: { progress: true },
      },
    );
    const context = new ExecutionContext();
    const toolset = new Toolset(stepper);
    await Promise.all([toolset.invoke('stepper', { steps: 2 }, context, { callId: 'A' }), toolset.invoke('stepper', { steps: 3 }, context, { callId: 'B' })]);
    const progress = context.events.filter((e) => e.type === 'progress');
    expect(progress.filter((p) => p.type === 'progress' && p.callId === 'A').map((p) => (p.type === 'progress' ? p.total : 0))).toEqual([2, 2]);
    expect(progress.filter((p) => p.type === 'progress' && p.callId === 'B')).toHaveLength(3);
    expect(progress.every((p) => p.type === 'progress' && p.tool === 'stepper')).toBe(true);
  });
});
