import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileValidator, schemaProblems, type JsonSchema } from '@anytool/core';
import { analyzeSourceFile, type BuildInfoData } from '@anytool/schema';
import { fixtures, messages, programFor } from './helpers';

// The corpus: one file per family of type kinds; expected definitions are checked in under expected/.
// Run with UPDATE_EXPECTED=1 to rewrite them after a deliberate change (and review the diff).
const corpus = ['primitives', 'literals', 'arrays', 'objects', 'jsdoc-tags', 'unions', 'recursive', 'dates', 'generics', 'shapes'];

/**
 * A valid arguments object, and invalid ones that each break exactly one property
 * ([property, bad value]; `undefined` leaves a required property out), so every
 * rejection is owed to that property's schema. Each property has at least one,
 * except those listed in `anyJson`, whose type takes every JSON value.
 */
type Sample = { valid: Record<string, unknown>; invalid: Array<[string, unknown]>; anyJson?: string[] };
const address = { street: 'Main St 1', city: 'Oslo' };
const at = '2026-01-02T09:00:00Z';
const signupForm = { handle: 'ada_l', email: 'ada@example.com', age: 36 };
const samples: Record<string, Sample> = {
  'Primitives.book': {
    valid: { name: 'Ada', guests: 2 },
    invalid: [['name', 7], ['name', undefined], ['guests', 'two'], ['outside', 'yes'], ['note', 1], ['level', '1']],
  },
  'Literals.order': {
    valid: { size: 'large', color: 'blue', priority: 3, level: 2, mode: 'fast', maybe: null, sized: null, flag: true },
    invalid: [['size', 'huge'], ['color', 'purple'], ['priority', 4], ['level', 5], ['mode', 'slow'], ['maybe', 1], ['sized', 'tiny'], ['flag', 'true']],
  },
  'Literals.paint': { valid: {}, invalid: [['color', 'purple'], ['priority', 5], ['size', 'huge']] },
  'Arrays.collect': {
    valid: { names: ['a'], ids: [1, 2], point: [1, 2], labelled: [1], head: ['h', 1, 2], grid: [[1], [2, 3]] },
    invalid: [['names', [1]], ['ids', ['1']], ['point', [1, 2, 3]], ['labelled', [1, 2]], ['head', ['h', 'x']], ['grid', [1]]],
  },
  'Objects.save': {
    valid: { person: { name: 'Ada', address }, patch: {}, picked: { city: 'Oslo' }, rest: { city: 'Oslo' }, page: { items: [address], total: 1 }, scores: { a: 1 }, labels: { x: ['y'] }, merged: { ...address, createdBy: 'me' }, free: {} },
    invalid: [
      ['person', { name: 'Ada', address: { street: 'Main St 1' } }],
      ['patch', { country: 'NO' }],
      ['picked', { street: 'Main St 1', city: 'Oslo' }],
      ['rest', {}],
      ['page', { items: [address] }],
      ['scores', { a: 'one' }],
      ['labels', { x: 'y' }],
      ['merged', address],
      ['free', 'x'],
    ],
  },
  'Objects.keyed': {
    valid: { headers: { 'x-id': 'a' }, byNumber: { 1: 'a', '2.5': 'b' }, table: { title: 't', 3: 'c' } },
    invalid: [['headers', { id: 'a' }], ['byNumber', { one: 'a' }], ['table', { title: 't', row: 'c' }]],
  },
  'JsDocTags.signup': {
    valid: { form: signupForm },
    invalid: [['form', { ...signupForm, handle: 'Ada Lovelace' }], ['form', { ...signupForm, email: 'not-an-email' }], ['form', { ...signupForm, age: 7 }]],
  },
  'Unions.draw': {
    valid: { shape: { kind: 'circle', radius: 2 }, version: 'v2', event: 'onClick', idOrName: 7 },
    invalid: [['shape', { kind: 'circle', side: 2 }], ['version', 'version2'], ['event', 'click'], ['idOrName', true]],
  },
  'Unions.measure': { valid: { shape: { kind: 'square', side: 1 } }, invalid: [['shape', { kind: 'square', radius: 1 }]] },
  'Recursive.walk': {
    valid: { tree: { label: 'root', children: [{ label: 'leaf', children: [] }] }, payload: { a: [1, 'x', null, { b: true }] } },
    invalid: [['tree', { label: 'root', children: [{ children: [] }] }]],
    anyJson: ['payload'],
  },
  'Dates.schedule': {
    valid: { meeting: { title: 'standup', at, reminders: [at] }, until: at },
    invalid: [['meeting', { title: 'standup', at: 'tomorrow', reminders: [] }], ['until', '2026-02-01']],
  },
  'Dates.inspect': {
    valid: { event: { at, sub: [] }, other: { at, sub: [{ at, sub: [] }] }, slot: [at, 'x'], either: 'soon', change: { kind: 'renamed', at: 'old' } },
    invalid: [['event', { at: 'soon', sub: [] }], ['other', { at, sub: [{ at: 'soon', sub: [] }] }], ['slot', ['soon', 'x']], ['either', 5], ['change', { kind: 'moved', at: 'old' }]],
  },
  'Generics.choose': { valid: { key: 'a', keys: ['a', 'b'] }, invalid: [['key', 1], ['keys', [1]]] },
  'tool(searchWeb)': { valid: { query: 'ts' }, invalid: [['query', 1], ['maxResults', 50]] },
  'tool(add)': { valid: { a: 1, b: 2 }, invalid: [['a', undefined], ['b', '2']] },
  'tool(describeValue)': { valid: { value: 3 }, invalid: [['value', true]] },
  'Notes.save': { valid: { text: 'hi', tags: ['x'] }, invalid: [['text', 1], ['tags', 'x']] },
  'class Clock': { valid: { timeZone: 'UTC' }, invalid: [['timeZone', 3]] },
  'Calculator.multiply': { valid: { a: 2, b: 3 }, invalid: [['a', '2'], ['b', '3']] },
};

