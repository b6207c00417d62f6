import { join } from 'node:path';
import { Agent, ScriptedModel } from '@anytool/agent';
import { describeTools } from '@anytool/schema/internal';
import { fixtures, oneFileTsconfig } from '../helpers';
import { given, itinerary, type Itinerary } from '../fixtures/schema-of/output';

// `schemaOf<T>()` (@anytool/agent): the build step writes the schema of T into the call, with the same
// walk that makes tool parameter schemas (JSDoc descriptions, $defs, optional properties).

describe('schemaOf<T>() compiled through the build step (ts-jest here)', () => {
  it('is the schema of T: closed objects, JSDoc descriptions, optional properties left out of required', () => {
    expect(itinerary).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        stops: {
          type: 'array',
          items: {
            type: 'object',
            properties: { city: { type: 'string', description: 'The city.' }, nights: { type: 'number' } },
            required: ['city', 'nights'],
            additionalProperties: false,
          },
        },
        budget: { type: 'string', enum: ['low', 'high'] },
      },
      required: ['title', 'stops'],
      additionalProperties: false,
    });
    expect(given).toEqual({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] });
  });

  it("types and validates an agent's output", async () => {
    const model = new ScriptedModel([{ text: '{"title":"Norway","stops":[{"city":"Oslo","nights":2}]}' }]);
    const result = await new Agent({ model, output: itinerary }).run('Plan a trip');
    const plan: Itinerary | undefined = result.output;
    expect(plan?.stops[0]?.city).toBe('Oslo');
  });

  it('anytool schema lists the tools of the file, not the schemaOf call', () => {
    const { tools, diagnostics } = describeTools(join(fixtures, 'schema-of', 'output.ts'), oneFileTsconfig);
    expect(diagnostics).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(['echo']);
  });
});
