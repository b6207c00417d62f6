// An agent used as a tool of another (`agent.asTool`): its own context, its events and spans under the call,
// its usage in the caller's, and its pauses surfacing to the caller's run, which resumes it.
import { ErrorCode, ExecutionContext, Toolset, resultText, tool, type RunEvent } from '@anytool/core';
import { Agent, ScriptedModel, type AgentStreamEvent, type RunResult, type RunState, type ToolMessage } from '@anytool/agent';
import { memoryTelemetry, spanTree } from '../../core/test/helpers/otel';
import { PROVIDERS } from './helpers/provider-replies.js';
import { startProviderServer, type ProviderServer } from './helpers/provider-server.js';

const search = tool(({ query }: { query: string }) => `3 results for ${query}`, {
  name: 'search',
  description: 'Searches the archive.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
});

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

/** What a state looks like after it travelled as JSON (a database, a browser, another process). */
const travelled = (state: RunState | undefined): RunState => JSON.parse(JSON.stringify(state)) as RunState;

async function drain(stream: AsyncIterable<AgentStreamEvent>): Promise<{ seen: AgentStreamEvent[]; result: RunResult }> {
  const seen: AgentStreamEvent[] = [];
  for await (const event of stream) seen.push(event);
  const last = seen.at(-1)!;
  if (last.type !== 'result') throw new Error('the stream did not end with its result');
  return { seen, result: last.result };
}

describe('agent.asTool: an agent one more tool of another, for each adapter', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const provider of PROVIDERS) {
    for (const stream of [false, true]) {
      it(`${provider.name}${stream ? ', streamed' : ''}: the inner run sees only its task, its events nest under the call, its usage adds up`, async () => {
        server = await startProviderServer([
          provider.toolCall('call_outer', 'research', { task: 'Find the 2024 report' }, stream),
          provider.toolCall('call_inner', 'search', { query: '2024 report' }, stream),
          provider.text('Found: 3 results.', stream),
          provider.text('The researcher found 3 results.', stream),
        ]);
        const model = provider.model(server.url);
        const researcher = new Agent({ model, tools: [search], name: 'researcher', instructions: 'You research.' });
        const lead = new Agent({
          model,
          instructions: 'You lead.',
          tools: [researcher.asTool({ name: 'research', description: 'Researches a question in the archive.' })],
        });
        const context = new ExecutionContext();
        context.state.set('secret', 'the outer run keeps this');
        const input = 'What does the 2024 report say? (outer conversation)';
        const { result, seen } = stream ? await drain(lead.stream(input, { context })) : { result: await lead.run(input, { context }), seen: [] };

        expect(result).toMatchObject({ text: 'The researcher found 3 results.', stopReason: 'final_answer', steps: 2 });
        // Two outer turns and two inner ones, each 50 in and 20 out.
        const turn = provider.usage.input + provider.usage.output;
        expect(result.usage).toEqual({ inputTokens: 4 * provider.usage.input, outputTokens: 4 * provider.usage.output, totalTokens: 4 * turn });
        // The inner model is asked the task alone, with its own instructions: nothing of the outer conversation.
        const innerRequest = JSON.stringify(server.requests[1]!.body);
        expect(innerRequest).toContain('Find the 2024 report');
        expect(innerRequest).toContain('You research.');
        expect(innerRequest).not.toContain('outer conversation');
        expect(innerRequest).not.toContain('You lead.');
        // The tool's result is the inner answer.
        expect(JSON.stringify(server.requests[3]!.body)).toContain('Found: 3 results.');
        // The inner run's events, under the outer call, between its call and its result.
        const outer = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'nested');
        const shown = outer.map((e) => (e.type === 'nested' ? `  ${e.event.type} ${line(e.event)}` : `${e.type} ${e.tool}`));
        expect(shown.filter((line) => !line.includes('message') || line.includes('user'))).toEqual([
          'tool_call research',
          '  message user: Find the 2024 report',
          // A streamed run's agent tool streams too: the inner deltas reach the outer reader.
          ...(stream ? ['  tool_call_start search', '  tool_call_delta {"query":"2024 report"}'] : []),
          '  tool_call search',
          '  tool_result search: 3 results for 2024 report',
          ...(stream ? ['  text_delta Found: 3 results.'] : []),
          'tool_result research',
        ]);
        const nested = outer.filter((e) => e.type === 'nested');
        expect(new Set(nested.map((e) => e.callId))).toEqual(new Set(['call_outer']));
        expect(nested[0]!.runId).not.toBe(result.context.runId);
        // Nothing of the outer state reached the inner run: it had no key to read, and wrote none back.
        expect([...result.context.state.keys()]).toEqual(['secret']);
        if (stream) {
          const types = seen.map((e) => (e.type === 'nested' ? `nested ${e.event.type}` : e.type));
          expect(types.indexOf('nested tool_call')).toBeGreaterThan(types.indexOf('tool_call_start'));
          expect(types.indexOf('nested text_delta')).toBeGreaterThan(types.indexOf('nested tool_result'));
          expect(types.indexOf('nested text_delta')).toBeLessThan(types.indexOf('tool_result'));
        }
      });
    }
  }
});

