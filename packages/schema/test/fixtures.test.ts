import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileValidator, schemaProblems, type JsonSchema } from '@anytool/core';
import { analyzeSourceFile, type BuildInfoData } from '@anytool/schema';
import { fixtures, messages, programFor } from './helpers';

// The corpus: one file per family of type kinds; expected definitions are checked in under expected/.
// Run with UPDATE_EXPECTED=1 to rewrite them after a deliberate change (and review the diff).
const corpus = ['primitives', 'literals', 'arrays', 'objects', 'jsdoc-tags', 'unions', 'recursive', 'dates', 'generics', 'shapes'];

type Sample = { valid: Record<string, unknown>; invalid: Record<string, unknown> };
const address = { street: 'Main St 1', city: 'Oslo' };
const samples: Record<string, Sample> = {
  'Primitives.book': { valid: { name: 'Ada', guests: 2 }, invalid: { name: 'Ada', guests: 'two' } },
  'Literals.order': {
    valid: { size: 'large', color: 'blue', priority: 3, level: 2, mode: 'fast', maybe: null, sized: null, flag: true },
    invalid: { size: 'huge', color: 'blue', priority: 3, level: 2, mode: 'fast', maybe: null, sized: null, flag: true },
  },
  'Literals.paint': { valid: {}, invalid: { color: 'purple' } },
  'Arrays.collect': {
    valid: { names: ['a'], ids: [1, 2], point: [1, 2], labelled: [1], head: ['h', 1, 2], grid: [[1], [2, 3]] },
    invalid: { names: ['a'], ids: [1, 2], point: [1, 2, 3], labelled: [1], head: ['h'], grid: [] },
  },
  'Objects.save': {
    valid: { person: { name: 'Ada', address }, patch: {}, picked: { city: 'Oslo' }, rest: { city: 'Oslo' }, page: { items: [address], total: 1 }, scores: { a: 1 }, labels: { x: ['y'] }, merged: { ...address, createdBy: 'me' }, free: {} },
    invalid: { person: { name: 'Ada', address }, patch: {}, picked: { city: 'Oslo' }, rest: { city: 'Oslo' }, page: { items: [address], total: 1 }, scores: { a: 'one' }, labels: { x: ['y'] }, merged: address, free: {} },
  },
  'Objects.keyed': { valid: { headers: { 'x-id': 'a' }, byNumber: { 1: 'a', '2.5': 'b' }, table: { title: 't', 3: 'c' } }, invalid: { headers: { id: 'a' }, byNumber: { 1: 'a' }, table: { title: 't' } } },
  'JsDocTags.signup': {
    valid: { form: { handle: 'ada_l', email: 'ada@example.com', age: 36 } },
    invalid: { form: { handle: 'Ada Lovelace', email: 'not-an-email', age: 7 } },
  },
  'Unions.draw': {
    valid: { shape: { kind: 'circle', radius: 2 }, version: 'v2', event: 'onClick', idOrName: 7 },
    invalid: { shape: { kind: 'circle', side: 2 }, version: 'version2', event: 'click', idOrName: true },
  },
  'Unions.measure': { valid: { shape: { kind: 'square', side: 1 } }, invalid: { shape: { kind: 'square', radius: 1 } } },
  'Recursive.walk': {
    valid: { tree: { label: 'root', children: [{ label: 'leaf', children: [] }] }, payload: { a: [1, 'x', null, { b: true }] } },
    invalid: { tree: { label: 'root', children: [{ children: [] }] }, payload: { a: [1, 'x', null, { b: true }] } },
  },
  'Dates.schedule': {
    valid: { meeting: { title: 'standup', at: '2026-01-02T09:00:00Z', reminders: ['2026-01-02T08:50:00Z'] }, until: '2026-02-01T00:00:00Z' },
    invalid: { meeting: { title: 'standup', at: 'tomorrow', reminders: [] }, until: '2026-02-01T00:00:00Z' },
  },
  'Dates.inspect': {
    valid: { event: { at: '2026-01-02T09:00:00Z', sub: [] }, other: { at: '2026-01-02T09:00:00Z', sub: [] }, slot: ['2026-01-02T09:00:00Z', 'x'], either: 'soon', change: { kind: 'renamed', at: 'old' } },
    invalid: { event: { at: '2026-01-02T09:00:00Z', sub: [] }, other: { at: '2026-01-02T09:00:00Z', sub: [] }, slot: ['2026-01-02T09:00:00Z', 'x'], either: 'soon', change: { kind: 'moved', at: 'old' } },
  },
  'Generics.choose': { valid: { key: 'a', keys: ['a', 'b'] }, invalid: { key: 1, keys: ['a'] } },
  'tool(searchWeb)': { valid: { query: 'ts' }, invalid: { query: 'ts', maxResults: 50 } },
  'tool((anonymous))': { valid: { a: 1, b: 2 }, invalid: { a: 1 } },
  'tool(describeValue)': { valid: { value: 3 }, invalid: { value: true } },
  'Notes.save': { valid: { text: 'hi', tags: ['x'] }, invalid: { text: 'hi', tags: 'x' } },
  'class Clock': { valid: { timeZone: 'UTC' }, invalid: { timeZone: 3 } },
  'Calculator.multiply': { valid: { a: 2, b: 3 }, invalid: { a: 2, b: '3' } },
};

const files = corpus.map((name) => join(fixtures, 'corpus', `${name}.ts`));
const program = programFor(files);

describe.each(corpus)('fixture %s', (name) => {
  const source = program.getSourceFile(join(fixtures, 'corpus', `${name}.ts`))!;
  const { sites, diagnostics } = analyzeSourceFile(program, source);
  const actual = sites.map((s) => ({ source: s.label, name: s.name, ...s.info, prepare: s.prepare.map((p) => (p.kind === 'dates' ? { dates: p.plan } : p.kind)) }));
  const expectedFile = join(fixtures, 'expected', `${name}.json`);

  it('compiles without build diagnostics', () => {
    expect(messages(diagnostics)).toEqual([]);
  });

  it('matches the checked-in expected definitions', () => {
    if (process.env['UPDATE_EXPECTED'] === '1') writeFileSync(expectedFile, `${JSON.stringify(actual, null, 2)}\n`);
    expect(actual).toEqual(JSON.parse(readFileSync(expectedFile, 'utf8')));
  });

  const expected = existsSync(expectedFile) ? (JSON.parse(readFileSync(expectedFile, 'utf8')) as Array<BuildInfoData & { source: string }>) : [];
  for (const tool of expected) {
    it(`${tool.source}: its schemas are valid JSON Schema; ajv accepts a valid sample and rejects an invalid one`, () => {
      expect(schemaProblems(tool.parameters)).toBeUndefined();
      if (tool.outputSchema !== undefined) expect(schemaProblems(tool.outputSchema)).toBeUndefined();
      const sample = samples[tool.source];
      expect(sample).toBeDefined();
      const check = compileValidator(tool.parameters as JsonSchema, tool.source);
      expect(check(structuredClone(sample!.valid))).toBe(true);
      expect(check(structuredClone(sample!.invalid))).toBe(false);
    });
  }
});
