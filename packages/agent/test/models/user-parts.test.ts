// Images and files in the user's message: each adapter sends its provider's own part types (bytes, base64 or a
// URL), through the official client to a local server, whole and streamed; a part a provider cannot take is a
// coded error naming the adapter.
import { ErrorCode } from '@anytool/core';
import { Agent, type AgentStreamEvent, type ModelMessage, type UserPart } from '@anytool/agent';
import { PROVIDERS, type ProviderReplies } from '../helpers/provider-replies.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG = new Uint8Array(Buffer.from(PNG_BASE64, 'base64'));
const PDF = new Uint8Array(Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n'));
const PDF_BASE64 = Buffer.from(PDF).toString('base64');

/** Text, an image as bytes, the same image as base64 text, an image by URL, and a PDF as bytes. */
const parts: UserPart[] = [
  { type: 'text', text: 'What do these show?' },
  { type: 'image', data: PNG },
  { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
  { type: 'image', url: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' },
  { type: 'file', data: PDF, filename: 'report.pdf' },
];

/** What each provider's request carries for `parts`, in its own part types. */
const expected: Record<ProviderReplies['name'], (body: Record<string, unknown>) => unknown> = {
  openai: (body) => (body['messages'] as Array<{ content: unknown }>)[0]!.content,
  'openai-responses': (body) => (body['input'] as Array<{ content: unknown }>)[0]!.content,
  anthropic: (body) => (body['messages'] as Array<{ content: unknown }>)[0]!.content,
  gemini: (body) => (body['contents'] as Array<{ parts: unknown }>)[0]!.parts,
};

const native: Record<ProviderReplies['name'], unknown[]> = {
  openai: [
    { type: 'text', text: 'What do these show?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF_BASE64}` } },
  ],
  'openai-responses': [
    { type: 'input_text', text: 'What do these show?' },
    { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
    { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
    { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
    { type: 'input_file', filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF_BASE64}` },
  ],
  anthropic: [
    { type: 'text', text: 'What do these show?' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
    { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 }, title: 'report.pdf' },
  ],
  gemini: [
    { text: 'What do these show?' },
    { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
    { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } },
    { fileData: { fileUri: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' } },
    { inlineData: { mimeType: 'application/pdf', data: PDF_BASE64 } },
  ],
};

describe("images and files in the user's message, for each adapter", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const provider of PROVIDERS) {
    for (const stream of [false, true]) {
      it(`${provider.name}${stream ? ', streamed' : ''}: bytes, base64 and URLs as the provider's own parts`, async () => {
        server = await startProviderServer([provider.text('A pixel, a cat and a report.', stream)]);
        const agent = new Agent({ model: provider.model(server.url) });
        const input: ModelMessage[] = [{ role: 'user', content: parts }];
        let text: string;
        if (stream) {
          const seen: AgentStreamEvent[] = [];
          for await (const event of agent.stream(input)) seen.push(event);
          const last = seen.at(-1)!;
          text = last.type === 'result' ? last.result.text : '';
          // The bytes travel as base64 in the run's messages: a paused run's state stays JSON.
          expect(last.type === 'result' && JSON.stringify(last.result.messages[0])).toContain(PDF_BASE64);
        } else {
          const result = await agent.run(input);
          text = result.text;
          expect(result.context.events[0]).toMatchObject({
            type: 'message',
            role: 'user',
            text: 'What do these show?\n[image]\n[image image/png]\n[image image/jpeg]\n[file]',
          });
        }
        expect(text).toBe('A pixel, a cat and a report.');
        expect(expected[provider.name](server.requests[0]!.body)).toEqual(native[provider.name]);
      });
    }
  }

  it('a PDF by URL: the Responses API and Anthropic take it; Gemini with its type', async () => {
    const pdfUrl: UserPart[] = [{ type: 'file', url: 'https://example.com/report.pdf', mimeType: 'application/pdf' }];
    const byProvider: Partial<Record<ProviderReplies['name'], unknown>> = {
      'openai-responses': [{ type: 'input_file', file_url: 'https://example.com/report.pdf' }],
      anthropic: [{ type: 'document', source: { type: 'url', url: 'https://example.com/report.pdf' } }],
      gemini: [{ fileData: { fileUri: 'https://example.com/report.pdf', mimeType: 'application/pdf' } }],
    };
    for (const provider of PROVIDERS.filter((p) => byProvider[p.name] !== undefined)) {
      server = await startProviderServer([provider.text('ok', false)]);
      await new Agent({ model: provider.model(server.url) }).run([{ role: 'user', content: pdfUrl }]);
      expect(expected[provider.name](server.requests[0]!.body)).toEqual(byProvider[provider.name]);
      await server.close();
      server = undefined;
    }
  });

  it('a part the provider cannot take is UNSUPPORTED_BY_MODEL naming the adapter, and nothing is sent', async () => {
    server = await startProviderServer([]);
    const cases: Array<[ProviderReplies['name'], UserPart, RegExp]> = [
      [
        'openai',
        { type: 'file', url: 'https://example.com/report.pdf', mimeType: 'application/pdf' },
        /^OpenAIModel \(Chat Completions\): a file by URL .* takes a file's bytes only; pass its bytes as `data`, or use OpenAIResponsesModel/,
      ],
      ['openai', { type: 'file', data: 'aGVsbG8=', mimeType: 'text/csv' }, /^OpenAIModel \(Chat Completions\): a file of type text\/csv cannot be sent/],
      [
        'anthropic',
        { type: 'image', data: 'PHN2Zz48L3N2Zz4=', mimeType: 'image/svg+xml' },
        /^AnthropicModel: an image of type image\/svg\+xml cannot be sent; send a JPEG, PNG, GIF or WebP image$/,
      ],
      [
        'anthropic',
        { type: 'file', url: 'https://example.com/data.csv', mimeType: 'text/csv' },
        /^AnthropicModel: a file of type text\/csv by URL cannot be sent/,
      ],
      ['gemini', { type: 'image', url: 'https://example.com/cat' }, /^GeminiModel: an image by URL .* needs a MIME type; give the part's `mimeType`/],
      [
        'openai-responses',
        { type: 'image', data: 'PHN2Zz48L3N2Zz4=', mimeType: 'image/svg+xml' },
        /^OpenAIResponsesModel: an image of type image\/svg\+xml cannot be sent/,
      ],
    ];
    for (const [name, part, message] of cases) {
      const model = PROVIDERS.find((p) => p.name === name)!.model(server.url);
      await expect(model.generate({ messages: [{ role: 'user', content: [part] }], tools: [] })).rejects.toMatchObject({
        code: ErrorCode.UnsupportedByModel,
        message: expect.stringMatching(message),
      });
    }
    // Through an agent, the run fails with the adapter's own error.
    const chat = PROVIDERS.find((p) => p.name === 'openai')!.model(server.url);
    const failed = await new Agent({ model: chat }).run([{ role: 'user', content: [cases[0]![1]] }]).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: ErrorCode.UnsupportedByModel, message: expect.stringContaining('OpenAIModel') });
    expect(server.requests).toHaveLength(0);
  });

  it('a malformed part is INVALID_OPTIONS saying what a part needs', async () => {
    const model = PROVIDERS[0]!.model('http://127.0.0.1:9');
    const bad: Array<[unknown, RegExp]> = [
      [{ type: 'image' }, /needs exactly one of `data` \(bytes or base64 text\) and `url`/],
      [{ type: 'image', data: 'not base64!' }, /neither bytes .* nor base64 text/],
      [{ type: 'image', data: new Uint8Array([1, 2, 3]) }, /bytes of no type it recognises; give its `mimeType`/],
      [{ type: 'file', url: 'https://example.com/x' }, /needs its `mimeType`/],
      [{ type: 'image', url: 'file:///etc/passwd', mimeType: 'image/png' }, /give an http\(s\) URL/],
      [{ type: 'audio', data: 'AAAA' }, /a part is \{ type: 'text' \}, \{ type: 'image' \} or \{ type: 'file' \}/],
    ];
    for (const [part, message] of bad) {
      await expect(model.generate({ messages: [{ role: 'user', content: [part as UserPart] }], tools: [] })).rejects.toMatchObject({
        code: ErrorCode.InvalidOptions,
        message: expect.stringMatching(message),
      });
    }
  });
});
