import { AnytoolError, ErrorCode } from '@anytool/core';
import { ModelAdapter } from '../../src/models/adapter.js';
import type { ChunkMapper } from '../../src/models/stream-map.js';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../src/model.js';

/** What the in-memory provider's "client" answers: a reply (text, or text deltas streamed) or an error it throws. */
type Answer = { text: string } | { error: unknown };

interface Sent {
  params: { prompt: string };
  signal: AbortSignal | undefined;
  streamed: boolean;
}

/** A provider that takes a prompt and answers with text: the least an adapter fills in of the skeleton. */
class EchoModel extends ModelAdapter<{ prompt: string }, { text: string }, string> {
  readonly provider = 'echo';
  readonly sent: Sent[] = [];
  protected readonly maxRetries = 3;

  constructor(
    private readonly answer: Answer,
    options: { model?: unknown } = { model: 'echo-1' },
  ) {
    super(options, { className: 'EchoModel', label: 'echo', exampleModel: 'echo-1', keyVariable: 'ECHO_API_KEY' });
  }

  override toParams(request: ModelRequest): { prompt: string } {
    return { prompt: request.messages.map((m) => (m.role === 'tool' ? '' : m.content)).join('\n') };
  }

  protected override async send(params: { prompt: string }, signal: AbortSignal | undefined): Promise<{ text: string }> {
    this.sent.push({ params, signal, streamed: false });
    if ('error' in this.answer) throw this.answer.error;
    return { text: this.answer.text };
  }

  protected override fromReply(reply: { text: string }): ModelResponse {
    return { text: reply.text, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, stopReason: 'end' };
  }

  protected override async sendStream(params: { prompt: string }, signal: AbortSignal | undefined): Promise<AsyncIterator<string>> {
    this.sent.push({ params, signal, streamed: true });
    if ('error' in this.answer) throw this.answer.error;
    return words(this.answer.text);
  }

  protected override chunkMapper(): ChunkMapper<string> {
    let text = '';
    return {
      add: (chunk) => {
        text += chunk;
        return chunk;
      },
      end: () => ({ type: 'response', response: this.fromReply({ text }) }),
    };
  }
}

/** The words of `text`, one chunk each, as a client's stream gives its chunks. */
async function* words(text: string): AsyncGenerator<string> {
  for (const word of text.split(' ')) yield word;
}

const request = (signal?: AbortSignal): ModelRequest => ({ messages: [{ role: 'user', content: 'hello' }], tools: [], ...(signal && { signal }) });

/** The client's error for a response with `status`, as the official clients make it. */
const rejected = (status: number, message: string): Error => Object.assign(new Error(`${status} ${message}`), { status });

async function collect(events: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const out: ModelStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('ModelAdapter', () => {
  it('names the adapter after its label and model, and checks the model id', () => {
    const model = new EchoModel({ text: 'hi' });
    expect(model).toMatchObject({ name: 'echo echo-1', model: 'echo-1', provider: 'echo' });
    for (const options of [{}, { model: '' }, { model: 7 }]) {
      expect(() => new EchoModel({ text: 'hi' }, options)).toThrow(
        expect.objectContaining({ code: ErrorCode.InvalidOptions, message: 'new EchoModel(): `model` must be a model id such as "echo-1"' }),
      );
    }
  });

  it('sends the parameters toParams makes with the run signal, and maps the reply', async () => {
    const model = new EchoModel({ text: 'hi there' });
    const signal = new AbortController().signal;
    await expect(model.generate(request(signal))).resolves.toMatchObject({ text: 'hi there', stopReason: 'end' });
    expect(model.sent).toEqual([{ params: { prompt: 'hello' }, signal, streamed: false }]);
  });

  it('turns a failed request into MODEL_FAILED, naming the adapter, its retries and the key variable', async () => {
    const cause = rejected(401, 'bad key');
    const failure = await new EchoModel({ error: cause }).generate(request()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AnytoolError);
    expect(failure).toMatchObject({
      code: ErrorCode.ModelFailed,
      message: 'echo echo-1: the request was rejected with 401: bad key. Check the API key (the apiKey option or ECHO_API_KEY) and that it may use this model.',
      cause,
    });
    await expect(new EchoModel({ error: rejected(503, 'busy') }).generate(request())).rejects.toThrow(/maxRetries 3/);
  });

  it('fails a request the run aborted with the client error itself', async () => {
    const abort = new AbortController();
    abort.abort();
    const cause = Object.assign(new Error('Request was aborted.'), { name: 'AbortError' });
    await expect(new EchoModel({ error: cause }).generate(request(abort.signal))).rejects.toBe(cause);
    await expect(collect(new EchoModel({ error: cause }).stream(request(abort.signal)))).rejects.toBe(cause);
  });

  it('streams through the chunk mapper, sending the request on the first read', async () => {
    const model = new EchoModel({ text: 'a b' });
    const events = model.stream(request())[Symbol.asyncIterator]();
    expect(model.sent).toEqual([]);
    await expect(events.next()).resolves.toEqual({ value: { type: 'text_delta', text: 'a' }, done: false });
    expect(model.sent).toEqual([{ params: { prompt: 'hello' }, signal: undefined, streamed: true }]);
    const rest: ModelStreamEvent[] = [];
    for (let step = await events.next(); step.done !== true; step = await events.next()) rest.push(step.value);
    expect(rest).toEqual([
      { type: 'text_delta', text: 'b' },
      { type: 'response', response: expect.objectContaining({ text: 'ab' }) },
    ]);
  });

  it('fails a stream whose request failed with MODEL_FAILED on its first read', async () => {
    const events = new EchoModel({ error: rejected(404, 'no such model') }).stream(request());
    await expect(collect(events)).rejects.toMatchObject({
      code: ErrorCode.ModelFailed,
      message: 'echo echo-1: the request was rejected with 404: no such model. Check the model id and the baseURL.',
    });
  });
});
