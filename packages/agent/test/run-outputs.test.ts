import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ErrorCode, ExecutionContext, ReadToolOutput, ToolOutputStore, Toolset, resultText, tool, type ToolResult } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults, type ModelRequest } from '@anytool/agent';
import { OpenAIModel } from '../src/models/openai.js';
import { scaled } from '../../core/test/helpers/time-scale';
import { startProviderServer, type ProviderServer, type ReceivedRequest } from './helpers/provider-server.js';

const root = join(__dirname, '..', '..', '..');
const parameters = { type: 'object', properties: {} } as const;
/** The default budget: 20,000 tokens of 4 characters. */
const BUDGET_CHARS = 80_000;
const MB = 1024 * 1024;
/**
 * V8 flags that leave the heap holding only what the code keeps: no optimizing tiers (whose code comes and goes
 * between readings, up to about 400 KB on Node 24), no bytecode flushing, type feedback allocated at once. With them
 * the 100 MB test's readings repeat to the kilobyte on Node 20 and 24.
 */
const STEADY_HEAP_FLAGS = ['--no-opt', '--no-maglev', '--no-sparkplug', '--no-flush-bytecode', '--no-lazy-feedback-allocation'];

/** 5 MB of numbered lines, so a page out of place would show. */
const fiveMegabytes = Array.from({ length: Math.ceil((5 * MB) / 15) }, (_, i) => `row ${String(i).padStart(10, '0')}`)
  .join('\n')
  .slice(0, 5 * MB);
const dump = tool(() => fiveMegabytes, { name: 'dump', description: 'Dumps the table.', parameters });
const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Adds.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});

const noteOf = (result: ToolResult): { handle: string; offset: number } => {
  const match = /read_tool_output\(\{"handle":"([^"]+)","offset":(\d+)\}\)/.exec(resultText(result));
  if (match === null) throw new Error(`no handle in ${resultText(result).slice(0, 200)}`);
  return { handle: match[1]!, offset: Number(match[2]) };
};

