import { join } from 'node:path';
import type { JsonSchema } from '@anytool/core';
import { compileValidator } from '@anytool/core/internal';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { fixtures, messages, programFor } from '../helpers';

// JSDoc tags into schema keywords, past the corpus's plain cases (fixtures/corpus/jsdoc-tags.ts):
// keywords of the items' schema, typescript-json-schema's `@TJS-` spelling, text that is not JSON,
// a link in the description, and a `require(...)` value, which stays text (nothing is loaded).
const file = join(fixtures, 'jsdoc', 'tags.ts');
const program = programFor([file]);
const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);
const profile = () => (sites[0]!.info.parameters as { properties: { profile: { properties: Record<string, JsonSchema> } } }).properties.profile.properties;

it('builds without diagnostics', () => {
  expect(messages(diagnostics)).toEqual([]);
  expect(sites.map((site) => site.name)).toEqual(['update']);
});

it("adds `@items.x` and `@items x` keywords to the items' own schema, keeping its type", () => {
  expect(profile()['tags']).toEqual({
    type: 'array',
    items: { type: 'string', minLength: 2, maxLength: 12 },
    description: 'Tags, each a short word; see {@link https://example.com/tags the tag rules}.',
    minItems: 1,
    uniqueItems: true,
  });
  expect(profile()['scores']).toEqual({
    type: 'array',
    items: { type: 'number', maximum: 10 },
    description: 'Scores out of ten.',
    minItems: 1,
    default: [5, 7],
  });
});

it('reads a value as JSON when it is JSON and as text otherwise, and loads nothing a tag names', () => {
  expect(profile()['referral']).toEqual({
    type: 'string',
    description: 'A referral code (not JSON: kept as text).',
    pattern: '^[A-Z]{3}-\\d+$',
    default: 'ABC-1',
    examples: ['ABC-1', 'XYZ-22'],
  });
  expect(profile()['source']).toEqual({ type: 'string', description: 'Where the user heard of us.', default: "require('./nowhere')" });
});

it('validates calls by the keywords of the items', () => {
  const check = compileValidator(sites[0]!.info.parameters as JsonSchema, 'JsDocEdges.update');
  const valid = { tags: ['ai', 'maths'], scores: [9, 10], referral: 'ABC-1' };
  expect(check({ profile: valid })).toBe(true);
  for (const wrong of [
    { tags: ['a'] },
    { tags: ['far-too-long-a-tag'] },
    { tags: [7] },
    { tags: [] },
    { scores: [11] },
    { scores: ['9'] },
    { referral: 'abc-1' },
  ])
    expect([wrong, check({ profile: { ...valid, ...wrong } })]).toEqual([wrong, false]);
});
