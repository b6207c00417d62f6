import { AnytoolError, ErrorCode } from '@anytool/core';
import { OpenAI } from 'openai';
import { modelFailed } from '../../src/models/failure.js';

/** The error the official client throws for a response with `status`. */
function rejection(status: number, message: string): InstanceType<typeof OpenAI.APIError> {
  return OpenAI.APIError.generate(status, { error: { message } }, undefined, new Headers());
}

describe('modelFailed', () => {
  it('names the retries of a failure the client retries, the client error as its cause', () => {
    const cause = rejection(503, 'Service unavailable');
    const error = modelFailed('openai gpt-test', cause, 2, 'OPENAI_API_KEY');
    expect(error).toBeInstanceOf(AnytoolError);
    expect(error.code).toBe(ErrorCode.ModelFailed);
    expect(error.message).toBe("openai gpt-test: the request failed after the client's retries (maxRetries 2): 503 Service unavailable");
    expect(error.cause).toBe(cause);
  });

  it('counts a request that got no response as retried', () => {
    const error = modelFailed('openai gpt-test', new OpenAI.APIConnectionError({ message: 'Connection error.' }), 0, 'OPENAI_API_KEY');
    expect(error.message).toBe("openai gpt-test: the request failed after the client's retries (maxRetries 0): Connection error.");
  });

  it('says the status of a rejected request once, then what to check, in whole sentences', () => {
    const said = (status: number, message: string): string => modelFailed('openai gpt-test', rejection(status, message), 2, 'OPENAI_API_KEY').message;
    expect(said(401, 'Incorrect API key')).toBe(
      'openai gpt-test: the request was rejected with 401: Incorrect API key. Check the API key (the apiKey option or OPENAI_API_KEY) and that it may use this model.',
    );
    expect(said(403, 'Forbidden')).toMatch(/rejected with 403: Forbidden\. Check the API key \(the apiKey option or OPENAI_API_KEY\)/);
    expect(said(404, 'The model does not exist')).toBe(
      'openai gpt-test: the request was rejected with 404: The model does not exist. Check the model id and the baseURL.',
    );
    expect(said(400, 'Unknown parameter')).toBe(
      'openai gpt-test: the request was rejected with 400: Unknown parameter. The request was not retried; fix it and try again.',
    );
  });
});
