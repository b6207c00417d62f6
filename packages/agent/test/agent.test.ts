import {
  AnytoolError,
  BaseTool,
  ErrorCode,
  ExecutionContext,
  Toolset,
  resultText,
  tool,
  type RunEvent,
  type ToolCallEvent,
  type ToolResultEvent,
} from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type ApprovalRequest, type ModelRequest } from '@anytool/agent';

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});

const fail = tool(
  (): never => {
    throw new Error('disk on fire');
  },
  { name: 'fail', description: 'Always throws.', parameters: { type: 'object', properties: {} } },
);

function calls(events: readonly RunEvent[]): ToolCallEvent[] {
  return events.filter((e): e is ToolCallEvent => e.type === 'tool_call');
}
function results(events: readonly RunEvent[]): ToolResultEvent[] {
  return events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
}
function lastResultsText(request: ModelRequest): string[] {
  return latestToolResults(request).map((m) => resultText(m.result));
}

describe('Agent.run', () => {
  it('returns the final answer of a turn without tool calls, with usage and the story in events', async () => {
    const model = new ScriptedModel([{ text: 'Hello!', usage: { inputTokens: 7, outputTokens: 3 } }]);
    const agent = new Agent({ model, tools: [add], instructions: 'Be brief.' });
    const result = await agent.run('Hi');
    expect(result).toMatchObject({ text: 'Hello!', stopReason: 'final_answer', steps: 1, usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } });
    expect(result.context.events.map((e) => (e.type === 'message' ? `${e.role}:${e.text}` : e.type))).toEqual([
      'system:Be brief.',
      'user:Hi',
      'assistant:Hello!',
    ]);
    expect(model.requests[0]).toMatchObject({ instructions: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add']);
  });

  it('runs tool calls through the toolset with the model call ids, sends results back and sums usage', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a":2,"b":3}' }] },
      (request) => ({ text: `It is ${lastResultsText(request).join()}.` }),
    ]);
    const result = await new Agent({ model, tools: add }).run('2+3?');
    expect(result.text).toBe('It is 5.');
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    expect(calls(result.context.events)).toMatchObject([{ callId: 'c1', tool: 'add', args: '{"a":2,"b":3}' }]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.messages[2]).toMatchObject({ role: 'tool', callId: 'c1', name: 'add' });
  });

  it('returns results in the model order even when a later call finishes first', async () => {
    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    const slow = tool(
      async () => {
        await slowGate;
        return 'slow';
      },
      { name: 'slow', description: 'Slow.', parameters: { type: 'object', properties: {} } },
    );
    const fast = tool(
      () => {
        releaseSlow();
        return 'fast';
      },
      { name: 'fast', description: 'Fast.', parameters: { type: 'object', properties: {} } },
    );
    const model = new ScriptedModel([{ toolCalls: [{ name: 'slow' }, { name: 'fast' }] }, (request) => ({ text: lastResultsText(request).join(',') })]);
    const result = await new Agent({ model, tools: [slow, fast] }).run('go');
    expect(result.text).toBe('slow,fast');
    expect(results(result.context.events).map((e) => e.tool)).toEqual(['fast', 'slow']);
  });

  it('sends every failure back to the model as a tool result it can correct', async () => {
    const slow = tool(() => new Promise(() => undefined), {
      name: 'hang',
      description: 'Never settles.',
      parameters: { type: 'object', properties: {} },
      timeoutMs: 20,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'nope', arguments: {} },
          { name: 'add', arguments: '{"a": 1, "b": ' },
          { name: 'add', arguments: { a: 'one', b: 2 } },
          { name: 'fail' },
          { name: 'hang' },
        ],
      },
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
      { text: 'done' },
    ]);
    const result = await new Agent({ model, tools: [add, fail, slow] }).run('try');
    expect(result.stopReason).toBe('final_answer');
    const sent = latestToolResults(model.requests[1]!);
    expect(sent.map((m) => m.result.error?.code)).toEqual([
      ErrorCode.UnknownTool,
      ErrorCode.InvalidArguments,
      ErrorCode.InvalidArguments,
      ErrorCode.ToolFailed,
      ErrorCode.Timeout,
    ]);
    expect(resultText(sent[0]!.result)).toContain('add, fail, hang');
    expect(resultText(sent[1]!.result)).toContain('not valid JSON');
    expect(resultText(sent[3]!.result)).toContain('disk on fire');
    expect(resultText(latestToolResults(model.requests[2]!)[0]!.result)).toBe('3');
  });

  it("stops at the step limit after running that step's calls", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      { text: 'thinking', toolCalls: [{ name: 'add', arguments: { a: 2, b: 2 } }] },
      { text: 'never' },
    ]);
    const result = await new Agent({ model, tools: [add], maxSteps: 2 }).run('loop');
    expect(result).toMatchObject({ stopReason: 'max_steps', steps: 2, text: 'thinking' });
    expect(model.turns).toBe(2);
    expect(results(result.context.events)).toHaveLength(2);
    expect(result.context.events.at(-1)!.type).toBe('tool_result');
  });

  it('uses the context it is given and shares its state with the tools', async () => {
    const counter = tool(
      (_args: object, context: ExecutionContext) => {
        const n = ((context.state.get('n') as number | undefined) ?? 0) + 1;
        context.state.set('n', n);
        return n;
      },
      { name: 'count', description: 'Count.', parameters: { type: 'object', properties: {} }, context: { state: { read: ['n'], write: ['n'] } } },
    );
    const context = new ExecutionContext();
    context.state.set('n', 41);
    const model = new ScriptedModel([{ toolCalls: [{ name: 'count' }] }, { text: 'ok' }]);
    const result = await new Agent({ model, tools: new Toolset(counter) }).run('count', { context });
    expect(result.context).toBe(context);
    expect(context.state.get('n')).toBe(42);
  });

  it('continues a conversation from the messages of an earlier run', async () => {
    const model = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const agent = new Agent({ model });
    const first = await agent.run('one');
    const second = await agent.run([...first.messages, { role: 'user', content: 'two' }]);
    expect(second.text).toBe('second');
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});

