#!/usr/bin/env node
// The `anytool-mcp` command: `anytool-mcp serve <module.js>` serves a module's tools over MCP.
// See `anytool-mcp --help`. Named apart from the `anytool` command of @anytool/schema, so both
// can be installed together.
import module, { createRequire } from 'node:module';

// Node 22.1 and later keep the compiled code of the modules a process loads on disk (as tsc does): a server started
// again (a stdio server per client, an instance of a rolling deploy) reads the SDK's, zod's and anytool's code compiled
// instead of compiling it. Quiet where it is not available (Node 20) or turned off (NODE_DISABLE_COMPILE_CACHE=1).
// Enabled before anything else loads, so it covers all of it.
module.enableCompileCache?.();
const { mcpMain } = await import('../dist/bundle/internal.js');
const require = createRequire(import.meta.url);
process.exitCode = await mcpMain(process.argv.slice(2), undefined, { version: require('../package.json').version });
