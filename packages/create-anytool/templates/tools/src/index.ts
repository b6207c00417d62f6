// A library of tools: import them into any agent (`new Agent({ tools: textTools })`), serve them over MCP
// (`npx anytool-mcp serve dist/index.js` with @anytool/mcp and @modelcontextprotocol/server installed), or give
// their definitions to any provider (`textTools.definitions('openai')`).
import { Tool, Toolset, tool } from '@anytool/core';

export class TextTools {
  /**
   * Count the words of a text.
   * @param text The text
   */
  @Tool({ annotations: { readOnly: true } })
  countWords(text: string): number {
    return text.split(/\s+/).filter((word) => word !== '').length;
  }

  /**
   * Make a URL slug from a title: lower case, words joined by hyphens.
   * @param title The title
   * @param maxLength The longest slug wanted
   */
  @Tool({ annotations: { readOnly: true } })
  slugify(title: string, maxLength = 60): string {
    const slug = title
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    return slug.slice(0, maxLength).replace(/-+$/, '');
  }
}

/**
 * Repeat a text a number of times, joined by spaces.
 * @param times How many times, 1 to 10
 */
export const repeat = tool((text: string, times: number): string => {
  if (!Number.isInteger(times) || times < 1 || times > 10) throw new RangeError('times must be a whole number from 1 to 10');
  return Array.from({ length: times }, () => text).join(' ');
});

/** Every tool of the library. */
export const textTools = new Toolset(new TextTools(), repeat);
