// Runs that pause for an answer only a person can give, and resume from their state: approvals, a tool's
// questions, answers bound to their call, and a pause resumed once however often it is tried.
import { ErrorCode, ExecutionContext, builtin, requestInput, resultText, textResult, tool } from '@anytool/core';
import { Agent, MemoryRunStore, ScriptedModel, latestToolResults, type RunState } from '@anytool/agent';
import { memoryTelemetry } from '../../core/test/helpers/otel';

function payments(paid: number[]) {
  return tool(
    ({ amount }: { amount: number }) => {
      paid.push(amount);
      return `paid ${amount}`;
    },
    {
      name: 'pay',
      description: 'Pays an amount.',
      parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      requiresApproval: true,
    },
  );
}

function lookups(seen: string[]) {
  return tool(
    ({ q }: { q: string }) => {
      seen.push(q);
      return `found ${q}`;
    },
    { name: 'lookup', description: 'Looks a thing up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  );
}

const sent = (model: ScriptedModel, turn: number): string[] => latestToolResults(model.requests[turn]!).map((m) => resultText(m.result));
/** What a state looks like after it travelled as JSON (a database, a browser, another process). */
const travelled = (state: RunState | undefined): RunState => JSON.parse(JSON.stringify(state)) as RunState;

async function pausedPayment(options: { signingSecret?: string } = {}) {
  const paid: number[] = [];
  const seen: string[] = [];
  const first = new ScriptedModel([
    {
      toolCalls: [
        { id: 'c1', name: 'lookup', arguments: { q: 'invoice' } },
        { id: 'c2', name: 'pay', arguments: { amount: 40 } },
      ],
    },
  ]);
  const agent = new Agent({ model: first, tools: [payments(paid), lookups(seen)], approve: 'pause', ...options });
  const result = await agent.run('pay the invoice');
  return { paid, seen, result, agent, tools: [payments(paid), lookups(seen)] };
}

describe('pausing a run for approval', () => {
  it("stops with the call waiting, runs the turn's other calls, and resumes from JSON in a new agent", async () => {
    const { paid, seen, result, tools } = await pausedPayment();
    expect(result.stopReason).toBe('interrupted');
    expect(seen).toEqual(['invoice']);
    expect(paid).toEqual([]);
    expect(result.interruptions).toEqual([
      expect.objectContaining({
        kind: 'approval',
        callId: 'c2',
        tool: 'pay',
        args: { amount: 40 },
        reason: 'tool "pay" needs approval',
        approval: { kind: 'call' },
      }),
    ]);
    const state = travelled(result.state);
    expect(state).toMatchObject({
      format: 'anytool.run-state',
      version: 1,
      runId: result.context.runId,
      steps: 1,
      turn: { results: { c1: expect.anything() } },
    });
    expect(Object.keys(state.tools)).toEqual(['pay']);

    // Another agent (as in another process) with the same tools and the rest of the conversation.
    const second = new ScriptedModel([{ text: 'Paid.' }]);
    const resumed = await new Agent({ model: second, tools, approve: 'pause' }).resume(state, { [state.pending[0]!.id]: { approved: true } });
    expect(resumed).toMatchObject({ stopReason: 'final_answer', text: 'Paid.', steps: 2 });
    expect(paid).toEqual([40]);
    expect(seen).toEqual(['invoice']);
    // The model reads both results in its own order, as if the run had never stopped.
    expect(sent(second, 0)).toEqual(['found invoice', 'paid 40']);
    expect(resumed.context.runId).toBe(result.context.runId);
    expect(resumed.usage.totalTokens).toBeGreaterThan(result.usage.totalTokens);
  });

  it("gives a refused call the coded denial, with the person's reason", async () => {
    const { paid, result, tools } = await pausedPayment();
    const state = travelled(result.state);
    const second = new ScriptedModel([{ text: 'Not paid.' }]);
    await new Agent({ model: second, tools }).resume(state, { [state.pending[0]!.id]: { approved: false, reason: 'too much' } });
    expect(paid).toEqual([]);
    const [, denial] = latestToolResults(second.requests[0]!);
    expect(denial!.result.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(resultText(denial!.result)).toMatch(/not approved \(too much\)/);
  });

  it('asks again for an item left unanswered: the run pauses once more', async () => {
    const { paid, result, tools } = await pausedPayment();
    const again = await new Agent({ model: new ScriptedModel([]), tools, approve: 'pause' }).resume(travelled(result.state), {});
    expect(again.stopReason).toBe('interrupted');
    expect(again.interruptions).toHaveLength(1);
    expect(again.interruptions![0]!.id).not.toBe(result.interruptions![0]!.id);
    expect(paid).toEqual([]);
  });

  it('runs nothing twice when the same pause is resumed twice in one process', async () => {
    const { paid, result, tools } = await pausedPayment();
    const state = travelled(result.state);
    const answers = { [state.pending[0]!.id]: { approved: true } };
    const agent = new Agent({ model: new ScriptedModel([{ text: 'a' }, { text: 'b' }]), tools });
    await agent.resume(state, answers);
    await expect(agent.resume(state, answers)).rejects.toMatchObject({ code: ErrorCode.RunAlreadyResumed });
    await expect(new Agent({ model: new ScriptedModel([{ text: 'c' }]), tools }).resume(travelled(result.state), answers)).rejects.toMatchObject({
      code: ErrorCode.RunAlreadyResumed,
    });
    expect(paid).toEqual([40]);
  });

  it('refuses a state whose tool changed since it paused, and runs nothing', async () => {
    const { paid, result } = await pausedPayment();
    const changed = tool(() => 'paid twice', {
      name: 'pay',
      description: 'Pays an amount, twice.',
      parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      requiresApproval: true,
    });
    const state = travelled(result.state);
    const agent = new Agent({ model: new ScriptedModel([{ text: 'x' }]), tools: [changed, lookups([])] });
    await expect(agent.resume(state, { [state.pending[0]!.id]: { approved: true } })).rejects.toMatchObject({
      code: ErrorCode.RunToolsChanged,
      message: expect.stringMatching(/"pay" \(its definition differs\)/),
    });
    const gone = new Agent({ model: new ScriptedModel([{ text: 'x' }]), tools: [lookups([])] });
    await expect(gone.resume(state, {})).rejects.toMatchObject({ code: ErrorCode.RunToolsChanged, message: expect.stringMatching(/"pay" \(gone\)/) });
    expect(paid).toEqual([]);
  });

  it('binds each answer to its item: another call, other arguments or an unknown item are refused and the run stays paused', async () => {
    const { paid, result, tools } = await pausedPayment();
    const state = travelled(result.state);
    const item = state.pending[0]!;
    const agent = new Agent({ model: new ScriptedModel([{ text: 'ok' }]), tools });
    await expect(agent.resume(state, { pending_forged: { approved: true } })).rejects.toMatchObject({ code: ErrorCode.ResumeAnswerInvalid });
    await expect(agent.resume(state, { [item.id]: { approved: true, argsDigest: 'f'.repeat(64) } })).rejects.toMatchObject({
      code: ErrorCode.ResumeAnswerInvalid,
      message: expect.stringMatching(/answers another call/),
    });
    await expect(agent.resume(state, { [item.id]: { approved: true, tool: 'lookup' } })).rejects.toMatchObject({ code: ErrorCode.ResumeAnswerInvalid });
    await expect(agent.resume(state, { [item.id]: { input: 'yes' } })).rejects.toMatchObject({ code: ErrorCode.ResumeAnswerInvalid });
    // None of these consumed the pause: the right answer still resumes it.
    await agent.resume(state, { [item.id]: { approved: true, tool: 'pay', callId: 'c2', argsDigest: item.argsDigest } });
    expect(paid).toEqual([40]);
  });

  it("with a signing secret, takes only answers that carry their item's signature", async () => {
    const secret = 'a server secret of enough length';
    const { paid, result, tools } = await pausedPayment({ signingSecret: secret });
    const state = travelled(result.state);
    const item = state.pending[0]!;
    expect(item.signature).toMatch(/^[0-9a-f]{64}$/);
    const agent = new Agent({ model: new ScriptedModel([{ text: 'ok' }]), tools, signingSecret: secret });
    await expect(agent.resume(state, { [item.id]: { approved: true } })).rejects.toMatchObject({ code: ErrorCode.ResumeAnswerInvalid });
    await expect(agent.resume(state, { [item.id]: { approved: true, signature: '0'.repeat(64) } })).rejects.toMatchObject({
      code: ErrorCode.ResumeAnswerInvalid,
    });
    // The whole state is signed: one edited anywhere (the call's arguments, the pause id) is refused before anything runs.
    const forged = travelled(state);
    (forged.turn.calls[0] as { arguments: unknown }).arguments = { amount: 999_999 };
    await expect(agent.resume(forged, { [item.id]: { approved: true, signature: item.signature! } })).rejects.toMatchObject({
      code: ErrorCode.RunStateInvalid,
    });
    const replayed = { ...travelled(state), pauseId: 'another pause' };
    await expect(agent.resume(replayed, { [item.id]: { approved: true, signature: item.signature! } })).rejects.toMatchObject({
      code: ErrorCode.RunStateInvalid,
    });
    // A signature that is not hex is refused as any wrong one is, not thrown.
    await expect(agent.resume(state, { [item.id]: { approved: true, signature: 'é'.repeat(64) } })).rejects.toMatchObject({
      code: ErrorCode.ResumeAnswerInvalid,
    });
    await agent.resume(state, { [item.id]: { approved: true, signature: item.signature! } });
    expect(paid).toEqual([40]);
  });

  it('refuses what is not a run state with RUN_STATE_INVALID', async () => {
    const agent = new Agent({ model: new ScriptedModel([]), tools: [] });
    await expect(agent.resume({} as RunState)).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    await expect(agent.resume({ format: 'anytool.run-state', version: 99 } as unknown as RunState)).rejects.toMatchObject({
      code: ErrorCode.RunStateInvalid,
      message: expect.stringMatching(/version 99/),
    });
  });

  it('pauses when the approve callback answers "pause", and asks the callback nothing on resume', async () => {
    const paid: number[] = [];
    const asked: string[] = [];
    const approve = ({ callId }: { callId: string }) => {
      asked.push(callId);
      return 'pause' as const;
    };
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 5 } }] }]),
      tools: [payments(paid)],
      approve,
    });
    const result = await agent.run('pay');
    expect(result.stopReason).toBe('interrupted');
    const state = travelled(result.state);
    await new Agent({ model: new ScriptedModel([{ text: 'done' }]), tools: [payments(paid)], approve }).resume(state, {
      [state.pending[0]!.id]: { approved: true },
    });
    expect(asked).toEqual(['p1']);
    expect(paid).toEqual([5]);
  });
});

