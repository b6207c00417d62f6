// What `anytool serve examples/dist/mcp-server/tools.js` serves: every export
// that holds tools (here two instances of classes with @Tool methods).
import { ConformanceTools } from './conformance-tools.js';
import { DemoTools } from './demo-tools.js';

export const conformanceTools = new ConformanceTools();
export const demoTools = new DemoTools();
