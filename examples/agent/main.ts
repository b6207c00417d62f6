// The main demo: an agent with local @Tool tools and the tools of a real MCP
// server from npm (started as a child process over stdio), answering a question
// that needs several tool calls, printing the transcript as it runs. With no API
// key it runs on the ScriptedModel; ANYTOOL_MODEL=openai-responses|anthropic|gemini|openai
// with its key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) picks a real model,
// with the provider's built-in web search next to the local and MCP tools.
import { createRequire } from 'node:module';
import { AnytoolError, ExecutionContext, Toolset, builtin, type BuiltinTool } from '@anytool/core';
import { Agent, ScriptedModel, type ApprovalRequest, type Model } from '@anytool/agent';
import { McpToolset } from '@anytool/mcp';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { printForecasterDemo } from './researcher.js';
import { QUESTION, scriptedTravelModel } from './script.js';
import { TravelDesk } from './tools.js';
import { printSpanTree } from './trace-tree.js';
import { printTranscript } from './transcript.js';
import { printTripPlan } from './trip-plan.js';

const INSTRUCTIONS = 'You are a travel assistant. Use the tools for every fact and number; never guess. Answer in two or three sentences.';

/** The model to run on, and the built-in web search of its provider (none on Chat Completions). */
interface Choice {
  model: Model;
  banner: string;
  webSearch: BuiltinTool | undefined;
}

const ADAPTERS = ['openai-responses', 'anthropic', 'gemini', 'openai'];