describe('a state that does not hold together', () => {
  it('is refused when a pending call was edited to another call, tool or arguments', async () => {
    const { paid, result, tools } = await pausedPayment();
    const item = result.interruptions![0]!;
    const agent = new Agent({ model: new ScriptedModel([{ text: 'ok' }]), tools });
    const edited = (change: (state: RunState) => void): RunState => {
      const state = travelled(result.state);
      change(state);
      return state;
    };
    const bigger = edited((state) => {
      (state.turn.calls[1] as { arguments: unknown }).arguments = { amount: 999_999 };
      (state.messages.at(-1) as { toolCalls: unknown[] }).toolCalls = state.turn.calls;
    });
    await expect(agent.resume(bigger, { [item.id]: { approved: true } })).rejects.toMatchObject({
      code: ErrorCode.RunStateInvalid,
      message: expect.stringMatching(/does not match call "c2"/),
    });
    const apart = edited((state) => {
      (state.turn.calls[1] as { arguments: unknown }).arguments = { amount: 999_999 };
    });
    await expect(agent.resume(apart, { [item.id]: { approved: true } })).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    const undigested = edited((state) => {
      state.tools = {};
    });
    await expect(agent.resume(undigested, { [item.id]: { approved: true } })).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    expect(paid).toEqual([]);
  });

  it('leaves the pause in place when the resume is refused for its options or an aborted signal', async () => {
    const store = new MemoryRunStore();
    const paid: number[] = [];
    const paused = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 4 } }] }]),
      tools: [payments(paid)],
      approve: 'pause',
      store,
    }).run('pay');
    const agent = new Agent({ model: new ScriptedModel([{ text: 'ok' }]), tools: [payments(paid)], store });
    const answers = { [paused.interruptions![0]!.id]: { approved: true } };
    await expect(agent.resume(paused.context.runId, answers, { maxSteps: 0 })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
    await expect(agent.resume(paused.context.runId, answers, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: ErrorCode.Aborted });
    await expect(agent.resume(paused.context.runId, answers, { context: new ExecutionContext() })).rejects.toMatchObject({ code: ErrorCode.InvalidOptions });
    // A copy that differs from the store's is refused too, and takes nothing.
    const copy = { ...travelled(paused.state), usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } };
    await expect(agent.resume(copy, answers)).rejects.toMatchObject({ code: ErrorCode.RunStateInvalid });
    expect(await store.load(paused.context.runId)).toEqual(paused.state);
    await agent.resume(paused.context.runId, answers);
    expect(paid).toEqual([4]);
  });

  it('rejects with the state when the store cannot save it, so the pause is not lost', async () => {
    const failing = {
      save: () => Promise.reject(new Error('disk full')),
      load: () => Promise.resolve(undefined),
      take: () => Promise.resolve(undefined),
      delete: () => Promise.resolve(),
    };
    const paid: number[] = [];
    const error = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 6 } }] }]),
      tools: [payments(paid)],
      approve: 'pause',
      store: failing,
    })
      .run('pay')
      .then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; state?: RunState },
      );
    expect(error).toMatchObject({ code: ErrorCode.StoreFailed, message: expect.stringMatching(/could not be saved in the run store \(disk full\)/) });
    expect(error!.state).toMatchObject({ format: 'anytool.run-state', pending: [{ tool: 'pay' }] });
    await new Agent({ model: new ScriptedModel([{ text: 'ok' }]), tools: [payments(paid)] }).resume(error!.state!, {
      [error!.state!.pending[0]!.id]: { approved: true },
    });
    expect(paid).toEqual([6]);
  });
});

