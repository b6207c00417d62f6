// An MCP server over stdio, serving the Units tools. main.ts starts it as a child process, as it would any MCP
// server (from npm, or one of your own): `McpToolset.connect` gives its tools to the agent like local ones.
import { serveMcp } from '@anytool/mcp';
import { Units } from './units.js';

await serveMcp(new Units(), { transport: 'stdio', handleSignals: true });
