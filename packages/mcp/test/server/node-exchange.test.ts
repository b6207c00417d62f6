import { request, type IncomingHttpHeaders } from 'node:http';
import { Toolset, tool, type ExecutionContext } from '@anytool/core';
import { serveMcp, type McpServerHandle } from '@anytool/mcp';
import { waitFor } from './helpers';
import { scaled } from '../../../core/test/helpers/time-scale';

// The 2026-07-28 era over HTTP, as node:http sees it: serveMcp reads a POST's body itself (under its limits) and
// hands the parsed body to the SDK's handler. A JSON answer goes out whole with its length, an answer with
// notifications streams as SSE, and a client that goes away aborts its call.
jest.setTimeout(scaled(30_000));

const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function modernCall(url: string, id: number, name: string, args: object, meta: object = {}): { answer: Promise<Answer>; abort: () => void } {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { ...ENVELOPE, ...meta } } });
  let req: ReturnType<typeof request> | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
  return { answer, abort: () => req!.destroy() };
}

describe('serveMcp over HTTP, 2026-07-28 answers as node:http writes them', () => {
  let server: McpServerHandle;
  const waited = { started: 0, aborted: 0 };

  beforeAll(async () => {
    const add = tool(({ a, b }: { a: number; b: number }) => a + b, {
      name: 'add',
      description: 'Adds two numbers.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    const steps = tool(
      (_args: object, context: ExecutionContext) => {
        context.progress(1, 2, 'half way');
        return 'done';
      },
      { name: 'steps', description: 'Reports progress, then answers.', parameters: { type: 'object', properties: {} }, context: { progress: true } },
    );
    const wait = tool(
      (_args: object, context: ExecutionContext) =>
        new Promise<string>((resolve) => {
          waited.started++;
          context.signal!.addEventListener('abort', () => {
            waited.aborted++;
            resolve('stopped');
          });
        }),
      { name: 'wait', description: 'Waits until its call is aborted.', parameters: { type: 'object', properties: {} }, context: true },
    );
    server = await serveMcp(new Toolset(add, steps, wait), { transport: 'http', port: 0 });
  });
  afterAll(() => server?.close());

  it('sends a JSON answer whole, with its length', async () => {
    const { status, headers, text } = await modernCall(server.url!, 7, 'add', { a: 2, b: 3 }).answer;
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(text));
    const message = JSON.parse(text) as { id: number; result: { content: Array<{ text: string }> } };
    expect(message.id).toBe(7);
    expect(message.result.content[0]!.text).toBe('5');
  });

  it('streams an answer with notifications as SSE: the progress, then the result', async () => {
    const { status, headers, text } = await modernCall(server.url!, 8, 'steps', {}, { progressToken: 'p8' }).answer;
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^text\/event-stream/);
    const messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number; params?: { progressToken?: string; progress?: number } });
    expect(messages[0]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'p8', progress: 1 } });
    expect(messages.at(-1)).toMatchObject({ id: 8, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('aborts the call of a client that goes away', async () => {
    const before = { ...waited };
    const call = modernCall(server.url!, 9, 'wait', {});
    call.answer.catch(() => undefined);
    await waitFor(() => waited.started > before.started);
    call.abort();
    await waitFor(() => waited.aborted > before.aborted);
    // And the server goes on serving.
    expect(JSON.parse((await modernCall(server.url!, 10, 'add', { a: 1, b: 1 }).answer).text)).toMatchObject({ id: 10 });
  });
});
