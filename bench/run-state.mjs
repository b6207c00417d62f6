// A paused run's state, written and read back: a conversation of 50 messages paused on a turn of 10
// calls that wait for approval. Measures what a web app pays per request: JSON.stringify of the state
// (to store it), then JSON.parse and `agent.resume` up to the model's next request (the resumed calls
// run, the model answers at once). Target: <= 5 ms for the whole round.
//
// node bench/run-state.mjs [--rounds N] (the packages are built first: `npm run build`)
import { Agent } from '@anytool/agent';
import { tool } from '@anytool/core';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 7;
const PER_ROUND = 200;

const tools = Array.from({ length: 10 }, (_, i) =>
  tool(({ path }) => `deleted ${path}`, {
    name: `delete_${i}`,
    description: `Deletes a file of store ${i}.`,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    requiresApproval: true,
  }),
);

/** A model that asks for the ten calls on its first turn, then answers; `at(turn)` sets the turn it is on. */
function model() {
  let turn = 0;
  return {
    name: 'bench',
    at(n) {
      turn = n;
    },
    async generate() {
      turn++;
      const usage = { inputTokens: 900, outputTokens: 40, totalTokens: 940 };
      if (turn === 1) {
        const toolCalls = tools.map((t, i) => ({ id: `call_${i}`, name: t.name, arguments: { path: `/srv/reports/${i}/q3-${'x'.repeat(40)}.csv` } }));
        return { text: '', toolCalls, usage, stopReason: 'tool_calls' };
      }
      return { text: 'All ten files are deleted.', toolCalls: [], usage, stopReason: 'end' };
    },
  };
}

// 50 messages of history: user questions, answers, tool calls and results of a realistic size.
const history = [];
for (let i = 0; history.length < 48; i++) {
  history.push({ role: 'user', content: `Question ${i}: what changed in report ${i}? ${'Some context. '.repeat(10)}` });
  history.push({ role: 'assistant', content: '', toolCalls: [{ id: `h${i}`, name: 'delete_0', arguments: { path: `/tmp/${i}` } }] });
  history.push({
    role: 'tool',
    callId: `h${i}`,
    name: 'delete_0',
    result: { content: [{ type: 'text', text: `Result ${i}: ${'row,'.repeat(60)}` }], isError: false },
  });
}
history.push({ role: 'user', content: 'Delete the ten old reports.' });

const m = model();
const agent = new Agent({ model: m, tools, approve: 'pause' });
const paused = await agent.run(history);
if (paused.stopReason !== 'interrupted' || paused.interruptions.length !== 10) throw new Error(`the run did not pause on ten calls: ${paused.stopReason}`);
const text = JSON.stringify(paused.state);
console.log(`state: ${paused.state.messages.length} messages, ${paused.interruptions.length} pending calls, ${(text.length / 1024).toFixed(1)} KiB of JSON`);

const answers = Object.fromEntries(paused.interruptions.map((item) => [item.id, { approved: true }]));
async function round() {
  const started = process.hrtime.bigint();
  for (let i = 0; i < PER_ROUND; i++) {
    const stored = JSON.stringify(paused.state);
    const state = JSON.parse(stored);
    // Each resume is of its own pause (a resumed pause is refused): a fresh pause id, as a new pause has.
    state.pauseId = `${paused.state.pauseId}-${i}-${Math.random()}`;
    // The paused turn was the model's first: it answers on its second.
    m.at(1);
    const done = await agent.resume(state, answers);
    if (done.stopReason !== 'final_answer') throw new Error(`resume ended with ${done.stopReason}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e6 / PER_ROUND;
}

await round(); // warm-up
const times = [];
for (let r = 0; r < rounds; r++) times.push(await round());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(
  `store + read back + resume (10 approved calls run, one model turn): median ${median.toFixed(3)} ms, spread ${times[0].toFixed(3)}–${times[times.length - 1].toFixed(3)} ms over ${rounds} rounds of ${PER_ROUND}`,
);
console.log(`target <= 5 ms: ${median <= 5 ? 'met' : 'NOT met'}`);
