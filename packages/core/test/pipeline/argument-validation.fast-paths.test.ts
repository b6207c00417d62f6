// The validation stage's shortcuts for the model's JSON text (parsed arguments are a tree: only their depth and
// numbers past double range need a look; text with no `null` has no strict-mode null to drop) answer as the
// general walk and the null stripper do.
import { ErrorCode, Toolset, resultText, tool } from '@anytool/core';

const parameters = {
  type: 'object',
  properties: {
    city: { type: 'string', pattern: '^[A-Za-z ]+$' },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    options: { type: 'object', properties: { hourly: { type: 'boolean' }, language: { type: 'string' }, n: { type: 'number' } } },
    deep: { type: 'object' },
  },
  required: ['city'],
};

function setup() {
  const seen: unknown[] = [];
  const echo = tool(
    (args: Record<string, unknown>) => {
      seen.push(args);
      return 'ok';
    },
    { name: 'echo', description: 'Echoes its arguments.', parameters },
  );
  return { toolset: new Toolset(echo), seen };
}

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('argument validation of JSON text', () => {
  it('refuses a number past double range in a nested object, naming its path', async () => {
    const { toolset, seen } = setup();
    const result = await toolset.invoke('echo', '{"city":"Oslo","options":{"hourly":true,"n":1e400}}');
    expect(result.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(result)).toMatch(/\/options\/n: must be a finite number/);
    const inArray = await toolset.invoke('echo', '{"city":"Oslo","deep":{"list":[1,2,-1e400]}}');
    expect(resultText(inArray)).toMatch(/\/deep\/list\/2: must be a finite number/);
    expect(seen).toEqual([]);
  });

  it('takes 64 levels of nesting and refuses 65, from text as from objects', async () => {
    const { toolset, seen } = setup();
    // The arguments object is the first level, `deep` the second.
    const ok = await toolset.invoke('echo', `{"city":"Oslo","deep":${nested(63)}}`);
    expect(ok.isError).toBeFalsy();
    const tooDeep = await toolset.invoke('echo', `{"city":"Oslo","deep":${nested(64)}}`);
    expect(tooDeep.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(tooDeep)).toMatch(/more than 64 levels deep/);
    const asObject = await toolset.invoke('echo', JSON.parse(`{"city":"Oslo","deep":${nested(64)}}`) as object);
    expect(resultText(asObject)).toMatch(/more than 64 levels deep/);
    expect(seen).toHaveLength(1);
  });

  it('drops strict-mode nulls of optional fields, at any level, and leaves text without them as it is', async () => {
    const { toolset, seen } = setup();
    await toolset.invoke('echo', '{"city":"Nullville","units":null,"options":{"hourly":true,"language":null}}');
    await toolset.invoke('echo', '{"city":"Nullville","units":"metric","options":{"hourly":true,"language":"en"}}');
    await toolset.invoke('echo', { city: 'Oslo', units: null, options: { hourly: false, language: null } });
    expect(seen).toEqual([
      { city: 'Nullville', options: { hourly: true } },
      { city: 'Nullville', units: 'metric', options: { hourly: true, language: 'en' } },
      { city: 'Oslo', options: { hourly: false } },
    ]);
    // A required field sent as null is still refused.
    const refused = await toolset.invoke('echo', '{"city":null}');
    expect(refused.error?.code).toBe(ErrorCode.InvalidArguments);
  });
});
