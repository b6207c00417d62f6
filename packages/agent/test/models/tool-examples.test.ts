// Examples of a tool's arguments reach the model where the provider has a field for them (Anthropic's
// input_examples); elsewhere the run records that they were dropped, never silently.
import { ErrorCode, tool } from '@anytool/core';
import { Agent, type AgentStreamEvent, type RunResult } from '@anytool/agent';
import { PROVIDERS } from '../helpers/provider-replies.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

const weather = tool(({ city }: { city: string; unit?: string }) => `${city}: 21`, {
  name: 'get_weather',
  description: 'Current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  examples: [{ city: 'Oslo' }, { city: 'Lima', unit: 'fahrenheit' }],
});

/** The tool definitions of a request, in the provider's shape. */
function sentTools(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const tools = body['tools'] as Array<Record<string, unknown>> | undefined;
  if (body['config'] !== undefined)
    return ((body['config'] as { tools?: Array<{ functionDeclarations?: [] }> }).tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  return tools ?? [];
}

describe("a tool's examples of arguments, for each adapter", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const provider of PROVIDERS) {
    for (const stream of [false, true]) {
      it(`${provider.name}${stream ? ', streamed' : ''}: ${provider.name === 'anthropic' ? 'sent as input_examples' : 'dropped with a diagnostic'}`, async () => {
        server = await startProviderServer([provider.text('Sunny.', stream)]);
        const agent = new Agent({ model: provider.model(server.url), tools: [weather] });
        let result: RunResult;
        if (stream) {
          const seen: AgentStreamEvent[] = [];
          for await (const event of agent.stream('Weather?')) seen.push(event);
          const last = seen.at(-1)!;
          if (last.type !== 'result') throw new Error('no result');
          result = last.result;
        } else {
          result = await agent.run('Weather?');
        }
        expect(result.text).toBe('Sunny.');
        const body = server.requests[0]!.body;
        const sent = JSON.stringify(body);
        const dropped = result.context.events.filter((e) => e.type === 'diagnostic');
        if (provider.name === 'anthropic') {
          expect(sentTools(body)[0]).toMatchObject({ name: 'get_weather', input_examples: [{ city: 'Oslo' }, { city: 'Lima', unit: 'fahrenheit' }] });
          expect(dropped).toEqual([]);
        } else {
          expect(sent).toContain('get_weather');
          expect(sent).not.toContain('Lima');
          expect(dropped).toEqual([
            expect.objectContaining({
              code: ErrorCode.UnsupportedByModel,
              tool: 'get_weather',
              message: expect.stringMatching(/^tool "get_weather": its 2 example\(s\) of arguments were not sent: .* has no field for them/),
            }),
          ]);
        }
      });
    }
  }
});
