import { ExecutionContext, isToolResult, normalizeResult, resultText, textResult, tool } from '@anytool/core';

const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } as const;

describe('ToolResult pass-through', () => {
  it('a tool that returns another tool’s invoke result hands it on as is, not as JSON', async () => {
    const inner = tool(({ a }: { a: string }) => `inner says ${a}`, { name: 'inner', description: 'Inner.', parameters: schema });
    const failing = tool(
      (): string => {
        throw new Error('no disk');
      },
      { name: 'failing', description: 'Fails.', parameters: { type: 'object', properties: {} } },
    );
    const outer = tool(async ({ a }: { a: string }, context: ExecutionContext) => (a === 'fail' ? failing.invoke(context, {}) : inner.invoke(context, { a })), {
      name: 'outer',
      description: 'Outer.',
      parameters: schema,
      context: true,
    });
    const ok = await outer.invoke(new ExecutionContext(), { a: 'x' });
    expect(ok).toEqual({ content: [{ type: 'text', text: 'inner says x' }], isError: false });
    const failed = await outer.invoke(new ExecutionContext(), { a: 'fail' });
    expect(failed.isError).toBe(true);
    expect(failed.error?.code).toBe('TOOL_FAILED');
    expect(resultText(failed)).toContain('no disk');
  });

  it('only objects of exactly the ToolResult shape count; other data becomes JSON text', () => {
    expect(isToolResult(textResult('marked'))).toBe(true);
    expect(isToolResult({ content: [{ type: 'text', text: 'x' }], isError: false, structured: { n: 1 } })).toBe(true);
    expect(isToolResult({ content: [], isError: true, error: { code: 'X', message: 'm' } })).toBe(true);
    for (const data of [
      { content: [{ type: 'text', text: 'x' }], isError: false, extra: 1 },
      { content: [{ type: 'video', url: 'x' }], isError: false },
      { content: 'x', isError: false },
      { content: [], isError: 'no' },
      { content: [], isError: true, error: 'boom' },
      { content: [null], isError: false },
    ]) {
      expect(isToolResult(data)).toBe(false);
      expect(normalizeResult(data)).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structured: data, isError: false });
    }
  });
});