describe('calls that wait twice', () => {
  it('a call approved on one resume that then asks a question is not asked for approval again', async () => {
    const runs: string[] = [];
    const careful = tool(
      (_args: Record<string, never>, context: ExecutionContext) => {
        const name = requestInput(context, { message: 'Name of the new folder?' });
        runs.push(String(name));
        return `made ${String(name)}`;
      },
      { name: 'mkdir', description: 'Makes a folder.', parameters: { type: 'object', properties: {} }, context: true, requiresApproval: true },
    );
    const first = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'm1', name: 'mkdir', arguments: {} }] }]),
      tools: [careful],
      approve: 'pause',
    }).run('make a folder');
    expect(first.interruptions).toEqual([expect.objectContaining({ kind: 'approval' })]);
    let state = travelled(first.state);
    const second = await new Agent({ model: new ScriptedModel([]), tools: [careful], approve: 'pause' }).resume(state, {
      [state.pending[0]!.id]: { approved: true },
    });
    expect(second.interruptions).toEqual([expect.objectContaining({ kind: 'input', granted: true })]);
    state = travelled(second.state);
    const model = new ScriptedModel([{ text: 'Made.' }]);
    const done = await new Agent({ model, tools: [careful], approve: 'pause' }).resume(state, { [state.pending[0]!.id]: { input: 'reports' } });
    expect(done.stopReason).toBe('final_answer');
    expect(runs).toEqual(['reports']);
    expect(sent(model, 0)).toEqual(['made reports']);
  });

  it('a destructive client tool the application runs: approval, then its result', async () => {
    const first = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'x1', name: 'bash', arguments: { command: 'rm old.log' } }] }]),
      tools: [builtin.anthropic.bash('pause')],
      approve: 'pause',
    }).run('clean');
    let state = travelled(first.state);
    const second = await new Agent({ model: new ScriptedModel([]), tools: [builtin.anthropic.bash('pause')], approve: 'pause' }).resume(state, {
      [state.pending[0]!.id]: { approved: true },
    });
    expect(second.interruptions).toEqual([expect.objectContaining({ kind: 'result', granted: true })]);
    state = travelled(second.state);
    const model = new ScriptedModel([{ text: 'Cleaned.' }]);
    await new Agent({ model, tools: [builtin.anthropic.bash('pause')], approve: 'pause' }).resume(state, { [state.pending[0]!.id]: { result: 'removed' } });
    expect(sent(model, 0)).toEqual(['removed']);
  });

  it("keeps serial calls in the model's order across a pause: one behind a paused call runs after it", async () => {
    const order: string[] = [];
    const file = (name: string, destructive: boolean) =>
      tool(
        () => {
          order.push(name);
          return `${name} done`;
        },
        {
          name,
          description: `${name} a file.`,
          parameters: { type: 'object', properties: {} },
          annotations: destructive ? { destructive: true } : { idempotent: false },
          requiresApproval: destructive,
        },
      );
    const tools = () => [file('delete_file', true), file('write_file', false)];
    const first = await new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { id: 'd1', name: 'delete_file', arguments: {} },
            { id: 'w1', name: 'write_file', arguments: {} },
          ],
        },
      ]),
      tools: tools(),
      approve: 'pause',
    }).run('replace the file');
    expect(first.interruptions).toEqual([expect.objectContaining({ tool: 'delete_file' })]);
    expect(order).toEqual([]);
    const state = travelled(first.state);
    expect(state.turn.results).toEqual({});
    const model = new ScriptedModel([{ text: 'Replaced.' }]);
    await new Agent({ model, tools: tools() }).resume(state, { [state.pending[0]!.id]: { approved: true } });
    expect(order).toEqual(['delete_file', 'write_file']);
    expect(sent(model, 0)).toEqual(['delete_file done', 'write_file done']);
  });
});

