// Code mode: the model writes one program against the tools' typed API, and the program
// runs in a sandbox, calling a local tool and an MCP server's tool through the agent.
//   node examples/dist/code-mode/main.js
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Toolset, resultText } from '@anytool/core';
import { Agent, ScriptedModel, latestToolResults } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { PROGRAM, QUESTION, answer } from './task.js';
import { listCustomers, outbox, sendEmail } from './tools.js';

const here = dirname(fileURLToPath(import.meta.url));
// Trusted: its read-only annotation is believed, so reading invoices needs no approval.
const billing = await McpToolset.connect(
  { mcpServers: { billing: { command: process.execPath, args: [join(here, 'billing-server.js')], trusted: true } } },
  { prefix: true },
);
try {
  const toolset = new Toolset(listCustomers, sendEmail, billing);
  console.log('The typed API the model programs against:\n');
  console.log(toolset.codeApi().declarations);

  // A scripted model stands in for a real one: it writes the program, then answers from its result.
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'run_code', arguments: { code: PROGRAM } }] },
    (request) => ({ text: answer(JSON.parse(resultText(latestToolResults(request)[0]!.result!)) as string[]) }),
  ]);
  const agent = new Agent({ model, tools: toolset, codeMode: true });
  const result = await agent.run(QUESTION);
  const calls = result.context.events.filter((e) => e.type === 'tool_call').map((e) => (e.type === 'tool_call' ? e.tool : ''));
  console.log(`The model made 1 tool call; its program made ${calls.length - 1}: ${calls.slice(1).join(', ')}.`);
  console.log(`Outbox: ${outbox.length} emails.\n`);
  console.log(result.text);
} finally {
  await billing.close();
}