function line(event: RunEvent): string {
  if (event.type === 'message') return `${event.role}: ${event.text}`;
  if (event.type === 'tool_call' || event.type === 'tool_call_start') return event.tool;
  if (event.type === 'tool_call_delta') return event.delta;
  if (event.type === 'text_delta') return event.text;
  if (event.type === 'tool_result') return `${event.tool}: ${resultText(event.result)}`;
  return '';
}

describe('agent.asTool: what crosses between the runs', () => {
  it('gives the inner run the declared state keys only, and takes back the declared writes', async () => {
    const seen: Record<string, unknown> = {};
    const note = tool(
      (_args: Record<string, never>, context: ExecutionContext) => {
        seen['user'] = context.state.get('user');
        seen['secret'] = context.state.has('secret');
        context.state.set('notes', `notes for ${String(context.state.get('user'))}`);
        return 'noted';
      },
      {
        name: 'note',
        description: 'Takes a note.',
        parameters: { type: 'object', properties: {} },
        context: { state: { read: ['user', 'secret'], write: ['notes'] } },
      },
    );
    const inner = new Agent({ model: new ScriptedModel([{ toolCalls: [{ name: 'note' }] }, { text: 'done' }]), tools: [note] });
    const outer = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'assist', arguments: { task: 'take a note' } }] }, { text: 'ok' }]),
      tools: [inner.asTool({ name: 'assist', description: 'Assists.', state: { read: ['user'], write: ['notes'] } })],
    });
    const context = new ExecutionContext();
    context.state.set('user', 'ada');
    context.state.set('secret', 's3cret');
    const result = await outer.run('go', { context });
    expect(result.text).toBe('ok');
    expect(seen).toEqual({ user: 'ada', secret: false });
    expect(context.state.get('notes')).toBe('notes for ada');
    expect(context.state.get('secret')).toBe('s3cret');
  });

  it('takes its own arguments with `parameters` and `input`, and returns what `output` makes of the result', async () => {
    const innerModel = new ScriptedModel([{ text: 'Bonjour' }]);
    const inner = new Agent({ model: innerModel });
    const translate = inner.asTool<{ text: string; to: string }>({
      name: 'translate',
      description: 'Translates a text.',
      parameters: { type: 'object', properties: { text: { type: 'string' }, to: { type: 'string' } }, required: ['text', 'to'] },
      input: ({ text, to }) => `Translate into ${to}: ${text}`,
      output: (result) => ({ translation: result.text, turns: result.steps }),
    });
    const result = await new Toolset(translate).invoke('translate', { text: 'Hello', to: 'French' }, new ExecutionContext());
    expect(result.structured).toEqual({ translation: 'Bonjour', turns: 1 });
    expect(innerModel.requests[0]!.messages).toEqual([{ role: 'user', content: 'Translate into French: Hello' }]);
    expect(() => inner.asTool({ name: 'x', description: 'X.', parameters: { type: 'object', properties: { q: { type: 'string' } } } })).toThrow(
      expect.objectContaining({ code: ErrorCode.InvalidOptions, message: expect.stringContaining('`input`') }),
    );
    expect(() => inner.asTool({ description: 'no name' } as never)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });

  it('nests its spans: invoke_agent inside the execute_tool span of the call', async () => {
    const otel = memoryTelemetry();
    const tracing = { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider };
    const inner = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'search', arguments: { query: 'q' } }] }, { text: 'found' }]),
      tools: [search],
      name: 'researcher',
      tracing,
    });
    const outer = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'research', arguments: { task: 'q' } }] }, { text: 'ok' }]),
      tools: [inner.asTool({ name: 'research', description: 'Researches.' })],
      name: 'lead',
      tracing,
    });
    await outer.run('go');
    expect(spanTree(otel.spans())).toBe(
      [
        'invoke_agent lead',
        '  chat scripted',
        '  execute_tool research',
        '    invoke_agent researcher',
        '      chat scripted',
        '      execute_tool search',
        '      chat scripted',
        '  chat scripted',
      ].join('\n'),
    );
  });
});

