// Streaming: the client CPU that `agent.stream` adds on top of reading the official
// client's stream directly, per 1,000 streamed tokens. The official `openai` client reads
// a Responses API answer of TOKENS text deltas either straight
// (`responses.create({ stream: true })`) or through `agent.stream` on
// OpenAIResponsesModel. The answer's bytes come from the client's `fetch`, in the same
// chunks of 50 events every time: over a socket, how the bytes arrive depends on how fast
// the reader is (a slower reader gets bigger reads, which the client's parser handles at a
// different cost), so the baseline itself would move with the machine's load. Measured
// as CPU time of this process (process.cpuUsage, user + system), in ROUNDS rounds of one
// sample each way, the order alternating round by round (AB, BA, ...) so drift in the
// machine's speed falls on both alike. Each round gives a paired ratio; the result is the
// median ratio, with its spread (quartiles, min-max). Target: the median at most 5% more.
import { OpenAI } from 'openai';
import { Agent } from '@anytool/agent';
import { OpenAIResponsesModel } from '@anytool/agent/openai-responses';

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const RUNS = Number(process.env.RUNS ?? 10);
const TOKENS = Number(process.env.TOKENS ?? 1000);

// The provider's answer, as server-sent events, built once.
const line = (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const events = [];
for (let i = 0; i < TOKENS; i++) events.push(line({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: `tok${i % 10} `, logprobs: [], sequence_number: i }));
const text = Array.from({ length: TOKENS }, (_, i) => `tok${i % 10} `).join('');
const output = [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }];
events.push(line({ type: 'response.completed', sequence_number: TOKENS, response: { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'bench', output, usage: { input_tokens: 10, output_tokens: TOKENS, total_tokens: TOKENS + 10 } } }));
const encoder = new TextEncoder();
const chunks = [];
for (let at = 0; at < events.length; at += 50) chunks.push(encoder.encode(events.slice(at, at + 50).join('')));

/** The client's fetch: every request gets the answer above, chunk by chunk. */
async function answer(url, init) {
  if (init?.body !== undefined) JSON.parse(String(init.body));
  const body = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const client = new OpenAI({ apiKey: 'bench', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0, fetch: answer });
const agent = new Agent({ model: new OpenAIResponsesModel({ model: 'bench', client }) });

async function direct() {
  let chars = 0;
  const stream = await client.responses.create({ model: 'bench', input: [{ role: 'user', content: 'go' }], stream: true });
  for await (const event of stream) if (event.type === 'response.output_text.delta') chars += event.delta.length;
  return chars;
}

async function throughAgent() {
  let chars = 0;
  for await (const event of agent.stream('go')) if (event.type === 'text_delta') chars += event.text.length;
  return chars;
}

/** CPU microseconds of this process per 1,000 tokens over RUNS streams. */
async function measure(read) {
  globalThis.gc?.();
  const start = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) if ((await read()) !== TOKENS * 5) throw new Error('a stream came back short');
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

try {
  // Warm-up: both paths compiled and the connection pool filled before anything counts.
  for (let i = 0; i < 5; i++) {
    await measure(direct);
    await measure(throughAgent);
  }
  const base = [];
  const mine = [];
  const overheads = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a;
    let b;
    if (r % 2 === 0) {
      a = await measure(direct);
      b = await measure(throughAgent);
    } else {
      b = await measure(throughAgent);
      a = await measure(direct);
    }
    base.push(a);
    mine.push(b);
    overheads.push(((b - a) / a) * 100);
  }
  const overhead = quantile(overheads, 0.5);
  console.log(`client CPU per 1,000 streamed tokens (${ROUNDS} alternating rounds x ${RUNS} streams of ${TOKENS} tokens each way):`);
  console.log(`  openai client stream, read directly   median ${(quantile(base, 0.5) / 1000).toFixed(2)} ms (quartiles ${(quantile(base, 0.25) / 1000).toFixed(2)}-${(quantile(base, 0.75) / 1000).toFixed(2)})`);
  console.log(`  agent.stream (OpenAIResponsesModel)   median ${(quantile(mine, 0.5) / 1000).toFixed(2)} ms (quartiles ${(quantile(mine, 0.25) / 1000).toFixed(2)}-${(quantile(mine, 0.75) / 1000).toFixed(2)})`);
  console.log(`  per-round overhead: median ${pct(overhead)}, quartiles ${pct(quantile(overheads, 0.25))} to ${pct(quantile(overheads, 0.75))}, range ${pct(Math.min(...overheads))} to ${pct(Math.max(...overheads))}`);
  console.log(`  streaming adds ${overhead.toFixed(1)}% (target: at most 5%) ${overhead <= 5 ? 'ok' : 'OVER TARGET'}`);
} finally {
  // Nothing to stop: no server.
}