describe('concurrency within one turn', () => {
  /** A read-only tool that finishes only once `count` of its calls have started: it can only pass if they overlap. */
  function latchTool(count: number): BaseTool {
    let started = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    return tool(
      async ({ id }: { id: number }) => {
        if (++started === count) open();
        await gate;
        return `read ${id}`;
      },
      {
        name: 'read',
        description: 'Read.',
        parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
        annotations: { readOnly: true },
        timeoutMs: 5000,
      },
    );
  }

  class Write extends BaseTool<{ id: number }> {
    running = 0;
    maxRunning = 0;
    constructor(name: string, annotations: NonNullable<BaseTool['annotations']>) {
      super({ name, description: 'Write.', parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }, annotations });
    }
    async execute(_context: ExecutionContext, { id }: { id: number }): Promise<string> {
      this.maxRunning = Math.max(this.maxRunning, ++this.running);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      this.running--;
      return `wrote ${id}`;
    }
  }

  it('runs read-only calls together and destructive or non-idempotent calls one at a time in model order', async () => {
    const write = new Write('write', { destructive: true });
    const append = new Write('append', { idempotent: false });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'w1', name: 'write', arguments: { id: 1 } },
          { id: 'r1', name: 'read', arguments: { id: 1 } },
          { id: 'a2', name: 'append', arguments: { id: 2 } },
          { id: 'r2', name: 'read', arguments: { id: 2 } },
          { id: 'w3', name: 'write', arguments: { id: 3 } },
        ],
      },
      (request) => ({ text: lastResultsText(request).join(', ') }),
    ]);
    const result = await new Agent({ model, tools: [latchTool(2), write, append], approve: () => true }).run('go');
    expect(result.text).toBe('wrote 1, read 1, wrote 2, read 2, wrote 3');

    const span = new Map<string, [number, number]>();
    for (const e of result.context.events) {
      if (e.type === 'tool_call') span.set(e.callId, [e.time, Infinity]);
      if (e.type === 'tool_result') span.get(e.callId)![1] = e.time;
    }
    const [r1, r2] = [span.get('r1')!, span.get('r2')!];
    expect(r1[0] < r2[1] && r2[0] < r1[1]).toBe(true);
    const serial = ['w1', 'a2', 'w3'].map((id) => span.get(id)!);
    for (let i = 1; i < serial.length; i++) expect(serial[i]![0]).toBeGreaterThanOrEqual(serial[i - 1]![1]);
    expect(write.maxRunning).toBe(1);
    expect(append.maxRunning).toBe(1);
  });
});

