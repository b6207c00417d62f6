import { OpenAI } from 'openai';
import { openAIStreamEvents } from '../../src/models/openai-sse.js';

describe('openAIStreamEvents', () => {
  it('reads each message as the client does: JSON events until [DONE], an error thrown as APIError', () => {
    const headers = new Headers({ 'x-request-id': 'req_1' });
    const read = openAIStreamEvents<{ n?: number }>(headers);
    expect(read({ data: '{"n":1}' })).toEqual({ n: 1 });
    expect(read({ event: 'response.output_text.delta', data: '{"n":2}' })).toEqual({ n: 2 });
    let thrown: unknown;
    try {
      read({ data: '{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect(thrown).toMatchObject({ message: expect.stringContaining('Rate limit reached'), requestID: 'req_1' });
    expect(() => read({ data: '{"n":' })).toThrow(SyntaxError);

    const done = openAIStreamEvents<{ n?: number }>(headers);
    expect(done({ data: '[DONE]' })).toBeUndefined();
    // Whatever comes after [DONE] is not an event, as the client skips it.
    expect(done({ data: '{"n":3}' })).toBeUndefined();
    expect(done({ data: 'not json' })).toBeUndefined();
  });
});
