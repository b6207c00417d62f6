import { fileURLToPath } from 'node:url';
import { Toolset } from '@anytool/core';
import { Agent, type Model } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { Calculator } from './calculator.js';

/** The agent's tools: the Calculator's methods, and the tools of the units MCP server (prefixed `units_`). */
export async function startAgent(model: Model): Promise<{ agent: Agent; close: () => Promise<void> }> {
  const server = fileURLToPath(new URL('./units-server.js', import.meta.url));
  // Trusted: a server of this project's own, so its tools run without asking (an untrusted server's tools need an
  // `approve` callback on the Agent).
  const units = await McpToolset.connect({ mcpServers: { units: { command: process.execPath, args: [server] } } }, { prefix: true, trusted: true });
  const agent = new Agent({
    model,
    tools: new Toolset(new Calculator(), units),
    instructions: 'Use the tools for every number; never guess.',
    maxSteps: 8,
  });
  return { agent, close: () => units.close() };
}
