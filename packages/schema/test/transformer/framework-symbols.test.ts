import { join } from 'node:path';
import { toolsFrom } from '@anytool/core';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { emitWithTransformer, fixtures, programFor } from '../helpers';
import { Aliased, Namespaced, Own, half, ownLabels, ownTool, triple } from '../fixtures/recognition/tools';

const file = join(fixtures, 'recognition', 'tools.ts');

describe('framework symbols are recognised through the type checker', () => {
  const program = programFor([file]);
  const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);

  it('finds aliased and namespace imports of Tool and tool, and nothing else', () => {
    expect(diagnostics).toEqual([]);
    expect(sites.map((s) => s.label)).toEqual(['Aliased.greet', 'Namespaced.double', 'tool(half)', 'tool(triple)']);
    expect(sites[0]!.info.contextIndex).toBe(1);
  });

  it("leaves the user's own Tool and tool calls untouched in the emitted code", () => {
    const { js } = emitWithTransformer(programFor([file], undefined, true), file);
    expect(js).toContain("Tool('mine')");
    expect(js).toContain('tool((n) => n + 1)');
    expect(js).toMatch(/core_1\.Tool\)\(\{\}, \{ description: "Greets through an aliased import\."/);
  });

  it('the compiled classes work (this file is compiled by the ts-jest transformer)', () => {
    expect(toolsFrom(new Aliased()).map((t) => t.definition.parameters)).toEqual([
      { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    ]);
    expect(toolsFrom(new Namespaced())[0]!.definition.description).toBe('Doubles through a namespace import.');
    expect(half.definition.parameters).toMatchObject({ properties: { n: { type: 'number' } } });
    expect(triple.definition.description).toBe('Triples through a namespace import.');
    expect(() => toolsFrom(new Own())).not.toThrow();
    expect(toolsFrom(new Own())).toEqual([]);
    expect(ownLabels).toEqual(['mine:mine']);
    expect(ownTool).toEqual({ value: expect.any(Function), rest: 0 });
  });
});
