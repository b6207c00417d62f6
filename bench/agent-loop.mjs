// Agent loop: what one model turn costs the agent itself (messages, events,
// definitions, concurrency), against a hand-written loop doing the same model
// and tool calls. The model is a ScriptedModel (no network), so only the
// runtime's overhead is measured. Interleaved rounds, median.
import { ExecutionContext, Toolset, tool } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const RUNS = Number(process.env.RUNS ?? 200);
// A typical run: a handful of model turns. (The conversation grows with every turn.)
const TURNS = Number(process.env.TURNS ?? 10);

const parameters = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
const make = (name) => tool(({ a, b }) => a + b, { name, description: 'Add two numbers.', parameters, annotations: { readOnly: true } });
const toolset = new Toolset(make('add'), make('add2'), make('add3'), make('add4'), ...Array.from({ length: 16 }, (_, i) => make(`other_${i}`)));

const script = (calls, answer = 'done') => [
  ...Array.from({ length: TURNS }, (_, t) => ({
    toolCalls: Array.from({ length: calls }, (_, i) => ({ id: `c${t}_${i}`, name: i === 0 ? 'add' : `add${i + 1}`, arguments: { a: t, b: i } })),
  })),
  { text: answer },
];
// A structured answer and budgets that are not reached: what checking them costs a turn.
const output = { type: 'object', properties: { total: { type: 'number' }, note: { type: 'string' } }, required: ['total'], additionalProperties: false };
const budget = { maxInputTokens: 1e9, maxOutputTokens: 1e9, maxTotalTokens: 1e9, maxToolCalls: 1e9 };

/** The same model and tool calls without the agent: the floor. */
async function handLoop(calls) {
  const model = new ScriptedModel(script(calls));
  const context = new ExecutionContext();
  const messages = [{ role: 'user', content: 'go' }];
  const tools = toolset.neutralDefinitions();
  for (;;) {
    const response = await model.generate({ messages, tools });
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    if (response.toolCalls.length === 0) return;
    const results = await Promise.all(response.toolCalls.map((c) => toolset.invoke(c.name, c.arguments, context, { callId: c.id })));
    response.toolCalls.forEach((c, i) => messages.push({ role: 'tool', callId: c.id, name: c.name, result: results[i] }));
  }
}

async function agentRun(calls) {
  const agent = new Agent({ model: new ScriptedModel(script(calls)), tools: toolset, maxSteps: TURNS + 1 });
  const result = await agent.run('go');
  if (result.stopReason !== 'final_answer') throw new Error(result.stopReason);
}

async function structuredRun(calls) {
  const agent = new Agent({ model: new ScriptedModel(script(calls, '{"total":3}')), tools: toolset, maxSteps: TURNS + 1, output, budget });
  const result = await agent.run('go');
  if (result.output?.total !== 3) throw new Error(result.stopReason);
}

const times = (fn) => async () => {
  for (let r = 0; r < RUNS; r++) await fn();
};
const variants = {
  'hand loop, 1 call a turn': times(() => handLoop(1)),
  'Agent.run, 1 call a turn': times(() => agentRun(1)),
  'Agent.run with output and budget, 1 call a turn': times(() => structuredRun(1)),
  'hand loop, 4 parallel calls a turn': times(() => handLoop(4)),
  'Agent.run, 4 parallel calls a turn': times(() => agentRun(4)),
};

const names = Object.keys(variants);
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let round = -2; round < ROUNDS; round++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + round + 2) % names.length];
    const start = process.hrtime.bigint();
    await variants[name]();
    // Each run makes TURNS + 1 model calls: TURNS with tool calls, then the final answer.
    if (round >= 0) samples[name].push(Number(process.hrtime.bigint() - start) / 1000 / (RUNS * (TURNS + 1)));
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(
  `agent-loop: ${ROUNDS} rounds x ${RUNS} runs of ${TURNS + 1} model turns (${TURNS} with tool calls, then the final answer), ${toolset.size} tools offered, ScriptedModel (no network), Node ${process.version}`,
);
console.log('| variant | median us/turn | agent overhead us/turn |');
console.log('|---|---:|---:|');
for (const name of names) {
  const m = median(samples[name]);
  const floor = name.startsWith('Agent') ? median(samples[`hand loop,${name.split(',')[1]}`]) : undefined;
  console.log(`| ${name} | ${m.toFixed(1)} | ${floor === undefined ? '' : (m - floor).toFixed(1)} |`);
}

// ---- an adapter's request at many tools
// What every model turn of a real adapter does with the turn's tools: `toParams` lowers them into
// the provider's format. The adapter keeps the last lowering while a turn offers the same
// definitions (an agent's usual next turn); against lowering them every turn (`lowerDefinitions`,
// what every turn did before). CPU time per turn, interleaved rounds in alternating order.
{
  const { OpenAIModel } = await import('@anytool/agent/openai');
  const { lowerDefinitions } = await import('@anytool/core');
  const TOOLS = Number(process.env.TOOLS ?? 1000);
  const many = new Toolset(
    Array.from({ length: TOOLS }, (_, i) =>
      tool(() => i, {
        name: `tool_${i}`,
        description: `Tool number ${i}.`,
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', description: `City ${i}.` }, days: { type: 'integer', minimum: 1 } },
          required: ['city'],
        },
      }),
    ),
  );
  const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
  const request = () => ({ messages: [{ role: 'user', content: 'hi' }], tools: many.neutralDefinitions() });
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const TURNS_EACH = 20;
  const turn = {
    'toParams, kept': () => model.toParams(request()).tools.length,
    'lowering every turn': () => lowerDefinitions('openai', request().tools, { strict: true }).tools.length,
  };
  const ms = { 'toParams, kept': [], 'lowering every turn': [] };
  const ratios = [];
  for (let round = -1; round < 7; round++) {
    const order = round % 2 === 0 ? Object.keys(turn) : Object.keys(turn).reverse();
    const pair = {};
    for (const name of order) {
      const start = cpu();
      for (let t = 0; t < TURNS_EACH; t++) if (turn[name]() !== TOOLS) throw new Error('lost tools');
      pair[name] = (cpu() - start) / TURNS_EACH;
    }
    if (round < 0) continue;
    for (const name of order) ms[name].push(pair[name]);
    ratios.push(pair['toParams, kept'] / pair['lowering every turn']);
  }
  const spread = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  console.log(`\nan adapter's request at ${TOOLS} tools (OpenAIModel.toParams, the turn's tools as the agent gives them), CPU ms per turn, 7 rounds:`);
  console.log(`| toParams, the last turn's lowering kept | ${spread(ms['toParams, kept'])} ms |`);
  console.log(`| lowering every turn | ${spread(ms['lowering every turn'])} ms |`);
  console.log(`kept / lowering: ${spread(ratios)}x`);
}
