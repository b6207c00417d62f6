// A traced agent run: one span tree (invoke_agent, a chat span a model turn, an execute_tool span a
// tool call, in one trace), following the GenAI conventions; content only when opted in.
import { ErrorCode, ExecutionContext, Toolset, builtin, errorResult, extractTraceContext, textResult, tool, tracing } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';
import { memoryTelemetry, spanTree } from '../../core/test/helpers/otel';

const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
  name: 'add',
  description: 'Add two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
});
const greet = tool(({ name }: { name: string }) => `hello ${name}`, {
  name: 'greet',
  description: 'Greet someone.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
});

function script(): ScriptedModel {
  return new ScriptedModel(
    [
      {
        toolCalls: [
          { id: 'c1', name: 'add', arguments: '{"a":17,"b":25}' },
          { id: 'c2', name: 'greet', arguments: { name: 'Ada' } },
        ],
      },
      { text: '42, and hello Ada.' },
    ],
    { name: 'scripted', usage: { inputTokens: 10, outputTokens: 4 } },
  );
}

const ATTRIBUTES = [
  'gen_ai.operation.name',
  'gen_ai.agent.name',
  'gen_ai.tool.name',
  'gen_ai.tool.call.id',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
];

describe('a traced agent run', () => {
  it('is one span tree in one trace: invoke_agent over its chat turns and tool calls', async () => {
    const otel = memoryTelemetry();
    const agent = new Agent({ model: script(), tools: [add, greet], name: 'calculator', tracing: otel });
    const result = await agent.run('add and greet');
    expect(result.text).toBe('42, and hello Ada.');
    expect(spanTree(otel.spans(), ATTRIBUTES)).toBe(
      [
        'invoke_agent calculator [gen_ai.operation.name=invoke_agent gen_ai.agent.name=calculator gen_ai.usage.input_tokens=20 gen_ai.usage.output_tokens=8]',
        '  chat scripted [gen_ai.operation.name=chat gen_ai.usage.input_tokens=10 gen_ai.usage.output_tokens=4]',
        '  execute_tool add [gen_ai.operation.name=execute_tool gen_ai.tool.name=add gen_ai.tool.call.id=c1]',
        '  execute_tool greet [gen_ai.operation.name=execute_tool gen_ai.tool.name=greet gen_ai.tool.call.id=c2]',
        '  chat scripted [gen_ai.operation.name=chat gen_ai.usage.input_tokens=10 gen_ai.usage.output_tokens=4]',
      ].join('\n'),
    );
    expect(new Set(otel.spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(otel.spans().find((s) => s.name.startsWith('chat'))!.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
    const content = otel
      .spans()
      .flatMap((s) => Object.keys(s.attributes))
      .filter((k) => k.startsWith('gen_ai.tool.call.') && k !== 'gen_ai.tool.call.id');
    expect(content).toEqual([]);
  });

  it('puts arguments and results on the tool spans when captureContent is on', async () => {
    const otel = memoryTelemetry();
    await new Agent({ model: script(), tools: [add, greet], tracing: { ...otel, captureContent: true } }).run('go');
    const spans = Object.fromEntries(
      otel
        .spans()
        .filter((s) => s.name.startsWith('execute_tool'))
        .map((s) => [s.attributes['gen_ai.tool.name'], s.attributes]),
    );
    expect(spans['add']).toMatchObject({ 'gen_ai.tool.call.arguments': '{"a":17,"b":25}', 'gen_ai.tool.call.result': '42' });
    expect(spans['greet']).toMatchObject({ 'gen_ai.tool.call.arguments': '{"name":"Ada"}', 'gen_ai.tool.call.result': 'hello Ada' });
  });

  it("continues the caller's trace, and a toolset traced on its own nests under the agent's tool span", async () => {
    const otel = memoryTelemetry();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const context = new ExecutionContext({ trace: extractTraceContext({ traceparent: `00-${traceId}-b7ad6b7169203331-01` }) });
    const toolset = new Toolset(add, greet).use(tracing(otel));
    await new Agent({ model: script(), tools: toolset, tracing: otel }).run('go', { context });
    expect(otel.spans().every((s) => s.spanContext().traceId === traceId)).toBe(true);
    expect(spanTree(otel.spans())).toBe(
      [
        'invoke_agent',
        '  chat scripted',
        '  execute_tool add',
        '    execute_tool add',
        '  execute_tool greet',
        '    execute_tool greet',
        '  chat scripted',
      ].join('\n'),
    );
  });

  it('marks the chat and agent spans with error.type when the model fails; a refused call is traced too', async () => {
    const otel = memoryTelemetry();
    const drop = tool(() => 'dropped', { name: 'drop', description: 'Drop.', parameters: { type: 'object', properties: {} }, requiresApproval: true });
    const model = new ScriptedModel([{ toolCalls: [{ id: 'd1', name: 'drop' }] }, () => Promise.reject(new Error('503'))]);
    await expect(new Agent({ model, tools: [drop], tracing: otel }).run('x')).rejects.toMatchObject({ code: ErrorCode.ModelFailed });
    const byName = (name: string) =>
      otel
        .spans()
        .filter((s) => s.name === name)
        .map((s) => s.attributes['error.type']);
    expect(byName('execute_tool drop')).toEqual([ErrorCode.ApprovalDenied]);
    expect(byName('chat scripted')).toEqual([undefined, ErrorCode.ModelFailed]);
    expect(byName('invoke_agent')).toEqual([ErrorCode.ModelFailed]);
  });

  it('records the model call durations and token usage', async () => {
    const otel = memoryTelemetry();
    await new Agent({ model: script(), tools: [add, greet], tracing: otel }).run('go');
    expect(await otel.histogram('gen_ai.client.operation.duration')).toEqual([
      expect.objectContaining({ count: 2, attributes: { 'gen_ai.operation.name': 'chat' } }),
    ]);
    const tokens = await otel.histogram('gen_ai.client.token.usage');
    expect(tokens.map((p) => [p.attributes['gen_ai.token.type'], p.sum])).toEqual([
      ['input', 20],
      ['output', 8],
    ]);
    expect(await otel.histogram('gen_ai.execute_tool.duration')).toHaveLength(2);
  });

  it('gives a built-in tool the provider ran an execute_tool span under its chat span, marked ran_by, with no duration metric', async () => {
    const otel = memoryTelemetry();
    const model = new ScriptedModel([
      {
        text: 'Found it.',
        builtinCalls: [
          { id: 'ws_1', name: 'openai_web_search', arguments: { query: 'anytool' }, result: textResult('https://example.org') },
          { id: 'ws_2', name: 'openai_web_search', arguments: { query: 'more' }, result: errorResult(ErrorCode.ToolFailed, 'The web search failed.') },
        ],
      },
    ]);
    await new Agent({ model, tools: [builtin.openai.webSearch()], tracing: { ...otel, captureContent: true } }).run('search');
    expect(spanTree(otel.spans(), ['gen_ai.tool.call.id', 'anytool.tool.ran_by', 'error.type'])).toBe(
      [
        'invoke_agent',
        '  chat scripted',
        '    execute_tool openai_web_search [gen_ai.tool.call.id=ws_1 anytool.tool.ran_by=scripted]',
        `    execute_tool openai_web_search [gen_ai.tool.call.id=ws_2 anytool.tool.ran_by=scripted error.type=${ErrorCode.ToolFailed}]`,
      ].join('\n'),
    );
    expect(otel.spans().find((s) => s.attributes['gen_ai.tool.call.id'] === 'ws_1')!.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"query":"anytool"}',
      'gen_ai.tool.call.result': 'https://example.org',
    });
    expect(await otel.histogram('gen_ai.execute_tool.duration')).toEqual([]);
  });
});
