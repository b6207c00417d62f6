import { join } from 'node:path';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { emitWithTransformer, fixtures, messages, programFor } from '../helpers';

const file = join(fixtures, 'examples', 'tools.ts');

describe("the build step reads a tool's @example blocks of arguments", () => {
  const program = programFor([file]);
  const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);
  const examplesOf = (name: string): unknown => sites.find((s) => s.name === name)?.info.examples;

  it('takes JSON and object literals (fenced or not) of function, method and BaseTool tools; code examples are left alone', () => {
    expect(examplesOf('getWeather')).toEqual([{ city: 'Oslo', unit: 'celsius' }, { city: 'Lima' }]);
    expect(examplesOf('book')).toEqual([{ title: 'Standup', minutes: 15 }]);
    expect(examplesOf('Lookup')).toEqual([{ word: 'anytool', limit: -1 }]);
  });

  it('an example that does not validate against the parameters is a build error naming the tool', () => {
    expect(examplesOf('convert')).toBeUndefined();
    expect(messages(diagnostics)).toEqual([
      expect.stringMatching(/^tool\(convert\): its @example 1 does not match its parameters:\n- \/amount: must be number\. Fix the @example/),
      expect.stringMatching(/^tool\(convert\): its @example 2 starts like an arguments object but is neither JSON nor an object literal of plain values/),
    ]);
    expect(diagnostics.every((d) => d.code === 91008 && d.category === 1)).toBe(true);
  });

  it('emits the examples into the code, next to the schema', () => {
    const { js } = emitWithTransformer(programFor([file], undefined, true), file);
    expect(js.replace(/\s+/g, ' ')).toContain('examples: [{ city: "Oslo", unit: "celsius" }, { city: "Lima" }]');
  });
});