/** ANYTOOL_MODEL names the adapter; without it, the first key found picks one. */
async function chooseModel(sumTool: string): Promise<Choice> {
  const env = process.env;
  const chosen =
    env['ANYTOOL_MODEL'] ??
    (env['OPENAI_API_KEY'] || env['OPENAI_BASE_URL'] ? 'openai' : env['ANTHROPIC_API_KEY'] ? 'anthropic' : env['GEMINI_API_KEY'] ? 'gemini' : undefined);
  if (chosen !== undefined && !ADAPTERS.includes(chosen)) throw new Error(`ANYTOOL_MODEL=${chosen}: use one of ${ADAPTERS.join(', ')}`);
  if (chosen === 'openai') {
    const { OpenAIModel } = await import('@anytool/agent/openai');
    const model = new OpenAIModel({
      model: env['OPENAI_MODEL'] ?? 'gpt-4.1-mini',
      apiKey: env['OPENAI_API_KEY'] || 'unused-by-local-servers',
      ...(env['OPENAI_BASE_URL'] ? { baseURL: env['OPENAI_BASE_URL'] } : {}),
    });
    return {
      model,
      webSearch: undefined,
      banner: `anytool demo on ${model.name}${env['OPENAI_BASE_URL'] ? ` at ${env['OPENAI_BASE_URL']}` : ''} (set OPENAI_MODEL to change the model)`,
    };
  }
  if (chosen === 'openai-responses') {
    const { OpenAIResponsesModel } = await import('@anytool/agent/openai-responses');
    const model = new OpenAIResponsesModel({
      model: env['OPENAI_MODEL'] ?? 'gpt-5-mini',
      ...(env['OPENAI_BASE_URL'] ? { baseURL: env['OPENAI_BASE_URL'] } : {}),
    });
    return { model, webSearch: builtin.openai.webSearch(), banner: `anytool demo on ${model.name} (set OPENAI_MODEL to change the model)` };
  }
  if (chosen === 'anthropic') {
    const { AnthropicModel } = await import('@anytool/agent/anthropic');
    const model = new AnthropicModel({ model: env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5' });
    return {
      model,
      webSearch: builtin.anthropic.webSearch({ max_uses: 2 }),
      banner: `anytool demo on ${model.name} (set ANTHROPIC_MODEL to change the model)`,
    };
  }
  if (chosen === 'gemini') {
    const { GeminiModel } = await import('@anytool/agent/gemini');
    const model = new GeminiModel({ model: env['GEMINI_MODEL'] ?? 'gemini-2.5-flash' });
    return { model, webSearch: builtin.gemini.googleSearch(), banner: `anytool demo on ${model.name} (set GEMINI_MODEL to change the model)` };
  }
  const webSearch = builtin.openai.webSearch();
  return {
    model: scriptedTravelModel(sumTool, webSearch.name),
    webSearch,
    banner:
      'anytool demo on the ScriptedModel: no OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or GEMINI_API_KEY is set, so the model turns are replayed offline (the tools are real; the built-in web search is replayed as its provider would report it).',
  };
}

/** The demo's approval policy: holds of up to three nights are fine. A real app would ask the user. */
function approve({ tool, args }: ApprovalRequest): boolean {
  const nights = typeof args === 'object' && args !== null ? (args as { nights?: unknown }).nights : undefined;
  const approved = typeof nights === 'number' && nights <= 3;
  console.log(`             approval for ${tool.name} ${JSON.stringify(args)}: ${approved ? 'approved' : 'refused'} (demo policy: holds of up to 3 nights)`);
  return approved;
}

const { model, banner, webSearch } = await chooseModel('everything_get-sum');
console.log(banner);

// The reference MCP server from npm, as a child process spoken to over stdio.
const serverEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
// The run is traced with OpenTelemetry; an in-memory exporter keeps the spans to print their tree at the end.
// An application registers its own SDK and exporter instead (docs/observability.md).
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
// The MCP calls are traced too (a tools/call span under each tool call, its trace context sent to the server).
const mcp = await McpToolset.connect(
  { mcpServers: { everything: { command: process.execPath, args: [serverEntry, 'stdio'] } } },
  // Trusted: its tools' annotations decide approval; an untrusted server's tools would all be asked about (docs/approval.md).
  { prefix: true, trusted: true, telemetry: { tracerProvider } },
);
// The server has a dozen demo tools; this agent gets two of them next to its local ones.
// The provider's own web search sits next to them; its provider runs it.
const toolset = new Toolset(
  new TravelDesk(),
  mcp.tools.filter((t) => t.name === 'everything_get-sum' || t.name === 'everything_echo'),
  webSearch === undefined ? [] : [webSearch],
);
console.log(`tools: ${toolset.tools.map((t) => `${t.name} [${t.source}]`).join(', ')}\n`);

const agent = new Agent({
  model,
  tools: toolset,
  instructions: INSTRUCTIONS,
  maxSteps: 10,
  timeoutMs: 120_000,
  approve,
  name: 'travel-desk',
  tracing: { tracerProvider },
});
const context = new ExecutionContext();
const stop = printTranscript(context, toolset);
const started = performance.now();
try {
  const result = await agent.run(QUESTION, { context });
  const calls = context.events.filter((e) => e.type === 'tool_call').length;
  console.log(`\nanswer: ${result.text}`);
  console.log(
    `\nstopped: ${result.stopReason} after ${result.steps} model turn(s) and ${calls} tool call(s); ` +
      `tokens ${result.usage.inputTokens} in / ${result.usage.outputTokens} out; ${(performance.now() - started).toFixed(0)} ms`,
  );
  console.log('');
  printSpanTree(spans.getFinishedSpans());
  if (result.stopReason === 'final_answer') await printTripPlan(model, toolset, result.messages);
  if (result.stopReason !== 'final_answer') process.exitCode = 1;
} catch (error) {
  // A model call that failed after the client's retries (MODEL_FAILED): say so plainly.
  const code = error instanceof AnytoolError ? `${error.code}: ` : '';
  console.error(`\nthe run failed: ${code}${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  stop();
  await mcp.close();
}
// Offline only: a scripted lead agent and its forecaster agent, used as a tool (examples/agent/researcher.ts).
if (process.exitCode === undefined && model instanceof ScriptedModel) await printForecasterDemo(undefined, toolset);