describe('agent.asTool: an inner run that pauses pauses the outer run, and resumes through it', () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const provider of PROVIDERS) {
    it(`${provider.name}: the inner approval is the outer run's item; approving it resumes both, and the inner call runs once`, async () => {
      server = await startProviderServer([
        provider.toolCall('call_outer', 'billing', { task: 'Pay invoice 7 (40 EUR)' }, false),
        provider.toolCall('call_pay', 'pay', { amount: 40 }, false),
        // After the resume: the inner run goes on, then the outer.
        provider.text('Paid 40.', true),
        provider.text('The invoice is paid.', true),
      ]);
      const paid: number[] = [];
      const model = provider.model(server.url);
      const billing = new Agent({ model, tools: [payments(paid)], approve: 'pause', name: 'billing' });
      const lead = new Agent({ model, tools: [billing.asTool({ name: 'billing', description: 'Handles payments.' })], signingSecret: 'a secret of 16+ chars' });
      const paused = await lead.run('Pay invoice 7');

      expect(paused.stopReason).toBe('interrupted');
      expect(paid).toEqual([]);
      expect(paused.interruptions).toEqual([
        expect.objectContaining({
          kind: 'approval',
          tool: 'billing',
          callId: 'call_outer',
          args: { task: 'Pay invoice 7 (40 EUR)' },
          approval: { kind: 'call' },
          reason: expect.stringMatching(/^the agent "billing" waits: tool "pay" needs approval \(its call to "pay" with \{"amount":40\}\)$/),
        }),
      ]);
      // The inner model's turns count in the paused run's usage already.
      expect(paused.usage.totalTokens).toBe(2 * (provider.usage.input + provider.usage.output));
      const item = paused.interruptions![0]!;
      const { result: done, seen } = await drain(lead.resumeStream(travelled(paused.state), { [item.id]: { approved: true, signature: item.signature! } }));
      expect(done).toMatchObject({ stopReason: 'final_answer', text: 'The invoice is paid.' });
      expect(paid).toEqual([40]);
      expect(done.usage.totalTokens).toBe(4 * (provider.usage.input + provider.usage.output));
      expect(seen.filter((e) => e.type === 'nested').map((e) => (e.type === 'nested' ? e.event.type : ''))).toContain('tool_result');
      expect(JSON.stringify(server.requests[2]!.body)).toContain('paid 40');
      expect(server.requests).toHaveLength(4);
    });
  }

  it('a refusal reaches the inner run; an unanswered item is asked again without running the inner turn again', async () => {
    const paid: number[] = [];
    const innerModel = new ScriptedModel([
      {
        toolCalls: [
          { id: 'c_search', name: 'search', arguments: { query: 'invoice 7' } },
          { id: 'c_pay', name: 'pay', arguments: { amount: 40 } },
        ],
      },
      (request) => ({
        text: `inner saw: ${request.messages
          .filter((m) => m.role === 'tool')
          .map((m) => resultText(m.result))
          .join(' | ')}`,
      }),
    ]);
    let searches = 0;
    const counted = tool(
      ({ query }: { query: string }) => {
        searches++;
        return `found ${query}`;
      },
      { name: 'search', description: 'Searches.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
    );
    const billing = new Agent({ model: innerModel, tools: [payments(paid), counted], approve: 'pause' });
    const outerModel = new ScriptedModel([
      { toolCalls: [{ id: 'c_outer', name: 'billing', arguments: { task: 'pay invoice 7' } }] },
      (request) => ({
        text: `outer got: ${request.messages
          .filter((m) => m.role === 'tool')
          .map((m) => resultText(m.result))
          .join('')}`,
      }),
    ]);
    const lead = new Agent({ model: outerModel, tools: [billing.asTool({ name: 'billing', description: 'Handles payments.' })] });
    const first = await lead.run('pay');
    expect(first.stopReason).toBe('interrupted');
    // Resumed without an answer: the same question again, from the same inner pause (the search does not run again).
    const again = await lead.resume(travelled(first.state), {});
    expect(again.stopReason).toBe('interrupted');
    expect(again.interruptions!.map((i) => [i.kind, i.tool, i.reason])).toEqual(first.interruptions!.map((i) => [i.kind, i.tool, i.reason]));
    expect(searches).toBe(1);
    expect(innerModel.turns).toBe(1);
    const done = await lead.resume(travelled(again.state), { [again.interruptions![0]!.id]: { approved: false, reason: 'over budget' } });
    expect(paid).toEqual([]);
    expect(searches).toBe(1);
    expect(done.text).toMatch(/^outer got: inner saw: found invoice 7 \| The call to tool "pay" was not approved \(over budget\)/);
  });

  it("surfaces an inner tool's question as the outer item, and gives the answer back to it", async () => {
    const { requestInput } = await import('@anytool/core');
    const ask = tool(
      (_args: Record<string, never>, context: ExecutionContext) =>
        `shipping to ${String(requestInput(context, { message: 'Which city?', schema: { type: 'string' } }))}`,
      { name: 'ship', description: 'Ships.', parameters: { type: 'object', properties: {} }, context: true },
    );
    const inner = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'ship' }] }, (request) => ({ text: resultText((request.messages.at(-1) as ToolMessage).result) })]),
      tools: [ask],
    });
    const lead = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: 'shipping', arguments: { task: 'ship it' } }] },
        (request) => ({ text: resultText((request.messages.at(-1) as ToolMessage).result) }),
      ]),
      tools: [inner.asTool({ name: 'shipping', description: 'Ships orders.' })],
    });
    const paused = await lead.run('ship');
    expect(paused.interruptions).toEqual([
      expect.objectContaining({ kind: 'input', tool: 'shipping', questions: { 'input-1': { message: 'Which city?', schema: { type: 'string' } } } }),
    ]);
    const done = await lead.resume(travelled(paused.state), { [paused.interruptions![0]!.id]: { input: 'Oslo' } });
    expect(done.text).toBe('shipping to Oslo');
  });

  it('an agent tool that itself needs approval: asked first, then the inner approval, each answered once', async () => {
    const paid: number[] = [];
    const billing = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'pay', arguments: { amount: 7 } }] }, { text: 'paid' }]),
      tools: [payments(paid)],
      approve: 'pause',
      signingSecret: 'the inner agent secret',
    });
    const lead = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'billing', arguments: { task: 'pay 7' } }] }, { text: 'done' }]),
      tools: [billing.asTool({ name: 'billing', description: 'Pays.', requiresApproval: true })],
      approve: 'pause',
    });
    const first = await lead.run('pay');
    expect(first.interruptions).toEqual([expect.objectContaining({ kind: 'approval', tool: 'billing', reason: 'tool "billing" needs approval' })]);
    const second = await lead.resume(travelled(first.state), { [first.interruptions![0]!.id]: { approved: true } });
    expect(second.interruptions).toEqual([
      expect.objectContaining({ kind: 'approval', tool: 'billing', granted: true, reason: expect.stringContaining('tool "pay" needs approval') }),
    ]);
    expect(paid).toEqual([]);
    const done = await lead.resume(travelled(second.state), { [second.interruptions![0]!.id]: { approved: true } });
    expect(done).toMatchObject({ stopReason: 'final_answer', text: 'done' });
    expect(paid).toEqual([7]);
  });

  it('ends the call with the pending result where the calling run cannot pause', async () => {
    const billing = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: 'pay', arguments: { amount: 5 } }] }]),
      tools: [payments([])],
      approve: 'pause',
    });
    const result = await new Toolset(billing.asTool({ name: 'billing', description: 'Pays.' })).invoke('billing', { task: 'pay 5' }, new ExecutionContext());
    expect(result.isError).toBe(true);
    expect(result.error).toMatchObject({ code: ErrorCode.ApprovalPending, message: expect.stringContaining('this run cannot pause') });
  });
});
