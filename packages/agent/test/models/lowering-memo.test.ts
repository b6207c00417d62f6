import { tool, Toolset } from '@anytool/core';
import type { ModelRequest } from '@anytool/agent';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { GeminiModel } from '../../src/models/gemini.js';
import { OpenAIModel } from '../../src/models/openai.js';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';

// Every adapter lowers the turn's tools into its request; a turn with the same definitions as
// the one before (an agent's usual next turn) gets the same lowered tools without lowering again.
const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const;
const toolset = new Toolset(['weather', 'time'].map((name) => tool(() => name, { name, description: `The ${name}.`, parameters })));
const request = (tools = toolset.neutralDefinitions()): ModelRequest => ({ messages: [{ role: 'user', content: 'hi' }], tools });
const options = { apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 };

const adapters = {
  openai: () => new OpenAIModel({ model: 'gpt-test', ...options }),
  'openai-responses': () => new OpenAIResponsesModel({ model: 'gpt-test', ...options }),
  anthropic: () => new AnthropicModel({ model: 'claude-test', ...options }),
  gemini: () => new GeminiModel({ model: 'gemini-test', ...options }),
};

/** The lowered tools a request body carries, whatever the provider calls the field. */
function toolsOf(params: unknown): unknown[] {
  const body = params as { tools?: unknown[]; config?: { tools?: { functionDeclarations?: unknown[] }[] } };
  return body.tools ?? body.config?.tools?.[0]?.functionDeclarations ?? [];
}

describe.each(Object.keys(adapters) as (keyof typeof adapters)[])("%s: the turn's tools are lowered once while they stay the same", (name) => {
  it('the next turn with the same definitions carries the same frozen tools; a changed definition is lowered anew', () => {
    const model = adapters[name]();
    const first = toolsOf(model.toParams(request()));
    const second = toolsOf(model.toParams(request()));
    expect(first).toHaveLength(2);
    expect(second).toEqual(first);
    expect(second[0]).toBe(first[0]);
    expect(Object.isFrozen(second[0])).toBe(true);
    const [weather, time] = toolset.neutralDefinitions();
    const third = toolsOf(model.toParams(request([{ ...weather!, description: 'Changed.' }, time!])));
    expect(third[0]).not.toBe(first[0]);
    expect(JSON.stringify(third[0])).toContain('Changed.');
    expect(third[1]).toEqual(first[1]);
  });
});
