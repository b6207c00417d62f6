// Code mode against direct tool calls.
//
// 1. A task over 150 customers (a local tool) and their 486 invoices (an MCP server over stdio): find the five
//    customers with the largest unpaid totals and email each. A scripted model does it both ways: with direct
//    calls (it reads the customers and the unpaid invoices into its context, adds them up, sends five emails), and
//    in code mode (one program; only its five lines come back). Tokens counted with o200k_base (gpt-tokenizer,
//    offline: exact for OpenAI's models, an estimate for others): every request's tools and messages as the
//    model reads them (each turn re-reads the conversation), plus what the model writes. The same final answer.
// 2. The sandbox's start (a program that only returns) and a program making one tool call, against a direct
//    `toolset.invoke`, and the cost of each further call inside a program: interleaved rounds, the order
//    alternating between rounds; median and spread over the rounds.
// 3. The typed API of 300 MCP tools (six catalog servers over stdio) in tokens, against their JSON definitions.
//
// Needs the examples built (`npm run bench` builds first).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecutionContext, Toolset, lowerDefinitions, resultText, tool } from '@anytool/core';
import { codeTool } from '@anytool/core/code-mode';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { countTokens } from 'gpt-tokenizer';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const example = join(root, 'examples', 'dist', 'code-mode');
const { PROGRAM, QUESTION, answer } = await import(join(example, 'task.js'));
const { listCustomers, sendEmail } = await import(join(example, 'tools.js'));
const { INVOICES } = await import(join(example, 'data.js'));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const spread = (values, digits) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

// 1. The task.
const billing = await McpToolset.connect(
  { mcpServers: { billing: { command: process.execPath, args: [join(example, 'billing-server.js')], trusted: true } } },
  { prefix: true },
);
const toolset = new Toolset(listCustomers, sendEmail, billing);

/** What the model reads of a request: the tools as Anthropic gets them, and each message's text. */
function requestText(request) {
  const messages = request.messages.map((m) =>
    m.role === 'tool'
      ? { role: 'tool', id: m.callId, content: resultText(m.result) }
      : m.role === 'assistant'
        ? { role: 'assistant', content: m.content, calls: (m.toolCalls ?? []).map((c) => ({ name: c.name, input: c.arguments })) }
        : { role: m.role, content: m.content },
  );
  return JSON.stringify({ tools: lowerDefinitions('anthropic', request.tools).tools, messages });
}

/** What the model writes in a turn. */
const turnText = (turn) => JSON.stringify({ text: turn.text ?? '', calls: (turn.toolCalls ?? []).map((c) => ({ name: c.name, input: c.arguments })) });

function directScript() {
  return [
    { toolCalls: [{ id: 'd1', name: 'list_customers', arguments: {} }] },
    { toolCalls: [{ id: 'd2', name: 'billing_list_invoices', arguments: { status: 'unpaid' } }] },
    (request) => {
      // The model adds up what it read: the customers two turns back, the invoices in the last result.
      const results = request.messages.filter((m) => m.role === 'tool');
      const { customers } = JSON.parse(resultText(results[0].result));
      const { invoices } = JSON.parse(resultText(results[1].result));
      const owed = new Map();
      for (const invoice of invoices) owed.set(invoice.customerId, (owed.get(invoice.customerId) ?? 0) + invoice.amount);
      const top = customers
        .map((c) => ({ ...c, owed: Math.round((owed.get(c.id) ?? 0) * 100) / 100 }))
        .sort((a, b) => b.owed - a.owed)
        .slice(0, 5);
      directTop = top.map((c) => `${c.name} (${c.id}): EUR ${c.owed.toFixed(2)}`);
      return {
        toolCalls: top.map((c, i) => ({
          id: `e${i}`,
          name: 'send_email',
          arguments: { to: c.email, subject: 'Payment reminder', body: `You owe EUR ${c.owed.toFixed(2)}.` },
        })),
      };
    },
    () => ({ text: answer(directTop) }),
  ];
}
let directTop = [];

function codeScript() {
  return [
    { toolCalls: [{ id: 'p1', name: 'run_code', arguments: { code: PROGRAM } }] },
    (request) => ({ text: answer(JSON.parse(resultText(latestToolResults(request)[0].result))) }),
  ];
}

async function tokensOf(script, codeMode) {
  const turns = [];
  const model = new ScriptedModel(
    script.map((step) => async (request, n) => {
      const turn = typeof step === 'function' ? await step(request, n) : step;
      turns.push(turn);
      return turn;
    }),
  );
  const result = await new Agent({ model, tools: toolset, codeMode, instructions: 'You are a billing assistant.' }).run(QUESTION);
  const input = model.requests.reduce((sum, r) => sum + countTokens(requestText(r)), 0);
  const output = turns.reduce((sum, t) => sum + countTokens(turnText(t)), 0);
  return { input, output, total: input + output, turns: model.requests.length, text: result.text };
}

