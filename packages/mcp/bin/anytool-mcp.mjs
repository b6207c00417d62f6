#!/usr/bin/env node
// The `anytool-mcp` command: `anytool-mcp serve <module.js>` serves a module's tools over MCP.
// See `anytool-mcp --help`. Named apart from the `anytool` command of @anytool/schema, so both
// can be installed together.
import { createRequire } from 'node:module';
import { mcpMain } from '../dist/esm/internal.js';

const require = createRequire(import.meta.url);
process.exitCode = await mcpMain(process.argv.slice(2), undefined, { version: require('../package.json').version });
