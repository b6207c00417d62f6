// anytool on both sides of a task: tools marked `task: true`, served by serveMcp over HTTP on 127.0.0.1, called
// through McpToolset, which polls the tasks, answers their questions and cancels them.
import { ExecutionContext, Toolset, resultText, tool, type RunProgressEvent } from '@anytool/core';
import { mcpSession, serveMcp, type McpServerHandle, type McpToolset } from '@anytool/mcp';
import { connectForEachTest, until } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

jest.setTimeout(scaled(30_000));

const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

function served(seen: { aborted: number; started: number }): Toolset {
  const report = tool(
    async function report({ ms }: { ms: number }, context: ExecutionContext) {
      seen.started++;
      context.signal?.addEventListener('abort', () => seen.aborted++, { once: true });
      const steps = 4;
      for (let step = 1; step <= steps; step++) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms / steps);
          context.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
        });
        context.progress(step, steps, `step ${step} of ${steps}`);
      }
      return `report after ${ms} ms`;
    },
    {
      description: 'Writes a report.',
      parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      context: { progress: true },
      task: true,
    },
  );
  const greet = tool(
    async function greet(_args: object, context: ExecutionContext) {
      const answer = await mcpSession(context)!.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'who' });
      return `hello ${String(answer.content?.['name'])}`;
    },
    { description: 'Greets.', parameters: { type: 'object', properties: {} }, context: true, task: true },
  );
  const greetTwice = tool(
    async function greetTwice(_args: object, context: ExecutionContext) {
      const session = mcpSession(context)!;
      const first = await session.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'who' });
      const second = await session.elicitInput({ message: "And your friend's?", requestedSchema: NAME }, { inputKey: 'who' });
      return `hello ${String(first.content?.['name'])} and ${String(second.content?.['name'])}`;
    },
    { description: 'Greets two, asking under one key.', parameters: { type: 'object', properties: {} }, context: true, task: true },
  );
  // Asks in the request, then becomes a task (deferTask): says what it became, so the test sees which way it ran.
  const welcome = tool(
    async function welcome(_args: object, context: ExecutionContext) {
      const session = mcpSession(context)!;
      const answer = await session.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'who' });
      const task = await session.startTask();
      context.progress(1, 2, 'preparing the welcome');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return `welcome ${String(answer.content?.['name'])} (${task ? 'task' : 'plain'} ${session.era})`;
    },
    { description: 'Welcomes.', parameters: { type: 'object', properties: {} }, context: { progress: true }, task: true, deferTask: true },
  );
  const quick = tool(
    function quick() {
      return 'quick';
    },
    { description: 'Answers at once.', parameters: { type: 'object', properties: {} } },
  );
  return new Toolset([report, greet, greetTwice, welcome, quick]);
}

describe('McpToolset calling task tools of serveMcp', () => {
  const connect = connectForEachTest();
  let server: McpServerHandle;
  const seen = { aborted: 0, started: 0 };

  beforeEach(async () => {
    seen.aborted = 0;
    seen.started = 0;
    server = await serveMcp(served(seen), { transport: 'http', port: 0, taskPollIntervalMs: 50 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('runs a task past the per-call timeout and reports its progress', async () => {
    // Each request may take 3 s (room for a loaded machine); the task takes 5 s: a plain call would time out. Both
    // scale together, so the task outlives the per-call timeout on a slow machine too.
    const mcp = await connect({ mcpServers: { a: { url: server.url!, timeoutMs: scaled(3_000) } } });
    expect(mcp.connection('a')?.era).toBe('modern');
    const context = new ExecutionContext();
    const result = await new Toolset(mcp).invoke('report', { ms: scaled(5_000) }, context);
    expect(resultText(result)).toBe(`report after ${scaled(5_000)} ms`);
    expect(seen.started).toBe(1);
    const messages = context.events.filter((e): e is RunProgressEvent => e.type === 'progress').map((e) => e.message);
    expect(messages.some((m) => /^step [1-4] of 4$/.test(m ?? ''))).toBe(true);
    // A plain tool of the same server stays a plain call.
    expect(resultText(await new Toolset(mcp).invoke('quick', {}))).toBe('quick');
  });

  it("answers the tool's question through the elicitation handler", async () => {
    const mcp = await connect({ mcpServers: { a: { url: server.url! } } }, { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) });
    expect(resultText(await new Toolset(mcp).invoke('greet', {}))).toBe('hello Ada');
  });

  it('answers a question asked again under the same key', async () => {
    const names = ['Ada', 'Bob'];
    const asked: string[] = [];
    const mcp = await connect(
      { mcpServers: { a: { url: server.url! } } },
      {
        elicitation: (request) => {
          asked.push(String(request.message));
          return { action: 'accept', content: { name: names[asked.length - 1]! } };
        },
      },
    );
    expect(resultText(await new Toolset(mcp).invoke('greetTwice', {}))).toBe('hello Ada and Bob');
    expect(asked).toEqual(['Your name?', "And your friend's?"]);
  });

  it('asks in input_required rounds, then follows the task the call becomes: one call to the agent', async () => {
    const asked: string[] = [];
    const mcp = await connect(
      { mcpServers: { a: { url: server.url!, timeoutMs: 3_000 } } },
      {
        elicitation: (request) => {
          asked.push(String(request.message));
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    );
    const context = new ExecutionContext();
    expect(resultText(await new Toolset(mcp).invoke('welcome', {}, context))).toBe('welcome Ada (task modern)');
    expect(asked).toEqual(['Your name?']);
    // The task's status reached the caller as progress (the request that created it carries none).
    const messages = context.events.filter((e): e is RunProgressEvent => e.type === 'progress').map((e) => e.message);
    expect(messages.length).toBeGreaterThan(0);
  });

  it('runs such a tool as a plain call for a client without tasks, and on the 2025 era', async () => {
    const elicitation = (): { action: 'accept'; content: { name: string } } => ({ action: 'accept', content: { name: 'Bo' } });
    const untasked = await connect({ mcpServers: { a: { url: server.url! } } }, { elicitation, tasks: false });
    expect(resultText(await new Toolset(untasked).invoke('welcome', {}))).toBe('welcome Bo (plain modern)');
    const legacy = await connect({ mcpServers: { a: { url: server.url!, protocol: 'legacy' } } }, { elicitation });
    expect(legacy.connection('a')?.era).toBe('legacy');
    expect(resultText(await new Toolset(legacy).invoke('welcome', {}))).toBe('welcome Bo (plain legacy)');
  });

  it("cancels the task when the run aborts: the tool's own signal fires on the server", async () => {
    const mcp: McpToolset = await connect({ mcpServers: { a: { url: server.url! } } });
    const controller = new AbortController();
    const context = new ExecutionContext({ signal: controller.signal });
    const call = new Toolset(mcp).invoke('report', { ms: 20_000 }, context);
    // Once the client knows the task (its first status is a progress event): an abort before the server's answer
    // arrives cuts the tools/call short, and the task's id is never learned.
    await until(() => context.events.some((e) => e.type === 'progress'), 10_000, 'the client to follow the task');
    expect(seen.started).toBe(1);
    controller.abort();
    const result = await call;
    expect(result.isError).toBe(true);
    await until(() => seen.aborted === 1, 10_000, 'the tool to see the cancellation');
  });
});