/** The valid sample with one property changed (or left out). */
function breaking(valid: Record<string, unknown>, property: string, value: unknown): Record<string, unknown> {
  const out = structuredClone(valid);
  if (value === undefined) delete out[property];
  else out[property] = value;
  return out;
}

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
    it(`${tool.source}: its schemas (and each $defs entry) are valid JSON Schema`, () => {
      expect(schemaProblems(tool.parameters)).toBeUndefined();
      if (tool.outputSchema !== undefined) expect(schemaProblems(tool.outputSchema)).toBeUndefined();
      // draft-07's meta-schema does not know $defs: check each definition as a schema of its own.
      for (const schema of [tool.parameters, tool.outputSchema]) {
        for (const [name, definition] of Object.entries((schema?.['$defs'] ?? {}) as Record<string, JsonSchema>)) {
          expect([name, schemaProblems(definition)]).toEqual([name, undefined]);
        }
      }
    });

    it(`${tool.source}: ajv accepts a valid sample and rejects each one-property invalid sample`, () => {
      const sample = samples[tool.source];
      expect(sample).toBeDefined();
      const check = compileValidator(tool.parameters as JsonSchema, tool.source);
      expect(check(structuredClone(sample!.valid))).toBe(true);
      for (const [property, value] of sample!.invalid) {
        expect([property, value, check(breaking(sample!.valid, property, value))]).toEqual([property, value, false]);
      }
      // Every property is under test, or takes every JSON value.
      const properties = (tool.parameters['properties'] ?? {}) as Record<string, JsonSchema>;
      const tested = new Set(sample!.invalid.map(([property]) => property));
      const untested = Object.keys(properties).filter((name) => !tested.has(name) && !(sample!.anyJson ?? []).includes(name));
      expect(untested).toEqual([]);
      for (const name of sample!.anyJson ?? []) {
        for (const value of ['s', 1.5, true, null, [1, 'x', [null]], { a: { b: [false] } }]) expect([name, check(breaking(sample!.valid, name, value))]).toEqual([name, true]);
      }
    });
  }
});