describe('approval', () => {
  const deleteFile = tool(({ path }: { path: string }) => `deleted ${path}`, {
    name: 'delete_file',
    description: 'Delete a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    requiresApproval: true,
  });
  const drop = tool(() => 'dropped', {
    name: 'drop_table',
    description: 'Drop a table.',
    parameters: { type: 'object', properties: {} },
    annotations: { destructive: true },
  });

  it('asks the callback, runs approved calls and sends refusals back as tool results', async () => {
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'd1', name: 'delete_file', arguments: { path: '/tmp/a' } },
          { id: 'd2', name: 'delete_file', arguments: { path: '/etc/passwd' } },
          { id: 'd3', name: 'drop_table' },
        ],
      },
      { text: 'ok' },
    ]);
    const agent = new Agent({
      model,
      tools: [deleteFile, drop],
      approve: (request) => {
        asked.push(request);
        const path = (request.args as { path?: string }).path;
        return path === '/etc/passwd' ? { approved: false, reason: 'system file' } : request.tool.name !== 'drop_table';
      },
    });
    const result = await agent.run('clean up');
    expect(asked.map((r) => r.callId)).toEqual(['d1', 'd2', 'd3']);
    const sent = latestToolResults(model.requests[1]!);
    expect(resultText(sent[0]!.result)).toBe('deleted /tmp/a');
    expect(sent[1]!.result.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(resultText(sent[1]!.result)).toContain('system file');
    expect(sent[2]!.result.error?.code).toBe(ErrorCode.ApprovalDenied);
    expect(results(result.context.events).map((e) => [e.callId, e.result.isError])).toEqual([
      ['d1', false],
      ['d2', true],
      ['d3', true],
    ]);
  });

  it('asks one question at a time, in model order, while approved calls still run concurrently', async () => {
    let asking = 0;
    let maxAsking = 0;
    const order: string[] = [];
    const model = new ScriptedModel([{ toolCalls: ['a', 'b', 'c'].map((p) => ({ id: p, name: 'delete_file', arguments: { path: p } })) }, { text: 'ok' }]);
    const agent = new Agent({
      model,
      tools: [deleteFile],
      approve: async ({ callId }) => {
        maxAsking = Math.max(maxAsking, ++asking);
        order.push(callId);
        await new Promise((resolve) => setImmediate(resolve));
        asking--;
        return true;
      },
    });
    await agent.run('go');
    expect(order).toEqual(['a', 'b', 'c']);
    expect(maxAsking).toBe(1);
    expect(latestToolResults(model.requests[1]!).map((m) => resultText(m.result))).toEqual(['deleted a', 'deleted b', 'deleted c']);
  });

  it("asks a turn's questions in model order when serial (destructive) and other approval calls mix", async () => {
    const order: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'drop1', name: 'drop_table' },
          { id: 'del1', name: 'delete_file', arguments: { path: 'a' } },
          { id: 'drop2', name: 'drop_table' },
          { id: 'del2', name: 'delete_file', arguments: { path: 'b' } },
        ],
      },
      { text: 'ok' },
    ]);
    const result = await new Agent({ model, tools: [deleteFile, drop], approve: ({ callId }) => (order.push(callId), true) }).run('go');
    expect(order).toEqual(['drop1', 'del1', 'drop2', 'del2']);
    const span = (id: string): [number, number] => [
      calls(result.context.events).find((e) => e.callId === id)!.time,
      results(result.context.events).find((e) => e.callId === id)!.time,
    ];
    expect(span('drop2')[0]).toBeGreaterThanOrEqual(span('drop1')[1]);
    expect(latestToolResults(model.requests[1]!).map((m) => resultText(m.result))).toEqual(['dropped', 'deleted a', 'dropped', 'deleted b']);
  });

  it('refuses calls that need approval when there is no callback, or when the callback throws', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'x' } }] },
      { text: 'ok' },
      { toolCalls: [{ name: 'delete_file', arguments: { path: 'y' } }] },
      { text: 'ok' },
    ]);
    await new Agent({ model, tools: [deleteFile] }).run('a');
    expect(resultText(latestToolResults(model.requests[1]!)[0]!.result)).toContain('no approve callback');
    const result = await new Agent({
      model,
      tools: [deleteFile],
      approve: () => {
        throw new Error('ui gone');
      },
    }).run('b');
    expect(resultText(latestToolResults(model.requests[3]!)[0]!.result)).toContain('ui gone');
    expect(result.context.events.some((e) => e.type === 'diagnostic' && e.code === ErrorCode.ApprovalDenied && e.source === 'approval')).toBe(true);
  });
});

