// The seed design's examples, in TypeScript, all called through toolset.invoke the same way.
import { BaseTool, ExecutionContext, Tool, Toolset, tool, type ToolResult } from '@anytool/core';

function calculatorFn({ expression }: { expression: string }): number {
  if (!/^[\d\s+\-*/().]+$/.test(expression)) throw new Error(`unsupported expression ${JSON.stringify(expression)}`);
  return Function(`"use strict"; return (${expression});`)() as number;
}

const calculator = tool(
  function calculator(args: { expression: string }) {
    return calculatorFn(args);
  },
  {
    description: 'Calculate mathematical expressions.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
);

const searchWeb = tool(
  async function search_web({ query, max_results = 3 }: { query: string; max_results?: number }) {
    return Array.from({ length: max_results }, (_, i) => `${query} #${i + 1}`);
  },
  {
    name: 'web_search',
    description: 'Search the internet for information',
    parameters: { type: 'object', properties: { query: { type: 'string' }, max_results: { type: 'integer', default: 3 } }, required: ['query'] },
  },
);

const reportProgress = tool(
  function report_progress({ step }: { step: string }, context: ExecutionContext) {
    const steps = (context.state.get('steps') as string[] | undefined) ?? [];
    context.state.set('steps', [...steps, step]);
    const calls = context.events.filter((e) => e.type === 'tool_call').map((e) => (e.type === 'tool_call' ? e.tool : ''));
    return { steps: steps.length + 1, callsSoFar: calls };
  },
  {
    description: 'Record a step of progress in the run state.',
    parameters: { type: 'object', properties: { step: { type: 'string' } }, required: ['step'] },
    context: { state: { read: ['steps'], write: ['steps'] }, events: 'read' },
  },
);

class ReadTickets extends BaseTool<{ quarter: string }> {
  constructor() {
    super({
      description: 'Read the support tickets of a quarter.',
      parameters: { type: 'object', properties: { quarter: { type: 'string', enum: ['Q1', 'Q2', 'Q3', 'Q4'] } }, required: ['quarter'] },
    });
  }

  async execute(_context: ExecutionContext, { quarter }: { quarter: string }): Promise<string[]> {
    return [`${quarter}-1`, `${quarter}-2`];
  }
}

class Inventory {
  private readonly stock = new Map([['apples', 3]]);

  @Tool({ description: 'How many of an item are in stock.', parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } })
  count({ item }: { item: string }): number {
    return this.stock.get(item) ?? 0;
  }
}

describe('the seed design in TypeScript', () => {
  const toolset = new Toolset(calculator, searchWeb, reportProgress, new ReadTickets(), new Inventory());

  it('holds the five tools with their names and descriptions', () => {
    expect(toolset.names).toEqual(['calculator', 'web_search', 'report_progress', 'ReadTickets', 'count']);
    expect(toolset.get('web_search')!.description).toBe('Search the internet for information');
    expect(toolset.get('calculator')!.source).toBe('function calculator');
    expect(toolset.get('ReadTickets')!.source).toBe('class ReadTickets');
    expect(toolset.get('count')!.source).toBe('Inventory.count');
  });

  it('calls every tool the same way', async () => {
    const context = new ExecutionContext();
    const calls: Array<[string, object, Partial<ToolResult>]> = [
      ['calculator', { expression: '1234 * 5678' }, { structured: 7006652 }],
      ['web_search', { query: 'python tutorials', max_results: 2 }, { structured: ['python tutorials #1', 'python tutorials #2'] }],
      ['report_progress', { step: 'searched' }, { structured: { steps: 1, callsSoFar: ['calculator', 'web_search', 'report_progress'] } }],
      ['ReadTickets', { quarter: 'Q3' }, { structured: ['Q3-1', 'Q3-2'] }],
      ['count', { item: 'apples' }, { structured: 3 }],
    ];
    for (const [name, args, expected] of calls) {
      const result = await toolset.invoke(name, args, context);
      expect(result).toMatchObject({ isError: false, ...expected });
    }
    expect(context.state.get('steps')).toEqual(['searched']);
    const kinds = context.events.map((e) => `${e.type}:${'tool' in e ? e.tool : ''}`);
    expect(kinds).toEqual(calls.flatMap(([name]) => [`tool_call:${name}`, `tool_result:${name}`]));
    for (let i = 1; i < context.events.length; i++) expect(context.events[i]!.time).toBeGreaterThanOrEqual(context.events[i - 1]!.time);
  });

  it('fills schema defaults for tools that take the arguments object', async () => {
    const result = await toolset.invoke('web_search', { query: 'x' });
    expect(result.structured).toEqual(['x #1', 'x #2', 'x #3']);
  });

  it('passes the context only to functions that asked for it', async () => {
    const seen: unknown[][] = [];
    const plain = tool((...args: unknown[]) => void seen.push(args), {
      name: 'plain',
      description: 'Records its arguments.',
      parameters: { type: 'object', properties: {} },
    });
    await new Toolset(plain).invoke('plain', {}, new ExecutionContext());
    expect(seen).toEqual([[{}]]);
  });
});
