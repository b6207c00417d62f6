import { join } from 'node:path';
import { ExecutionContext, Toolset, resultText } from '@anytool/core';
import { describeTools } from '@anytool/schema/internal';
import { fixtures, oneFileTsconfig } from '../helpers';
import { all, mul } from '../fixtures/names/tools';

// `const mul = tool((a, b) => a * b)`: the function has no name at run time, so the build
// step passes the variable's name; an explicit { name } and a named function still win.

const file = join(fixtures, 'names', 'tools.ts');

describe('tools named after their variable', () => {
  it('compiled through the build step (ts-jest here), each tool has the name the rules give', () => {
    expect(all.map((t) => t.name)).toEqual(['mul', 'greet', 'minus', 'divide', 'count']);
    expect(mul.definition).toMatchObject({ name: 'mul', description: 'Multiply two numbers.' });
  });

  it('the named tool registers and runs', async () => {
    const toolset = new Toolset(...all);
    const result = await toolset.invoke('mul', { a: 6, b: 7 }, new ExecutionContext());
    expect(resultText(result)).toBe('42');
  });

  it('anytool schema shows the same names, and the source names the variable', () => {
    const { tools, diagnostics } = describeTools(file, oneFileTsconfig);
    expect(diagnostics).toEqual([]);
    expect(tools.map((t) => [t.name, t.source])).toEqual([
      ['mul', 'tool(mul)'],
      ['greet', 'tool(greet)'],
      ['minus', 'tool(sub)'],
      ['divide', 'tool(divide)'],
      ['count', 'tool(count)'],
    ]);
  });
});