describe('output budgets in the agent', () => {
  it('a 5 MB result reaches the model within the default budget, and the model pages it back in full through the handle', async () => {
    let handle = '';
    const pages: string[] = [];
    // The model reads the cut result, then pages from offset 0 to the end, one page a turn.
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'dump', id: 'dump_1' }] },
      ...Array.from({ length: 200 }, () => (request: ModelRequest) => {
        const [latest] = latestToolResults(request);
        if (latest!.name === 'dump') {
          handle = noteOf(latest!.result).handle;
          return { toolCalls: [{ name: 'read_tool_output', arguments: { handle, offset: 0 } }] };
        }
        const { end, total } = latest!.result.structured as { end: number; total: number };
        pages.push((latest!.result.content[0] as { text: string }).text);
        if (end === total) return { text: `read ${total} characters` };
        return { toolCalls: [{ name: 'read_tool_output', arguments: { handle, offset: end } }] };
      }),
    ]);
    const agent = new Agent({ model, tools: [add, dump], maxSteps: 300 });
    const result = await agent.run('Read the whole table.');

    expect(result.text).toBe(`read ${5 * MB} characters`);
    expect(pages.join('')).toBe(fiveMegabytes);
    expect(pages).toHaveLength(Math.ceil((5 * MB) / (BUDGET_CHARS / 2)));
    // Every tool result the model was sent fits the budget, the cut one first of all.
    for (const request of model.requests)
      for (const message of request.messages) if (message.role === 'tool') expect(resultText(message.result).length).toBeLessThanOrEqual(BUDGET_CHARS);
    const cut = model.requests[1]!.messages.at(-1) as { result: ToolResult };
    expect(fiveMegabytes.startsWith((cut.result.content[0] as { text: string }).text)).toBe(true);
    expect(fiveMegabytes.endsWith((cut.result.content[2] as { text: string }).text)).toBe(true);
    expect(resultText(cut.result)).toMatch(/\[… [\d,]+ of 5,242,880 characters \(about [\d,]+ tokens\) left out here/);
    // read_tool_output is offered from the turn after the output was kept, after every other tool; what was sent before stays the same.
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['add', 'dump']);
    for (const request of model.requests.slice(1)) {
      expect(request.tools.map((t) => t.name)).toEqual(['add', 'dump', 'read_tool_output']);
      expect(JSON.stringify(request.tools.slice(0, 2))).toBe(JSON.stringify(model.requests[0]!.tools));
    }
    // The run's outputs are released when it ends: the handle no longer reads.
    expect(ToolOutputStore.peek(result.context)).toBeUndefined();
    const after = await new Toolset(new ReadToolOutput()).invoke('read_tool_output', { handle }, result.context);
    expect(after.error?.code).toBe(ErrorCode.OutputHandleUnknown);
    // The run's events record what the model saw, not the 5 MB.
    const recorded = result.context.events.find((e) => e.type === 'tool_result' && e.tool === 'dump');
    expect(recorded).toMatchObject({ result: cut.result });
  });

  describe('on the wire (the OpenAI client against a local Chat Completions server)', () => {
    let server: ProviderServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    const completion = (message: Record<string, unknown>): Record<string, unknown> => ({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, logprobs: null, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    const toolCall = (id: string, name: string, args: unknown): Record<string, unknown> => ({
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    const toolMessages = (request: ReceivedRequest): Array<{ tool_call_id: string; content: string }> =>
      (request.body['messages'] as Array<{ role: string; tool_call_id: string; content: string }>).filter((m) => m.role === 'tool');

    it('sends the model head, note and tail within the budget, and a page of the rest when it asks', async () => {
      server = await startProviderServer([
        { body: completion(toolCall('call_dump', 'dump', {})) },
        (request) => {
          const { handle } = noteOf({ content: [{ type: 'text', text: toolMessages(request)[0]!.content }], isError: false });
          return { body: completion(toolCall('call_read', 'read_tool_output', { handle, offset: 2_000_000, limit: 1_000 })) };
        },
        {
          body: {
            ...completion({ content: 'done' }),
            choices: [{ index: 0, message: { role: 'assistant', content: 'done', refusal: null }, logprobs: null, finish_reason: 'stop' }],
          },
        },
      ]);
      const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'test-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const result = await new Agent({ model, tools: [add, dump] }).run('Dump the table.');
      expect(result.text).toBe('done');

      const [first, second, third] = server.requests;
      const [cut] = toolMessages(second!);
      expect(cut!.content.length).toBeLessThanOrEqual(BUDGET_CHARS);
      expect(cut!.content.startsWith('row 0000000000\n')).toBe(true);
      expect(cut!.content).toContain('left out here');
      const [, page] = toolMessages(third!);
      expect(page!.content.startsWith(fiveMegabytes.slice(2_000_000, 2_001_000))).toBe(true);
      expect(page!.content).toContain(`[characters 2000000 to 2001000 of ${5 * MB}; read on with read_tool_output(`);
      // The tools of the first request are the first tools of every later one, byte for byte; the reader comes last.
      const tools = (request: ReceivedRequest): unknown[] => request.body['tools'] as unknown[];
      expect(tools(first!)).toHaveLength(2);
      expect(JSON.stringify(tools(second!).slice(0, 2))).toBe(JSON.stringify(tools(first!)));
      expect(tools(second!)).toHaveLength(3);
      expect(tools(second!)[2]).toMatchObject({ type: 'function', function: { name: 'read_tool_output' } });
    });
  });

  it(
    'a 100 MB result: heap growth stays under twice the budget, and the kept output is released when the run ends',
    async () => {
      // The child process runs three agent runs with a tool that returns a 100 MB string, under
      // node --expose-gc and STEADY_HEAP_FLAGS, measuring heapUsed + external after full collections (see the fixture):
      // - produced: inside the tool, the 100 MB string made (it exists because the tool returned it);
      // - budgeted: on the model's next turn, the result cut and the whole text kept for the run;
      // - before / after: around the run, with the run's result still held;
      // - dropped: after the run, with nothing of it reachable.
      execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), 'agent'], { cwd: root, stdio: 'pipe' });
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--expose-gc', ...STEADY_HEAP_FLAGS, join(__dirname, 'fixtures', 'hundred-mb-result.mjs')],
          { cwd: root, encoding: 'utf8', timeout: scaled(60_000) },
          (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
        ),
      );
      const m = JSON.parse(out) as { size: number; budgetChars: number; runs: Record<string, number | boolean | string>[] };
      const budget = m.budgetChars;
      const growth = (run: Record<string, unknown>, from: string, to: string): number => (run[to] as number) - (run[from] as number);
      expect(m.runs).toHaveLength(3);
      for (const run of m.runs) {
        expect(run['text']).toBe('done');
        expect(run['seen'] as number).toBeLessThanOrEqual(budget);
        expect(run['lastPageEndsRight']).toBe(true);
        // The measurement sees the 100 MB string at all.
        expect(growth(run, 'before', 'produced')).toBeGreaterThan(0.95 * m.size);
        // Cutting and keeping it copied none of it: what the model gets is the only new memory.
        expect(growth(run, 'produced', 'budgeted')).toBeLessThan(2 * budget);
        // After the run, with its result (messages, events) held: the kept output is gone, and the result holds the
        // cut the model got (so more than half the budget) and its bookkeeping, nothing more.
        expect(run['released']).toBe(true);
        expect(growth(run, 'dropped', 'after')).toBeGreaterThan(budget / 2);
        expect(growth(run, 'dropped', 'after')).toBeLessThan(2 * budget);
        // Once nothing of the run is reachable, the heap is back where it was (the first run also frees what the
        // warm-up left).
        expect(growth(run, 'before', 'dropped')).toBeLessThan(budget / 2);
      }
      // Nor does anything add up over the three runs.
      expect(growth({ before: m.runs[0]!['before'], dropped: m.runs[2]!['dropped'] }, 'before', 'dropped')).toBeLessThan(budget / 2);
    },
    scaled(180_000),
  );

  it('releases the kept outputs when a run fails or is aborted, and outputBudget: false leaves results whole', async () => {
    const failing = new ScriptedModel([{ toolCalls: [{ name: 'dump' }] }]);
    const context = new ExecutionContext();
    await expect(new Agent({ model: failing, tools: [dump] }).run('x', { context })).rejects.toMatchObject({ code: ErrorCode.ModelFailed });
    expect(ToolOutputStore.peek(context)).toBeUndefined();

    const controller = new AbortController();
    const aborting = new ScriptedModel([
      { toolCalls: [{ name: 'dump' }] },
      () => {
        controller.abort();
        return { text: 'never read' };
      },
    ]);
    const aborted = await new Agent({ model: aborting, tools: [dump] }).run('x', { signal: controller.signal });
    expect(aborted.stopReason).toBe('aborted');
    expect(ToolOutputStore.peek(aborted.context)).toBeUndefined();

    const whole = new ScriptedModel([{ toolCalls: [{ name: 'dump' }] }, { text: 'ok' }]);
    await new Agent({ model: whole, tools: [dump], outputBudget: false }).run('x');
    expect(resultText(latestToolResults(whole.requests[1]!)[0]!.result)).toBe(fiveMegabytes);
    expect(whole.requests[1]!.tools.map((t) => t.name)).toEqual(['dump']);
    expect(() => new Agent({ model: whole, outputBudget: { maxTokens: 0 } })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });

  it("a toolset's own budget decides for its tools, and a reader the toolset holds is used as it is", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'dump' }] }, { text: 'ok' }]);
    const own = new Toolset(dump, new ReadToolOutput({ maxChars: 500 }));
    await new Agent({ model, tools: own, outputBudget: { maxTokens: 100, tools: { dump: { maxChars: 3_000 } } } }).run('x');
    expect(resultText(latestToolResults(model.requests[1]!)[0]!.result).length).toBeLessThanOrEqual(3_000);
    expect(model.requests[1]!.tools.map((t) => t.name)).toEqual(['dump', 'read_tool_output']);
  });
});
