import { tool, type ToolDefinition } from '@anytool/core';
import type { ModelRequest, ToolChoice } from '@anytool/agent';
import { AnthropicModel } from '../../src/models/anthropic.js';
import { GeminiModel } from '../../src/models/gemini.js';
import { OpenAIModel } from '../../src/models/openai.js';
import { OpenAIResponsesModel } from '../../src/models/openai-responses.js';

const tools: ToolDefinition[] = [tool(() => 'ok', { name: 'search', description: 'Search.', parameters: { type: 'object', properties: {} } }).definition];
const request = (toolChoice?: ToolChoice): ModelRequest => ({
  messages: [{ role: 'user', content: 'go' }],
  tools,
  ...(toolChoice === undefined ? {} : { toolChoice }),
});
const choices: ToolChoice[] = ['auto', 'required', 'none', { name: 'search' }];

describe("each adapter sends the turn's tool choice in its provider's terms", () => {
  it('OpenAI Chat Completions: tool_choice', () => {
    const model = new OpenAIModel({ model: 'gpt-test', apiKey: 'k' });
    expect(choices.map((c) => model.toParams(request(c)).tool_choice)).toEqual([
      'auto',
      'required',
      'none',
      { type: 'function', function: { name: 'search' } },
    ]);
    expect(model.toParams(request())).not.toHaveProperty('tool_choice');
  });

  it('OpenAI Responses: tool_choice', () => {
    const model = new OpenAIResponsesModel({ model: 'gpt-test', apiKey: 'k' });
    expect(choices.map((c) => model.toParams(request(c)).tool_choice)).toEqual(['auto', 'required', 'none', { type: 'function', name: 'search' }]);
    expect(model.toParams(request())).not.toHaveProperty('tool_choice');
  });

  it('Anthropic Messages: tool_choice, with any for required', () => {
    const model = new AnthropicModel({ model: 'claude-test', apiKey: 'k' });
    expect(choices.map((c) => model.toParams(request(c)).tool_choice)).toEqual([
      { type: 'auto' },
      { type: 'any' },
      { type: 'none' },
      { type: 'tool', name: 'search' },
    ]);
    expect(model.toParams(request())).not.toHaveProperty('tool_choice');
  });

  it('Gemini: toolConfig.functionCallingConfig, ANY of one name for a named tool', () => {
    const model = new GeminiModel({ model: 'gemini-test', apiKey: 'k' });
    expect(choices.map((c) => model.toParams(request(c)).config?.toolConfig?.functionCallingConfig)).toEqual([
      { mode: 'AUTO' },
      { mode: 'ANY' },
      { mode: 'NONE' },
      { mode: 'ANY', allowedFunctionNames: ['search'] },
    ]);
    expect(model.toParams(request()).config?.toolConfig).toBeUndefined();
  });
});
