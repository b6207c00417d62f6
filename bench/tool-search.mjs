// Tool search: what the tool definitions of 300 MCP tools (six services, 50 tools each, each service
// its own MCP server over stdio) cost a model request in each format, sent eagerly against deferred
// (`toolset.defer(mcp)`). Counted with the o200k_base tokenizer (gpt-tokenizer, offline): exact for
// OpenAI's current models, an estimate for Anthropic's and Gemini's, whose tokenizers are not public;
// characters / 4 beside it. The counts are of the tools array as the agent sends it, serialized as JSON.
//
// Anthropic and the OpenAI Responses API defer natively: the request still carries every definition
// (marked `defer_loading`), but only the others and the provider's search tool enter the model's
// context; a found tool is loaded by the provider. Elsewhere the agent's portable search tool loads
// it, appended to the next request.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Toolset, lowerDefinitions, tool } from '@anytool/core';
import { Agent, ScriptedModel } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
// o200k_base, the main encoding of gpt-tokenizer.
import { countTokens } from 'gpt-tokenizer';

const fixtures = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'test', 'e2e', 'fixtures');
const SERVICES = ['github', 'jira', 'slack', 'calendar', 'crm', 'drive'];
const FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];
const NATIVE = new Set(['openai-responses', 'anthropic']);

const clock = tool(() => new Date().toISOString(), {
  name: 'current_time',
  description: 'The current date and time (UTC).',
  parameters: { type: 'object', properties: {} },
});

const started = Date.now();
const mcp = await McpToolset.connect({
  mcpServers: Object.fromEntries(SERVICES.map((s) => [s, { command: process.execPath, args: [join(fixtures, 'catalog-server.mjs'), s] }])),
});
console.log(`${mcp.tools.length} tools from ${SERVICES.length} MCP servers (stdio), connected in ${Date.now() - started} ms\n`);

/** The neutral definitions of each request of a run that searches once and calls what it found. */
async function requests(native) {
  const scripted = new ScriptedModel([
    { toolCalls: [{ id: 's1', name: 'search_tools', arguments: { query: 'create jira ticket', limit: 1 } }] },
    { toolCalls: [{ id: 'c1', name: 'jira_create_ticket', arguments: { project_key: 'OPS', summary: 'Rotate the certificate' } }] },
    { text: 'done' },
  ]);
  const model = native ? { name: 'native', nativeToolSearch: true, generate: (r) => scripted.generate(r) } : scripted;
  await new Agent({ model, tools: new Toolset(clock).defer(mcp) }).run('File a ticket.');
  return scripted.requests.map((r) => r.tools);
}

const count = (tools) => ({ tokens: countTokens(JSON.stringify(tools)), quarter: Math.round(JSON.stringify(tools).length / 4) });
const inContext = (tools) => tools.filter((t) => t.defer_loading !== true);
const eagerDefinitions = new Toolset(clock, mcp).neutralDefinitions();
const portable = await requests(false);
const native = await requests(true);

const rows = [];
for (const format of FORMATS) {
  const eager = count(lowerDefinitions(format, eagerDefinitions).tools);
  const turns = (NATIVE.has(format) ? native : portable).map((tools) => lowerDefinitions(format, tools).tools);
  const first = count(inContext(turns[0]));
  const wire = count(turns[0]);
  const loaded = count(inContext(turns[1]));
  rows.push({
    format: NATIVE.has(format) ? `${format} (native)` : `${format} (portable)`,
    'eager tokens': eager.tokens,
    'eager chars/4': eager.quarter,
    'deferred 1st request tokens': first.tokens,
    'chars/4': first.quarter,
    'share of eager': `${((100 * first.tokens) / eager.tokens).toFixed(1)}%`,
    'after loading 1 tool': NATIVE.has(format) ? `${first.tokens} + the tool (loaded by the provider)` : loaded.tokens,
    'request body (wire)': wire.tokens,
  });
}
console.table(rows);
console.log(
  '\nTokens of the tools array as JSON, o200k_base (exact for OpenAI, an estimate for the others). Native formats send every definition on the wire;\n' +
    'the provider keeps deferred ones out of the context until its search loads them. "after loading 1 tool": the next request of a run that found one.',
);
await mcp.close();