describe('a tool that asks the user', () => {
  function booking(runs: string[]) {
    return tool(
      (_args: Record<string, never>, context: ExecutionContext) => {
        const city = requestInput(context, { message: 'Which city?', schema: { type: 'string' } });
        const nights = requestInput(context, { message: 'How many nights?', schema: { type: 'integer' } });
        runs.push(`${String(city)} x${String(nights)}`);
        return `booked ${String(city)} for ${String(nights)} nights`;
      },
      { name: 'book', description: 'Books a hotel.', parameters: { type: 'object', properties: {} }, context: true },
    );
  }

  it('pauses at each question, and finishes once every answer came back', async () => {
    const runs: string[] = [];
    const tools = [booking(runs)];
    const first = await new Agent({ model: new ScriptedModel([{ toolCalls: [{ id: 'b1', name: 'book', arguments: {} }] }]), tools }).run('book a hotel');
    expect(first.stopReason).toBe('interrupted');
    expect(first.interruptions).toEqual([
      expect.objectContaining({ kind: 'input', tool: 'book', callId: 'b1', questions: { 'input-1': { message: 'Which city?', schema: { type: 'string' } } } }),
    ]);
    let state = travelled(first.state);
    const second = await new Agent({ model: new ScriptedModel([]), tools }).resume(state, { [state.pending[0]!.id]: { input: 'Oslo' } });
    expect(second.stopReason).toBe('interrupted');
    expect(second.interruptions![0]).toMatchObject({
      kind: 'input',
      questions: { 'input-2': { message: 'How many nights?' } },
      answered: { 'input-1': 'Oslo' },
    });
    state = travelled(second.state);
    const model = new ScriptedModel([{ text: 'Booked.' }]);
    const done = await new Agent({ model, tools }).resume(state, { [state.pending[0]!.id]: { input: 3 } });
    expect(done.stopReason).toBe('final_answer');
    expect(runs).toEqual(['Oslo x3']);
    expect(sent(model, 0)).toEqual(['booked Oslo for 3 nights']);
  });

  it('outside a run that can pause, ends the call with INPUT_REQUIRED', async () => {
    const runs: string[] = [];
    const { Toolset } = await import('@anytool/core');
    const result = await new Toolset(booking(runs)).invoke('book', {});
    expect(result.error?.code).toBe(ErrorCode.InputRequired);
    expect(resultText(result)).toMatch(/Tool "book" failed: it asked the user "Which city\?", but this run cannot pause/);
  });
});

