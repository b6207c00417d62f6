import { BaseTool, ExecutionContext, Tool, tool } from '@anytool/core';

/** 1. A plain function. */
export const calculator = tool(
  function calculator({ expression }: { expression: string }): number {
    if (!/^[\d\s+\-*/().]+$/.test(expression)) throw new Error(`only numbers and + - * / ( ) are allowed, got ${JSON.stringify(expression)}`);
    return Function(`"use strict"; return (${expression});`)() as number;
  },
  {
    description: 'Calculate a math expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string', description: 'For example "1234 * 5678"' } }, required: ['expression'] },
  },
);

/** 2. A function whose name and description are overridden. */
export const webSearch = tool(
  function searchWeb({ query, maxResults = 3 }: { query: string; maxResults?: number }): string[] {
    return Array.from({ length: maxResults }, (_, i) => `result ${i + 1} for "${query}"`);
  },
  {
    name: 'web_search',
    description: 'Search the internet for information.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, maxResults: { type: 'integer', minimum: 1, maximum: 10, default: 3 } }, required: ['query'] },
  },
);

/** 3. A hand-written BaseTool subclass. */
export class Clock extends BaseTool<{ timeZone?: string }> {
  constructor() {
    super({ description: 'The current date and time in a time zone.', parameters: { type: 'object', properties: { timeZone: { type: 'string', default: 'UTC' } } }, annotations: { readOnly: true } });
  }

  execute(_context: ExecutionContext, { timeZone = 'UTC' }: { timeZone?: string }): string {
    return new Date().toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
  }
}

/** 4. A class whose methods are tools; this one uses the run's context. */
export class Notes {
  @Tool({
    description: 'Save a note for the rest of the run.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    context: true,
  })
  save({ text }: { text: string }, context: ExecutionContext): string {
    const notes = (context.state.get('notes') as string[] | undefined) ?? [];
    context.state.set('notes', [...notes, text]);
    return `saved note #${notes.length + 1}`;
  }

  @Tool({ description: 'Count the tool calls made so far in this run.', parameters: { type: 'object', properties: {} }, context: true })
  history(_args: object, context: ExecutionContext): string {
    return `${context.events.filter((e) => e.type === 'tool_call').length} tool calls so far`;
  }
}
