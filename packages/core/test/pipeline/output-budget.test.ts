import { ErrorCode, ExecutionContext, Pipeline, ReadToolOutput, Toolset, outputBudget, resultText, tool, toolResult, type ToolResult } from '@anytool/core';

const parameters = { type: 'object', properties: {} } as const;
const lines = (n: number): string => Array.from({ length: n }, (_, i) => `line ${String(i).padStart(6, '0')}`).join('\n');
const texts = (result: ToolResult): string[] => result.content.flatMap((p) => (p.type === 'text' ? [p.text] : []));
const handleOf = (result: ToolResult): string => /handle "([^"]+)"/.exec(resultText(result))![1]!;

/** Pages through a kept output with the read tool, as a model would, and joins the pages. */
async function pageBack(toolset: Toolset, context: ExecutionContext, handle: string): Promise<{ text: string; pages: number }> {
  let text = '';
  let offset = 0;
  let pages = 0;
  for (;;) {
    const page = await toolset.invoke('read_tool_output', { handle, offset }, context);
    expect(page.isError).toBe(false);
    const { end, total } = page.structured as { end: number; total: number };
    text += texts(page)[0];
    pages++;
    if (end === total) return { text, pages };
    offset = end;
  }
}

describe('outputBudget', () => {
  it('gives the model the head and the tail with a note and a handle; read_tool_output pages the whole text back', async () => {
    const whole = lines(50_000); // 599,999 characters
    const big = tool(() => whole, { name: 'big', description: 'A long text.', parameters });
    const toolset = new Toolset(big, new ReadToolOutput({ maxChars: 30_000 })).use(outputBudget({ maxTokens: 10_000 }));
    const context = new ExecutionContext();
    const result = await toolset.invoke('big', {}, context);

    const seen = resultText(result);
    expect(seen.length).toBeLessThanOrEqual(40_000);
    const [head, note, tail] = texts(result);
    expect(whole.startsWith(head!)).toBe(true);
    expect(whole.endsWith(tail!)).toBe(true);
    // Cut at line breaks, and the note names what is missing and where it starts.
    expect(head!.endsWith('\n')).toBe(true);
    expect(tail!.startsWith('line ')).toBe(true);
    const left = whole.length - head!.length - tail!.length;
    expect(note).toContain(`${left.toLocaleString('en-US')} of 599,999 characters`);
    expect(note).toContain(`read_tool_output({"handle":"${handleOf(result)}","offset":${head!.length}})`);
    expect(context.events.filter((e) => e.type === 'diagnostic')).toEqual([
      expect.objectContaining({ code: ErrorCode.ResultTooLarge, tool: 'big', source: 'output budget' }),
    ]);
    // The tool_result event records what the model saw, not the whole output.
    const recorded = context.events.find((e) => e.type === 'tool_result' && e.tool === 'big');
    expect(recorded).toMatchObject({ result: { content: result.content } });

    const back = await pageBack(toolset, context, handleOf(result));
    expect(back.text).toBe(whole);
    expect(back.pages).toBe(Math.ceil(whole.length / 30_000));
  });

  it('keeps the structured value for the application and counts an image at a fixed cost, not its base64 length', async () => {
    const image = { type: 'image' as const, data: 'A'.repeat(2_000_000), mimeType: 'image/png' };
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const report = tool(() => toolResult({ content: [{ type: 'text', text: JSON.stringify(rows) }, image], structured: { rows }, isError: false }), {
      name: 'report',
      description: 'A report.',
      parameters,
    });
    const small = tool(() => toolResult({ content: [{ type: 'text', text: 'chart' }, image], isError: false }), {
      name: 'chart',
      description: 'A chart.',
      parameters,
    });
    const toolset = new Toolset(report, small).use(outputBudget({ maxTokens: 5_000 }));
    const context = new ExecutionContext();

    // 2 MB of base64 costs 1,600 tokens: within a 5,000-token budget, the result passes untouched.
    const chart = await toolset.invoke('chart', {}, context);
    expect(chart.content).toEqual([{ type: 'text', text: 'chart' }, image]);

    const cut = await toolset.invoke('report', {}, context);
    expect(cut.structured).toEqual({ rows });
    expect(cut.content.filter((p) => p.type === 'image')).toHaveLength(1);
    expect(resultText(cut).length).toBeLessThanOrEqual(20_000);

    // Images past the budget are left out and counted in the note.
    const gallery = tool(() => toolResult({ content: Array.from({ length: 5 }, () => image), isError: false }), {
      name: 'gallery',
      description: 'Images.',
      parameters,
      middleware: [outputBudget({ maxTokens: 5_000, imageTokens: 1_000 })],
    });
    const shown = await new Toolset(gallery).invoke('gallery', {}, context);
    expect(shown.content.filter((p) => p.type === 'image')).toHaveLength(5);
    const fewer = await new Toolset(gallery).use(outputBudget({ maxTokens: 100_000 })).invoke('gallery', {}, context);
    expect(fewer).toEqual(shown);
    const tight = await new Toolset(
      tool(() => toolResult({ content: Array.from({ length: 5 }, () => image), isError: false }), { name: 'g2', description: 'Images.', parameters }),
    )
      .use(outputBudget({ maxTokens: 3_500 }))
      .invoke('g2', {}, context);
    expect(tight.content.filter((p) => p.type === 'image')).toHaveLength(2);
    expect(resultText(tight)).toContain('3 image parts left out');
  });

  it('per tool: the budget nearest the tool decides, tools: { name: false } lets a tool through, maxTokens counts 4 characters a token', async () => {
    const make = (name: string, n: number): ReturnType<typeof tool> => tool(() => 'y'.repeat(n), { name, description: 'Text.', parameters });
    const wide = make('wide', 3_000).use(outputBudget({ maxChars: 5_000 }));
    const toolset = new Toolset(wide, make('free', 50_000), make('plain', 3_000)).use(
      outputBudget({ maxTokens: 250, over: 'truncate', tools: { free: false } }),
    );
    expect(resultText(await toolset.invoke('wide', {}))).toBe('y'.repeat(3_000));
    expect(resultText(await toolset.invoke('free', {}))).toBe('y'.repeat(50_000));
    const plain = await toolset.invoke('plain', {});
    expect(resultText(plain).length).toBeLessThanOrEqual(1_000);
    expect(resultText(plain)).toContain('Call the tool again asking for less');
    // An outer toolset's budget does not cut again what an inner one dealt with.
    const outer = new Toolset(toolset).use(outputBudget({ maxChars: 100, over: 'error' }));
    expect(resultText(await outer.invoke('wide', {}))).toBe('y'.repeat(3_000));
  });

  it('onlyLower: a budget that may lower the nearest one further out, never raise it', async () => {
    const make = (name: string, n: number, max: number): ReturnType<typeof tool> =>
      tool(() => 'y'.repeat(n), { name, description: 'Text.', parameters }).use(outputBudget({ maxChars: max, onlyLower: true, over: 'truncate' }));
    // Asks for more than the toolset allows: the toolset's 1,000 still hold, fitting the tool's own budget or not.
    const raising = make('raising', 3_000, 5_000);
    const greedy = make('greedy', 9_000, 5_000);
    // Asks for less: that holds.
    const lowering = make('lowering', 3_000, 500);
    const fits = make('fits', 300, 500);
    const toolset = new Toolset(raising, greedy, lowering, fits).use(outputBudget({ maxChars: 1_000, over: 'truncate' }));
    for (const name of ['raising', 'greedy']) expect(resultText(await toolset.invoke(name, {})).length).toBeLessThanOrEqual(1_000);
    expect(resultText(await toolset.invoke('greedy', {}))).toMatch(/over its budget of 1,000|left out/);
    expect(resultText(await toolset.invoke('lowering', {})).length).toBeLessThanOrEqual(500);
    expect(resultText(await toolset.invoke('fits', {}))).toBe('y'.repeat(300));
    // The nearest budget further out decides what it may not exceed: a tool-level entry of the toolset's budget.
    const perTool = new Toolset(raising).use(outputBudget({ maxChars: 100, tools: { raising: { maxChars: 2_000 } } }));
    expect(resultText(await perTool.invoke('raising', {})).length).toBeLessThanOrEqual(2_000);
    expect(resultText(await perTool.invoke('raising', {})).length).toBeGreaterThan(1_000);
    // With no budget further out it is the only one.
    expect(resultText(await new Toolset(greedy).invoke('greedy', {})).length).toBeLessThanOrEqual(5_000);
    expect(resultText(await new Toolset(raising).invoke('raising', {}))).toBe('y'.repeat(3_000));
    // Stacked: each may lower, none raises; a larger result never gets more room than a smaller one.
    const stacked = new Toolset(new Toolset(greedy, raising).use(outputBudget({ maxChars: 2_000, onlyLower: true }))).use(outputBudget({ maxChars: 4_000 }));
    for (const name of ['greedy', 'raising']) expect(resultText(await stacked.invoke(name, {})).length).toBeLessThanOrEqual(2_000);
    // A budget further out cuts with its own settings: its 'error' mode holds for a result over both.
    const strict = new Toolset(greedy).use(outputBudget({ maxChars: 1_000, over: 'error' }));
    expect(await strict.invoke('greedy', {})).toMatchObject({ isError: true, error: { code: ErrorCode.ResultTooLarge } });
    // Past a boundary it cannot see (a Pipeline of the caller's), what it cut is still judged further out.
    const guarded = new Pipeline(outputBudget({ maxChars: 1_000, over: 'truncate' }));
    expect(resultText(await guarded.invoke(new Toolset(greedy), 'greedy', {})).length).toBeLessThanOrEqual(1_000);
    expect(() => outputBudget({ onlyLower: 'yes' as unknown as boolean })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });

  it('never splits a surrogate pair, and checks its options where they are given', async () => {
    const emoji = tool(() => '😀'.repeat(10_000), { name: 'emoji', description: 'Emoji.', parameters });
    const toolset = new Toolset(emoji, new ReadToolOutput({ maxChars: 999 })).use(outputBudget({ maxChars: 2_001 }));
    const context = new ExecutionContext();
    const result = await toolset.invoke('emoji', {}, context);
    const [head, , tail] = texts(result);
    expect(head!.length % 2).toBe(0);
    expect(tail!.length % 2).toBe(0);
    expect((await pageBack(toolset, context, handleOf(result))).text).toBe('😀'.repeat(10_000));

    expect(() => outputBudget({ maxChars: 0 })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
    expect(() => outputBudget({ maxChars: 10, maxTokens: 10 })).toThrow(expect.objectContaining({ code: ErrorCode.ConflictingOptions }));
    expect(() => outputBudget({ tools: { x: { maxTokens: -1 } } })).toThrow(/tools\.x: maxTokens must be a whole number/);
    expect(() => outputBudget({ store: { maxBytes: 1 } })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidOptions }));
  });
});
