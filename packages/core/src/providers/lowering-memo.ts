import type { ToolDefinition } from '../tool-definition.js';
import { lowerDefinitions, type DefinitionFormat, type FormatOptions, type FormatTool } from './index.js';

/**
 * The tools of the last lowering of a list of definitions, kept while the next list holds the same
 * definition objects in the same order: an agent lowers its tools every model turn, and
 * between turns they rarely change. The tools are frozen and shared, each call gets an array
 * of its own (copy a tool to add a field of your own). A model request sends no notes: they are
 * not kept (a strict format's notes can outnumber the tools several times).
 */
export class LoweringMemo {
  private last: { key: string; from: readonly ToolDefinition[]; tools: readonly unknown[] } | undefined;

  tools<F extends DefinitionFormat>(format: F, definitions: readonly ToolDefinition[], options?: FormatOptions<F>): FormatTool<F>[] {
    const key = loweringKey(format, options);
    const last = this.last;
    if (key !== undefined && last !== undefined && last.key === key && sameItems(last.from, definitions)) return [...last.tools] as FormatTool<F>[];
    const { tools } = lowerDefinitions(format, definitions, options);
    if (key === undefined) return tools;
    deepFreeze(tools);
    this.last = { key, from: [...definitions], tools };
    return [...tools];
  }
}

/**
 * The key of a format and its options in a lowering cache; undefined (no caching) for
 * options that are not plain JSON data, which the lowering would read some other way.
 */
export function loweringKey(format: string, options: unknown): string | undefined {
  if (typeof format !== 'string') return undefined;
  if (options === undefined) return format;
  try {
    const text = JSON.stringify(options);
    return typeof text === 'string' ? `${format} ${text}` : undefined;
  } catch {
    return undefined;
  }
}

/** Freezes `value` and everything it holds: lowered definitions are shared by every caller. */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
