// The four ways to write a tool. None of them writes a JSON Schema: `anytool build`
// (see docs/build-setup.md) reads the parameter types and JSDoc and passes the schema in.
import { BaseTool, type ExecutionContext, Tool, tool } from '@anytool/core';

// 1. A plain function: its JSDoc is the description, its parameters are the arguments.
export const calculator = tool(
  /**
   * Calculate a math expression.
   * @param expression For example "1234 * 5678"
   */
  function calculator(expression: string): number {
    if (!/^[\d\s+\-*/().]+$/.test(expression)) throw new Error(`only numbers and + - * / ( ) are allowed, got ${JSON.stringify(expression)}`);
    return Function(`"use strict"; return (${expression});`)() as number;
  },
);

/** The arguments of web_search. */
export interface SearchArgs {
  /** What to look for. */
  query: string;
  /**
   * How many results to return.
   * @minimum 1
   * @maximum 10
   */
  maxResults?: number;
}

// 2. A function whose name and description are given: one destructured parameter becomes the arguments object.
export const webSearch = tool(
  function searchWeb({ query, maxResults = 3 }: SearchArgs): string[] {
    return Array.from({ length: maxResults }, (_, i) => `result ${i + 1} for "${query}"`);
  },
  { name: 'web_search', description: 'Search the internet for information.' },
);

/** The arguments of Clock. */
export interface ClockArgs {
  /**
   * An IANA time zone, for example "Europe/Oslo".
   * @default "UTC"
   */
  timeZone?: string;
}

/** The current date and time in a time zone. */
export class Clock extends BaseTool<ClockArgs> {
  // 3. A hand-written BaseTool subclass: the schema comes from BaseTool<ClockArgs>, the description from the JSDoc above.
  constructor() {
    super({ annotations: { readOnly: true } });
  }

  execute(_context: ExecutionContext, { timeZone = 'UTC' }: ClockArgs): string {
    return new Date().toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
  }
}

// 4. A class whose methods are tools; a parameter typed ExecutionContext receives the run's context.
export class Notes {
  /**
   * Save a note for the rest of the run.
   * @param text The note
   */
  @Tool()
  save(text: string, context: ExecutionContext): string {
    const notes = (context.state.get('notes') as string[] | undefined) ?? [];
    context.state.set('notes', [...notes, text]);
    return `saved note #${notes.length + 1}`;
  }

  /** Count the tool calls made so far in this run. */
  @Tool()
  history(context: ExecutionContext): string {
    return `${context.events.filter((e) => e.type === 'tool_call').length} tool calls so far`;
  }
}
