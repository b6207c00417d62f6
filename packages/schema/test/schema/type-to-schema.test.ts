import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonSchema } from '@anytool/core';
import { compileValidator, schemaProblems } from '@anytool/core/internal';
import { analyzeSourceFile, type BuildInfoData } from '@anytool/schema/internal';
import { fixtures, messages, programFor } from '../helpers';
import { breaking, samples } from '../fixtures/samples';

// The corpus: one file per family of type kinds; expected definitions are checked in under expected/.
// Run with UPDATE_EXPECTED=1 to rewrite them after a deliberate change (and review the diff).
const corpus = ['primitives', 'literals', 'arrays', 'objects', 'jsdoc-tags', 'unions', 'recursive', 'dates', 'generics', 'shapes'];

const files = corpus.map((name) => join(fixtures, 'corpus', `${name}.ts`));
const program = programFor(files);

describe.each(corpus)('fixture %s', (name) => {
  const source = program.getSourceFile(join(fixtures, 'corpus', `${name}.ts`))!;
  const { sites, diagnostics } = analyzeSourceFile(program, source);
  const actual = sites.map((s) => ({
    source: s.label,
    name: s.name,
    ...s.info,
    prepare: s.prepare.map((p) => (p.kind === 'dates' ? { dates: p.plan } : p.kind)),
  }));
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
        for (const value of ['s', 1.5, true, null, [1, 'x', [null]], { a: { b: [false] } }])
          expect([name, check(breaking(sample!.valid, name, value))]).toEqual([name, true]);
      }
    });
  }
});
