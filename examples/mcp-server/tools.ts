// What `anytool serve examples/dist/mcp-server/tools.js` serves: every export that holds
// tools — here two instances of classes with @Tool methods and a function tool.
import { tool } from '@anytool/core';
import { ConformanceTools } from './conformance-tools.js';
import { DemoTools } from './demo-tools.js';

export const conformanceTools = new ConformanceTools();
export const demoTools = new DemoTools();

/** Say something back. */
export const echo = tool(function echo(text: string): string {
  return text;
});
