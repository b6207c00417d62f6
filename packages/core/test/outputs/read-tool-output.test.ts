import { ErrorCode, ExecutionContext, ReadToolOutput, ToolOutputStore, Toolset, outputBudget, resultText, tool, type ToolResult } from '@anytool/core';

const parameters = { type: 'object', properties: {} } as const;
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${String(i).padStart(6, '0')}`).join('\n');
const handleOf = (result: ToolResult): string => /handle "([^"]+)"/.exec(resultText(result))![1]!;

describe('read_tool_output', () => {
  const big = tool(() => lines(20_000), { name: 'big', description: 'A long text.', parameters });

  it('answers a bad handle, an offset past the end, an evicted or a released output with an error the model can act on', async () => {
    const toolset = new Toolset(big, new ReadToolOutput()).use(outputBudget({ maxChars: 1_000, store: { maxBytes: 3 * 239_999 } }));
    const context = new ExecutionContext();
    const first = handleOf(await toolset.invoke('big', {}, context));
    const second = handleOf(await toolset.invoke('big', {}, context));
    const read = (args: object): Promise<ToolResult> => toolset.invoke('read_tool_output', args, context);

    const evicted = await read({ handle: first });
    expect(evicted.error?.code).toBe(ErrorCode.OutputEvicted);
    expect(resultText(evicted)).toMatch(/was evicted to make room for newer ones.*Call the tool again, asking for less/);
    expect((await read({ handle: second, offset: 239_999 })).structured).toEqual({ handle: second, offset: 239_999, end: 239_999, total: 239_999 });
    // A limit past the reader's page size reads one page of that size.
    expect((await read({ handle: second, offset: 10, limit: 10_000_000 })).structured).toEqual({ handle: second, offset: 10, end: 40_010, total: 239_999 });
    const past = await read({ handle: second, offset: 300_000 });
    expect(past.error?.code).toBe(ErrorCode.InvalidArguments);
    expect(resultText(past)).toContain('which has 239999 characters; pass an offset from 0 to 239999');
    expect((await read({ handle: 'nonsense' })).error?.code).toBe(ErrorCode.OutputHandleUnknown);
    expect((await read({ handle: second.replace(/_\d+$/, '_99') })).error?.code).toBe(ErrorCode.OutputHandleUnknown);
    // The schema refuses a negative offset before the tool runs.
    expect((await read({ handle: second, offset: -1 })).error?.code).toBe(ErrorCode.InvalidArguments);

    ToolOutputStore.release(context);
    const released = await read({ handle: second });
    expect(released.error?.code).toBe(ErrorCode.OutputHandleUnknown);
    expect(resultText(released)).toContain('released when the run that produced them ends');
    // A handle of another run is not this run's.
    const other = new ExecutionContext();
    await toolset.invoke('big', {}, other);
    expect(resultText(await toolset.invoke('read_tool_output', { handle: second }, other))).toContain('is not kept in this run');
  });

  it('does not keep an output larger than the whole store, and says so', async () => {
    const toolset = new Toolset(big).use(outputBudget({ maxChars: 1_000, store: { maxBytes: 1_000 } }));
    const context = new ExecutionContext();
    const result = await toolset.invoke('big', {}, context);
    expect(resultText(result)).toContain('too large to keep for this run');
    expect(ToolOutputStore.peek(context)?.size).toBe(0);
  });
});
