// Code mode on Anthropic's own code execution (`codeMode: 'native'`): the tools offered with `allowed_callers`,
// a program's calls coming back as `tool_use` blocks with a `caller` and run through the agent's pipeline, their
// results going back as `tool_result`, the container id carried across turns and across a paused run. Responses
// in the shapes of https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling, served
// over HTTP to the official client; every block is checked against the client's types (`satisfies`).
import { resultText, tool } from '@anytool/core';
import { Agent, ScriptedModel, type AgentStreamEvent, type RunResult } from '@anytool/agent';
import type Anthropic from '@anthropic-ai/sdk';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { startProviderServer, type ProviderServer, type Reply } from '../helpers/provider-server.js';

const VERSION = 'code_execution_20260120';
const PROGRAM_ID = 'srvtoolu_program';
const CONTAINER = { id: 'container_abc', expires_at: '2030-01-01T00:00:00Z', skills: null } satisfies Anthropic.Container;
const fromProgram = { type: VERSION, tool_id: PROGRAM_ID } as const;

function shop(sent: string[]) {
  return [
    // A text for a reader and the structured value: a program gets the value.
    tool(
      ({ status }: { status: string }) => {
        const invoices = [
          { id: 'i1', total: 120 },
          { id: 'i2', total: 80 },
        ].filter(() => status === 'unpaid');
        return { content: [{ type: 'text', text: `${invoices.length} invoices` }], structured: { invoices, note: 'x'.repeat(400) }, isError: false };
      },
      {
        name: 'list_invoices',
        description: 'Lists invoices by status.',
        parameters: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
        outputSchema: {
          type: 'object',
          properties: { invoices: { type: 'array', items: { $ref: '#/$defs/Invoice' } }, note: { type: 'string' } },
          required: ['invoices'],
          $defs: { Invoice: { type: 'object', properties: { id: { type: 'string' }, total: { type: 'number' } }, required: ['id', 'total'] } },
        },
      },
    ),
    tool(
      ({ id }: { id: string }): string => {
        throw new Error(`no customer ${id}`);
      },
      { name: 'get_customer', description: 'One customer.', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    ),
    tool(({ to }: { to: string }) => void sent.push(to), {
      name: 'send_email',
      description: 'Sends an email.',
      parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      annotations: { destructive: true },
    }),
  ];
}

/** A Messages API response in the container. */
function message(content: Anthropic.ContentBlock[], stopReason: Anthropic.StopReason): Anthropic.Message {
  return {
    id: 'msg_ptc',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content,
    container: CONTAINER,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } as Anthropic.Usage,
  } as Anthropic.Message;
}

const program = {
  type: 'server_tool_use',
  id: PROGRAM_ID,
  name: 'code_execution',
  input: {
    code: 'import json\nr = json.loads(await list_invoices(status="unpaid"))\nc = await get_customer(id="c9")\nprint(sum(i["total"] for i in r["invoices"]))',
  },
  caller: { type: 'direct' },
} satisfies Anthropic.ServerToolUseBlock;
const callList = {
  type: 'tool_use',
  id: 'toolu_list',
  name: 'list_invoices',
  input: { status: 'unpaid' },
  caller: fromProgram,
} satisfies Anthropic.ToolUseBlock;
const callCustomer = {
  type: 'tool_use',
  id: 'toolu_customer',
  name: 'get_customer',
  input: { id: 'c9' },
  caller: fromProgram,
} satisfies Anthropic.ToolUseBlock;
const callEmail = {
  type: 'tool_use',
  id: 'toolu_email',
  name: 'send_email',
  input: { to: 'c1@example.com' },
  caller: fromProgram,
} satisfies Anthropic.ToolUseBlock;
const done = {
  type: 'code_execution_tool_result',
  tool_use_id: PROGRAM_ID,
  content: { type: 'code_execution_result', stdout: '200\n', stderr: '', return_code: 0, content: [] },
} satisfies Anthropic.CodeExecutionToolResultBlock;
const answer = { type: 'text', text: 'They owe 200 in all.', citations: null } satisfies Anthropic.TextBlock;

/** The same message as Messages API stream events: blocks whole in content_block_start, tool input as input_json_delta. */
function streamed(whole: Anthropic.Message): Reply {
  const events: Array<Record<string, unknown>> = [{ type: 'message_start', message: { ...whole, content: [], stop_reason: null, container: null } }];
  whole.content.forEach((block, index) => {
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: whole.stop_reason, stop_sequence: null, container: whole.container },
    usage: { output_tokens: 20 },
  });
  events.push({ type: 'message_stop' });
  return { body: null, events };
}