describe('a client tool the application runs itself', () => {
  // bash is marked destructive: these agents approve its calls, as an application that runs them itself may.
  it('pauses with the call, and gives the model the result the application sent back', async () => {
    const bash = builtin.anthropic.bash('pause');
    const first = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'x1', name: 'bash', arguments: { command: 'ls' } }] }]),
      tools: [bash],
      approve: () => true,
    }).run('list');
    expect(first.stopReason).toBe('interrupted');
    expect(first.interruptions).toEqual([
      expect.objectContaining({ kind: 'result', tool: 'bash', args: { command: 'ls' }, reason: 'the application runs the Anthropic tool "bash"' }),
    ]);
    const state = travelled(first.state);
    const model = new ScriptedModel([{ text: 'Two files.' }]);
    await new Agent({ model, tools: [builtin.anthropic.bash('pause')], approve: () => true }).resume(state, {
      [state.pending[0]!.id]: { result: textResult('a.txt\nb.txt') },
    });
    expect(sent(model, 0)).toEqual(['a.txt\nb.txt']);
    // A plain value is a result too, as a tool's return value is.
    const again = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'x2', name: 'bash', arguments: { command: 'pwd' } }] }]),
      tools: [bash],
      approve: () => true,
    }).run('where');
    const second = new ScriptedModel([{ text: 'ok' }]);
    await new Agent({ model: second, tools: [bash], approve: () => true }).resume(travelled(again.state), {
      [again.interruptions![0]!.id]: { result: '/home' },
    });
    expect(sent(second, 0)).toEqual(['/home']);
  });
});

