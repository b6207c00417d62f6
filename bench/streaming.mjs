// Streaming: the client CPU that `agent.stream` adds on top of reading the official
// client's stream directly, per 1,000 streamed tokens. A child process on 127.0.0.1
// streams a Responses API answer of TOKENS text deltas; this process reads it either
// straight from `openai` (`responses.create({ stream: true })`) or through
// `agent.stream` on OpenAIResponsesModel. CPU time of this process only
// (process.cpuUsage), interleaved rounds, median. Target: at most 5% more.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { OpenAI } from 'openai';
import { Agent } from '@anytool/agent';
import { OpenAIResponsesModel } from '@anytool/agent/openai-responses';

const ROUNDS = Number(process.env.ROUNDS ?? 15);
const RUNS = Number(process.env.RUNS ?? 10);
const TOKENS = Number(process.env.TOKENS ?? 1000);

// The provider: one SSE answer per request, built once (its CPU is not this process's).
const serverSource = `
const { createServer } = require('node:http');
const tokens = ${TOKENS};
const line = (e) => 'event: ' + e.type + '\\ndata: ' + JSON.stringify(e) + '\\n\\n';
let seq = 0;
const parts = [];
for (let i = 0; i < tokens; i++) parts.push(line({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'tok' + (i % 10) + ' ', logprobs: [], sequence_number: seq++ }));
const text = Array.from({ length: tokens }, (_, i) => 'tok' + (i % 10) + ' ').join('');
parts.push(line({ type: 'response.completed', sequence_number: seq++, response: { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', model: 'bench', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }], usage: { input_tokens: 10, output_tokens: tokens, total_tokens: tokens + 10 } } }));
const body = parts.join('');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Written in chunks of 50 events, as a network would deliver them.
    const chunk = Math.ceil(body.length / Math.ceil(tokens / 50));
    for (let at = 0; at < body.length; at += chunk) res.write(body.slice(at, at + chunk));
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
const child = spawn(process.execPath, ['-e', serverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
const [portLine] = await once(child.stdout, 'data');
const baseURL = `http://127.0.0.1:${String(portLine).trim()}/v1`;

const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });
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

/** CPU microseconds of this process per 1,000 tokens for RUNS streams. */
async function measure(read) {
  globalThis.gc?.();
  const start = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) if ((await read()) !== TOKENS * 5) throw new Error('a stream came back short');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / RUNS / (TOKENS / 1000);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (let i = 0; i < 3; i++) {
    await measure(direct);
    await measure(throughAgent);
  }
  const a = [];
  const b = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await measure(direct));
    b.push(await measure(throughAgent));
  }
  const base = median(a);
  const mine = median(b);
  const overhead = ((mine - base) / base) * 100;
  console.log(`client CPU per 1,000 streamed tokens (median of ${ROUNDS} rounds x ${RUNS} streams of ${TOKENS} tokens):`);
  console.log(`  openai client stream, read directly   ${(base / 1000).toFixed(2)} ms`);
  console.log(`  agent.stream (OpenAIResponsesModel)   ${(mine / 1000).toFixed(2)} ms`);
  console.log(`  streaming adds ${overhead.toFixed(1)}% (target: at most 5%) ${overhead <= 5 ? 'ok' : 'OVER TARGET'}`);
} finally {
  child.kill();
}
