import { join } from 'node:path';
import { analyzeSourceFile } from '@anytool/schema/internal';
import { fixtures, messages, programFor } from '../helpers';

describe('legacy decorators', () => {
  it('a parameter marked @Context() is the context parameter, whatever its type', () => {
    const dir = join(fixtures, 'legacy');
    const file = join(dir, 'context-tools.ts');
    const program = programFor([file], join(dir, 'tsconfig.json'));
    const { sites, diagnostics } = analyzeSourceFile(program, program.getSourceFile(file)!);
    expect(messages(diagnostics)).toEqual([]);
    expect(sites).toHaveLength(1);
    expect(sites[0]!.info).toEqual({
      description: 'Write a journal line.',
      parameters: {
        type: 'object',
        properties: { line: { type: 'string', description: 'The text' }, mood: { type: 'string', default: 'calm' } },
        required: ['line'],
        additionalProperties: false,
      },
      paramNames: ['line', 'mood'],
      contextIndex: 1,
    });
  });
});