describe('what a paused run carries on', () => {
  it("goes on in the same trace: the resumed run is a child of the paused run's span", async () => {
    const otel = memoryTelemetry();
    const paid: number[] = [];
    const first = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 1 } }] }]),
      tools: [payments(paid)],
      approve: 'pause',
      tracing: otel,
    }).run('pay');
    const state = travelled(first.state);
    expect(state.trace?.['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    await new Agent({ model: new ScriptedModel([{ text: 'done' }]), tools: [payments(paid)], tracing: otel }).resume(state, {
      [state.pending[0]!.id]: { approved: true },
    });
    const runs = otel.spans().filter((span) => span.name.startsWith('invoke_agent'));
    expect(runs).toHaveLength(2);
    const [paused, resumed] = runs;
    expect(resumed!.spanContext().traceId).toBe(paused!.spanContext().traceId);
    expect(resumed!.parentSpanContext?.spanId).toBe(paused!.spanContext().spanId);
    expect(paused!.attributes['anytool.agent.stop_reason']).toBe('interrupted');
    // The approved call's span is in the resumed run.
    const call = otel.spans().find((span) => span.name === 'execute_tool pay' && span.parentSpanContext?.spanId === resumed!.spanContext().spanId);
    expect(call).toBeDefined();
  });

  it("keeps no secret of the run: the state holds the conversation, not the context's state", async () => {
    const paid: number[] = [];
    const context = new ExecutionContext();
    context.state.set('apiKey', 'sk-secret-value');
    const result = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 2 } }] }]),
      tools: [payments(paid)],
      approve: 'pause',
    }).run('pay', { context });
    expect(JSON.stringify(result.state)).not.toContain('sk-secret-value');
  });

  it("streams a resumed run: the approved call's result, the next turn, the result; a refused resume throws from the iteration", async () => {
    const { paid, result, tools } = await pausedPayment();
    const state = travelled(result.state);
    const agent = new Agent({ model: new ScriptedModel([{ text: 'Paid.' }]), tools });
    const events = [];
    for await (const event of agent.resumeStream(state, { [state.pending[0]!.id]: { approved: true } })) events.push(event);
    expect(events.map((event) => (event.type === 'tool_result' ? `${event.tool}: ${resultText(event.result)}` : event.type))).toEqual([
      'pay: paid 40',
      'text_delta',
      'result',
    ]);
    expect(events.at(-1)).toMatchObject({ result: { stopReason: 'final_answer', text: 'Paid.', context: { runId: result.context.runId } } });
    expect(paid).toEqual([40]);
    const again = agent.resumeStream(state, { [state.pending[0]!.id]: { approved: true } });
    await expect(again.next()).rejects.toMatchObject({ code: ErrorCode.RunAlreadyResumed });
  });

  it('streams a run that pauses: the result event carries the interruptions', async () => {
    const paid: number[] = [];
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 3 } }] }]),
      tools: [payments(paid)],
      approve: 'pause',
    });
    const events = [];
    for await (const event of agent.stream('pay')) events.push(event);
    const last = events[events.length - 1];
    expect(last).toMatchObject({ type: 'result', result: { stopReason: 'interrupted', interruptions: [{ tool: 'pay' }] } });
  });
});