const direct = await tokensOf(directScript(), false);
const code = await tokensOf(codeScript(), true);
const unpaid = INVOICES.filter((i) => i.status === 'unpaid').length;
console.log(`The task: 150 customers (local tool), ${unpaid} unpaid of ${INVOICES.length} invoices (MCP server over stdio), five emails.\n`);
console.table([
  { mode: 'direct calls', 'model turns': direct.turns, 'input tokens': direct.input, 'output tokens': direct.output, 'total tokens': direct.total },
  { mode: 'code mode', 'model turns': code.turns, 'input tokens': code.input, 'output tokens': code.output, 'total tokens': code.total },
]);
console.log(
  `code mode / direct calls: ${(code.total / direct.total).toFixed(3)}x of the tokens (target <= 0.2x); same final answer: ${code.text === direct.text}`,
);
if (code.text !== direct.text) {
  console.log(`direct: ${direct.text}\ncode:   ${code.text}`);
  process.exitCode = 1;
}
console.log('(Token counts are deterministic: the same in every round.)\n');
await billing.close();

// 2. The sandbox against a direct call.
const echo = tool((args) => ({ n: args.n }), { name: 'echo', description: 'Echoes n.', parameters: { type: 'object', properties: { n: { type: 'number' } } } });
const small = new Toolset(echo);
const runner = codeTool(small);
const context = new ExecutionContext();
const firstStarted = performance.now();
await runner.invoke(context, { code: 'return 1' });
const firstMs = performance.now() - firstStarted;
const hundred = 'let s = 0; for (let i = 0; i < 100; i++) s += (await tools.echo({ n: i })).n; return s;';
const variants = {
  direct: async () => {
    const n = 2_000;
    const started = performance.now();
    for (let i = 0; i < n; i++) await small.invoke('echo', { n: i }, context);
    return ((performance.now() - started) * 1000) / n;
  },
  start: async () => {
    const n = 20;
    const started = performance.now();
    for (let i = 0; i < n; i++) await runner.invoke(context, { code: 'return 1' });
    return (performance.now() - started) / n;
  },
  oneCall: async () => {
    const n = 20;
    const started = performance.now();
    for (let i = 0; i < n; i++) await runner.invoke(context, { code: 'return (await tools.echo({ n: 1 })).n' });
    return (performance.now() - started) / n;
  },
  hundredCalls: async () => {
    const n = 5;
    const started = performance.now();
    for (let i = 0; i < n; i++) await runner.invoke(context, { code: hundred });
    return (performance.now() - started) / n;
  },
};
const ROUNDS = 7;
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? Object.keys(variants) : Object.keys(variants).reverse();
  for (const name of order) samples[name].push(await variants[name]());
  // Context events grow with every call: a fresh log a round.
  context.events.length = 0;
}
const perCall = samples.hundredCalls.map((ms, i) => ((ms - samples.start[i]) * 1000) / 100);
console.log(
  `The sandbox (QuickJS, a fresh runtime a program; first program in the process, loading QuickJS and amaro: ${firstMs.toFixed(0)} ms). ${ROUNDS} rounds, median [min–max]:`,
);
console.table([
  { what: 'direct toolset.invoke', median: `${median(samples.direct).toFixed(2)} µs`, spread: `${spread(samples.direct, 2)} µs` },
  { what: 'program that only returns (sandbox start)', median: `${median(samples.start).toFixed(2)} ms`, spread: `${spread(samples.start, 2)} ms` },
  { what: 'program with one tool call', median: `${median(samples.oneCall).toFixed(2)} ms`, spread: `${spread(samples.oneCall, 2)} ms` },
  { what: 'each further call inside a program', median: `${median(perCall).toFixed(1)} µs`, spread: `${spread(perCall, 1)} µs` },
]);
console.log(
  `A program's start costs ${((median(samples.start) * 1000) / median(samples.direct)).toFixed(0)}x a direct call; a call inside it ${(median(perCall) / median(samples.direct)).toFixed(1)}x one.\n`,
);
runner.dispose();

// 3. 300 tools: the typed API against the JSON definitions.
const fixtures = join(root, 'test', 'e2e', 'fixtures');
const SERVICES = ['github', 'jira', 'slack', 'calendar', 'crm', 'drive'];
const catalog = await McpToolset.connect({
  mcpServers: Object.fromEntries(SERVICES.map((s) => [s, { command: process.execPath, args: [join(fixtures, 'catalog-server.mjs'), s] }])),
});
const big = new Toolset(catalog);
const declarations = countTokens(big.codeApi().declarations);
const rows = ['mcp', 'anthropic', 'openai'].map((format) => {
  const json = countTokens(JSON.stringify(lowerDefinitions(format, big.neutralDefinitions()).tools));
  return {
    'JSON definitions': format,
    tools: big.size,
    'JSON tokens': json,
    'declarations tokens': declarations,
    ratio: `${(declarations / json).toFixed(3)}x`,
  };
});
console.log(`The typed API of ${big.size} MCP tools (${SERVICES.length} servers over stdio) against their JSON definitions (target <= 0.6x):`);
console.table(rows);
await catalog.close();