describe('limits and failures', () => {
  const waitForAbort = tool(
    (_args: object, context: ExecutionContext) =>
      new Promise((_resolve, reject) => context.signal!.addEventListener('abort', () => reject(new Error('stopped')))),
    { name: 'wait', description: 'Waits until the run is aborted.', parameters: { type: 'object', properties: {} }, context: true },
  );

  it('stops with "timeout" when the run runs out of time, and tells the tools', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'wait' }] }, { text: 'never' }]);
    const result = await new Agent({ model, tools: [waitForAbort], timeoutMs: 30 }).run('wait');
    expect(result.stopReason).toBe('timeout');
    expect(model.turns).toBe(1);
    expect(results(result.context.events)[0]!.result.error?.code).toBe(ErrorCode.Aborted);
    expect(result.context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.Timeout });
  });

  it('stops with "aborted" when the caller aborts, before or during a turn', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      () => {
        setImmediate(() => controller.abort(new Error('user pressed stop')));
        return { toolCalls: [{ name: 'wait' }] };
      },
    ]);
    const result = await new Agent({ model, tools: [waitForAbort] }).run('wait', { signal: controller.signal });
    expect(result).toMatchObject({ stopReason: 'aborted', steps: 1 });
    expect(result.context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.Aborted });
    const again = await new Agent({ model: new ScriptedModel([]), tools: [] }).run('x', { signal: controller.signal });
    expect(again).toMatchObject({ stopReason: 'aborted', steps: 0 });
  });

  it('stops with "timeout" even when the model ignores request.signal and never answers', async () => {
    const model = { name: 'deaf', generate: () => new Promise<never>(() => undefined) };
    const result = await new Agent({ model, timeoutMs: 20 }).run('x');
    expect(result).toMatchObject({ stopReason: 'timeout', steps: 0 });
    expect(result.context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.Timeout });
  });

  it('stops with "aborted" when a ScriptedModel function step never settles', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      () => {
        setImmediate(() => controller.abort());
        return new Promise<never>(() => undefined);
      },
    ]);
    const result = await new Agent({ model }).run('x', { signal: controller.signal });
    expect(result).toMatchObject({ stopReason: 'aborted', steps: 0 });
  });

  it('stops with "timeout" when the approval callback never answers; the call is refused as ABORTED', async () => {
    const deleteFile = tool(() => 'deleted', {
      name: 'delete_file',
      description: 'Delete.',
      parameters: { type: 'object', properties: {} },
      requiresApproval: true,
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'delete_file' }] }, { text: 'never' }]);
    const result = await new Agent({ model, tools: [deleteFile], timeoutMs: 20, approve: () => new Promise<never>(() => undefined) }).run('x');
    expect(result).toMatchObject({ stopReason: 'timeout', steps: 1 });
    expect(model.turns).toBe(1);
    expect(results(result.context.events).map((e) => e.result.error?.code)).toEqual([ErrorCode.Aborted]);
  });

  it('asks no further approval question once the run is aborted', async () => {
    const deleteFile = tool(() => 'deleted', {
      name: 'delete_file',
      description: 'Delete.',
      parameters: { type: 'object', properties: {} },
      requiresApproval: true,
    });
    const controller = new AbortController();
    const asked: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'delete_file' },
          { id: 'b', name: 'delete_file' },
        ],
      },
      { text: 'never' },
    ]);
    const approve = ({ callId }: ApprovalRequest): boolean => {
      asked.push(callId);
      controller.abort();
      return true;
    };
    const result = await new Agent({ model, tools: [deleteFile], approve }).run('x', { signal: controller.signal });
    expect(asked).toEqual(['a']);
    expect(result.stopReason).toBe('aborted');
    expect(results(result.context.events).find((e) => e.callId === 'b')!.result.error?.code).toBe(ErrorCode.Aborted);
  });

  it('ends the run with a MODEL_FAILED error when the model call fails', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'add', arguments: { a: 1, b: 1 } }] },
      () => {
        throw new Error('503 overloaded');
      },
    ]);
    const context = new ExecutionContext();
    const run = new Agent({ model, tools: [add] }).run('x', { context });
    await expect(run).rejects.toMatchObject({ code: ErrorCode.ModelFailed, message: expect.stringContaining('503 overloaded') });
    await expect(run).rejects.toBeInstanceOf(AnytoolError);
    expect(context.events.at(-1)).toMatchObject({ type: 'error', code: ErrorCode.ModelFailed });
  });

  it('fails like a model when the script runs out', async () => {
    await expect(new Agent({ model: new ScriptedModel([]) }).run('x')).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: expect.stringContaining('add a turn'),
    });
  });

  it('rejects bad options with coded errors', () => {
    expect(() => new Agent({ model: {} as never })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => new Agent({ model: new ScriptedModel([]), maxSteps: 0 })).toThrow(/maxSteps/);
    expect(() => new Agent({ model: new ScriptedModel([]), timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});
