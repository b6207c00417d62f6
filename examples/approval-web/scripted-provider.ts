// A stand-in for a hosted model: a real HTTP server on 127.0.0.1 that speaks
// OpenAI's Chat Completions wire format, so the example runs the real
// `OpenAIModel` adapter (the official `openai` client) without an API key.
// It keeps no state: each reply is read off the conversation it is sent, so it
// answers the same after the web server restarts (and a paused run resumed in a
// new process sends it the whole conversation again).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SCRIPTED_MODEL = 'scripted-payments';

export interface ScriptedProvider {
  /** The base URL to give `OpenAIModel` (`.../v1`). */
  baseURL: string;
  close(): Promise<void>;
}

/** A payment request in plain words: "Send 40 EUR to Alice for the March invoice". */
export function readPaymentRequest(text: string): { to: string; amountEur: number; memo: string } | undefined {
  const match = /\b(?:pay|send|transfer)\s+(?:€\s*|EUR\s*)?(\d{1,6}(?:[.,]\d{1,2})?)\s*(?:€|EUR|euros?)?\s+to\s+(.+?)(?:\s+for\s+(.+?))?\s*[.!]?\s*$/i.exec(
    text.trim(),
  );
  if (match === null) return undefined;
  return { amountEur: Number(match[1]!.replace(',', '.')), to: match[2]!.trim(), memo: match[3]?.trim() ?? '' };
}

interface WireMessage {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

/** The assistant's next message for a conversation: tool calls for a new request, the answer once their results are in. */
function reply(messages: WireMessage[]): { content: string | null; toolCalls?: Array<{ name: string; arguments: unknown }> } {
  const last = messages[messages.length - 1];
  if (last?.role === 'user') {
    const request = readPaymentRequest(last.content ?? '');
    if (request === undefined) return { content: 'I send payments. Try: "Send 40 EUR to Alice for the March invoice".' };
    // The balance is read alongside the payment: it needs no approval, so it runs while the payment waits.
    return {
      content: `Checking your balance and sending ${request.amountEur} EUR to ${request.to}.`,
      toolCalls: [
        { name: 'get_balance', arguments: {} },
        { name: 'send_payment', arguments: request },
      ],
    };
  }
  // The results of the last assistant turn, by the tool that was called.
  const assistant = [...messages].reverse().find((message) => message.role === 'assistant');
  const byId = new Map((assistant?.tool_calls ?? []).map((call) => [call.id, call.function.name]));
  const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [byId.get(m.tool_call_id ?? ''), m.content ?? '']));
  const payment = results.get('send_payment');
  if (payment === undefined) return { content: 'I did not send anything.' };
  let sent: { paymentId?: string; to?: string; amountEur?: number; balanceEur?: number } = {};
  try {
    sent = JSON.parse(payment) as typeof sent;
  } catch {
    // Not the tool's JSON: the call did not run (a refusal, an error), and its text says why.
  }
  if (sent.paymentId === undefined) return { content: `The payment was not made. ${payment}` };
  return { content: `Sent ${sent.amountEur} EUR to ${sent.to} (payment ${sent.paymentId}). Your balance is now ${sent.balanceEur} EUR.` };
}

function completion(messages: WireMessage[]): unknown {
  const { content, toolCalls } = reply(messages);
  const prompt = JSON.stringify(messages).length;
  const message: Record<string, unknown> = { role: 'assistant', content, refusal: null };
  if (toolCalls !== undefined) {
    message['tool_calls'] = toolCalls.map((call, i) => ({
      id: `call_${Date.now().toString(36)}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
  }
  const output = JSON.stringify(message).length;
  return {
    id: `chatcmpl-${Date.now().toString(36)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: SCRIPTED_MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls === undefined ? 'stop' : 'tool_calls' }],
    // About four characters a token, as a real tokenizer would count English.
    usage: { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: Math.ceil(output / 4), total_tokens: Math.ceil(prompt / 4) + Math.ceil(output / 4) },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    send(res, 404, { error: { message: `${req.method} ${req.url}: this server answers POST /v1/chat/completions only`, type: 'invalid_request_error' } });
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages?: WireMessage[]; stream?: boolean };
  if (body.stream === true) {
    send(res, 400, { error: { message: 'the scripted provider does not stream: call generate, not stream', type: 'invalid_request_error' } });
    return;
  }
  send(res, 200, completion(body.messages ?? []));
}

/** Starts the scripted provider on a free port of 127.0.0.1. */
export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 400, { error: { message: String(error), type: 'invalid_request_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