const sentMessages = (server: ProviderServer, i: number) => server.requests[i]!.body['messages'] as Anthropic.MessageParam[];

describe("AnthropicModel with codeMode: 'native' (programmatic tool calling)", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const turns = [message([program, callList], 'tool_use'), message([callCustomer], 'tool_use'), message([done, answer], 'end_turn')];

  for (const mode of ['whole', 'streamed'] as const) {
    it(`runs a program's two calls in sequence through the agent, a failed one as an error result, the container carried (${mode})`, async () => {
      server = await startProviderServer(mode === 'whole' ? turns.map((body) => ({ body })) : turns.map(streamed));
      const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
      const agent = new Agent({ model, tools: shop([]), codeMode: 'native', outputBudget: { maxTokens: 20 } });
      let result: RunResult;
      if (mode === 'whole') result = await agent.run('How much is unpaid?');
      else {
        const seen: AgentStreamEvent[] = [];
        for await (const event of agent.stream('How much is unpaid?')) seen.push(event);
        const last = seen.at(-1)!;
        if (last.type !== 'result') throw new Error('no result');
        result = last.result;
        expect(seen.filter((e) => e.type === 'tool_result').map((e) => (e.type === 'tool_result' ? e.tool : ''))).toEqual([
          'list_invoices',
          'get_customer',
          'code_execution',
        ]);
      }
      expect(result.text).toBe('They owe 200 in all.');

      // The tools offered to the container only, Anthropic's code execution first; no portable runner.
      const tools = server.requests[0]!.body['tools'] as Array<Record<string, unknown>>;
      expect(tools.map((t) => t['name'])).toEqual(['code_execution', 'list_invoices', 'get_customer', 'send_email']);
      expect(tools[0]).toEqual({ type: VERSION, name: 'code_execution' });
      expect(tools.slice(1).every((t) => JSON.stringify(t['allowed_callers']) === JSON.stringify([VERSION]))).toBe(true);
      expect(server.requests[0]!.body['container']).toBeUndefined();
      // A program parses what it gets: the result's type ends the description.
      expect(tools[1]!['description']).toBe(
        'Lists invoices by status.\nReturns JSON: { invoices: Invoice[]; note?: string }\ntype Invoice = { id: string; total: number };',
      );
      expect(tools[2]!['description']).toBe('One customer.');

      // Each call answered with only its tool_result, in the same container; the turn sent back as it came (caller kept).
      expect(server.requests[1]!.body['container']).toBe(CONTAINER.id);
      expect(server.requests[2]!.body['container']).toBe(CONTAINER.id);
      expect(sentMessages(server, 1)[1]).toEqual({ role: 'assistant', content: [program, callList] });
      const first = sentMessages(server, 1)[2]!.content as Anthropic.ToolResultBlockParam[];
      expect(first).toHaveLength(1);
      expect(first[0]!.tool_use_id).toBe('toolu_list');
      // A program's result is not cut to the output budget: it goes to the program, not the model's context.
      const listed = JSON.parse((first[0]!.content as Anthropic.TextBlockParam[])[0]!.text) as { invoices: unknown[]; note: string };
      expect(listed.invoices).toHaveLength(2);
      expect(listed.note).toHaveLength(400);
      const second = sentMessages(server, 2)[4]!.content as Anthropic.ToolResultBlockParam[];
      expect(second).toMatchObject([{ type: 'tool_result', tool_use_id: 'toolu_customer', is_error: true }]);
      expect(JSON.stringify(second[0]!.content)).toContain('no customer c9');

      // Each call is a tool_call and tool_result event, as a direct call's; the program's output is the code execution's.
      const events = result.context.events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result');
      expect(events.map((e) => `${e.type} ${'tool' in e ? e.tool : ''}`)).toEqual([
        'tool_call list_invoices',
        'tool_result list_invoices',
        'tool_call get_customer',
        'tool_result get_customer',
        'tool_call code_execution',
        'tool_result code_execution',
      ]);
      const output = result.context.events.find((e) => e.type === 'tool_result' && e.tool === 'code_execution');
      expect(output?.type === 'tool_result' && resultText(output.result)).toBe('200\n');
    });
  }

  it('pauses for approval in the middle of a program and resumes in the same container', async () => {
    const sent: string[] = [];
    const after = message([done, answer], 'end_turn');
    server = await startProviderServer([{ body: message([program, callList], 'tool_use') }, { body: message([callEmail], 'tool_use') }, { body: after }]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ model, tools: shop(sent), codeMode: 'native', approve: 'pause' });
    const paused = await agent.run('Email who owes.');
    expect(paused.stopReason).toBe('interrupted');
    const [item] = paused.interruptions!;
    expect(item).toMatchObject({ kind: 'approval', tool: 'send_email', callId: 'toolu_email' });
    expect(sent).toEqual([]);
    expect(server.requests).toHaveLength(2);

    // The state travels as JSON, as it would to another process (another agent of the same tools resumes it).
    const state = JSON.parse(JSON.stringify(paused.state)) as NonNullable<typeof paused.state>;
    const result = await new Agent({ model, tools: shop(sent), codeMode: 'native', approve: 'pause' }).resume(state, { [item!.id]: { approved: true } });
    expect(result.stopReason).toBe('final_answer');
    expect(sent).toEqual(['c1@example.com']);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.body['container']).toBe(CONTAINER.id);
    const last = sentMessages(server, 2).at(-1)!;
    expect(last).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_email' }] });
  });

  it("offers the tools to the model as well with beside, and uses the toolset's own code execution tool", async () => {
    server = await startProviderServer([{ body: message([answer], 'end_turn') }]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const { builtin } = await import('@anytool/core');
    await new Agent({ model, tools: [...shop([]), builtin.anthropic.codeExecution()], codeMode: { native: true, beside: true } }).run('hi');
    const tools = server.requests[0]!.body['tools'] as Array<Record<string, unknown>>;
    expect(tools.map((t) => t['name'])).toEqual(['list_invoices', 'get_customer', 'send_email', 'code_execution']);
    expect(tools[0]!['allowed_callers']).toEqual(['direct', 'code_execution_20250825']);
    expect(tools[3]!['allowed_callers']).toBeUndefined();
  });

  it("refuses a program's call of a tool it was not offered (the agent's own, the portable runner) as an unknown tool", async () => {
    const sneaky = [
      { type: 'tool_use', id: 'toolu_run', name: 'run_code', input: { code: 'return 1' }, caller: fromProgram },
      { type: 'tool_use', id: 'toolu_read', name: 'read_tool_output', input: { handle: 'x' }, caller: fromProgram },
    ] satisfies Anthropic.ToolUseBlock[];
    server = await startProviderServer([{ body: message([program, ...sneaky], 'tool_use') }, { body: message([done, answer], 'end_turn') }]);
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const result = await new Agent({ model, tools: shop([]), codeMode: 'native' }).run('go');
    expect(result.stopReason).toBe('final_answer');
    const answered = sentMessages(server, 1)[2]!.content as Anthropic.ToolResultBlockParam[];
    expect(answered.map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ['toolu_run', true],
      ['toolu_read', true],
    ]);
    expect(JSON.stringify(answered[0]!.content)).toContain('run_code');
    expect(result.context.events.filter((e) => e.type === 'tool_result' && !e.result.isError && e.tool !== 'code_execution')).toEqual([]);
  });

  it("lets the model call directly a tool the turn's tool choice names (Anthropic refuses a choice of a code-only tool)", () => {
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k' });
    const params = model.toParams({
      messages: [{ role: 'user', content: 'hi' }],
      tools: shop([]).map((t) => t.definition),
      toolChoice: { name: 'get_customer' },
      programmatic: { tools: ['list_invoices', 'get_customer'], direct: false },
    });
    const offered = (params.tools ?? []) as Array<{ name: string; allowed_callers?: string[] }>;
    expect(offered.map((t) => [t.name, t.allowed_callers])).toEqual([
      ['code_execution', undefined],
      ['list_invoices', [VERSION]],
      ['get_customer', ['direct', VERSION]],
      // Not one a program may call: offered as it is.
      ['send_email', undefined],
    ]);
    expect(params.tool_choice).toEqual({ type: 'tool', name: 'get_customer' });
  });

  it('falls back to the portable runner with a model that has no code execution of its own', async () => {
    const model = new ScriptedModel([{ text: 'ok' }]);
    await new Agent({ model, tools: shop([]), codeMode: 'native' }).run('hi');
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['run_code']);
    expect(model.requests[0]!.programmatic).toBeUndefined();
    expect(() => new Agent({ model, codeMode: { native: 'yes' as never } })).toThrow(/codeMode\.native/);
  });
});
