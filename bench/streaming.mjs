// Streaming: the client CPU that `agent.stream` adds on top of reading the official
// client's stream directly, per 1,000 streamed tokens, for OpenAI's Responses API and
// Anthropic's Messages API. Each official client reads an answer of TOKENS text deltas
// either straight (`responses.create({ stream: true })`, `messages.create({ stream: true })`)
// or through `agent.stream` on OpenAIResponsesModel / AnthropicModel (which have the client
// send the request and read the server-sent events of its response themselves). The answer's bytes
// come from the client's `fetch`, in the same chunks of 50 events every time: over a
// socket, how the bytes arrive depends on how fast the reader is (a slower reader gets
// bigger reads, which the client's parser handles at a different cost), so the baseline
// itself would move with the machine's load. Measured as CPU time of this process
// (process.cpuUsage, user + system), in ROUNDS rounds of one sample each way, the order
// alternating round by round (AB, BA, ...) so drift in the machine's speed falls on both
// alike. Each round gives a paired ratio; the result is the median ratio, with its spread
// (quartiles, min-max). Target: the median at most 5% more.
import { Anthropic } from '@anthropic-ai/sdk';
import { OpenAI } from 'openai';
import { Agent } from '@anytool/agent';
import { AnthropicModel } from '@anytool/agent/anthropic';
import { OpenAIResponsesModel } from '@anytool/agent/openai-responses';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const RUNS = Number(process.env.RUNS ?? 10);
const TOKENS = Number(process.env.TOKENS ?? 1000);

const token = (i) => `tok${i % 10} `;
const text = Array.from({ length: TOKENS }, (_, i) => token(i)).join('');
const sse = (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

// The Responses API answer: the text deltas, then response.completed with the whole turn.
const responses = [];
for (let i = 0; i < TOKENS; i++)
  responses.push({
    type: 'response.output_text.delta',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: token(i),
    logprobs: [],
    sequence_number: i,
  });
const output = [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }];
responses.push({
  type: 'response.completed',
  sequence_number: TOKENS,
  response: {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'bench',
    output,
    usage: { input_tokens: 10, output_tokens: TOKENS, total_tokens: TOKENS + 10 },
  },
});

// The Messages API answer: message_start, one text block of deltas, message_delta, message_stop.
const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const messages = [
  {
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'bench', content: [], stop_reason: null, stop_sequence: null, usage },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
];
for (let i = 0; i < TOKENS; i++) messages.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: token(i) } });
messages.push(
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: TOKENS } },
  { type: 'message_stop' },
);

/** A client's fetch answering every request with `events`, 50 to a chunk. */
function answering(events) {
  const encoder = new TextEncoder();
  const chunks = [];
  for (let at = 0; at < events.length; at += 50)
    chunks.push(
      encoder.encode(
        events
          .slice(at, at + 50)
          .map(sse)
          .join(''),
      ),
    );
  return async (url, init) => {
    if (init?.body !== undefined) JSON.parse(String(init.body));
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

const openai = new OpenAI({ apiKey: 'bench', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch: answering(responses) });
const anthropic = new Anthropic({ apiKey: 'bench', baseURL: 'http://127.0.0.1:9', maxRetries: 0, fetch: answering(messages) });
const viaAgent = (model) => {
  const agent = new Agent({ model });
  return async () => {
    let chars = 0;
    for await (const event of agent.stream('go')) if (event.type === 'text_delta') chars += event.text.length;
    return chars;
  };
};

const cases = [
  {
    name: 'OpenAI Responses',
    direct: async () => {
      let chars = 0;
      const stream = await openai.responses.create({ model: 'bench', input: [{ role: 'user', content: 'go' }], stream: true });
      for await (const event of stream) if (event.type === 'response.output_text.delta') chars += event.delta.length;
      return chars;
    },
    agent: viaAgent(new OpenAIResponsesModel({ model: 'bench', client: openai })),
  },
  {
    name: 'Anthropic Messages',
    direct: async () => {
      let chars = 0;
      const stream = await anthropic.messages.create({ model: 'bench', max_tokens: 4096, messages: [{ role: 'user', content: 'go' }], stream: true });
      for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') chars += event.delta.text.length;
      return chars;
    },
    agent: viaAgent(new AnthropicModel({ model: 'bench', client: anthropic })),
  },
];

/**
 * CPU microseconds of this process per 1,000 tokens over RUNS streams. No forced garbage
 * collection in between: a full collection makes V8 drop the shapes and the compiled code
 * of objects no longer alive, so each measurement would mostly time both paths compiling
 * again, which an application streaming answers one after the other does not see. The
 * garbage each path leaves falls on the measurements of both, alternating round by round.
 */
async function measure(read) {
  const start = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) if ((await read()) !== text.length) throw new Error('a stream came back short');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / RUNS / (TOKENS / 1000);
}

/** The q-quantile of a list (linear between neighbours). */
function quantile(xs, q) {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}
const pct = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
const ms = (xs) =>
  `median ${(quantile(xs, 0.5) / 1000).toFixed(2)} ms (quartiles ${(quantile(xs, 0.25) / 1000).toFixed(2)}-${(quantile(xs, 0.75) / 1000).toFixed(2)})`;

console.log(`client CPU per 1,000 streamed tokens (${ROUNDS} alternating rounds x ${RUNS} streams of ${TOKENS} tokens each way):`);
// CASES=anthropic (a part of a case's name) runs only the cases it names.
const only = (process.env.CASES ?? '').toLowerCase();
for (const { name, direct, agent } of cases.filter((c) => c.name.toLowerCase().includes(only))) {
  // Warm-up: both paths compiled before anything counts.
  for (let i = 0; i < 5; i++) {
    await measure(direct);
    await measure(agent);
  }
  const base = [];
  const mine = [];
  const overheads = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a;
    let b;
    if (r % 2 === 0) {
      a = await measure(direct);
      b = await measure(agent);
    } else {
      b = await measure(agent);
      a = await measure(direct);
    }
    base.push(a);
    mine.push(b);
    overheads.push(((b - a) / a) * 100);
  }
  const overhead = quantile(overheads, 0.5);
  console.log(`  ${name}`);
  console.log(`    client's stream, read directly   ${ms(base)}`);
  console.log(`    agent.stream                     ${ms(mine)}`);
  console.log(
    `    per-round overhead: median ${pct(overhead)}, quartiles ${pct(quantile(overheads, 0.25))} to ${pct(quantile(overheads, 0.75))}, range ${pct(Math.min(...overheads))} to ${pct(Math.max(...overheads))}`,
  );
  console.log(`    streaming adds ${overhead.toFixed(1)}% (target: at most 5%) ${overhead <= 5 ? 'ok' : 'OVER TARGET'}`);
}
