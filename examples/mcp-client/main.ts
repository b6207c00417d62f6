// A small MCP client built on @anytool/mcp: connects to one server, lists its tools and
// calls each one through a Toolset, exactly as an agent would.
//
//   node examples/dist/mcp-client/main.js <server-url>              a streamable HTTP (or HTTP+SSE) server
//   node examples/dist/mcp-client/main.js <command> [args...]       a stdio server, e.g. `npx -y @modelcontextprotocol/server-everything`
//
// The MCP conformance suite runs it with the test server's URL as the last argument.
import { ExecutionContext, Toolset, resultText, type JsonSchema } from '@anytool/core';
import { McpToolset, type McpServerConfig } from '@anytool/mcp';

/** Arguments that satisfy a simple schema: the model's job in a real agent. */
function sampleArguments(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const args: Record<string, unknown> = {};
  let n = 0;
  for (const [name, property] of Object.entries(properties)) {
    if (!required.has(name) && property['default'] !== undefined) continue;
    const type = property['type'];
    if (Array.isArray(property['enum'])) args[name] = property['enum'][0];
    else if (type === 'number' || type === 'integer') args[name] = [5, 3][n++ % 2];
    else if (type === 'boolean') args[name] = true;
    else if (type === 'string') args[name] = 'hello';
    else if (required.has(name)) args[name] = type === 'array' ? [] : {};
  }
  return args;
}

const argv = process.argv.slice(2);
if (argv.length === 0) {
  console.error('usage: main.js <server-url> | <command> [args...]');
  process.exit(2);
}
const server: McpServerConfig = argv.length === 1 && /^https?:\/\//.test(argv[0]!) ? { url: argv[0]! } : { command: argv[0]!, args: argv.slice(1) };

const mcp = await McpToolset.connect({ mcpServers: { server } }, { clientInfo: { name: 'anytool-example-client', version: '0.1.0' }, timeoutMs: 20_000 });
let failed = false;
try {
  const toolset = new Toolset(mcp);
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'];
  console.log(
    `connected to ${mcp.connection('server')?.serverInfo?.name ?? 'the server'}${scenario ? ` (scenario ${scenario})` : ''}; tools: ${toolset.names.join(', ') || 'none'}`,
  );
  const context = new ExecutionContext();
  for (const tool of toolset.tools) {
    const args = sampleArguments(tool.definition.parameters);
    const result = await toolset.invoke(tool.name, args, context);
    console.log(`${tool.name}(${JSON.stringify(args)}) -> ${result.isError ? 'error: ' : ''}${resultText(result)}`);
    // A tool may fail; a connection that breaks or a call that never settles is a client failure.
    if (result.error?.code === 'MCP_CONNECTION_CLOSED' || result.error?.code === 'MCP_CONNECT_FAILED' || result.error?.code === 'TIMEOUT') failed = true;
  }
} finally {
  await mcp.close();
}
process.exit(failed ? 1 : 0);
